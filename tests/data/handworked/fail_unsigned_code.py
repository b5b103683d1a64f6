# fail(code) with codes of unsigned/narrow/64-bit types: "the fault carries its value".
# n = 4: lane 0 fail(u64 2^64 - 1); lane 1 fail(u32 2^32 - 1); lane 2 fail(i8 -1); lane 3 fail(i64 MIN)
#   expect-status = "ffff"
#   expect-faults = {0: "fail", 1: "fail", 2: "fail", 3: "fail"}
# codes: 18446744073709551615, 4294967295, -1, -9223372036854775808 (checked by hand with --json)
# difftest: launch n=4 wave=4
# difftest: arg w = u64[18446744073709551615]
# difftest: arg o = i32[0]
def k(w: Buffer[u64], o: Buffer[i32]):
    g = gid()
    if g == 0:
        fail(w[0])
    elif g == 1:
        fail(u32(w[0]))
    elif g == 2:
        fail(i8(w[0]))
    else:
        fail(i64(w[0] >> 1) + 1 + i64(w[0] >> 1))
