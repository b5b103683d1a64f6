# Atomics that return, as docs/semantics.md ("Atomics that return") defines them: each
# returns the value its location held just before it, in one order of the location's
# atomics that keeps every workitem's own in program order. Which workitem sees which
# value is that order's: the checker accepts every order and nothing else, so what
# follows holds in all of them.
# Launch: n = 12, waves of 4 (a workgroup is one wave). Args: cnt = [0, 0], lst = twelve
# -1s, m = u32[0, 100], out zeroed (24 values).
# Per workitem g:
#   - the 8 workitems with g % 3 != 0 (1, 2, 4, 5, 7, 8, 10, 11) bump cnt[0] and write
#     their g at the slot it returned: cnt[0] ends at 8, lst[0..7] holds those 8 gids in
#     some order, lst[8..11] stay -1;
#   - each takes a ticket from its group's `tile[0]`: out[g] is 0..3 in each group of 4,
#     some order;
#   - atomic_max(m, 0, g * 7 % 12) over 0, 7, 2, 9, 4, 11, 6, 1, 8, 3, 10, 5: m[0] = 11;
#   - atomic_min(m, 1, u32(g) - 6) is unsigned: g < 6 wraps to 2^32 - 6 + g, so the
#     least is g = 6's 0 (a signed min would give -6): m[1] = 0;
#   - atomic_compare_exchange(cnt, 1, 0, g + 100): exactly one workitem finds 0 and
#     leaves its g + 100; every other finds that: out[12 + g] is 0 for the one, w + 100
#     for the rest, and cnt[1] = w + 100.
# An atomic optimizer that gives every lane the first lane's old value hands two
# workitems one slot (their lst writes race); one that counts the wave's lanes instead
# of the active ones leaves cnt[0] past 8.
# difftest: launch n=12 wave=4
# difftest: arg cnt = i32[0, 0]
# difftest: arg lst = i32[-1] * 12
# difftest: arg m = u32[0, 100]
# difftest: arg out = i32[0] * 24
def returning_atomics(cnt: Buffer[i32], lst: Buffer[i32], m: Buffer[u32], out: Buffer[i32]):
    tile: Local[i32, 2]
    g = gid()
    if g % 3 != 0:
        slot = atomic_add(cnt, 0, 1)
        lst[slot] = g
    ticket = atomic_add(tile, 0, 1)
    out[g] = ticket
    hi = atomic_max(m, 0, u32(g * 7 % 12))
    lo = atomic_min(m, 1, u32(g) - 6)
    seen = atomic_compare_exchange(cnt, 1, 0, g + 100)
    out[12 + g] = seen
