# match on an i32 with a case that is an i64 literal: `v == 2147483648` compares in i64
# and is never true, so lane 0 (v = MIN) takes `case _`; a switch that writes the case
# as an int label (2147483648 wrapped to MIN) takes lane 0 into case 1 -- a silent wrong value.
# x = i32[-2147483648, -1, 0, 7]; case 2147483648 -> 1 ; case 4294967295 -> 2 ; case 7 -> 3 ; _ -> 4
#   expect o = [4, 4, 4, 3]
# difftest: launch n=4 wave=4
# difftest: arg x = i32[-2147483648, -1, 0, 7]
# difftest: arg o = i32[0] * 4
def k(x: Buffer[i32], o: Buffer[i32]):
    g = gid()
    v = x[g]
    match v:
        case 2147483648:
            o[g] = 1
        case 4294967295:
            o[g] = 2
        case 7:
            o[g] = 3
        case _:
            o[g] = 4
