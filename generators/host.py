"""Host programs for a case (difftest/core/host.py has the steps and their rules).

Drawn step by step against `HostRules`, so nearly every program is valid; a few steps
break a rule on purpose (a write mapping bound to a launch, a freed buffer read), since
both sides must report that error the same way. What the pool's bugs need, programs do
often: buffers created and bound to a later launch (the pool grows and moves what is in
it), mappings held open across launches and read or written after them, frees and write
mappings that leave holes (fragmentation), several launches. And about one step in
five is drawn as a pair (generators/pairs.py): a step kind and the state its buffer must
be in, with the steps that bring a buffer into that state first where none is -- steps
drawn on their own reach some step-by-state pairs all but never --, and half the time
followed by a witness: a launch that binds the buffer and a read of it.
"""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from difftest.core.case import Case
from difftest.core.host import HostError, HostRules, dtype_name
from difftest.core.ir import nodes as n
from difftest.core.ir.walk import walk

from .kernels import integers
from .pairs import HOST_PAIRS, BufferStates

MAX_STEPS = 14
_OPS = ("launch", "create", "map", "map_read", "map_write", "unmap", "read", "write",
        "free", "misuse", "hold", "churn", "pair")
_WEIGHTS = (6, 5, 4, 4, 3, 2, 3, 1, 2, 1, 4, 5, 12)
_TABLE = tuple(op for op, w in zip(_OPS, _WEIGHTS) for _ in range(w))
#: host data past the range of some integer type: each wraps in a buffer of it
_WIDE = (-129, 128, 200, 256, 40000, -32769, 65536, 2**31, -2**31 - 1, 2**32 + 5,
         2**63 - 1, -2**63)
#: the pairs a pair step draws: a state the pool's move makes takes the most steps to
#: reach (and fails most often on the way), so those pairs are drawn three times as often
_PAIR_TABLE = tuple(p for p in HOST_PAIRS for _ in range(3 if p.endswith("@moved") else 1))


def host_programs(case: Case) -> st.SearchStrategy[list[dict[str, Any]]]:
    """Host programs over `case`'s buffers and kernel (at least one launch)."""
    return _programs(case)


@st.composite
def _programs(draw: st.DrawFn, case: Case) -> list[dict[str, Any]]:
    fn = case.function
    params = {p.name: p for p in fn.params if p.ty.is_buffer}
    states = BufferStates.for_case(case)
    rules = states.rules
    length_of = {name: rules.buffers[name][1] for name in rules.buffers}
    need = {name: length_of.get(name, 0) for name in params}  # what the kernel indexes
    steps: list[dict[str, Any]] = []
    count = draw(integers(3, MAX_STEPS))
    fresh = 0

    def pick(seq: list[Any]) -> Any:
        return seq[draw(integers(0, len(seq) - 1))]

    def data(n: int) -> list[int]:
        # small values, and one in four past some element type's range (a narrow or
        # unsigned buffer keeps it wrapped, as a store would)
        k = draw(integers(1, max(1, min(n, 4))))
        return [draw(integers(-9, 99)) if draw(integers(0, 3)) else pick(list(_WIDE))
                for _ in range(k)]

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
        elif op == "pair":
            # a step drawn given the state of its buffer (generators/pairs.py): some
            # step-by-state pairs are all but never drawn by steps drawn on their own
            fresh += 1
            kind, state = pick(list(_PAIR_TABLE))[len("host:"):].split("@")
            broke, acted = _toward(draw, pick, data, states, fn, params, need, kind, state,
                                   f"b{fresh}", f"m{len(steps)}", steps)
            if broke:
                break
            # half the time a witness; always after a write or a read of a buffer
            # mapped for reading: what either gets wrong shows only through that mapping
            # (before the next launch, or after one that should refresh it)
            if acted is None or (kind not in ("write", "read") or state != "mapped_read") \
                    and draw(st.booleans()):
                continue
            batch = _witness(draw, pick, states, params, need, acted, kind,
                             f"m{len(steps)}w", _written(fn))
        if step is not None:
            batch = [step]
        if _take(batch, states, fn, steps):
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


def _take(batch: list[dict[str, Any]], states: BufferStates, fn: Any,
          steps: list[dict[str, Any]]) -> bool:
    """Append `batch` to the program, applying each step to `states`; True when one broke
    a rule (it is kept: the program ends there)."""
    for step in batch:
        steps.append(step)
        try:
            states.step(step, fn)
        except HostError:
            return True
    return False


