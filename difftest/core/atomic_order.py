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

import random
from bisect import bisect_left, bisect_right, insort
from heapq import heapify, heappop, heappush
from collections import Counter, defaultdict
from dataclasses import dataclass
from typing import NamedTuple

#: search steps one location may take before the order is called undecided
STEPS = 200_000
_MASK = (1 << 64) - 1
_NONE_LEFT = 1 << 62  # a group's earliest epoch with atomics left, where none is


class Edge(NamedTuple):
    """One atomic: a tuple, since a location of a big launch makes tens of thousands
    (a frozen dataclass took a third of the checker's time building them)."""

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


def find_order(start: int, edges: list[Edge], steps: int = STEPS, wave: int = 0) -> Ordered:
    """The end value of an order of `edges` from `start` (edges given workitem by
    workitem, each one's in program order). `wave`: the launch's wave size, where known
    (the search then tries a wave's lanes together first: `_ORDERS`)."""
    if not edges:
        return Ordered(start)
    bad = _degrees(start, edges)
    if bad:
        return Ordered(None, bad)
    unbarred = _one_epoch_each(edges)
    if unbarred and len({e.gid for e in edges}) == len(edges):
        # no order is ruled out by program or barrier order (most of a campaign's
        # locations: a wave's lanes adding to a counter once)
        return Ordered(_end(start, edges)) if _connected(start, edges) else \
            _no_order(start, edges)
    end = _greedy(start, edges) if unbarred else None
    return Ordered(end) if end is not None else _search(start, edges, steps, wave)


def _one_epoch_each(edges: list[Edge]) -> bool:
    """Whether each group's `edges` are of one epoch (no barrier orders them)."""
    epochs: dict[int, int] = {}
    return all(epochs.setdefault(e.group, e.epoch) == e.epoch for e in edges)


def _greedy(start: int, edges: list[Edge]) -> int | None:
    """The end of one pass that never looks back, if it takes every edge from `start`
    (None where it is stuck: then the search decides): at each value, an atomic that
    keeps it if one can go, else the lowest workitem's that can (a wave's lanes go in
    lane order). Most histories a run makes are found so, at a fraction of the search's
    cost per atomic; a pass that took them all is an order, so its answer is right."""
    mine: dict[int, list[Edge]] = defaultdict(list)
    for e in edges:
        mine[e.gid].append(e)
    keeps: dict[int, list[int]] = defaultdict(list)  # per value, heaps of workitems
    moves: dict[int, list[int]] = defaultdict(list)
    pos = dict.fromkeys(mine, 0)
    for g, q in mine.items():
        (keeps if q[0].old == q[0].new else moves)[q[0].old].append(g)
    for waiting in (*keeps.values(), *moves.values()):
        heapify(waiting)
    cur = start
    for _ in range(len(edges)):
        heap = keeps.get(cur) or moves.get(cur)
        if not heap:
            return None
        g = heappop(heap)
        q, p = mine[g], pos[g] + 1
        cur, pos[g] = q[p - 1].new, p
        if p < len(q):
            e = q[p]
            heappush((keeps if e.old == e.new else moves)[e.old], g)
    return cur


def _connected(start: int, edges: list[Edge]) -> bool:
    """Whether every edge is joined to `start` when directions are forgotten: with
    `_degrees` satisfied, that is exactly when a trail from `start` takes every edge once
    (Euler's theorem for directed graphs)."""
    parent: dict[int, int] = {}

    def root(v: int) -> int:
        parent.setdefault(v, v)
        while parent[v] != v:
            parent[v] = parent[parent[v]]
            v = parent[v]
        return v

    for e in edges:
        parent[root(e.old)] = root(e.new)
    top = root(start)
    return all(root(e.old) == top for e in edges)


def trail_end(start: int, edges: list[Edge]) -> int | None:
    """Where every order of `edges` from `start` ends, if counting allows one (None
    where it does not): the value the location holds once all of them are taken, which
    no search is needed for."""
    if not edges:
        return start
    return None if _degrees(start, edges) else _end(start, edges)


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


