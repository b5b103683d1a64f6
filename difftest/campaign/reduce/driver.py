"""The reduction loop: passes applied greedily to a fixed point, or until its budget of
candidate checks (or a time limit the user asked for) is spent."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any
from collections.abc import Callable, Iterator

from difftest.core.case import Case

from .candidates import Deadline, Predicate, measure, size
from .compounds import unwrap_compounds
from .delete import delete_statements, delete_with_variants
from .expressions import propagate_copies, simplify_expressions
from .helpers import drop_unused_helpers, inline_helpers
from .launch import (drop_unused_params, shrink_launch, simplify_host, simplify_inputs,
                     simplify_schedule_and_options)


@dataclass
class ReduceStats:
    checks: int = 0
    kept: int = 0
    seconds: float = 0.0
    before: tuple[int, int] = (0, 0)  # (statements, n)
    after: tuple[int, int] = (0, 0)
    finished: bool = False  # a fixed point was reached (not a limit)
    cut_by_time: bool = False  # the time limit ended it, not the checks budget


def reduce_case(case: Case, still_fails: Predicate, seconds: float | None = None,
                variants: Callable[[dict[str, Any]], list[dict[str, Any]]] | None = None,
                stop: Callable[[], bool] | None = None, checks: int | None = None
                ) -> tuple[Case, ReduceStats]:
    """The smallest case the passes reach for which `still_fails` holds (the input itself
    when nothing smaller does), within `checks` candidate checks and `seconds` of wall
    clock where given. Only the checks budget gives the same result on any machine: a
    time limit is the caller's (a user who asked for one), never a default.
    `variants(options)` proposes other option settings for the polish pass. `stop()` true
    ends it early (a signal), with the best case so far."""
    stats = ReduceStats(before=size(case))
    start = time.monotonic()
    deadline = Deadline(None if seconds is None else start + seconds, stop, checks)
    best = case
    passes: list[Callable[[Case], Iterator[Case]]] = [
        drop_unused_helpers, unwrap_compounds, inline_helpers,
        shrink_launch, propagate_copies, simplify_expressions, drop_unused_params,
        simplify_inputs, simplify_schedule_and_options, simplify_host,
    ]

    def test(candidate: Case) -> bool:
        if measure(candidate) >= measure(best):
            return False  # not a reduction (inlining that adds more than it removes)
        stats.checks += 1
        deadline.used += 1
        if _holds(still_fails, candidate):
            stats.kept += 1
            return True
        return False

    def apply(make: Callable[[Case], Iterator[Case]]) -> bool:
        """Runs one pass to its fixed point; True when it kept a candidate."""
        nonlocal best
        kept, restart = False, True
        while restart and not deadline.over():
            restart = False
            for candidate in make(best):
                if deadline.over():
                    break
                if test(candidate):
                    best = candidate
                    kept = restart = True
                    break
        return kept

    apply(shrink_launch)  # first: a smaller launch makes every later check cheaper
    progress = True
    polished = False
    while progress and not deadline.over():
        progress = False
        smaller = delete_statements(best, test, deadline)
        if smaller is not best:
            best, progress = smaller, True
        for make in passes:
            progress = apply(make) or progress
        if not progress and variants is not None and not polished:
            polished = True
            smaller = delete_with_variants(best, test, deadline, variants)
            if smaller is not best:
                best, progress, polished = smaller, True, False
    # (a pass the budget cut short keeps nothing, and the loop ends as at a fixed point)
    stats.finished = not progress and not deadline.over()
    stats.cut_by_time = deadline.timed_out
    stats.seconds = time.monotonic() - start
    stats.after = size(best)
    return best, stats


def _holds(still_fails: Predicate, candidate: Case) -> bool:
    """A candidate the predicate cannot even judge (it raises) is not kept: a reduction
    must never end a campaign."""
    try:
        return bool(still_fails(candidate))
    except Exception:  # noqa: BLE001 - e.g. a candidate nesting deeper than a pass allows
        return False
