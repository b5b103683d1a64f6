# match on a u32 with a case that is a u64 literal (past 2^63: it stays u64, the u32 widens
# to u64 for `==`): v == 18446744073709551615 is never true for a u32 and v == 9223372036854775813
# neither, so every lane takes `case _` except lane 2 (v = 5, its own case).
# x = u32[4294967295, 5, 5, 0]... lanes: 0: 4294967295 -> _ (9) ; 1: 5 -> _? no: `case 5` is listed after -> 3
#   case 18446744073709551615 -> 1 ; case 9223372036854775813 -> 2 ; case 5 -> 3 ; _ -> 9
#   (no `case 5` here: a switch that wraps the u64 labels to 32 bits takes lane 0 into case 1 and lanes 1, 2 into case 2)
#   expect o = [9, 9, 9, 9]
# difftest: launch n=4 wave=4
# difftest: arg x = u32[4294967295, 5, 5, 0]
# difftest: arg o = i32[0] * 4
def k(x: Buffer[u32], o: Buffer[i32]):
    g = gid()
    v = x[g]
    match v:
        case 18446744073709551615:
            o[g] = 1
        case 9223372036854775813:
            o[g] = 2
        case _:
            o[g] = 9
