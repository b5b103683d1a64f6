# A u8 counter that wraps inside `while True`, and a u16 private array indexed by it
# (semantics "Integer types": every type wraps at its own width (`u8(250) + 10` is 4);
# "Private arrays": "an index of any integer type outside 0..N-1 faults"; `len(a)` is N;
# "Loops": `while True:` (left by `break` or `return`)).
# Launch n=2, wave 2. start = u8[250, 0]
# Lane 0: c = 250; loop: c = c + 1 (u8) ; t += 1; break when c == 0: c: 251..255, 0 -> 6 trips
#   a: Array[u16, 8]; a[c % len(a)] ... each trip a[i32(c) % 8] = a[...] + u16(65535) (wraps: -1 each)
#   c values 251..255, 0 -> indices 3,4,5,6,7,0: each set to 65535 once.
#   o[0] = t = 6; o[2] = i64(a[3]) + i64(a[1]) = 65535 + 0 = 65535
# Lane 1: c = 0: c = 1..255, 0 -> 256 trips; each index 0..7 gets 32 decrements: 65536 - 32 = 65504
#   o[1] = 256; o[3] = 65504 + 65504 = 131008
#   o[4 + g] = i64(len(a)) = 8
# difftest: launch n=2 wave=2
# difftest: arg start = u8[250, 0]
# difftest: arg o = i64[0] * 6
def k(start: Buffer[u8], o: Buffer[i64]):
    g = gid()
    c = start[g]
    t: i64 = 0
    a: Array[u16, 8]
    while True:
        c = c + 1
        t = t + 1
        a[i32(c) % len(a)] = a[i32(c) % len(a)] + u16(65535)
        if c == 0:
            break
    o[g] = t
    o[2 + g] = i64(a[3]) + i64(a[1])
    o[4 + g] = i64(len(a))

# What the header derives, for tests/oracles/test_conformance.py (its docstring has the
# format; these lines come after the kernel, so its line numbers are the header's):
# expect: o = [6, 256, 65535, 131008, 8, 8]
