"""Greedy register colouring with spill choices, compiled: the per-vreg loop of register
allocation (`regalloc.py` has the rules: which registers a vreg may take, how `order`
picks among them, and which vreg is spilled when none is free).

Contract: `color_rows(...)` takes one round's half interference graph (`across`: per
vreg, what its defs may not clobber) and per-vreg facts, as `dataflow.round_facts` makes
them, colours the vregs in vreg order and returns (colours, victims), the victims in the
order they were chosen; the colours are a valid allocation only when there are no
victims. Sets are rows of uint64 words (bit v is bit v % 64 of word v // 64), a row per
defined vreg, in vreg order; `color(...)` takes them as Python int bitsets.

Why compiled: in Python the loop was a few dozen big-integer operations per vreg per
allocation round, and the first spill of a round built the whole graph: together a third
of compilation. Here both are word operations on a few KiB.

Every order makes the same choices as the Python loop this replaced
(tests/numba_simt/test_coloring.py keeps that loop as the reference and compares): the "random"
order draws from Python's own generator, `random.Random(seed)`, whose Mersenne Twister
state the loop carries on (`_genrand`, `_random`, `_below` are CPython's `genrand_uint32`,
`random()` and `_randbelow`), so a seed allocates as it always has.
"""

from __future__ import annotations

import functools
import random
from collections.abc import Callable

import numpy as np
from numba import njit

ORDER_CODES = {"lowest": 0, "recent": 1, "random": 2}
_DONE, _NEED_OCCURRENCES, _NO_VICTIM = 0, 1, 2
# the loop's resumable state (int64 words)
_J, _NVICTIMS, _HAVE_GRAPH, _HAVE_OCCURRENCES = 0, 1, 2, 3
_UNUSED = np.zeros(625, dtype=np.int64)  # the generator the non-random orders never read


def words(values: list[int], nwords: int) -> np.ndarray:
    """Non-negative bitsets as rows of a uint64[len(values), nwords] array."""
    nbytes = nwords * 8
    raw = bytearray(b"".join(v.to_bytes(nbytes, "little") for v in values))
    return np.frombuffer(raw, dtype=np.uint64).reshape(len(values), nwords)


def random_state(seed: int) -> np.ndarray:
    """`random.Random(seed)`'s state, as the loop carries it on: its 624 Mersenne
    Twister words and its position."""
    return np.array(_seeded(seed), dtype=np.int64)


@functools.lru_cache(maxsize=64)
def _seeded(seed: int) -> tuple[int, ...]:
    version, state, _ = random.Random(seed).getstate()
    assert version == 3 and len(state) == 625, "CPython's Mersenne Twister state"
    return state


