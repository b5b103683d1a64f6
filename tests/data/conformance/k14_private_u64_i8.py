# u64 and i8 private arrays indexed by run-time values, in loops and under divergent
# branches (semantics "Private arrays": "all zeros again" each time the declaration
# runs; "an element holds its type's values (a store into an `Array[u8, N]` wraps as a
# `u8` variable does)"; an index outside 0..N-1 faults out_of_bounds "and the access does nothing").
# Launch n=4, one wave of 4. x = u64[2^64-1, 2^63, 5, 0]
# Per workitem g:
#   a: Array[u64, 4]; for i in 0..3: a[(g + i) % 4] = x[i] * u64(i + 1)  (wrapping at 64 bits)
#     x*1 = 2^64-1; 2^63*2 = 0; 5*3 = 15; 0*4 = 0, placed at (g+i)%4:
#     a[(g+0)%4] = 2^64-1, a[(g+1)%4] = 0, a[(g+2)%4] = 15, a[(g+3)%4] = 0
#   o[g] = a[g % 4] = 2^64-1 for every g (index g+0)
#   even lanes: a[g+1] = a[g+1] - 1 (0 - 1 wraps to 2^64-1); odd lanes: a[3 - g] = a[g] + 2 (2^64-1 + 2 = 1)
#     g0: a[1] = 2^64-1; g1: a[2] = 1; g2: a[3] = 2^64-1; g3: a[0] = 1
#   o[4+g] = a[(g + 1) % 4] + a[(g + 2) % 4]: g0: a[1] + a[2] = 2^64-1 + 15 = 14; g1: a[2] + a[3]
#     g1: a[(1)] = 2^64-1, a[2] (set to 1), a[3] = 15, a[0] = 0 -> a[2] + a[3] = 16
#     g2: a[2]=2^64-1, a[3] (=0, set to 2^64-1), a[0]=15, a[1]=0 -> a[3] + a[0] = 2^64-1 + 15 = 14
#     g3: a[3]=2^64-1, a[0] (=0, set to 1), a[1]=15, a[2]=0 -> a[0] + a[1] = 16
#   b: Array[i8, 3], in a loop of 3 trips with b declared inside: b[k % 3] = b[k % 3] + 100 twice:
#     b[k%3] = 200 -> -56 each trip; t = t + i64(b[k % 3]) -> -168
#   o2[g] = -168; then o2[4+g] = i64(b[g]) : lanes 0..2 read b[g]; after trip k=2 b = [0, 0, -56]:
#     g0: 0, g1: 0, g2: -56; g3: out_of_bounds fault at the line of o2[4+g] (o2[7] stays 0).
# difftest: launch n=4 wave=4
# difftest: arg x = u64[18446744073709551615, 9223372036854775808, 5, 0]
# difftest: arg o = u64[0] * 8
# difftest: arg o2 = i64[0] * 8
def k(x: Buffer[u64], o: Buffer[u64], o2: Buffer[i64]):
    g = gid()
    a: Array[u64, 4]
    for i in range(4):
        a[(g + i) % 4] = x[i] * u64(i + 1)
    o[g] = a[g % 4]
    if g % 2 == 0:
        a[g + 1] = a[g + 1] - 1
    else:
        a[3 - g] = a[g] + 2
    o[4 + g] = a[(g + 1) % 4] + a[(g + 2) % 4]
    t: i64 = 0
    b: Array[i8, 3]
    for k2 in range(3):
        b: Array[i8, 3]
        b[k2 % 3] = b[k2 % 3] + 100
        b[k2 % 3] = b[k2 % 3] + 100
        t = t + i64(b[k2 % 3])
    o2[g] = t
    o2[4 + g] = i64(b[g])

# What the header derives, for tests/oracles/test_conformance.py (its docstring has the
# format; these lines come after the kernel, so its line numbers are the header's):
# expect: o = [18446744073709551615] * 4 + [14, 16, 14, 16]
# expect: o2 = [-168] * 4 + [0, 0, -56, 0]
# expect-fault: 3 out_of_bounds k:44
