# match on u32 with cases past 2^31 (a translation switches on the u32's bits as i32),
# on u64 (the if chain), on i8 with negative cases; wave ops inside the cases.
# n = 8, wave 8. x = u32[4294967295, 2147483648, 0, 4294967295, 1, 2147483648, 7, 2]
#   case 4294967295 (lanes 0, 3): o = wave_sum(1) = 2 ; case 2147483648 | 0 (lanes 1, 2, 5): o = 10 + wave_sum(1) = 13
#   case 1 (lane 4): o = 100 ; case _ (6, 7): o = 1000 + wave_sum(1) = 1002
#   expect o = [2, 13, 13, 2, 100, 13, 1002, 1002]
# y = u64(x) << 32 | u64(g) : cases on the u64 literal 18446744069414584320 = 0xFFFFFFFF00000000 (lane 0 only: g = 0),
#   18446744069414584323 (0xFFFFFFFF00000003: lane 3), _ : others
#   expect p = [1, 3, 3, 2, 3, 3, 3, 3]
# z = i8(x) : i8(4294967295) = -1 (lanes 0, 3); i8(2^31) = 0 (lanes 1, 5); 0 (2); 1 (4); 7 (6); 2 (7)
#   case -1: 5 ; case -128 | 0: 6 ; case 127: 7 ; case _: 8
#   expect q = [5, 6, 6, 5, 8, 6, 8, 8]
# difftest: launch n=8 wave=8
# difftest: arg x = u32[4294967295, 2147483648, 0, 4294967295, 1, 2147483648, 7, 2]
# difftest: arg o = i32[0] * 8
# difftest: arg p = i32[0] * 8
# difftest: arg q = i32[0] * 8
def k(x: Buffer[u32], o: Buffer[i32], p: Buffer[i32], q: Buffer[i32]):
    g = gid()
    v = x[g]
    match v:
        case 4294967295:
            o[g] = wave_sum(1)
        case 2147483648 | 0:
            o[g] = 10 + wave_sum(1)
        case 1:
            o[g] = 100
        case _:
            o[g] = 1000 + wave_sum(1)
    y = (u64(v) << 32) | u64(g)
    match y:
        case 18446744069414584320:
            p[g] = 1
        case 18446744069414584323:
            p[g] = 2
        case _:
            p[g] = 3
    z = i8(v)
    match z:
        case -1:
            q[g] = 5
        case -128 | 0:
            q[g] = 6
        case 127:
            q[g] = 7
        case _:
            q[g] = 8
