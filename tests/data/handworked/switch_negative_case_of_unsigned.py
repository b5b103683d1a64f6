# A negative case of an unsigned variable is refused: C's switch would convert -1 to the
# u8 255 and match it, the kernel language's `==` never would; the kernel must say which.
# difftest: launch n=4 wave=4
# difftest: arg x = u8[255, 0, 1, 2]
# difftest: arg o = i32[0] * 4
def k(x: Buffer[u8], o: Buffer[i32]):
    g = gid()
    v = x[g]
    match v:
        case 1:
            o[g] = 1
        case -1:
            o[g] = 2
