# match on an i32 whose cases are i64 literals that no i32 equals (the `if` chain they mean
# compares in i64: never true), beside the i32 values they would wrap to.
# x = i32[-2147483648, -1, 0, 7]
#   case 2147483648 (never: an i32 is never 2^31) ; case 4294967295 (never) ; case -1 -> 2 ;
#   case -2147483648 -> 3 ; case 4294967296 | 0 -> 4 (0 matches via the 0) ; case _ -> 5
#   expect o = [3, 2, 4, 5]
# i8: y = i8(x) = [0, -1, 0, 7]: case 255 (i32 literal, never: i8 widens to i32) ; case 256 | -1 -> 6 ; case 7 -> 7 ; _ -> 8
#   expect p = [8, 6, 8, 7]
# difftest: launch n=4 wave=4
# difftest: arg x = i32[-2147483648, -1, 0, 7]
# difftest: arg o = i32[0] * 4
# difftest: arg p = i32[0] * 4
def k(x: Buffer[i32], o: Buffer[i32], p: Buffer[i32]):
    g = gid()
    v = x[g]
    match v:
        case 2147483648:
            o[g] = 1
        case 4294967295:
            o[g] = 1
        case -1:
            o[g] = 2
        case -2147483648:
            o[g] = 3
        case 4294967296 | 0:
            o[g] = 4
        case _:
            o[g] = 5
    y = i8(v)
    match y:
        case 255:
            p[g] = 1
        case 256 | -1:
            p[g] = 6
        case 7:
            p[g] = 7
        case _:
            p[g] = 8
