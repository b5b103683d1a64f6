# A lane that faults in a wave operation's argument is not active in it; wave operations
# inside `x if c else y` and `and` see only the lanes evaluating that side (semantics
# "Wave operations act on the lanes active where they are evaluated (after argument
# evaluation: a lane that faults while evaluating the arguments is not active)"; core:
# "`x if c else y`, `and`, `or` are control flow: a wave operation inside one side sees
# only the lanes that evaluate that side").
# Launch n=4, one wave of 4. d = u8[1, 0, 2, 5]
# Per lane g:
#  line 21: s = wave_sum(u8(10) // d[g]): lane 1 faults (division_by_zero, line 21);
#     the others sum 10 + 5 + 2 = 17: s = 17 in lanes 0, 2, 3
#  o[g] = i32(s): 17, -, 17, 17
#  o[4+g] = wave_sum(1) if g >= 2 else wave_sum(100): lanes 2, 3 -> 2; lane 0 -> 100
#  o[8+g] = i32(g > 0 and wave_any(g == 0)): lane 0: False (short circuit) -> 0;
#     lanes 2, 3 evaluate wave_any over {2, 3}: False -> 0  => 0, -, 0, 0
#  o[12+g] = i32(g == 0 or wave_all(g >= 2)): lane 0: True -> 1; lanes 2,3: wave_all over {2,3}: True -> 1
# difftest: launch n=4 wave=4
# difftest: arg d = u8[1, 0, 2, 5]
# difftest: arg o = i32[0] * 16
def k(d: Buffer[u8], o: Buffer[i32]):
    g = gid()
    s = wave_sum(u8(10) // d[g])
    o[g] = i32(s)
    o[4 + g] = wave_sum(1) if g >= 2 else wave_sum(100)
    o[8 + g] = i32(g > 0 and wave_any(g == 0))
    o[12 + g] = i32(g == 0 or wave_all(g >= 2))

# What the header derives, for tests/oracles/test_conformance.py (its docstring has the
# format; these lines come after the kernel, so its line numbers are the header's):
# expect: o = [17, 0, 17, 17] + [100, 0, 2, 2] + [0, 0, 0, 0] + [1, 0, 1, 1]
# expect-fault: 1 division_by_zero k:21