def color(vregs: list[int], nvregs: int, across: list[int], parked_only: list[int],
          first: list[int], last: list[int], nregs: int, order: str, seed: int,
          excluded: set[int], occurrences: Callable[[], dict[int, int]],
          victim_rng: np.ndarray | None) -> tuple[dict[int, int], list[int]] | None:
    """`color_rows` with its sets as Python int bitsets (every vreg in them below
    `nvregs`) and its per-vreg facts as lists."""
    nwords = max(1, (nvregs + 63) // 64)  # a set with a vreg past it does not fit: raises
    return color_rows(np.asarray(vregs, dtype=np.int64).reshape(-1), words(across, nwords),
                      words(parked_only, nwords), np.asarray(first, dtype=np.int64),
                      np.asarray(last, dtype=np.int64), nregs, order, seed, excluded,
                      occurrences, victim_rng)


def color_rows(vregs: np.ndarray, across: np.ndarray, parked_only: np.ndarray,
               first: np.ndarray, last: np.ndarray, nregs: int, order: str, seed: int,
               excluded: set[int], occurrences: Callable[[], dict[int, int]],
               victim_rng: np.ndarray | None) -> tuple[dict[int, int], list[int]] | None:
    """Colour `vregs` (ascending) onto `nregs` registers. Per vreg, aligned with `vregs`:
    `across` (a row: what its defs may not clobber), `parked_only` (a row: the values
    live only in parked lanes at its first def, none when that def writes every lane:
    registers it may share), `first` (its first def's index) and `last` (where its range
    ends, for the "recent" order). A vreg that finds no register spills, by Chaitin's
    choice among it and its coloured neighbours: the highest degree per occurrence
    (`occurrences()`, asked for at the first spill), never one in `excluded`; with
    `victim_rng` (the random order's, kept across rounds) half the time a random one
    instead. Returns (colours, victims) -- no colours when there are victims: the round
    is spilled, not used --, or None when no vreg can be spilled."""
    m = len(vregs)
    if m == 0:
        return {}, []
    nwords = across.shape[1]
    nvregs = nwords * 64
    row_of = np.full(nvregs, -1, dtype=np.int64)
    vreg_of = vregs
    row_of[vreg_of] = np.arange(m, dtype=np.int64)
    skip = np.zeros(m, dtype=np.bool_)
    if excluded:
        wanted = np.fromiter(excluded, dtype=np.int64, count=len(excluded))
        rows = row_of[wanted[wanted < nvregs]]
        skip[rows[rows >= 0]] = True
    colour = np.full(m, -1, dtype=np.int64)
    occ = np.ones(m, dtype=np.int64)
    victims = np.empty(m, dtype=np.int64)
    state = np.zeros(4, dtype=np.int64)
    args = (vreg_of, row_of, across, parked_only, first, last,
            ORDER_CODES[order], colour, skip, occ, victims, state,
            np.zeros((nregs, nwords), dtype=np.uint64),  # register -> its holders
            np.zeros((nregs, nwords), dtype=np.uint64),  # -> what they may not clobber
            np.zeros(nwords, dtype=np.uint64),  # the coloured vregs
            np.zeros((nregs, m), dtype=np.int64), np.zeros(nregs, dtype=np.int64),
            np.zeros((m, nwords), dtype=np.uint64),
            random_state(seed) if order == "random" else _UNUSED,
            _UNUSED if victim_rng is None else victim_rng, victim_rng is not None)
    while True:
        status = _loop(*args)
        if status == _DONE:
            break
        if status == _NO_VICTIM:
            return None
        counts = occurrences()
        for k, v in enumerate(vregs.tolist()):
            occ[k] = counts.get(v, 1)
        state[_HAVE_OCCURRENCES] = 1
    if state[_NVICTIMS]:
        return {}, victims[:state[_NVICTIMS]].tolist()
    return dict(zip(vregs.tolist(), colour.tolist())), []


@njit(cache=True, nogil=True)
def _loop(vreg_of, row_of, acr, park, firsts, lasts, code, colour, skip, occ, victims,
          state, holding, blocked, colored, ends, nends, rev, rng, vrng,
          random_victims):  # type: ignore[no-untyped-def]
    """Colour rows state[_J].. in order, spilling on the way. Returns _DONE, or
    _NEED_OCCURRENCES (the caller fills `occ` and calls again: the loop goes on where it
    stopped), or _NO_VICTIM. `holding`/`blocked`: per register, the vregs coloured with
    it and what their defs may not clobber; `ends`/`nends`: per register, where its
    occupants' ranges end, sorted ("recent"); `rev`: the graph's other half, built at
    the first spill."""
    m = vreg_of.shape[0]
    nregs, nwords = holding.shape
    one = np.uint64(1)
    free = np.empty(nregs, dtype=np.int64)
    holders = np.empty(m, dtype=np.int64)
    cands = np.empty(m + 1, dtype=np.int64)
    j = state[_J]
    while j < m:
        state[_J] = j
        v = vreg_of[j]
        vw, vb = v >> 6, one << np.uint64(v & 63)
        nfree = 0
        for r in range(nregs):
            if blocked[r, vw] & vb:
                continue
            taken = False
            for k in range(nwords):
                if holding[r, k] & acr[j, k]:
                    taken = True
                    break
            if not taken:
                free[nfree] = r
                nfree += 1
        if nfree == 0:
            if not state[_HAVE_OCCURRENCES]:
                return _NEED_OCCURRENCES
            if not state[_HAVE_GRAPH]:
                _reverse(vreg_of, row_of, acr, rev)
                state[_HAVE_GRAPH] = 1
            victim = _victim(j, vreg_of, row_of, acr, rev, colored, skip, occ, cands, vrng,
                             random_victims)
            if victim < 0:
                return _NO_VICTIM
            victims[state[_NVICTIMS]] = victim
            state[_NVICTIMS] += 1
            vr = row_of[victim]
            skip[vr] = True
            if vr == j:
                j += 1  # v itself: not coloured
                continue
            r = colour[vr]  # a coloured neighbour gives its register back; v tries again
            colour[vr] = -1
            xw, xb = victim >> 6, one << np.uint64(victim & 63)
            holding[r, xw] &= ~xb
            colored[xw] &= ~xb
            blocked[r, :] = 0
            for k in range(nwords):
                x = holding[r, k]
                while x:
                    low = x & (~x + one)
                    ur = row_of[k * 64 + _bit_index(low)]
                    for t in range(nwords):
                        blocked[r, t] |= acr[ur, t]
                    x ^= low
            continue
        # registers holding a value live only in lanes this (masked) def leaves alone
        nh = 0
        for k in range(nwords):
            x = park[j, k] & colored[k]
            while x:
                low = x & (~x + one)
                held = colour[row_of[k * 64 + _bit_index(low)]]
                for f in range(nfree):
                    if free[f] == held:
                        holders[nh] = held
                        nh += 1
                        break
                x ^= low
        if code == 2:  # random: rng.choice(holders) half the time, else rng.choice(free)
            if nh > 0 and _random(rng) < 0.5:
                choice = holders[_below(rng, nh)]
            else:
                choice = free[_below(rng, nfree)]
        elif nh > 0:
            choice = holders[nh - 1]  # the most recently defined holder's (highest vreg)
        elif code == 1:  # recent: the register whose last occupant's range ended last
            i = firsts[j]
            choice = free[0]
            best = -2
            for f in range(nfree):
                r = free[f]
                k = np.searchsorted(ends[r, :nends[r]], i, side="right")
                at = ends[r, k - 1] if k > 0 else -1
                if at > best:  # ties keep the lower register (free is ascending)
                    best = at
                    choice = r
        else:
            choice = free[0]
        colour[j] = choice
        colored[vw] |= vb
        holding[choice, vw] |= vb
        for k in range(nwords):
            blocked[choice, k] |= acr[j, k]
        if code == 1:
            n = nends[choice]
            k = np.searchsorted(ends[choice, :n], lasts[j], side="right")
            for t in range(n, k, -1):
                ends[choice, t] = ends[choice, t - 1]
            ends[choice, k] = lasts[j]
            nends[choice] = n + 1
        j += 1
    state[_J] = m
    return _DONE


@njit(cache=True, nogil=True)
def _reverse(vreg_of, row_of, acr, rev):  # type: ignore[no-untyped-def]
    """rev[row of u] gets bit d for each d whose defs may not clobber u: with `acr`, the
    whole interference graph."""
    m, nwords = acr.shape
    one = np.uint64(1)
    for j in range(m):
        d = vreg_of[j]
        dw, db = d >> 6, one << np.uint64(d & 63)
        for k in range(nwords):
            x = acr[j, k]
            while x:
                low = x & (~x + one)
                ur = row_of[k * 64 + _bit_index(low)]
                if ur >= 0:
                    rev[ur, dw] |= db
                x ^= low


@njit(cache=True, nogil=True)
def _victim(j, vreg_of, row_of, acr, rev, colored, skip, occ, cands, vrng,
            random_victims):  # type: ignore[no-untyped-def]
    """Chaitin's choice among row j's vreg and its coloured neighbours, not `skip`ped:
    the highest degree per occurrence (long, rarely used ranges first), the lower vreg on
    a tie; under `random_victims`, half the time a random one of them (in vreg order).
    Returns a vreg, or -1 when every candidate is skipped."""
    nwords = acr.shape[1]
    one = np.uint64(1)
    v = vreg_of[j]
    n = 0
    placed = skip[j]  # v goes in among its neighbours, in vreg order
    for k in range(nwords):
        x = (acr[j, k] | rev[j, k]) & colored[k]
        while x:
            low = x & (~x + one)
            u = k * 64 + _bit_index(low)
            if not placed and v < u:
                cands[n] = v
                n += 1
                placed = True
            if not skip[row_of[u]]:
                cands[n] = u
                n += 1
            x ^= low
    if not placed:
        cands[n] = v
        n += 1
    if n == 0:
        return -1
    if random_victims and _random(vrng) < 0.5:
        return cands[_below(vrng, n)]
    best, best_score = -1, -1.0
    for c in range(n):
        u = cands[c]
        ru = row_of[u]
        degree = 0
        for k in range(nwords):
            degree += _popcount(acr[ru, k] | rev[ru, k])
        score = degree / occ[ru]
        if score > best_score:  # candidates ascend: a tie keeps the lower vreg
            best, best_score = u, score
    return best


@njit(cache=True, nogil=True, inline="always")
def _popcount(x):  # type: ignore[no-untyped-def]
    """The set bits of a uint64, counted (SWAR)."""
    x = x - ((x >> np.uint64(1)) & np.uint64(0x5555555555555555))
    x = (x & np.uint64(0x3333333333333333)) + ((x >> np.uint64(2)) & np.uint64(0x3333333333333333))
    x = (x + (x >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
    return int((x * np.uint64(0x0101010101010101)) >> np.uint64(56))


@njit(cache=True, nogil=True)
def _genrand(mt):  # type: ignore[no-untyped-def]
    """CPython's genrand_uint32: the next 32 bits of the Mersenne Twister whose 624 words
    and position are `mt` (int64 words, each below 2**32)."""
    if mt[624] >= 624:
        for kk in range(624):
            y = (mt[kk] & 0x80000000) | (mt[(kk + 1) % 624] & 0x7FFFFFFF)
            mt[kk] = mt[(kk + 397) % 624] ^ (y >> 1) ^ (0x9908B0DF if y & 1 else 0)
        mt[624] = 0
    y = mt[mt[624]]
    mt[624] += 1
    y ^= y >> 11
    y ^= (y << 7) & 0x9D2C5680
    y ^= (y << 15) & 0xEFC60000
    return y ^ (y >> 18)


@njit(cache=True, nogil=True)
def _random(mt):  # type: ignore[no-untyped-def]
    """CPython's random(): 53 bits from two outputs."""
    a = _genrand(mt) >> 5
    b = _genrand(mt) >> 6
    return (a * 67108864.0 + b) * (1.0 / 9007199254740992.0)


@njit(cache=True, nogil=True)
def _below(mt, n):  # type: ignore[no-untyped-def]
    """CPython's _randbelow(n) (n < 2**32): getrandbits(n.bit_length()) until below n."""
    k = 0
    while (n >> k) > 0:
        k += 1
    r = _genrand(mt) >> (32 - k)
    while r >= n:
        r = _genrand(mt) >> (32 - k)
    return r


@njit(cache=True, nogil=True, inline="always")
def _bit_index(low):  # type: ignore[no-untyped-def]
    """The index of the one set bit of `low`: the bits below it, counted."""
    return _popcount(low - np.uint64(1))


def warm_up() -> None:
    """Compile, or load from numba's on-disk cache, the loop and every path in it (three
    vregs that all interfere, one register: two spill)."""
    for order in ORDER_CODES:
        out = color([0, 1, 2], 3, [0b110, 0b100, 0], [0, 0b1, 0], [0, 1, 2], [2, 2, 2], 1,
                    order, 0, set(), lambda: {0: 3, 1: 2, 2: 1}, random_state(1))
        assert out is not None and len(out[1]) == 2, f"colouring warm-up failed: {out}"
