# A private-array index of any integer type outside 0..N-1 faults (out_of_bounds, at the
# access's line) and does nothing -- including i64 values whose low 32 bits are in range.
# ix = i64[0, 2^32, -2^32, 3, -1, 2, MAX, 1]: lanes 1, 2, 4, 6 fault at the store (line 16)
# the others: a[ix] = g + 1, out[g] = sum of a = g + 1
#   expect out = [1, 99, 99, 4, 99, 6, 99, 8]
#   expect-status = "cffcfcfc"
#   expect-faults = {1: "out_of_bounds", 2: "out_of_bounds", 4: "out_of_bounds", 6: "out_of_bounds"}
# difftest: launch n=8 wave=8
# difftest: arg ix = i64[0, 4294967296, -4294967296, 3, -1, 2, 9223372036854775807, 1]
# difftest: arg out = i32[99] * 8
def k(ix: Buffer[i64], out: Buffer[i32]):
    g = gid()
    a: Array[i32, 4]
    out[g] = 99
    i = ix[g]
    a[i] = g + 1
    out[g] = a[0] + a[1] + a[2] + a[3]
