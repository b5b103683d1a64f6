# Faults in the middle of a wave (semantics core: "a faulted lane is inactive from its
# fault on"; "A faulting workitem stops at the fault; what it wrote before stays
# written"; "Exception stacks: one frame per active function, outermost (the kernel)
# first. A caller's frame carries the line of the call"; `fail(code)` "carries its value,
# in storage form ... `fail(u64(18446744073709551615))` and `fail(-1)` carry the same code").
# Launch n=8, waves of 4. d = i8[1, 0, 1, 1, 1, 1, 1, 1]
# Per workitem g: o[g] = 1 first (line 23). Then:
#   g1: div(100, d[1] = 0) -> division_by_zero in helper div (line 19), stack [k:24, div:19]
#   g2: o[100] = 5 -> out_of_bounds at line 26
#   g5: fail(u64(d[0]) - 2) -> u64 2^64-1: code -1, line 28
#   g6: fail(u8(d[0]) + 254) -> u8 255: code 255, line 30
# Survivors: 0, 3 (wave 0); 4, 7 (wave 1): o[8+g] = wave_sum(1): 2 in lanes 0, 3, 4, 7
# o = [1,1,1,1,1,1,1,1, 2,0,0,2, 2,0,0,2]; statuses: faulted 1, 2, 5, 6; others completed.
# difftest: launch n=8 wave=4
# difftest: entry k
# difftest: arg d = i8[1, 0, 1, 1, 1, 1, 1, 1]
# difftest: arg o = i32[0] * 16
def div(a: i32, b: i8) -> i32:
    return a // b

def k(d: Buffer[i8], o: Buffer[i32]):
    g = gid()
    o[g] = 1
    x = div(100, d[g])
    if g == 2:
        o[100] = 5
    if g == 5:
        fail(u64(d[0]) - 2)
    if g == 6:
        fail(u8(d[0]) + 254)
    o[8 + g] = wave_sum(x // 100)

# What the header derives, for tests/oracles/test_conformance.py (its docstring has the
# format; these lines come after the kernel, so its line numbers are the header's):
# expect: o = [1] * 8 + [2, 0, 0, 2, 2, 0, 0, 2]
# expect-fault: 1 division_by_zero k:24 div:19
# expect-fault: 2 out_of_bounds k:26
# expect-fault: 5 fail(-1) k:28
# expect-fault: 6 fail(255) k:30
