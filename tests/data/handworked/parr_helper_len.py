# Private arrays in helpers: a fresh zeroed array per call (it dies with its activation),
# declared again in both arms of an `if` (same T and N), len(a), early return.
# n = 4, wave 4.
#   fill(g, k) declares b: Array[u32, 3] and adds k * (g + 1) to b[g % 3] twice, returning b[g % 3] + len(b)
#     called twice: fill(g, 1) = 2(g+1) + 3 ; fill(g, 2) = 4(g+1) + 3 (the first call's b is gone)
#   expect o = [5, 7, 9, 11, 7, 11, 15, 19]
#   early(g): b: Array[i8, 2]; b[0] = 100 ; if g % 2 == 0: return i32(b[0] + b[0]) (i8 wraps: -56) ; b[1] = -1 ; return i32(b[1]) + len(b)
#   expect e = [-56, 1, -56, 1]
#   arms: if g < 2: c: Array[u64, 2]; c[1] = 2^64 - 1 ; r = c[1] else: c: Array[u64, 2] ; r = c[1] (zero) -> 2^64-1, 2^64-1, 0, 0
#   expect r = [2**64-1, 2**64-1, 0, 0]
# difftest: launch n=4 wave=4
# difftest: arg o = u32[0] * 8
# difftest: arg e = i32[0] * 4
# difftest: arg r = u64[0] * 4
def k(o: Buffer[u32], e: Buffer[i32], r: Buffer[u64]):
    g = gid()
    o[g] = fill(g, u32(1))
    o[g + 4] = fill(g, u32(2))
    e[g] = early(g)
    if g < 2:
        c: Array[u64, 2]
        c[1] = 18446744073709551615
        v = c[1]
    else:
        c: Array[u64, 2]
        v = c[1]
    r[g] = v

def fill(g: i32, m: u32) -> u32:
    b: Array[u32, 3]
    b[g % 3] = b[g % 3] + m * u32(g + 1)
    b[g % 3] = b[g % 3] + m * u32(g + 1)
    return b[g % 3] + u32(len(b))

def early(g: i32) -> i32:
    b: Array[i8, 2]
    b[0] = 100
    if g % 2 == 0:
        return i32(b[0] + b[0])
    b[1] = -1
    return i32(b[1]) + len(b)