def _toward(draw: st.DrawFn, pick: Any, data: Any, states: BufferStates, fn: Any,
            params: dict[str, Any], need: dict[str, int], op: str, state: str, new: str,
            mapping: str, steps: list[dict[str, Any]]) -> tuple[bool, str | None]:
    """Steps that end in the pair `host:OP@STATE`: OP on a buffer in STATE, after the
    steps that bring one into STATE when none is. Whether a step broke a rule, and the
    buffer OP acted on (None: it was not reached)."""
    for attempt in range(4):  # "moved" from nothing takes three: bound, moved, the step
        ready = [b for b in states.in_state(state)
                 if op not in ("map_read", "map_write", "unmap") or _mapping_of(states, b, op)]
        if ready:
            buffer = pick(ready)
            step = _step_on(draw, pick, data, states, params, need, op, buffer, mapping)
            if step is None:
                return False, None
            return _take([step], states, fn, steps), buffer
        # each round's buffer its own name: a second `create` of one name breaks a rule
        fresh = new if attempt == 0 else f"{new}_{attempt}"
        prepare = _into(draw, pick, states, params, need, state, op, fresh, mapping)
        if not prepare or _take(prepare, states, fn, steps):
            return bool(prepare), None
    return False, None


def _witness(draw: st.DrawFn, pick: Any, states: BufferStates, params: dict[str, Any],
             need: dict[str, int], buffer: str, op: str, fresh: str,
             written: frozenset[str]) -> list[dict[str, Any]]:
    """Steps that show what a step on `buffer` left: a launch that binds it where a
    parameter of its type is (one the kernel writes, `written`, where the buffer is mapped
    for reading and one is; none where it is mapped for writing or gone), then a read of
    it, through its open mapping if it has one, else half the time through a mapping
    made for it (`fresh`) (a bug in the step shows only where something reads what it
    left); after a host write to a buffer mapped for reading, first a read through that
    mapping (a launch refreshes the mapping's copy, which would hide a write that missed
    it); after a free, a launch and a read of every other buffer not mapped for writing
    (what a free gets wrong lands on the others)."""
    rules = states.rules
    out: list[dict[str, Any]] = []
    before = _mapping_of(states, buffer, "map_read") if op == "write" else None
    if before is not None:
        out.append({"op": "map_read", "mapping": before})
    if buffer not in rules.buffers:
        launch = _launch(draw, pick, rules, params, need)
        return ([launch] if launch is not None else []) + [
            {"op": "read", "buffer": b} for b in sorted(rules.buffers) if rules.mode(b) != "write"]
    mapping = _mapping_of(states, buffer, "map_read")
    if rules.mode(buffer) != "write":
        # a buffer mapped for reading where the kernel writes, when it can: the launch
        # must change it for the mapping's copy to be refreshed (or to miss it)
        launch = _launch(draw, pick, rules, params, need, prefer=buffer,
                         written=written if mapping is not None else None)
        if launch is not None:
            out.append(launch)
    if mapping is not None:
        return out + [{"op": "map_read", "mapping": mapping}]
    # through a mapping of its own: always after an unmap (what a mapping left shows to
    # the next one), else half the time
    if rules.mode(buffer) is None and (op == "unmap" or draw(st.booleans())):
        return out + [{"op": "map", "buffer": buffer, "mode": "read", "as": fresh},
                      {"op": "map_read", "mapping": fresh}, {"op": "unmap", "mapping": fresh}]
    return out + [{"op": "read", "buffer": buffer}]


def _written(fn: n.Function) -> frozenset[str]:
    """The buffer parameters the kernel itself stores to or updates atomically."""
    return frozenset(x.buffer for x in walk(fn.body)
                     if isinstance(x, (n.Store, n.AtomicAdd, n.AtomicOp)))


def _mapping_of(states: BufferStates, buffer: str, op: str) -> str | None:
    """An open mapping of `buffer` that `op` may use."""
    for m, b in sorted(states.mapped.items()):
        if b == buffer and (op != "map_write" or states.rules.mappings[m][1] == "write"):
            return m
    return None


def _step_on(draw: st.DrawFn, pick: Any, data: Any, states: BufferStates,
             params: dict[str, Any], need: dict[str, int], op: str, buffer: str,
             mapping: str) -> dict[str, Any] | None:
    rules = states.rules
    if op == "launch":
        return _launch(draw, pick, rules, params, need, prefer=buffer)
    if op in ("read", "free"):
        return {"op": op, "buffer": buffer}
    if op == "map":
        return {"op": "map", "buffer": buffer, "mode": pick(["read", "write"]), "as": mapping}
    n = rules.buffers[buffer][1]
    vals = data(n)
    offset = draw(integers(0, max(0, n - len(vals))))
    if op == "write":
        return {"op": "write", "buffer": buffer, "offset": offset, "data": vals}
    m = _mapping_of(states, buffer, op)
    if op == "map_write":
        return {"op": "map_write", "mapping": m, "offset": offset, "data": vals}
    return {"op": op, "mapping": m}


