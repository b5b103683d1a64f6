"""numba-simt's host: a case's host program against the buffer pool (pool.py).

The rules of host programs (which step is an error when) are the language's
(`difftest.core.host.HostRules`); everything that holds data -- buffers, mappings, the
storage a launch runs on -- is the pool's. Each launch promotes its bound items, runs on
the pool's storage with a buffer table of their current bases, and then refreshes the read
mappings. A launch that reports an exception (or an error) ends the program.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from difftest.core.case import Case
from difftest.core.host import HostError, HostRules, binding, data_words, storage_dtype
from difftest.core.ir.types import DTYPES
from difftest.core.outcome import Outcome, host_result

from .dispatch import run_case
from ..compiler.emit import Compiled
from ..mutants import Mutants
from ..isa import kind
from .pool import Item, Mapping, Pool, wrap


def run_program(compiled: Compiled, case: Case, schedule: dict[str, Any],
                options: dict[str, Any], mutants: Mutants) -> Outcome:
    assert case.host is not None
    fn = case.function
    pool, rules = Pool(mutants=mutants), HostRules.for_case(case.args, fn)
    items: dict[str, Item] = {}
    dtypes: dict[str, Any] = {}
    arrays = {name: v for name, v in case.args.items() if isinstance(v, np.ndarray)}
    items.update(pool.create_from(arrays, {p.name: kind(p.ty.element)
                                           for p in fn.params if p.ty.is_buffer}))
    dtypes.update({name: v.dtype for name, v in arrays.items()})
    maps: dict[str, Mapping] = {}
    observations: list[tuple[int, list[int]]] = []
    error = None
    last = Outcome({}, None, [])
    launches, diagnostics = 0, dict[str, Any]()
    for i, step in enumerate(case.host):
        op = step["op"]
        try:
            rules.check(step, fn)
        except HostError as e:
            error = (i, e.kind)
            break
        if op == "create":
            items[step["buffer"]] = pool.create(step["length"], kind(DTYPES[step["dtype"]]))
            dtypes[step["buffer"]] = storage_dtype(step["dtype"])
        elif op == "write":
            pool.write(items[step["buffer"]], step["offset"], data_words(step))
        elif op == "read":
            observations.append((i, _values(pool.read(items[step["buffer"]]))))
        elif op == "map":
            maps[step["as"]] = pool.map(items[step["buffer"]], step["mode"])
        elif op == "map_read":
            observations.append((i, _values(maps[step["mapping"]].read())))
            pool.touch(maps[step["mapping"]].item)
        elif op == "map_write":
            m = maps[step["mapping"]]
            data = wrap(data_words(step), m.item.kind)
            m.write(step["offset"], data)
            pool.touch(m.item)
        elif op == "unmap":
            pool.unmap(maps.pop(step["mapping"]))
        elif op == "free":
            pool.free(items.pop(step["buffer"]))
            del dtypes[step["buffer"]]
        elif op == "launch":
            launches += 1
            bound = {param: items[b] for param, b in binding(step, fn).items()}
            pool.promote(list(bound.values()))
            outcome, err, diagnostics = run_case(compiled, case, schedule, options, pool,
                                                 bound, mutants)
            pool.after_launch(list(bound.values()))
            if outcome is None:
                last = Outcome({}, None, [], error=err)
                break
            last = outcome
            if outcome.exception is not None:
                break
    last.buffers = {name: pool.contents(item).astype(dtypes[name]) for name, item in items.items()}
    last.host = host_result(observations, error)
    last.diagnostics = {**diagnostics, "launches": launches, "pool_grown": pool.grown,
                        "pool_size": int(len(pool.storage))}
    return last


def _values(a: np.ndarray) -> list[int]:
    return [int(x) for x in a]
