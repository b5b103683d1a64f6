"""Host programs for a case (difftest/core/host.py has the steps and their rules).

Drawn step by step against `HostRules`, so nearly every program is valid; a few steps
break a rule on purpose (a write mapping bound to a launch, a freed buffer read), since
both sides must report that error the same way. What the pool's bugs need, programs do
often: buffers created and bound to a later launch (the pool grows and moves what is in
it), mappings held open across launches and read or written after them, frees and write
mappings that leave holes (fragmentation), several launches.
"""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from difftest.core.case import Case
from difftest.core.host import HostError, HostRules, dtype_name

from .kernels import integers

MAX_STEPS = 14
_OPS = ("launch", "create", "map", "map_read", "map_write", "unmap", "read", "write",
        "free", "misuse", "hold", "churn")
_WEIGHTS = (6, 5, 4, 4, 3, 2, 3, 1, 2, 1, 4, 5)
_TABLE = tuple(op for op, w in zip(_OPS, _WEIGHTS) for _ in range(w))


def host_programs(case: Case) -> st.SearchStrategy[list[dict[str, Any]]]:
    """Host programs over `case`'s buffers and kernel (at least one launch)."""
    return _programs(case)


@st.composite
def _programs(draw: st.DrawFn, case: Case) -> list[dict[str, Any]]:
    fn = case.function
    params = {p.name: p for p in fn.params if p.ty.is_buffer}
    rules = HostRules.for_case(case.args)
    length_of = {name: rules.buffers[name][1] for name in rules.buffers}
    need = {name: length_of.get(name, 0) for name in params}  # what the kernel indexes
    steps: list[dict[str, Any]] = []
    count = draw(integers(3, MAX_STEPS))
    fresh = 0

    def pick(seq: list[Any]) -> Any:
        return seq[draw(integers(0, len(seq) - 1))]

    def data(n: int) -> list[int]:
        k = draw(integers(1, max(1, min(n, 4))))
        return [draw(integers(-9, 99)) for _ in range(k)]

    for _ in range(count):
        op = pick(list(_TABLE))
        names = sorted(rules.buffers)
        unmapped = [b for b in names if rules.mode(b) is None]
        step: dict[str, Any] | None = None
        batch: list[dict[str, Any]] = []  # a scene's steps
        if op == "launch":
            step = _launch(draw, pick, rules, params, need)
        elif op == "create" and params:
            like = pick(sorted(params))
            dtype = dtype_name(params[like].ty.element)
            base = length_of.get(like, 4)
            fresh += 1
            step = {"op": "create", "buffer": f"b{fresh}", "dtype": dtype,
                    "length": base + pick([0, 0, 1, 8, 3 * base])}
        elif op == "map" and unmapped:
            step = {"op": "map", "buffer": pick(unmapped), "mode": pick(["read", "write"]),
                    "as": f"m{len(steps)}"}
        elif op in ("map_read", "unmap") and rules.mappings:
            step = {"op": op, "mapping": pick(sorted(rules.mappings))}
        elif op == "map_write":
            writable = sorted(m for m, (_, mode) in rules.mappings.items() if mode == "write")
            if writable:
                m = pick(writable)
                n = rules.buffers[rules.mappings[m][0]][1]
                vals = data(n)
                step = {"op": "map_write", "mapping": m,
                        "offset": draw(integers(0, max(0, n - len(vals)))), "data": vals}
        elif op in ("read", "write", "free"):
            ok = [b for b in names if rules.mode(b) != "write"] if op != "free" else unmapped
            if ok:
                b = pick(ok)
                step = {"op": op, "buffer": b}
                if op == "write":
                    n = rules.buffers[b][1]
                    vals = data(n)
                    step.update(offset=draw(integers(0, max(0, n - len(vals)))), data=vals)
        elif op == "misuse":
            step = _misuse(draw, pick, rules, params)
        elif op == "churn" and len(unmapped) >= 2 and params:
            # the pool's list after a hole (NOTES: r600g's later bugs): every buffer in
            # the pool, one freed, a new one promoted into the hole's pool, all read back
            fresh += 1
            # often the oldest buffer: it sits before others in the pool, so its hole is
            # not at the end (where a stale fragmented flag would do no harm)
            oldest = [b for b in rules.buffers if b in unmapped][0]
            victim = oldest if draw(st.booleans()) else pick(unmapped)
            scene = _churn(draw, pick, rules, params, need, victim, f"b{fresh}")
            batch = [x for x in scene if x is not None]
        elif op == "hold" and unmapped and params:
            # seed 004's scene: a mapping held open while a launch grows the pool (a
            # buffer bigger than everything so far, bound), then used again
            fresh += 1
            held = pick(unmapped)
            scene = _hold(draw, pick, rules, params, need, held, f"b{fresh}", f"m{len(steps)}")
            first = _launch(draw, pick, rules, params, need, prefer=held)
            if first is not None and not any(s["op"] == "launch" for s in steps):
                scene.insert(0, first)  # so the held buffer is in the pool when mapped
            batch = scene
        if step is not None:
            batch = [step]
        if _take(batch, rules, fn, steps):
            break  # the program ends at an error
    if not any(s["op"] == "launch" for s in steps):
        launch = _launch(draw, pick, rules, params, need)
        if launch is not None:
            try:
                rules.check(launch, fn)
            except HostError:
                pass
            steps.append(launch)
    return steps


