# match on u32 and i32 values near 2^31/2^32 (semantics "Multi-way branches": switch "on
# the variable as an i32 (a u32 by its bits)"; "A case value past the top or bottom of the
# variable's type (`case 4294967296:` of an i32 ...) never matches ... and gets no label
# (written in 32 bits it would be another value's)").
# Launch n=4, one wave of 4. x = u32[4294967295, 2147483648, 0, 2147483647]
# Expected o (i32), lane g:
#  o[g]: match v (u32): case 4294967295 -> 1; case 2147483648 -> 2; case 0 -> 3; case _ -> 4: [1, 2, 3, 4]
#  o[4+g]: s = i32(v): -1, -2147483648, 0, 2147483647; match s: case 4294967296 (never) -> 9;
#     case -1 -> 1; case 2147483647 | -2147483648 -> 2; case _ -> 4: [1, 2, 4, 2]
#     (s = 0 matches no case but the default: 4)
#  o[8+g]: l = i64(s); match l: case 4294967295 -> 7 (never: l is -1); case -1 -> 1; case _ -> 0: [1, 0, 0, 0]
# difftest: launch n=4 wave=4
# difftest: arg x = u32[4294967295, 2147483648, 0, 2147483647]
# difftest: arg o = i32[0] * 12
def k(x: Buffer[u32], o: Buffer[i32]):
    g = gid()
    v = x[g]
    match v:
        case 4294967295:
            o[g] = 1
        case 2147483648:
            o[g] = 2
        case 0:
            o[g] = 3
        case _:
            o[g] = 4
    s = i32(v)
    match s:
        case 4294967296:
            o[4 + g] = 9
        case -1:
            o[4 + g] = 1
        case 2147483647 | -2147483648:
            o[4 + g] = 2
        case _:
            o[4 + g] = 4
    l = i64(s)
    match l:
        case 4294967295:
            o[8 + g] = 7
        case -1:
            o[8 + g] = 1
        case _:
            o[8 + g] = 0

# What the header derives, for tests/oracles/test_conformance.py (its docstring has the
# format; these lines come after the kernel, so its line numbers are the header's):
# expect: o = [1, 2, 3, 4] + [1, 2, 4, 2] + [1, 0, 0, 0]