#: the orders an attempt tries a choice's candidates in: a wave's atomic takes its lanes
#: in order, but which wave went next is anyone's guess, and one order's early mistake
#: costs it a whole subtree that another's rarely shares. "wave" (where the wave size is
#: known, first): the lanes after the last one taken in its wave, then the lowest
#: workitem -- a wave's instruction runs its active lanes one after another, and the
#: earliest wave is the likeliest to be behind (backwards, the lanes before the last in
#: its wave, then the highest)
_ORDERS = ("ascending", "after-last", "descending")
_WAVE = "wave"
#: the steps of each order's first attempt, per atomic (one pass takes one step each, and
#: a few more); each round doubles them
_FIRST_SLICE = 4


def _search(start: int, edges: list[Edge], steps: int, wave: int = 0) -> Ordered:
    """Attempts of a depth-first search (`_Search`) in each of `_ORDERS` in turn, from the
    start forwards and from the end backwards (an order read backwards is an order of
    the reversed atomics: a mistake one direction finds late the other often meets
    early), each round's twice as long as the last, each search keeping what it learnt
    (its dead states), until one finds an order, one exhausts the choices (then there is
    none), or `steps` are spent."""
    searches: list[tuple[_Search, int | None]] = [(_Search(start, edges, wave), None)]
    spent, size = 0, _FIRST_SLICE * len(edges)
    orders = ((_WAVE,) if wave > 1 else ()) + _ORDERS
    while True:
        for order in orders:
            for k in range(2):
                if k == len(searches):  # backwards, built once forwards has not found it
                    searches.append((_Search(_end(start, edges), _backwards(edges), wave,
                                             backwards=True), _end(start, edges)))
                search, ends_at = searches[k]
                budget = min(size, steps - spent)
                if budget <= 0:
                    return Ordered(None, f"no order found in {steps:,} steps",
                                   undecided=True)
                found, used = search.attempt(order, budget)
                spent += used
                if found is not None:
                    if found.end is None:
                        return _no_order(start, edges)
                    return Ordered(ends_at if ends_at is not None else found.end)
        size *= 2


def _backwards(edges: list[Edge]) -> list[Edge]:
    """The atomics of an order read backwards: each edge reversed, each workitem's in
    reverse program order, each group's epochs reversed."""
    last_epoch = max(e.epoch for e in edges)
    return [Edge(e.gid, e.group, last_epoch - e.epoch, e.new, e.old) for e in reversed(edges)]


def _end(start: int, edges: list[Edge]) -> int:
    """Where every trail through all `edges` from `start` ends, by counting (the value
    entered once more than left; `start` itself where none is): `_degrees` has
    allowed one."""
    out, into = Counter(e.old for e in edges), Counter(e.new for e in edges)
    for v in into:
        if into[v] - out[v] + (v == start) == 1:
            return v
    return start


def _no_order(start: int, edges: list[Edge]) -> Ordered:
    first = edges[0]
    return Ordered(None, "no order of the atomics gives each the value it returned (from "
                   f"{start}; workitem {first.gid}'s first returned {first.old})")