def _take(batch: list[dict[str, Any]], rules: HostRules, fn: Any,
          steps: list[dict[str, Any]]) -> bool:
    """Append `batch` to the program, applying each step to `rules`; True when one broke
    a rule (it is kept: the program ends there)."""
    for step in batch:
        steps.append(step)
        try:
            rules.check(step, fn)
        except HostError:
            return True
    return False


def _launch(draw: st.DrawFn, pick: Any, rules: HostRules, params: dict[str, Any],
            need: dict[str, int], prefer: str | None = None) -> dict[str, Any] | None:
    """A launch binding each parameter a distinct buffer of its element type (sometimes
    its own name; `prefer` to the first parameter it fits) that is not mapped for
    writing; mostly one at least as long as the case's own (`need`), since a kernel
    indexes its buffers by the launch size: a shorter one faults, and the program ends."""
    bind: dict[str, str] = {}
    taken: set[str] = set()
    for name, p in params.items():
        dtype = dtype_name(p.ty.element)
        ok = [b for b, (t, _) in sorted(rules.buffers.items())
              if t == dtype and b not in taken and rules.mode(b) != "write"]
        if not ok:
            return None
        long_enough = [b for b in ok if rules.buffers[b][1] >= need[name]]
        if long_enough and draw(integers(0, 3)) != 0:
            ok = long_enough
        own = name in ok and draw(integers(0, 2)) == 0  # mostly another: the pool moves
        chosen = name if own else pick(ok)
        if prefer in ok and prefer not in taken:
            chosen, prefer = prefer, None
        bind[name] = chosen
        taken.add(chosen)
    step: dict[str, Any] = {"op": "launch"}
    moved = {p: b for p, b in bind.items() if p != b}
    if moved:
        step["bind"] = moved
    if len({moved.get(p, p) for p in params}) != len(params):
        return None  # a default binding would alias a moved one
    return step


def _hold(draw: st.DrawFn, pick: Any, rules: HostRules, params: dict[str, Any],
          need: dict[str, int], held: str, big: str, mapping: str) -> list[dict[str, Any]]:
    mode = pick(["read", "write"])
    like = pick(sorted(params))
    dtype = dtype_name(params[like].ty.element)
    total = sum(n for _, n in rules.buffers.values())
    scene: list[dict[str, Any]] = [
        {"op": "map", "buffer": held, "mode": mode, "as": mapping},
        {"op": "create", "buffer": big, "dtype": dtype, "length": total + 1},
    ]
    rules_after = HostRules(dict(rules.buffers), dict(rules.mappings))
    rules_after.buffers[big] = (dtype, total + 1)
    rules_after.mappings[mapping] = (held, mode)
    launch = _launch(draw, pick, rules_after, params, need, prefer=big)
    if launch is not None:
        scene.append(launch)
    if mode == "write":
        n = rules.buffers[held][1]
        vals = [draw(integers(-9, 99))]
        scene.append({"op": "map_write", "mapping": mapping,
                      "offset": draw(integers(0, max(0, n - 1))), "data": vals})
        scene.append({"op": "unmap", "mapping": mapping})
        scene.append({"op": "read", "buffer": held})
    else:
        if launch is not None and draw(st.booleans()):
            scene.append(_launch(draw, pick, rules_after, params, need, prefer=held) or launch)
        scene.append({"op": "map_read", "mapping": mapping})
    return scene


def _churn(draw: st.DrawFn, pick: Any, rules: HostRules, params: dict[str, Any],
           need: dict[str, int], victim: str, new: str) -> list[Any]:
    dtype = rules.buffers[victim][0]  # so the next launch can bind it where the victim was
    before = HostRules(dict(rules.buffers), dict(rules.mappings))
    scene: list[Any] = [_launch(draw, pick, before, params, need, prefer=victim)]
    after = HostRules(dict(rules.buffers), dict(rules.mappings))
    del after.buffers[victim]
    scene.append({"op": "free", "buffer": victim})
    scene.append({"op": "create", "buffer": new, "dtype": dtype,
                  "length": pick([1, rules.buffers[victim][1], rules.buffers[victim][1]])})
    after.buffers[new] = (dtype, scene[-1]["length"])
    # its own contents, not zeros: promoted over another item's tail (a stale flag), it
    # shows in that item's read-back whatever the kernel leaves there
    scene.append({"op": "write", "buffer": new, "offset": 0,
                  "data": [draw(integers(1, 99)) for _ in range(min(2, scene[-1]["length"]))]})
    scene.append(_launch(draw, pick, after, params, need, prefer=new))
    scene += [{"op": "read", "buffer": b} for b in sorted(after.buffers)
              if after.mode(b) != "write"]
    return scene


def _misuse(draw: st.DrawFn, pick: Any, rules: HostRules,
            params: dict[str, Any]) -> dict[str, Any] | None:
    """A step that breaks a rule: a launch binding a buffer mapped for writing, or a
    read or free of a buffer that is gone or mapped."""
    written = [b for b, mode in rules.mappings.values() if mode == "write"]
    if written and params:
        b = pick(sorted(written))
        dtype = rules.buffers[b][0]
        same = [p for p, q in params.items()
                if dtype_name(q.ty.element) == dtype]
        if same:
            bind = {pick(same): b}
            if len({bind.get(p, p) for p in params}) == len(params):
                return {"op": "launch", "bind": bind}
    return {"op": "read", "buffer": "gone"}

