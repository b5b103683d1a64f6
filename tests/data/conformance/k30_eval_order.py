# Evaluation order of faults (semantics "Evaluation order": "`buf[i] = v` evaluates `v`,
# then `i`, then checks bounds; `atomic_add(buf, i, v)` evaluates `i`, then `v`, then
# checks bounds. A workitem's fault is the first in that order"; "Private arrays": "`a[i]`
# and `a[i] = v` ... (v first, then i, then the bounds check, as for a buffer)").
# Launch n=4, waves of 4 (one wave). d = i32[0, 0, 0, 1]; the lines are counted from the file's top.
# Per workitem g:
#  g0: o[100] = 7 // d[0]      -> the value faults first: division_by_zero at line 20
#  g1: atomic_add(c, 100, 7 // d[1]) -> i evaluated (100), then v faults: division_by_zero at line 22
#  g2: a[9] = 7 // d[2] (a: Array[i8, 4]) -> division_by_zero at line 24
#  g3: o[o[50]] = 1 // d[3]: v = 1 fine, then i = o[50] (load out of bounds) -> out_of_bounds at line 26
# Every workitem faults; o and c stay 0.
# difftest: launch n=4 wave=4
# difftest: arg d = i32[0, 0, 0, 1]
# difftest: arg o = i32[0] * 4
# difftest: arg c = i32[0] * 4
def k(d: Buffer[i32], o: Buffer[i32], c: Buffer[i32]):
    g = gid()
    a: Array[i8, 4]
    if g == 0:
        o[100] = 7 // d[g]
    if g == 1:
        atomic_add(c, 100, 7 // d[g])
    if g == 2:
        a[9] = i8(7 // d[g])
    if g == 3:
        o[o[50]] = 1 // d[g]
    c[g] = i32(a[0])

# What the header derives, for tests/oracles/test_conformance.py (its docstring has the
# format; these lines come after the kernel, so its line numbers are the header's):
# expect: o = [0] * 4
# expect: c = [0] * 4
# expect-fault: 0 division_by_zero k:20
# expect-fault: 1 division_by_zero k:22
# expect-fault: 2 division_by_zero k:24
# expect-fault: 3 out_of_bounds k:26
