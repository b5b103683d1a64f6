"""Deleting statements: ddmin over every block, and the polish pass that retries each
single deletion under other option settings (for fragile register-allocation bugs)."""

from __future__ import annotations

import dataclasses
from typing import Any
from collections.abc import Callable

from difftest.core.case import Case
from difftest.core.ir.walk import at, replace_at

from .candidates import Deadline, Predicate, block_paths, with_program


def delete_statements(case: Case, test: Predicate, deadline: Deadline) -> Case:
    """ddmin over each block, outermost first: remove chunks of halving size, carrying on
    from where a removal worked (a block's own path survives deletions inside it; blocks
    nested in it come later in the order and are looked up again)."""
    k = 0
    while not deadline.over():
        paths = block_paths(case.program)
        if k >= len(paths):
            return case
        path = paths[k]
        chunk = max(1, len(at(case.program, path)) // 2)
        while chunk >= 1 and not deadline.over():
            start = 0
            while start < len(at(case.program, path)) and not deadline.over():
                block = at(case.program, path)
                cut = block[:start] + block[start + chunk:]
                cand = with_program(case, replace_at(case.program, path, cut))
                if cand is not None and test(cand):
                    case = cand  # the next chunk now starts here
                else:
                    start += chunk
            chunk //= 2
        k += 1
    return case


def delete_with_variants(case: Case, test: Predicate, deadline: Deadline,
                          variants: Callable[[dict[str, Any]], list[dict[str, Any]]]
                          ) -> Case:
    """Single-statement deletions that only fail under other options: each deletion is
    tried with every proposed variant of the options (innermost blocks first)."""
    for path in reversed(block_paths(case.program)):
        i = 0
        while not deadline.over():
            try:
                block = at(case.program, path)
            except (IndexError, AttributeError):
                break  # the path went away with an earlier deletion
            if i >= len(block):
                break
            cand = with_program(case, replace_at(case.program, path, block[:i] + block[i + 1:]))
            kept = None
            if cand is not None:
                for options in variants(cand.options):
                    if deadline.over():
                        break
                    alt = dataclasses.replace(cand, options=options)
                    if test(alt):
                        kept = alt
                        break
            if kept is not None:
                case = kept
            else:
                i += 1
    return case
