"""Liveness and the allocator's per-round facts, compiled: the fixed points and bitset
sweeps of `liveness.py` and `regalloc.py`, on rows of uint64 words (bit v of a set is bit
v % 64 of word v // 64).

Contract: `solve(...)` takes a flow's successors, uses and defs as flat arrays and returns
(live_in, live_out, parked, whole), one row per instruction, by the rules liveness.py
states; `round_facts(...)` takes those and returns what one colouring round reads (the
defined vregs in order, their first defs and range ends, and per vreg what its defs may
not clobber and which registers its first def may share), by regalloc.py's rules.
tests/numba_simt/test_dataflow.py compares them with the Python rules they replaced
(tests/models/liveness_reference.py).

Why compiled: in Python each rule was a pass of big-integer operations per instruction,
and each allocation round repeated them over the whole code. Here they are word
operations over a few KiB (`difftest bench` prints the compile time per case).
"""

from __future__ import annotations

import numpy as np
from numba import njit

# per-instruction flags (`liveness.Flow.flags`)
ALL_LANES, NOT_EVERY_READ, UNIFORM, CROSS = 1, 2, 4, 8


@njit(cache=True, nogil=True)
def _backward(succ_at, succ, gen, kill, nwords):  # type: ignore[no-untyped-def]
    """Backward liveness to its least fixed point over the CFG (`succ[succ_at[i]:
    succ_at[i + 1]]`, the successors of i): gen[i] (rows) are read at i, kill[i] (a vreg
    or -1) written. Sweeps last to first until nothing changes (the same fixed point as
    any order: it is the least one)."""
    n = gen.shape[0]
    live_in = np.zeros((n, nwords), dtype=np.uint64)
    live_out = np.zeros((n, nwords), dtype=np.uint64)
    changed = True
    while changed:
        changed = False
        for i in range(n - 1, -1, -1):
            for w in range(nwords):
                out = np.uint64(0)
                for k in range(succ_at[i], succ_at[i + 1]):
                    out |= live_in[succ[k], w]
                live_out[i, w] = out
            d = kill[i]
            for w in range(nwords):
                x = live_out[i, w]
                if d >= 0 and d // 64 == w:
                    x &= ~(np.uint64(1) << np.uint64(d % 64))
                x |= gen[i, w]
                if x != live_in[i, w]:
                    live_in[i, w] = x
                    changed = True
    return live_in, live_out


