# match on u8, i8 and u64 values (semantics "Multi-way branches": "each lane takes the
# first case its value matches and none where none does"; "A case value past the top or
# bottom of the variable's type (`case 4294967296:` of an i32, `case 256:` of a u8) never
# matches"; "A value in two cases is taken by the first"; a case's wave operations act on
# that case's lanes).
# Launch n=8, one wave of 8. b = u8[255, 0, 128, 1, 255, 0, 127, 3]
#   c = i8(b): -1, 0, -128, 1, -1, 0, 127, 3
#   q = u64[2^64-1, 0, 2^63, 1, 2^64-1, 5, 2^63, 3]
# Expected o (i32), lane g:
#  o[g]: match v=b: case 255 | 0 -> wave_sum(1) over lanes {0,1,4,5} = 4; case 256 never; case 128 | 255 -> (lane 2 only, 255 taken by first) 20 + wave_sum(1) = 21; case _ -> 7
#     [4, 4, 21, 7, 4, 4, 7, 7]
#  o[8+g]: match c: case -128 -> 1; case -1 | 127 -> 2; case 1 | 0 -> 3; case _ -> 4
#     c: -1 -> 2, 0 -> 3, -128 -> 1, 1 -> 3, -1 -> 2, 0 -> 3, 127 -> 2, 3 -> 4: [2, 3, 1, 3, 2, 3, 2, 4]
#  o[16+g]: match w=q: case 18446744073709551615 -> 1; case 9223372036854775808 -> 2 + wave_sum(1) (lanes 2, 6: 4); case 0 | 1 -> 3; case _ -> 5
#     [1, 3, 4, 3, 1, 5, 4, 5]
# difftest: launch n=8 wave=8
# difftest: arg b = u8[255, 0, 128, 1, 255, 0, 127, 3]
# difftest: arg q = u64[18446744073709551615, 0, 9223372036854775808, 1, 18446744073709551615, 5, 9223372036854775808, 3]
# difftest: arg o = i32[0] * 24
def k(b: Buffer[u8], q: Buffer[u64], o: Buffer[i32]):
    g = gid()
    v = b[g]
    match v:
        case 255 | 0:
            o[g] = wave_sum(1)
        case 256:
            o[g] = 99
        case 128 | 255:
            o[g] = 20 + wave_sum(1)
        case _:
            o[g] = 7
    c = i8(v)
    match c:
        case -128:
            o[8 + g] = 1
        case -1 | 127:
            o[8 + g] = 2
        case 1 | 0:
            o[8 + g] = 3
        case _:
            o[8 + g] = 4
    w = q[g]
    match w:
        case 18446744073709551615:
            o[16 + g] = 1
        case 9223372036854775808:
            o[16 + g] = 2 + wave_sum(1)
        case 0 | 1:
            o[16 + g] = 3
        case _:
            o[16 + g] = 5

# What the header derives, for tests/oracles/test_conformance.py (its docstring has the
# format; these lines come after the kernel, so its line numbers are the header's):
# expect: o = [4, 4, 21, 7, 4, 4, 7, 7] + [2, 3, 1, 3, 2, 3, 2, 4] + [1, 3, 4, 3, 1, 5, 4, 5]
