# Buffer loads, stores and atomics indexed by u64/i64/u32 values whose low bits are in
# range: 2^32 (low 32 bits 0), 2^63, -2^32, 2^32 + 1 all fault out_of_bounds.
# n = 8, wave 8; ix = u64[0, 2^32, 1, 2^63, 2, 2^32+1, 3, 2^64-4]
#   lane g: kind = g % 3: 0 -> store out[ix] = g + 10 ; 1 -> load: out2[g] = inp[ix] ; 2 -> atomic_add(acc, ix, 1)
#   lanes 1 (load 2^32), 3 (store 2^63), 5 (atomic 2^32+1), 7 (load 2^64-4) fault
#   lane 0: out[0] = 10 ; lane 2: atomic_add(acc, 1, 1) ; lane 4: load inp[2] = 32 -> out2[4] ; lane 6: store out[3] = 16
#   expect out = [10, 0, 0, 16]
#   expect out2 = [0, 0, 0, 0, 32, 0, 0, 0]
#   expect acc = [0, 1, 0, 0]
#   expect-status = "cfcfcfcf"
#   expect-faults = {1: "out_of_bounds", 3: "out_of_bounds", 5: "out_of_bounds", 7: "out_of_bounds"}
# difftest: launch n=8 wave=8
# difftest: arg ix = u64[0, 4294967296, 1, 9223372036854775808, 2, 4294967297, 3, 18446744073709551612]
# difftest: arg inp = i32[30, 31, 32, 33]
# difftest: arg out = i32[0] * 4
# difftest: arg out2 = i32[0] * 8
# difftest: arg acc = i32[0] * 4
def k(ix: Buffer[u64], inp: Buffer[i32], out: Buffer[i32], out2: Buffer[i32], acc: Buffer[i32]):
    g = gid()
    i = ix[g]
    t = g % 3
    if t == 0:
        out[i] = g + 10
    elif t == 1:
        out2[g] = inp[i]
    else:
        atomic_add(acc, i, 1)