@njit(cache=True, nogil=True)
def _rows_of(at, members, n, nwords, keep):  # type: ignore[no-untyped-def]
    """Rows of the sets `members[at[i]:at[i + 1]]` for the instructions i with keep[i]."""
    rows = np.zeros((n, nwords), dtype=np.uint64)
    for i in range(n):
        if keep[i]:
            for k in range(at[i], at[i + 1]):
                v = members[k]
                rows[i, v // 64] |= np.uint64(1) << np.uint64(v % 64)
    return rows


@njit(cache=True, nogil=True)
def solve(lsucc_at, lsucc, psucc_at, psucc, use_at, use, read_at, read, defs, flags,
          regions, nwords, whole_off):  # type: ignore[no-untyped-def]
    """(live_in, live_out, parked, whole) of a flow (liveness.py's rules): per-lane
    liveness over the logical CFG; parked: each region's (start, stop, parking point)
    live-in at the parking point, over [start, stop); whole: the values all-lane
    instructions read (`read`, where the flags say every lane is read), live over the
    physical CFG, killed only by their own defs (none with `whole_off`, the
    `whole-wave-read-not-live` mutant)."""
    n = defs.shape[0]
    everything = np.ones(n, dtype=np.bool_)
    live_in, live_out = _backward(lsucc_at, lsucc, _rows_of(use_at, use, n, nwords,
                                                            everything), defs, nwords)
    parked = np.zeros((n, nwords), dtype=np.uint64)
    for r in range(regions.shape[0]):
        start, stop, at = regions[r, 0], regions[r, 1], regions[r, 2]
        if at >= n:
            continue
        for i in range(start, stop):
            for w in range(nwords):
                parked[i, w] |= live_in[at, w]
    every = np.zeros(n, dtype=np.bool_)
    for i in range(n):
        every[i] = (flags[i] & ALL_LANES) != 0 and (flags[i] & NOT_EVERY_READ) == 0
    reads = _rows_of(read_at, read, n, nwords, every)
    tracked = np.zeros(nwords, dtype=np.uint64)
    for i in range(n):
        for w in range(nwords):
            tracked[w] |= reads[i, w]
    if whole_off or not tracked.any():
        return live_in, live_out, parked, np.zeros((n, nwords), dtype=np.uint64)
    kill = np.full(n, -1, dtype=np.int64)
    for i in range(n):
        d = defs[i]
        if d >= 0 and (tracked[d // 64] >> np.uint64(d % 64)) & np.uint64(1):
            kill[i] = d
    whole = _backward(psucc_at, psucc, reads, kill, nwords)[1]
    return live_in, live_out, parked, whole


@njit(cache=True, nogil=True)
def round_facts(live_in, live_out, parked, whole, defs, flags, use_at, use, nvregs,
                uniform_masked, parked_too, recent):  # type: ignore[no-untyped-def]
    """What one colouring round reads (regalloc.py's rules), for the vregs with a def,
    ascending: (vregs, first def, range end, across rows, parked-only rows). An
    instruction writes every lane for allocation when its flags say all lanes, unless it
    writes a uniform value and `uniform_masked` (the `uniform-writemask-all` mutant).
    across: per vreg, the union over its defs of what is live out or whole-wave live
    there, parked values too where the def writes every lane (`parked_too`: not under
    `wwm-ignores-inactive`), less the vreg itself, plus the other uses of a cross-lane
    op. The range end (`recent`): the last instruction the vreg is live into, else its
    first def. Parked-only: the values live only in parked lanes at its first def, when
    that def is masked."""
    n, nwords = live_in.shape
    first = np.full(nvregs, -1, dtype=np.int64)
    for i in range(n):
        d = defs[i]
        if d >= 0 and first[d] < 0:
            first[d] = i
    m = 0
    for v in range(nvregs):
        if first[v] >= 0:
            m += 1
    vregs = np.empty(m, dtype=np.int64)
    row = np.full(nvregs, -1, dtype=np.int64)
    k = 0
    for v in range(nvregs):
        if first[v] >= 0:
            vregs[k] = v
            row[v] = k
            k += 1
    across = np.zeros((m, nwords), dtype=np.uint64)
    for i in range(n):
        d = defs[i]
        if d < 0:
            continue
        f = flags[i]
        writes_all = (f & ALL_LANES) != 0 and not (uniform_masked and (f & UNIFORM) != 0)
        r = row[d]
        for w in range(nwords):
            x = live_out[i, w] | whole[i, w]
            if parked_too and writes_all:
                x |= parked[i, w]
            across[r, w] |= x
        if f & CROSS:
            for j in range(use_at[i], use_at[i + 1]):
                u = use[j]
                if u != d:
                    across[r, u // 64] |= np.uint64(1) << np.uint64(u % 64)
    for k in range(m):
        v = vregs[k]
        # less the vreg itself: only its own defs' sets named it, and each drops it
        across[k, v // 64] &= ~(np.uint64(1) << np.uint64(v % 64))
    last = np.empty(m, dtype=np.int64)
    for k in range(m):
        last[k] = first[vregs[k]]
    if recent:
        found = np.zeros(nvregs, dtype=np.bool_)
        for i in range(n - 1, -1, -1):
            for w in range(nwords):
                word = live_in[i, w]
                while word:
                    low = word & (~word + np.uint64(1))
                    b = 0
                    while (low >> np.uint64(b)) != np.uint64(1):
                        b += 1
                    v = w * 64 + b
                    word ^= low
                    if v < nvregs and not found[v]:
                        found[v] = True
                        if row[v] >= 0:
                            last[row[v]] = i
    parked_only = np.zeros((m, nwords), dtype=np.uint64)
    for k in range(m):
        i = first[vregs[k]]
        f = flags[i]
        writes_all = (f & ALL_LANES) != 0 and not (uniform_masked and (f & UNIFORM) != 0)
        if writes_all:
            continue
        for w in range(nwords):
            parked_only[k, w] = parked[i, w] & ~live_out[i, w]
    firsts = np.empty(m, dtype=np.int64)
    for k in range(m):
        firsts[k] = first[vregs[k]]
    return vregs, firsts, last, across, parked_only


def warm_up() -> None:
    """Compile, or load from numba's on-disk cache, this module's functions."""
    z = np.zeros(3, dtype=np.int64)
    one = np.array([0, 1, 1], dtype=np.int64)
    live_in, live_out, parked, whole = solve(
        one, np.array([1], dtype=np.int64), one, np.array([1], dtype=np.int64),
        np.array([0, 0, 1], dtype=np.int64), np.array([0], dtype=np.int64),
        np.array([0, 0, 1], dtype=np.int64), np.array([0], dtype=np.int64),
        np.array([0, -1], dtype=np.int64),
        np.array([0, ALL_LANES], dtype=np.int64), np.zeros((0, 3), dtype=np.int64), 1,
        False)
    vregs, firsts, last, across, parked_only = round_facts(
        live_in, live_out, parked, whole, np.array([0, -1], dtype=np.int64),
        np.array([0, ALL_LANES], dtype=np.int64), z, z[:0], 1, False, True, True)
    assert int(live_in[1, 0]) == 1 and int(whole[0, 0]) == 1 and vregs.tolist() == [0] \
        and last.tolist() == [1], "dataflow warm-up failed"