class _Search:
    """Depth-first over the next atomic to take. An available atomic that leaves the
    value as it is is taken at once (moving it earlier in any order keeps it one), and
    of the workitems whose remaining atomics are alike only one is tried. Workitems wait
    in `heads` under the value their next atomic returned, so a step looks only at those
    that can go next. A state -- the value, and what is left of each workitem's atomics,
    alike workitems interchangeable -- from which no order was found is remembered (as
    a sum of random 64-bit weights, one per distinct rest) and not searched again:
    orders that take independent atomics in another order meet in one state. A
    candidate that leaves a value for good (no atomic left leads back) with atomics
    still to take there ends its branch at once. Workitems wait in `heads` by kind too
    (the number of their rest), each kind's in ascending order, so a choice costs one
    look per kind, not one per workitem: thousands of lanes adding the same value make
    a handful of kinds. Where the start cannot reach every atomic there is no order.
    Once a dead end is met, a real choice first asks whether every atomic left can still
    be reached at all (`covered`), and where that fails, so do the states above it until
    one passes; each ask is charged to the steps by the work it took."""

    def __init__(self, start: int, edges: list[Edge], wave: int = 0,
                 backwards: bool = False) -> None:
        self.start, self.edges, self.total = start, edges, len(edges)
        self.wave, self.backwards = max(wave, 1), backwards
        self.mine: dict[int, list[Edge]] = defaultdict(list)
        for e in edges:
            self.mine[e.gid].append(e)
        # per workitem and position, a 64-bit weight of the rest of its atomics (alike
        # workitems are interchangeable; a group whose atomics here are all of one epoch
        # waits for nothing, so its workitems are alike those of other groups)
        epochs: dict[int, set[int]] = defaultdict(set)
        for e in edges:
            epochs[e.group].add(e.epoch)
        # Each distinct rest gets a number (exact: keyed by its first atomic and the
        # number of what follows) and a random 64-bit weight, which stands for it in the
        # sum. Not Python's hash(): it reduces integers modulo 2^61 - 1, so that -4 and
        # -2^63 (or 0 and 2^63 - 4) hash alike, and states that differ looked the same.
        numbers: dict[tuple[int, int, int, int, int], int] = {}
        weights = [0]  # the empty rest's
        draw = random.Random(len(edges))
        self.rest: dict[int, list[int]] = {}
        self.kind: dict[int, list[int]] = {}  # per workitem and position, its rest's number
        for g, q in self.mine.items():
            h = [0] * (len(q) + 1)
            kinds = [0] * len(q)
            waits = len(epochs[q[0].group]) > 1
            number = 0
            for p in range(len(q) - 1, -1, -1):
                e = q[p]
                key = (e.old, e.new, e.group if waits else -1, e.epoch if waits else -1,
                       number)
                if key not in numbers:
                    numbers[key] = len(weights)
                    weights.append(draw.getrandbits(64))
                number = numbers[key]
                h[p], kinds[p] = weights[number], number
            self.rest[g], self.kind[g] = h, kinds
        # the value each kind's next atomic leaves (a kind is alike workitems: in a
        # group that waits, of one group and epoch; else of groups that never wait, so
        # whether its next atomic may go now is the same for all of them)
        self.kind_new = [0] * len(weights)
        for (_, new, _, _, _), number in numbers.items():
            self.kind_new[number] = new
        self.epochs = {grp: sorted(ks) for grp, ks in epochs.items()}
        # whether a barrier orders any group's atomics here (else `covered` needs no
        # epochs, and walks each workitem's values as lists: its inner loop reads only those)
        self.barred = any(len(ks) > 1 for ks in epochs.values())
        if not self.barred:
            self.olds = {g: [e.old for e in q] for g, q in self.mine.items()}
            self.news = {g: [e.new for e in q] for g, q in self.mine.items()}
        self.dead: set[tuple[int, int]] = set()
        self.reachable: bool | None = None  # `covered` at the start (asked once)

    def _reset(self) -> None:
        self.left: Counter[tuple[int, int]] = Counter((e.group, e.epoch) for e in self.edges)
        # per group, its earliest epoch with atomics left (an atomic may go when its
        # epoch is no later)
        self.low = {grp: ks[0] for grp, ks in self.epochs.items()}
        self.pos = dict.fromkeys(self.mine, 0)
        # per value, the workitems whose next atomic returned it: per kind, ascending
        self.heads: dict[int, dict[int, list[int]]] = defaultdict(dict)
        for g in self.mine:
            self._wait(g, 0)
        # the multiset of the workitems' remaining atomics, as a sum of their weights
        self.state = sum(h[0] for h in self.rest.values()) & _MASK
        self.last = -1
        # per value, the atomics left that start there, and those that lead there from
        # another value: a value nothing leads to again is never visited again
        self.out_left = Counter(e.old for e in self.edges)
        self.into_left = Counter(e.new for e in self.edges if e.new != e.old)

    def in_epoch(self, e: Edge) -> bool:
        return e.epoch <= self.low[e.group]

    def _wait(self, g: int, pos: int) -> None:
        """Workitem `g`, its atomic at `pos` next, into `heads`."""
        insort(self.heads[self.mine[g][pos].old].setdefault(self.kind[g][pos], []), g)

    def _unwait(self, g: int, pos: int) -> None:
        kinds, kind = self.heads[self.mine[g][pos].old], self.kind[g][pos]
        alike = kinds[kind]
        del alike[bisect_left(alike, g)]
        if not alike:
            del kinds[kind]

    def take(self, g: int) -> None:
        pos, q, rest = self.pos[g], self.mine[g], self.rest[g]
        e = q[pos]
        self._unwait(g, pos)
        self.state = (self.state + rest[pos + 1] - rest[pos]) & _MASK
        self.pos[g] = pos + 1
        here = (e.group, e.epoch)
        self.left[here] -= 1
        if not self.left[here] and e.epoch == self.low[e.group]:
            self.low[e.group] = next((k for k in self.epochs[e.group]
                                      if self.left[(e.group, k)]), _NONE_LEFT)
        self.out_left[e.old] -= 1
        if e.new != e.old:
            self.into_left[e.new] -= 1
        if pos + 1 < len(q):
            self._wait(g, pos + 1)
        self.last = g

    def untake(self, g: int) -> None:
        pos, q, rest = self.pos[g], self.mine[g], self.rest[g]
        if pos < len(q):
            self._unwait(g, pos)
        e = q[pos - 1]
        self.state = (self.state + rest[pos - 1] - rest[pos]) & _MASK
        self.pos[g] = pos - 1
        self.left[(e.group, e.epoch)] += 1
        self.low[e.group] = min(self.low[e.group], e.epoch)
        self.out_left[e.old] += 1
        if e.new != e.old:
            self.into_left[e.new] += 1
        self._wait(g, pos - 1)

    def covered(self, cur: int, used: int) -> tuple[bool, int]:
        """Whether every remaining atomic can be reached from `cur` at all, and the work
        that took: values once reached counted as reachable for good, a workitem's
        atomics in its program order and a group's in its epochs' order (a necessary
        condition: an order that exists reaches each atomic so)."""
        if self.barred:
            return self._covered_in_epochs(cur, used)
        # no barrier: only values decide, so a workitem runs on while it reaches its
        # atomics' values (the same walk as `_covered_in_epochs`, without the epochs)
        seen = {cur}
        olds_of, news_of = self.olds, self.news
        waiting: dict[int, list[tuple[int, int]]] = defaultdict(list)  # (workitem, at)
        now = [(g, p) for g, p in self.pos.items() if p < len(olds_of[g])]
        count = 0
        while now:
            g, p = now.pop()
            olds, news = olds_of[g], news_of[g]
            first, end = p, len(olds)
            while p < end:
                if olds[p] not in seen:
                    waiting[olds[p]].append((g, p))
                    break
                new = news[p]
                p += 1
                if new not in seen:
                    seen.add(new)
                    if new in waiting:
                        now += waiting.pop(new)
            count += p - first
        return count == self.total - used, count

    def _covered_in_epochs(self, cur: int, used: int) -> tuple[bool, int]:
        """`covered` where barriers order some group's atomics."""
        seen = {cur}
        at = dict(self.pos)
        waiting: dict[int, list[int]] = defaultdict(list)
        blocked: dict[int, list[int]] = defaultdict(list)
        todo = Counter({k: c for k, c in self.left.items() if c})
        now = [g for g, p in at.items() if p < len(self.mine[g])]
        count = 0
        while now:
            g = now.pop()
            q = self.mine[g]
            while at[g] < len(q):
                e = q[at[g]]
                if e.old not in seen:
                    waiting[e.old].append(g)
                    break
                if any(todo[(e.group, k)] for k in range(e.epoch)):
                    blocked[e.group].append(g)
                    break
                at[g] += 1
                count += 1
                todo[(e.group, e.epoch)] -= 1
                if todo[(e.group, e.epoch)] == 0 and blocked[e.group]:
                    now += blocked.pop(e.group)
                if e.new not in seen:
                    seen.add(e.new)
                    now += waiting.pop(e.new, ())
        return count == self.total - used, count

    def _candidates(self, cur: int, order: str) -> list[int]:
        """The workitems that can take the next atomic at `cur`, one of each alike kind,
        in `order`."""
        if (cur, self.state) in self.dead:
            return []
        last, cands = self.last, []
        for alike in self.heads.get(cur, {}).values():
            # the kind's first workitem in `order`
            if order == "ascending":
                g = alike[0]
            elif order == "descending":
                g = alike[-1]
            elif order == _WAVE and self.backwards:
                k = bisect_left(alike, last) - 1
                g = alike[k] if k >= 0 else alike[-1]
            else:
                k = bisect_right(alike, last)
                g = alike[k] if k < len(alike) else alike[0]
            if self.in_epoch(self.mine[g][self.pos[g]]):
                cands.append(g)
        if order == "descending":
            return sorted(cands, reverse=True)
        if order == _WAVE:
            wave, w = self.wave, last // self.wave
            if self.backwards:
                return sorted(cands, key=lambda g: (not (g < last and g // wave == w), -g))
            return sorted(cands, key=lambda g: (not (g > last and g // wave == w), g))
        return sorted(cands, key=(lambda g: (g <= last, g)) if order == "after-last" else None)

    def attempt(self, order: str, steps: int) -> tuple[Ordered | None, int]:
        """One depth-first search from the start: (the result, or None where `steps`
        ran out first; the steps it took)."""
        self._reset()
        used, cur, budget = 0, self.start, steps
        if self.reachable is None:  # once: can the start reach every atomic at all?
            self.reachable, work = self.covered(self.start, 0)
            budget -= 1 + work // 8
        if not self.reachable:
            return _no_order(self.start, self.edges), steps - budget
        wait = interval = 1
        climbing = False
        # choice points: (value, used so far, candidates, next to try, taken greedily
        # since, state)
        stack: list[tuple[int, int, list[int], int, list[int], int]] = []
        while True:
            budget -= 1
            if budget < 0:
                return None, steps
            greedy: list[int] = []
            progress = True
            while progress:  # atomics that keep the value, at once
                progress = False
                kinds = self.heads.get(cur, {})
                for g in sorted(g for kind, alike in kinds.items()
                                if self.kind_new[kind] == cur for g in alike):
                    nxt = self.mine[g][self.pos[g]]
                    if self.in_epoch(nxt):
                        self.take(g)
                        greedy.append(g)
                        used += 1
                        progress = True
                        budget -= 1
            if used == self.total:
                return Ordered(cur), steps - budget
            cands = self._candidates(cur, order)
            if len(cands) > 1 and self.dead:
                # `covered` costs a pass over what is left: asked at the choices after a
                # dead end, less often (every 2nd, 4th, ...) while it finds nothing
                wait -= 1
                if wait <= 0:
                    reached, work = self.covered(cur, used)
                    budget -= 1 + work // 8
                    interval = 1 if not reached else 2 * interval
                    wait = interval
                    if not reached:
                        cands = []
                        climbing = True
            stack.append((cur, used, cands, 0, greedy, self.state))
            # take the next candidate of the innermost choice point that has one left
            while stack:
                value, was_used, cands, k, greedy, at = stack[-1]
                if k > 0:  # undo the candidate tried before
                    self.untake(cands[k - 1])
                if climbing and k < len(cands):
                    # below a state that cannot reach every atomic: are the states
                    # above it so too? Then their other candidates need no trying
                    reached, work = self.covered(value, was_used)
                    budget -= 1 + work // 8
                    if budget < 0:  # climbing thousands of levels costs as much
                        return None, steps
                    climbing = not reached
                    if not reached:
                        k = len(cands)
                if k < len(cands):
                    stack[-1] = (value, was_used, cands, k + 1, greedy, at)
                    g = cands[k]
                    cur = self.mine[g][self.pos[g]].new
                    self.take(g)
                    used = was_used + 1
                    if self.into_left[value] == 0 and self.out_left[value]:
                        # it left `value` for good with atomics still to take there
                        budget -= 1
                        continue
                    break
                stack.pop()
                self.dead.add((value, at))
                for g in reversed(greedy):
                    self.untake(g)
            else:
                return _no_order(self.start, self.edges), steps - budget
