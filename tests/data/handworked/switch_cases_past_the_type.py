# match on unsigned and narrow variables with cases past the top of the type: such a case
# never matches (compared in 64 bits of the variable's signedness), and is no mixing of
# signedness (the kernel wrote no `==` to convert).
# x = u32[4294967295, 0, 255, 256]
#   u32 v: case 4294967296 | 0 -> 2 (lane 1 via the 0) ; case 4294967295 -> 3 ;
#   case 8589934591 (never) ; _ -> 4
#   expect o = [3, 2, 4, 4]
#   u8 b = u8(v) = [255, 0, 255, 0]: case 256 | 511 (never: 511's low 8 bits are 255's) ;
#   case 255 -> 2 ; case 0 -> 3 ; _ -> 4
#   expect p = [2, 3, 2, 3]
#   u16 h = u16(v) = [65535, 0, 255, 256]: case 65536 | 256 -> 2 (lane 3) ; case 65535 -> 3 ;
#   case 18446744073709551615 (a u64 literal: never) ; _ -> 4
#   expect q = [3, 4, 4, 2]
#   i8 c = i8(v) = [-1, 0, -1, 0]: case 255 (never: an i8 is never 255) ; case -129 | -1 -> 2 ;
#   case 128 | 0 -> 3 (via the 0) ; _ -> 4
#   expect r = [2, 3, 2, 3]
# difftest: launch n=4 wave=4
# difftest: arg x = u32[4294967295, 0, 255, 256]
# difftest: arg o = i32[0] * 4
# difftest: arg p = i32[0] * 4
# difftest: arg q = i32[0] * 4
# difftest: arg r = i32[0] * 4
def k(x: Buffer[u32], o: Buffer[i32], p: Buffer[i32], q: Buffer[i32], r: Buffer[i32]):
    g = gid()
    v = x[g]
    match v:
        case 4294967296 | 0:
            o[g] = 2
        case 4294967295:
            o[g] = 3
        case 8589934591:
            o[g] = 1
        case _:
            o[g] = 4
    b = u8(v)
    match b:
        case 256 | 511:
            p[g] = 1
        case 255:
            p[g] = 2
        case 0:
            p[g] = 3
        case _:
            p[g] = 4
    h = u16(v)
    match h:
        case 65536 | 256:
            q[g] = 2
        case 65535:
            q[g] = 3
        case 18446744073709551615:
            q[g] = 1
        case _:
            q[g] = 4
    c = i8(v)
    match c:
        case 255:
            r[g] = 1
        case -129 | -1:
            r[g] = 2
        case 128 | 0:
            r[g] = 3
        case _:
            r[g] = 4
