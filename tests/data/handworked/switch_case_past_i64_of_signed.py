# A case past every i64 of a signed variable is refused: C's switch would convert
# 18446744073709551615 to the i32 -1 and match it; the kernel must say which it means.
# difftest: launch n=4 wave=4
# difftest: arg x = i32[-1, 0, 1, 2]
# difftest: arg o = i32[0] * 4
def k(x: Buffer[i32], o: Buffer[i32]):
    g = gid()
    v = x[g]
    match v:
        case 18446744073709551615:
            o[g] = 1
        case _:
            o[g] = 2
