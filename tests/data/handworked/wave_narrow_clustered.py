# Narrow-type clustered and bitwise reductions under divergence (lanes 2 and 5 inactive).
# n = 8, wave 8. b = i8[-128, 127, -1, 5, -3, 100, 0, -128], u = u8[200, 100, 255, 1, 128, 128, 0, 255]
# active lanes: 0, 1, 3, 4, 6, 7
#   o[g] = wave_min(b, cluster=4): cluster 0 active (0,1,3): -128 ; cluster 1 active (4,6,7): -128
#   o[g+8] = wave_max(b, cluster=2): (0,1): 127 ; (3): 5 ; (4): -3 ; (6,7): 0
#   o[g+16] = wave_sum(b, cluster=4): -128+127+5 = 4 ; -3+0-128 = -131 -> wraps i8: 125
#   o[g+24] = wave_and(b): -128 & 127 = 0 -> 0
#   o[g+32] = wave_or(b): -128|127 = -1 -> -1
#   o[g+40] = wave_xor(b, cluster=8): -128 ^ 127 ^ 5 ^ -3 ^ 0 ^ -128 : bits: 0x80^0x7F = 0xFF; ^0x05 = 0xFA; ^0xFD = 0x07; ^0 = 7; ^0x80 = 0x87 -> -121
#   expect o = [-128,-128,99,-128,-128,99,-128,-128, 127,127,99,5,-3,99,0,0, 4,4,99,4,125,99,125,125, 0,0,99,0,0,99,0,0, -1,-1,99,-1,-1,99,-1,-1, -121,-121,99,-121,-121,99,-121,-121]
#   p[g] = wave_sum(u, cluster=2): (0,1): 300 -> 44 ; (3): 1 ; (4): 128 ; (6,7): 255
#   p[g+8] = wave_min(u, cluster=4): (0,1,3): 1 ; (4,6,7): 0
#   p[g+16] = wave_max(u): 255
#   expect p = [44,44,99,1,128,99,255,255, 1,1,99,1,0,99,0,0, 255,255,99,255,255,99,255,255]
# difftest: launch n=8 wave=8
# difftest: arg b = i8[-128, 127, -1, 5, -3, 100, 0, -128]
# difftest: arg u = u8[200, 100, 255, 1, 128, 128, 0, 255]
# difftest: arg o = i8[99] * 48
# difftest: arg p = u8[99] * 24
def k(b: Buffer[i8], u: Buffer[u8], o: Buffer[i8], p: Buffer[u8]):
    g = gid()
    if g != 2 and g != 5:
        x = b[g]
        o[g] = wave_min(x, cluster=4)
        o[g + 8] = wave_max(x, cluster=2)
        o[g + 16] = wave_sum(x, cluster=4)
        o[g + 24] = wave_and(x)
        o[g + 32] = wave_or(x)
        o[g + 40] = wave_xor(x, cluster=8)
        y = u[g]
        p[g] = wave_sum(y, cluster=2)
        p[g + 8] = wave_min(y, cluster=4)
        p[g + 16] = wave_max(y)
