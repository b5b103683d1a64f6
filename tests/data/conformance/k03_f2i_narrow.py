# f32 and f64 -> narrow integer types at the limits (semantics "Integer types":
# "From f32: truncated toward zero; a NaN or a value whose truncation T cannot hold
# faults (`u8(-0.5)` is 0, `u8(-1.0)` faults)").
# Launch n=8, wave 4. x = f32[255.9, 256.0, -0.5, -128.9, -129.0, 127.99, 65535.5, inf]
# Lines 19/21/23/25: u8(x) for g in {0,1,2}; i8(x) for g in {3,4,5}; u16(x) for g 6, i16(x) for g 7.
# Expected:
#   g0 u8(255.9)=255; g1 u8(256.0) faults; g2 u8(-0.5)=0;
#   g3 i8(-128.9)=-128; g4 i8(-129.0) faults; g5 i8(127.99)=127;
#   g6 u16(65535.5)=65535; g7 i16(inf) faults.
#   o = [255, 0, 0, -128, 0, 127, 65535, 0]; faulted g1 g4 g7 (invalid_conversion).
# difftest: launch n=8 wave=4
# difftest: arg x = f32[255.9, 256.0, -0.5, -128.9, -129.0, 127.99, 65535.5, inf]
# difftest: arg o = i64[0] * 8
def k(x: Buffer[f32], o: Buffer[i64]):
    g = gid()
    v = x[g]
    r: i64 = 0
    if g < 3:
        r = i64(u8(v))
    elif g < 6:
        r = i64(i8(v))
    elif g == 6:
        r = i64(u16(v))
    else:
        r = i64(i16(v))
    o[g] = r

# What the header derives, for tests/oracles/test_conformance.py (its docstring has the
# format; these lines come after the kernel, so its line numbers are the header's):
# expect: o = [255, 0, 0, -128, 0, 127, 65535, 0]
# expect-fault: 1 invalid_conversion k:19
# expect-fault: 4 invalid_conversion k:21
# expect-fault: 7 invalid_conversion k:25
