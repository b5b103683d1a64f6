"""The oracle's host: a case's host program against a plain model (a dict of arrays).

No pool, no copies, no mappings as storage: a buffer is its contents, a mapping only a
name the rules track (`difftest.core.host.HostRules`). So a read through a mapping for reading
shows the buffer's current contents, launches included, and a write through a mapping for
writing is simply a write: the buffer is not used by anything else until it is unmapped.
Each launch is the reference oracle's full run on the bound buffers.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np

from difftest.core.case import Case
from difftest.core.fullrun import HostRun
from difftest.core.host import HostError, HostRules, binding, data_words, storage_dtype
from difftest.core.ir.types import DTYPES

from .reference import _wrap, run_full


def run_host(case: Case, options: dict[str, Any] | None = None) -> HostRun:
    assert case.host is not None
    fn = case.function
    rules = HostRules.for_case(case.args, fn)
    model = {k: v.copy() for k, v in case.args.items() if isinstance(v, np.ndarray)}
    run = HostRun()
    maps: dict[str, str] = {}  # mapping -> buffer
    for i, step in enumerate(case.host):
        op = step["op"]
        try:
            rules.check(step, fn)
        except HostError as e:
            run.error = (i, e.kind)
            break
        if op == "create":
            model[step["buffer"]] = np.zeros(step["length"], dtype=storage_dtype(step["dtype"]))
        elif op == "map":
            maps[step["as"]] = step["buffer"]
        elif op == "unmap":
            del maps[step["mapping"]]
        elif op == "free":
            del model[step["buffer"]]
        elif op in ("write", "map_write"):
            name = step["buffer"] if op == "write" else maps[step["mapping"]]
            buf, element = model[name], DTYPES[rules.buffers[name][0]]
            lo = step["offset"]
            buf[lo:lo + len(step["data"])] = _wrap(data_words(step), element)
        elif op in ("read", "map_read"):
            seen = model[step["buffer"] if op == "read" else maps[step["mapping"]]]
            run.observations.append((i, [int(x) for x in seen]))
        elif op == "launch":
            bind = binding(step, fn)
            args = {p.name: (model[bind[p.name]].copy() if p.ty.is_buffer else case.args[p.name])
                    for p in fn.params}
            launch = dataclasses.replace(case, args=args, host=None)
            full = run_full(launch, options)
            run.launches += 1
            run.trips.append(max(full.trips, default=0))
            if full.exhausted or full.faulting:
                run.ended_by, run.full, run.binding = launch, full, bind
                break
            for param, name in bind.items():
                model[name] = full.final[param].copy()
    run.final = model
    return run
