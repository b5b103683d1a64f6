# Integer types as docs/semantics.md ("Integer types") defines them: each wraps at its own
# width; an unsigned one compares, divides, shifts right and reduces as unsigned; a
# conversion truncates, and widening extends by the source's signedness (a byte read as
# i8 is sign-extended, as u8 zero-extended).
# Launch: n = 4, one wave of 4. Args: b = u8[250, 128, 127, 0],
#   w = u64[2^64 - 1, 2^63, 7, 0], the outputs zeroed.
# Oracle, per workitem g:
#   small[g]     = b[g] + 10, wrapped at 8 bits: 4 (260 - 256), 138, 137, 10;
#   small[g + 4] = wave_sum(b[g]): 250 + 128 + 127 + 0 = 505, wrapped: 249 in every lane;
#   wide[g]      = i32(i8(b[g])): -6 (250 - 256), -128, 127, 0;
#   wide[g + 4]  = i32(b[g]): 250, 128, 127, 0;
#   wide[g + 8]  = i32(w[g] > 1), unsigned: 1, 1, 1, 0;
#   m[g]         = u32(b[g]) - 200, wrapped at 32 bits: 50, 2^32 - 72 = 4294967224,
#                  4294967223, 4294967096;
#   q[g]         = w[g] // 3: 6148914691236517205, 3074457345618258602, 2, 0;
#   q[g + 4]     = w[g] >> 63, logical: 1, 1, 0, 0;
#   q[g + 8]     = wave_max(w[g]), unsigned: 18446744073709551615 in every lane.
# A compiler that sign-extends the byte for i32(b[g]) gives wide[4] = -6; one that
# compares or divides the u64 as signed gives wide[8] = 0 and q[0] = 0.
# difftest: launch n=4 wave=4
# difftest: arg b = u8[250, 128, 127, 0]
# difftest: arg w = u64[18446744073709551615, 9223372036854775808, 7, 0]
# difftest: arg small = u8[0] * 8
# difftest: arg wide = i32[0] * 12
# difftest: arg m = u32[0] * 4
# difftest: arg q = u64[0] * 12
def integer_types(b: Buffer[u8], w: Buffer[u64], small: Buffer[u8], wide: Buffer[i32],
                  m: Buffer[u32], q: Buffer[u64]):
    g = gid()
    small[g] = b[g] + 10
    small[g + 4] = wave_sum(b[g])
    wide[g] = i32(i8(b[g]))
    wide[g + 4] = i32(b[g])
    wide[g + 8] = i32(w[g] > 1)
    m[g] = u32(b[g]) - 200
    q[g] = w[g] // 3
    q[g + 4] = w[g] >> 63
    q[g + 8] = wave_max(w[g])
