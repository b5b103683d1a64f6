"""Whether a location's ordered atomics, with the old values a target says they returned,
form one order (docs/semantics.md, "Atomics that return").

Each atomic is an edge from the value it returned to the value it leaves (which the
oracle computed from that old value); an order of the location's atomics that a run could
have taken is a trail through all the edges from the location's starting value -- an
Eulerian trail -- that keeps each workitem's atomics in its program order and, in a
kernel that synchronises, each group's atomics of an epoch before its next epoch's.
Without those two constraints the degree test decides it; with them the search below is
exact, and bounded by counted steps (not time) where it cannot decide.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass

#: search steps one location may take before the order is called undecided
STEPS = 200_000


@dataclass(frozen=True)
class Edge:
    gid: int
    group: int
    epoch: int
    old: int
    new: int


@dataclass(frozen=True)
class Ordered:
    """The result: the value the order ends at (None: no order), and why not."""

    end: int | None
    why: str = ""
    undecided: bool = False


def find_order(start: int, edges: list[Edge], steps: int = STEPS) -> Ordered:
    """The end value of an order of `edges` from `start` (edges given workitem by
    workitem, each one's in program order)."""
    if not edges:
        return Ordered(start)
    bad = _degrees(start, edges)
    if bad:
        return Ordered(None, bad)
    return _search(start, edges, steps)


def _degrees(start: int, edges: list[Edge]) -> str:
    """Why no trail from `start` can use every edge once, by counting alone ("" where
    counting allows one)."""
    out, into = Counter(e.old for e in edges), Counter(e.new for e in edges)
    if out[start] == 0:
        e = edges[0]
        return (f"no atomic returned the starting value {start} (workitem {e.gid}'s "
                f"returned {e.old})")
    for v in set(out) | set(into):
        extra = out[v] - into[v] - (1 if v == start else 0)
        if extra > 0:
            who = sorted({e.gid for e in edges if e.old == v})
            return (f"{out[v]} atomics returned {v} but only {into[v] + (v == start)} "
                    f"could see it (workitems {who[:8]})")
    return ""


def _search(start: int, edges: list[Edge], steps: int) -> Ordered:
    """Depth-first over the next atomic to take. An available atomic that leaves the
    value as it is is taken at once (moving it earlier in any order keeps it one), and
    of the workitems whose remaining atomics are alike only one is tried. Workitems wait
    in `heads` under the value their next atomic returned, so a step looks only at those
    that can go next."""
    mine: dict[int, list[Edge]] = defaultdict(list)
    for e in edges:
        mine[e.gid].append(e)
    # per workitem and position, a hash of the rest of its atomics (alike workitems are
    # interchangeable; a 64-bit hash chained from the end, so linear in the atomics)
    rest: dict[int, list[int]] = {}
    for g, q in mine.items():
        h = [0] * (len(q) + 1)
        for p in range(len(q) - 1, -1, -1):
            e = q[p]
            h[p] = hash((e.old, e.new, e.group, e.epoch, h[p + 1]))
        rest[g] = h
    left: Counter[tuple[int, int]] = Counter((e.group, e.epoch) for e in edges)
    pos = dict.fromkeys(mine, 0)
    heads: dict[int, set[int]] = defaultdict(set)
    for g, q in mine.items():
        heads[q[0].old].add(g)
    total = len(edges)

    def ready(g: int) -> Edge:
        return mine[g][pos[g]]

    def in_epoch(e: Edge) -> bool:
        return not any(left[(e.group, k)] for k in range(e.epoch))

    def take(g: int) -> None:
        e = mine[g][pos[g]]
        heads[e.old].discard(g)
        pos[g] += 1
        left[(e.group, e.epoch)] -= 1
        if pos[g] < len(mine[g]):
            heads[mine[g][pos[g]].old].add(g)

    def untake(g: int) -> None:
        if pos[g] < len(mine[g]):
            heads[mine[g][pos[g]].old].discard(g)
        pos[g] -= 1
        e = mine[g][pos[g]]
        left[(e.group, e.epoch)] += 1
        heads[e.old].add(g)

    # a stack of choice points: (value, used so far, candidates, next to try, taken
    # greedily since)
    used = 0
    cur = start
    stack: list[tuple[int, int, list[int], int, list[int]]] = []
    budget = steps
    while True:
        budget -= 1
        if budget < 0:
            return Ordered(None, f"no order found in {steps:,} steps", undecided=True)
        greedy: list[int] = []
        progress = True
        while progress:  # atomics that keep the value, at once
            progress = False
            for g in sorted(heads.get(cur, ())):
                nxt = ready(g)
                if nxt.new == cur and in_epoch(nxt):
                    take(g)
                    greedy.append(g)
                    used += 1
                    progress = True
                    budget -= 1
        if used == total:
            return Ordered(cur)
        seen: set[tuple[int, int]] = set()
        cands = []
        for g in sorted(heads.get(cur, ())):
            nxt = ready(g)
            if in_epoch(nxt):
                key = (nxt.new, rest[g][pos[g]])
                if key not in seen:
                    seen.add(key)
                    cands.append(g)
        stack.append((cur, used, cands, 0, greedy))
        # take the next candidate of the innermost choice point that has one left
        while stack:
            value, was_used, cands, k, greedy = stack[-1]
            if k > 0:  # undo the candidate tried before
                untake(cands[k - 1])
            if k < len(cands):
                stack[-1] = (value, was_used, cands, k + 1, greedy)
                g = cands[k]
                cur = mine[g][pos[g]].new
                take(g)
                used = was_used + 1
                break
            stack.pop()
            for g in reversed(greedy):
                untake(g)
        else:
            first = edges[0]
            return Ordered(None, "no order of the atomics gives each the value it returned "
                           f"(from {start}; workitem {first.gid}'s first returned "
                           f"{first.old})")
