# Host steps on buffers in the states the first host example leaves out: a buffer only
# created and written is read, mapped and freed before any launch; buffers the pool
# moves (a launch that binds none of them compacts it) are then read, mapped, written
# and unmapped, and read through a mapping. Agrees on numba-simt; each pool mutant of a
# step in one of those states disagrees.
# difftest: launch n=4 wave=4
# difftest: arg out = i32[0] * 4
# difftest: arg inp = i32[1, 2, 3, 4]
# difftest: host [{"op": "create", "buffer": "a", "dtype": "i32", "length": 4}, {"op": "write", "buffer": "a", "offset": 0, "data": [5, 6]}, {"op": "read", "buffer": "a"}, {"op": "create", "buffer": "b", "dtype": "i32", "length": 4}, {"op": "write", "buffer": "b", "offset": 1, "data": [9]}, {"op": "map", "buffer": "b", "mode": "read", "as": "mb"}, {"op": "map_read", "mapping": "mb"}, {"op": "unmap", "mapping": "mb"}, {"op": "create", "buffer": "d", "dtype": "i32", "length": 4}, {"op": "write", "buffer": "d", "offset": 3, "data": [8]}, {"op": "create", "buffer": "e", "dtype": "i32", "length": 4}, {"op": "create", "buffer": "f", "dtype": "i32", "length": 4}, {"op": "write", "buffer": "f", "offset": 2, "data": [7]}, {"op": "launch"}, {"op": "create", "buffer": "x", "dtype": "i32", "length": 2}, {"op": "free", "buffer": "x"}, {"op": "launch", "bind": {"inp": "a", "out": "b"}}, {"op": "launch", "bind": {"inp": "d", "out": "e"}}, {"op": "launch", "bind": {"inp": "f", "out": "e"}}, {"op": "map", "buffer": "out", "mode": "write", "as": "w"}, {"op": "map", "buffer": "a", "mode": "read", "as": "ra"}, {"op": "map", "buffer": "e", "mode": "read", "as": "re"}, {"op": "create", "buffer": "c", "dtype": "i32", "length": 4}, {"op": "launch", "bind": {"inp": "inp", "out": "c"}}, {"op": "map_read", "mapping": "ra"}, {"op": "read", "buffer": "b"}, {"op": "write", "buffer": "d", "offset": 0, "data": [42]}, {"op": "unmap", "mapping": "re"}, {"op": "read", "buffer": "c"}, {"op": "unmap", "mapping": "w"}, {"op": "launch", "bind": {"inp": "c", "out": "out"}}, {"op": "read", "buffer": "d"}, {"op": "map", "buffer": "f", "mode": "read", "as": "rf"}, {"op": "map_read", "mapping": "rf"}]
def k(out: Buffer[i32], inp: Buffer[i32]):
    g = gid()
    out[g] = inp[g] + 1
