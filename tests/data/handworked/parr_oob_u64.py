# u64 / u32 indices: 2^32 (low 32 bits 0), 2^63, 2^64-1, 2^32+1 fault; a u32 2^31 too.
# ux = u64[0, 2^32, 2^63, 3, 2^64-1, 2, 2^32+1, 1]; lanes 1, 2, 4, 6 fault at the load (line 17)
# each other lane: a[g % 4] = g + 1 ; out[g] = a[ux]: lane 0: a[0] = 1; lane 3: a[3] = 4; lane 5: a[1]=6 -> a[2] = 0; lane 7: a[3] = 8 -> a[1] = 0
#   expect out = [1, 99, 99, 4, 99, 0, 99, 0]
#   expect-status = "cffcfcfc"
#   expect-faults = {1: "out_of_bounds", 2: "out_of_bounds", 4: "out_of_bounds", 6: "out_of_bounds"}
# difftest: launch n=8 wave=8
# difftest: arg ux = u64[0, 4294967296, 9223372036854775808, 3, 18446744073709551615, 2, 4294967297, 1]
# difftest: arg out = u32[99] * 8
def k(ux: Buffer[u64], out: Buffer[u32]):
    g = gid()
    a: Array[u32, 4]
    a[g % 4] = u32(g + 1)
    out[g] = 99
    x = ux[g]
    out[g] = a[x]
