# Wave ops of u32/u64/i64 in divergent code (32/64 bit only, so WGSL runs it too).
# n = 8, wave 8. x = u32[2^32-1, 0, 2^31, 1, 7, 2^31+1, 3, 2^32-2]
# odd lanes (1,3,5,7): x = 0, 1, 2^31+1, 2^32-2 ; even lanes (0,2,4,6): 2^32-1, 2^31, 7, 3
#   odd:  min 0, max 2^32-2, sum = 0+1+2^31+1+2^32-2 = 2^32 + 2^31 -> 2^31
#   even: min 3, max 2^32-1, sum = 2^32-1+2^31+7+3 = 2^32+2^31+9 -> 2^31+9
#   o[g] = min, o[g+8] = max, o[g+16] = sum of the lane's arm
#   expect o = [3, 0, 3, 0, 3, 0, 3, 0, 2**32-1, 2**32-2, 2**32-1, 2**32-2, 2**32-1, 2**32-2, 2**32-1, 2**32-2, 2**31+9, 2**31, 2**31+9, 2**31, 2**31+9, 2**31, 2**31+9, 2**31]
# u64 y = u64(x) << 32 | 1 in lanes g < 5 only (lanes 5..7 inactive): wave_max = (2^32-1)<<32|1,
#   wave_min = 0<<32|1 = 1, readfirstlane = lane 0's: (2^32-1)<<32|1
#   expect w = [2**64-2**32+1]*5 + [0]*3 + [1]*5 + [0]*3 + [2**64-2**32+1]*5 + [0]*3
# i64 z = -i64(x) in lanes g >= 3 (x as i64 zero-extended): values -1, -7, -(2^31+1), -3, -(2^32-2)
#   wave_min = -(2^32-2) ; wave_max = -1
#   expect m = [0, 0, 0, -(2**32-2), -(2**32-2), -(2**32-2), -(2**32-2), -(2**32-2), 0, 0, 0, -1, -1, -1, -1, -1]
# difftest: launch n=8 wave=8
# difftest: arg x = u32[4294967295, 0, 2147483648, 1, 7, 2147483649, 3, 4294967294]
# difftest: arg o = u32[0] * 24
# difftest: arg w = u64[0] * 24
# difftest: arg m = i64[0] * 16
def k(x: Buffer[u32], o: Buffer[u32], w: Buffer[u64], m: Buffer[i64]):
    g = gid()
    v = x[g]
    if g % 2 == 1:
        o[g] = wave_min(v)
        o[g + 8] = wave_max(v)
        o[g + 16] = wave_sum(v)
    else:
        o[g] = wave_min(v)
        o[g + 8] = wave_max(v)
        o[g + 16] = wave_sum(v)
    if g < 5:
        y = (u64(v) << 32) | 1
        w[g] = wave_max(y)
        w[g + 8] = wave_min(y)
        w[g + 16] = readfirstlane(y)
    if g >= 3:
        z = -i64(v)
        m[g] = wave_min(z)
        m[g + 8] = wave_max(z)
