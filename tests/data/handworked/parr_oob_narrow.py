# Narrow index types: u8 255 and 32 past an Array[i16, 32]; i8 -1 and -128 fault;
# "v first, then i, then the bounds check": lane 3's store value faults first
# (division by zero) though its index is out of bounds too.
# lane 0: a[bx=31] = 7 then out[0] = a[31] = 7 ; lane 1: bx = 32 -> fault (store, line 21)
# lane 2: bx = 255 -> fault (store) ; lane 3: value 7 // z (z = 0) faults: division_by_zero (line 21)
# lane 4: bx = 0 ok, then read a[cx = -1] -> fault (line 22) ; lane 5: read a[cx = -128] fault
# lane 6: a[5] = 7, read a[cx = 5] = 7; lane 7: a[0] = 7, read a[cx=31] = 0
#   expect out = [7, 99, 99, 99, 99, 99, 7, 0]
#   expect-status = "cfffffcc"
#   expect-faults = {1: "out_of_bounds", 2: "out_of_bounds", 3: "division_by_zero", 4: "out_of_bounds", 5: "out_of_bounds"}
# difftest: launch n=8 wave=8
# difftest: arg bx = u8[31, 32, 255, 200, 0, 0, 5, 0]
# difftest: arg cx = i8[31, 0, 0, 0, -1, -128, 5, 31]
# difftest: arg zz = i16[1, 1, 1, 0, 1, 1, 1, 1]
# difftest: arg out = i16[99] * 8
def k(bx: Buffer[u8], cx: Buffer[i8], zz: Buffer[i16], out: Buffer[i16]):
    g = gid()
    a: Array[i16, 32]
    seven: i16 = 7
    a[bx[g]] = seven // zz[g]
    out[g] = a[cx[g]]
