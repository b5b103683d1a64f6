# f32 -> every integer type at exactly the limits: truncate toward zero, fault
# (invalid_conversion) where the truncation does not fit, NaN/inf always.
#  t0 i32: 2147483520 ok; 2^31 F; -2^31 ok; -2147483904 F
#  t1 u32: -0.99999994 -> 0; 4294967040 ok; 2^32 F; nan F
#  t2 i64: 2^63 - 2^39 ok; 2^63 F; -2^63 ok; -(2^63 + 2^40) F
#  t3 u64: 2^64 - 2^40 ok; 2^64 F; -0.0 -> 0; -1.0 F
#  t4 i8: 127.99999237060547 -> 127; 128 F; -128.99998474121094 -> -128; -129 F
#  t5 u8: 255.99998474121094 -> 255; 256 F; -0.99999994 -> 0; inf F
#  t6 i16: 32767.998046875 -> 32767; 32768 F; -32768.99609375 -> -32768; -inf F
#  t7 u16: 65535.99609375 -> 65535; 65536 F; 0.5 -> 0; -1.0 F
#   expect out = [2147483520, 7, 2**64-2**31, 7, 0, 4294967040, 7, 7, 2**63-2**39, 7, 2**63, 7, 2**64-2**40, 7, 0, 7, 127, 7, 2**64-128, 7, 255, 7, 0, 7, 32767, 7, 2**64-32768, 7, 65535, 7, 0, 7]
#   expect-status = "cfcfccffcfcfcfcfcfcfcfcfcfcfcfcf"
#   expect-faults = {1: "invalid_conversion", 3: "invalid_conversion", 6: "invalid_conversion", 7: "invalid_conversion", 9: "invalid_conversion", 11: "invalid_conversion", 13: "invalid_conversion", 15: "invalid_conversion", 17: "invalid_conversion", 19: "invalid_conversion", 21: "invalid_conversion", 23: "invalid_conversion", 25: "invalid_conversion", 27: "invalid_conversion", 29: "invalid_conversion", 31: "invalid_conversion"}
# difftest: launch n=32 wave=8
# difftest: arg x = f32[2147483520.0, 2147483648.0, -2147483648.0, -2147483904.0, -0.99999994, 4294967040.0, 4294967296.0, nan, 9223371487098961920.0, 9223372036854775808.0, -9223372036854775808.0, -9223373136366403584.0, 18446742974197923840.0, 18446744073709551616.0, -0.0, -1.0, 127.99999237060547, 128.0, -128.99998474121094, -129.0, 255.99998474121094, 256.0, -0.99999994, inf, 32767.998046875, 32768.0, -32768.99609375, -inf, 65535.99609375, 65536.0, 0.5, -1.0]
# difftest: arg out = u64[7] * 32
def k(x: Buffer[f32], out: Buffer[u64]):
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
