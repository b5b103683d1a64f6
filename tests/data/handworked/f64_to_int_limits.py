# f64 -> every integer type at exactly the limits: truncate toward zero, fault
# (invalid_conversion) where the truncation does not fit, NaN/inf always.
# Lanes 4t..4t+3 convert to type t (match on t = g // 4), then u64(...) into out.
#  t0 i32: 2147483647.9999998 -> 2147483647; 2^31 F; -2147483648.9999995 -> -2^31; -2147483649.0 F
#  t1 u32: -0.9999999999999999 -> 0; 4294967295.9999995 -> 4294967295; 2^32 F; nan F
#  t2 i64: 9223372036854774784 ok; 2^63 F; -2^63 ok; next double below -2^63 F
#  t3 u64: 18446744073709549568 ok; 2^64 F; -0.0 -> 0; -1.0 F
#  t4 i8: 127.99999999999999 -> 127; 128 F; -128.99999999999997 -> -128; -129 F
#  t5 u8: 255.99999999999997 -> 255; 256 F; -0.9999999999999999 -> 0; inf F
#  t6 i16: 32767.999999999996 -> 32767; 32768 F; -32768.99999999999 -> -32768; -inf F
#  t7 u16: 65535.99999999999 -> 65535; 65536 F; 0.5 -> 0; -1.0 F
# out (u64 of the value, -1 where the lane faulted = untouched sentinel 7):
#   expect out = [2147483647, 7, 2**64-2**31, 7, 0, 4294967295, 7, 7, 9223372036854774784, 7, 2**64-2**63, 7, 18446744073709549568, 7, 0, 7, 127, 7, 2**64-128, 7, 255, 7, 0, 7, 32767, 7, 2**64-32768, 7, 65535, 7, 0, 7]
#   expect-status = "cfcfccffcfcfcfcfcfcfcfcfcfcfcfcf"
#   expect-faults = {1: "invalid_conversion", 3: "invalid_conversion", 6: "invalid_conversion", 7: "invalid_conversion", 9: "invalid_conversion", 11: "invalid_conversion", 13: "invalid_conversion", 15: "invalid_conversion", 17: "invalid_conversion", 19: "invalid_conversion", 21: "invalid_conversion", 23: "invalid_conversion", 25: "invalid_conversion", 27: "invalid_conversion", 29: "invalid_conversion", 31: "invalid_conversion"}
# difftest: launch n=32 wave=8
# difftest: arg x = f64[2147483647.9999998, 2147483648.0, -2147483648.9999995, -2147483649.0, -0.9999999999999999, 4294967295.9999995, 4294967296.0, nan, 9.223372036854775e+18, 9.223372036854776e+18, -9.223372036854776e+18, -9.223372036854778e+18, 1.844674407370955e+19, 1.8446744073709552e+19, -0.0, -1.0, 127.99999999999999, 128.0, -128.99999999999997, -129.0, 255.99999999999997, 256.0, -0.9999999999999999, inf, 32767.999999999996, 32768.0, -32768.99999999999, -inf, 65535.99999999999, 65536.0, 0.5, -1.0]
# difftest: arg out = u64[7] * 32
def k(x: Buffer[f64], out: Buffer[u64]):
    g = gid()
    t = g // 4
    v = x[g]
    match t:
        case 0:
            out[g] = u64(i32(v))
        case 1:
            out[g] = u64(u32(v))
        case 2:
            out[g] = u64(i64(v))
        case 3:
            out[g] = u64(v)
        case 4:
            out[g] = u64(i8(v))
        case 5:
            out[g] = u64(u8(v))
        case 6:
            out[g] = u64(i16(v))
        case _:
            out[g] = u64(u16(v))
