# A host program (docs/semantics.md, Host programs): a read mapping held across launches
# that grow the pool, a write mapping written before and after a launch, the buffer
# mapped again before any launch took what it wrote, a free that fragments the pool, a
# host write to a buffer a read mapping shows, a host value past i32's range (stored
# wrapped: 2^32 + 5 is 5). Agrees on numba-simt; each pool mutant disagrees.
# difftest: launch n=4 wave=4
# difftest: arg out = i32[0] * 4
# difftest: arg inp = i32[1, 2, 3, 4]
# difftest: host [{"op": "launch"}, {"op": "map", "buffer": "out", "mode": "read", "as": "m"}, {"op": "create", "buffer": "big", "dtype": "i32", "length": 40}, {"op": "launch", "bind": {"inp": "out", "out": "big"}}, {"op": "map_read", "mapping": "m"}, {"op": "map", "buffer": "inp", "mode": "write", "as": "w"}, {"op": "map_write", "mapping": "w", "offset": 0, "data": [10, 20]}, {"op": "create", "buffer": "big2", "dtype": "i32", "length": 100}, {"op": "launch", "bind": {"inp": "out", "out": "big2"}}, {"op": "map_write", "mapping": "w", "offset": 2, "data": [30]}, {"op": "unmap", "mapping": "w"}, {"op": "map", "buffer": "inp", "mode": "read", "as": "r"}, {"op": "map_read", "mapping": "r"}, {"op": "unmap", "mapping": "r"}, {"op": "read", "buffer": "inp"}, {"op": "free", "buffer": "big"}, {"op": "create", "buffer": "c", "dtype": "i32", "length": 4}, {"op": "launch", "bind": {"inp": "big2", "out": "c"}}, {"op": "read", "buffer": "big2"}, {"op": "launch", "bind": {"inp": "inp", "out": "out"}}, {"op": "write", "buffer": "out", "offset": 3, "data": [77]}, {"op": "map_read", "mapping": "m"}, {"op": "write", "buffer": "inp", "offset": 1, "data": [4294967301]}, {"op": "read", "buffer": "inp"}]
def k(out: Buffer[i32], inp: Buffer[i32]):
    g = gid()
    out[g] = inp[g] + 1
