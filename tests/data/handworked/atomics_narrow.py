# Atomics on 8/16-bit buffers: the oracle wraps at the element width; the translations
# cannot run them (semantics.md: "An atomic_add on an 8- or 16-bit buffer is a case the
# translations cannot run ... the outcome unsupported").
# n = 4: atomic_add(b, 0, 100) -> 400 mod 256 = 144 ; atomic_max(h, 0, i16(g) - 2) returns (max -> 1 from -32768)
#   expect b = [144]
#   expect h = [1]
# difftest: launch n=4 wave=4
# difftest: arg b = u8[0]
# difftest: arg h = i16[-32768]
def k(b: Buffer[u8], h: Buffer[i16]):
    g = gid()
    atomic_add(b, 0, 100)
    old = atomic_max(h, 0, i16(g) - 2)