def _into(draw: st.DrawFn, pick: Any, states: BufferStates, params: dict[str, Any],
          need: dict[str, int], state: str, op: str, new: str, mapping: str
          ) -> list[dict[str, Any]]:
    """Steps that bring some buffer into `state` (or nearer to it)."""
    rules = states.rules
    plain = [b for s in ("created", "bound", "moved", "unmapped") for b in states.in_state(s)]
    if state == "created" or not plain and state != "bound":
        if not params:
            return []
        like = pick(sorted(params))
        dtype = dtype_name(params[like].ty.element)
        return [{"op": "create", "buffer": new, "dtype": dtype,
                 "length": max(1, need.get(like, 4)) + pick([0, 1, 8])}]
    if state == "bound":
        waiting = [b for b in plain if states.state(b) != "bound"] or plain
        launch = _launch(draw, pick, rules, params, need,
                         prefer=pick(waiting) if waiting else None)
        return [launch] if launch is not None else []
    if state == "moved":
        # a buffer in the pool after a hole, then a launch that takes one in (closing the
        # hole, it moves what is after it): the hole is a buffer before it mapped for
        # writing and unmapped (taken back in by that launch)
        if len(states.order) < 2:
            return _into(draw, pick, states, params, need, "bound", op, new, mapping)
        prepare: list[dict[str, Any]] = []
        after = HostRules(dict(rules.buffers), dict(rules.mappings))
        behind = states.order[states.hole:] if states.hole is not None else []
        if not behind:
            ahead = [i for i, b in enumerate(states.order[:-1]) if rules.mode(b) is None]
            if not ahead:
                return []
            first = pick(ahead)
            behind = states.order[first + 1:]
            prepare += [{"op": "map", "buffer": states.order[first], "mode": "write",
                         "as": mapping + "h"}, {"op": "unmap", "mapping": mapping + "h"}]
        if op in ("map_read", "unmap"):  # a read mapping held across the move
            held = [b for b in behind if rules.mode(b) is None]
            if not held:
                return prepare
            target = pick(held)
            prepare.append({"op": "map", "buffer": target, "mode": "read", "as": mapping})
            after.mappings[mapping] = (target, "read")
        like = pick(sorted(params))
        dtype = dtype_name(params[like].ty.element)
        prepare.append({"op": "create", "buffer": new, "dtype": dtype,
                        "length": max(1, need.get(like, 4)) + pick([0, 8])})
        after.buffers[new] = (dtype, prepare[-1]["length"])
        launch = _launch(draw, pick, after, params, need, prefer=new)
        return prepare + ([launch] if launch is not None else [])
    if state in ("mapped_read", "mapped_write", "unmapped"):
        mode = state[len("mapped_"):] if state != "unmapped" else pick(["read", "write"])
        # a read mapping of a buffer in the pool where one is (a launch bound it): the
        # mapping's copy is what launches refresh and host steps must leave alone
        pooled = [b for s in ("bound", "moved") for b in states.in_state(s)]
        b = pick(pooled if mode == "read" and pooled else plain)
        steps = [{"op": "map", "buffer": b, "mode": mode, "as": mapping}]
        if state == "unmapped":
            steps.append({"op": "unmap", "mapping": mapping})
        return steps
    return []


def _launch(draw: st.DrawFn, pick: Any, rules: HostRules, params: dict[str, Any],
            need: dict[str, int], prefer: str | None = None,
            written: frozenset[str] | None = None) -> dict[str, Any] | None:
    """A launch binding each parameter a distinct buffer of its element type (sometimes
    its own name; `prefer` to a parameter it fits, drawn, among those in `written` where
    one fits) that is not mapped for writing; mostly one at least as long as the case's
    own (`need`), since a kernel indexes its buffers by the launch size: a shorter one
    faults, and the program ends."""
    bind: dict[str, str] = {}
    taken: set[str] = set()
    # `prefer` at any parameter of its type (an input or an output: the kernel reads or
    # writes it), not always the first
    fits = [name for name, p in params.items() if prefer in rules.buffers
            and dtype_name(p.ty.element) == rules.buffers[prefer][0]]
    fits = [name for name in fits if name in (written or ())] or fits
    at = pick(fits) if fits else None
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
        if name == at and prefer in ok and prefer not in taken:
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

