# Step budgets with nested loops and while loops (semantics "Budgets": "A *step* is one
# loop trip of one workitem (each trip of every loop, empty bodies included ...)"; "Each
# workitem may run `min(step_budget, work_budget // n)` trips"; "A workitem that would
# start a trip past its share *runs out*: it stops there, neither completed nor faulted";
# "Running out on a target is the error `step_budget: ...`").
# Launch n=4, wave 4, step_budget 6. Workitem g runs: outer `for i in range(2)`, each
#   outer trip an inner `for j in range(g)` (empty body: pass), then a `while True` that
#   breaks on its first trip. Trips: 2 outer + 2*g inner + 2 while = 4 + 2g.
#   g0: 4, g1: 6 (exactly the budget: completes), g2: 8 -> runs out, g3: 10 -> runs out.
# Expected: the oracle's full run has exhausted workitems 2 and 3; every target must report
#   the error step_budget (or, had it not run them, the same) -- so `check` agrees only with
#   a step_budget error. o[g] = trips counted before: g0 4, g1 6; g2 and g3 write o[g] only
#   at the end, so 0.
# difftest: launch n=4 wave=4
# difftest: options {"step_budget": 6}
# difftest: arg o = i32[0] * 4
def k(o: Buffer[i32]):
    g = gid()
    t = 0
    for i in range(2):
        t = t + 1
        for j in range(g):
            pass
        t = t + g
        while True:
            t = t + 1
            break
    o[g] = t

# What the header derives, for tests/oracles/test_conformance.py (its docstring has the
# format; these lines come after the kernel, so its line numbers are the header's):
# expect: o = [4, 6, 0, 0]
# expect-exhausted: 2 3
