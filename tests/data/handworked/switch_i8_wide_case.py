# match on an i8 with cases that are i32 literals outside i8 (255, 384): never equal to an
# i8 value (the i8 widens to i32 for `==`).
# y = i8[-1, -128, 127, 0]; case 255 -> 1 ; case 384 -> 2 ; case -128 -> 3 ; _ -> 4
#   expect p = [4, 3, 4, 4]
# difftest: launch n=4 wave=4
# difftest: arg y = i8[-1, -128, 127, 0]
# difftest: arg p = i32[0] * 4
def k(y: Buffer[i8], p: Buffer[i32]):
    g = gid()
    v = y[g]
    match v:
        case 255:
            p[g] = 1
        case 384:
            p[g] = 2
        case -128:
            p[g] = 3
        case _:
            p[g] = 4
