"""Host programs: what a case's host does around its launches (docs/semantics.md, "Host
programs").

A case may carry `"host": [step, ...]`. The case's buffer arguments exist before the
first step (created and written); the steps then create, write, map, read and free
buffers and launch the case's kernel, binding its buffer parameters to program buffers.
A program is straight-line, so `parse_host` checks every field once at load time; what
depends on the program's own state (a buffer freed, a mapping open) is a *host error*,
which ends the program and which the oracle and a target must report at the same step
with the same kind. `HostRules` is that state: the language's rules, kept in one place
like the kernel validator, consulted by the oracle's plain model and by a target's
runtime alike (each keeps its own data).

Steps (`op` and its fields):

- `create` `buffer` `dtype` `length`: a new zeroed buffer;
- `write` `buffer` `offset` `data`: host data into a buffer (each value wrapped to the
  buffer's element type, as a kernel's store would);
- `read` `buffer`: an observation of its contents;
- `map` `buffer` `mode` ("read" | "write") `as`: opens the mapping named `as`;
- `map_read` `mapping`: an observation through the mapping;
- `map_write` `mapping` `offset` `data`: writes through a write mapping;
- `unmap` `mapping`; `free` `buffer`;
- `launch` (`bind`: parameter -> buffer, default each parameter its own name): runs the
  kernel with the case's launch shape and scalar arguments. A launch that reports an
  exception ends the program.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from difftest.core.errors import CaseError
from difftest.core.ir.nodes import Function
from difftest.core.ir.types import DTYPES, I32, INTS, Type

#: the buffers a host program creates: integers of every type (a kernel that takes
#: floats has no host program)
_HOST_DTYPES = tuple(t.value for t in INTS)

OPS = ("create", "write", "read", "map", "map_read", "map_write", "unmap", "free", "launch")
MAX_STEPS = 256
MAX_LENGTH = 1 << 20

# host error kinds (a program ends at the first)
ERRORS = {
    "no_buffer": "no such buffer (never created, or freed)",
    "exists": "a buffer of that name exists",
    "no_mapping": "no open mapping of that name",
    "already_mapped": "the buffer is mapped already",
    "mapped": "the buffer is mapped",
    "mapped_for_writing": "the buffer is mapped for writing",
    "read_only_mapping": "a write through a mapping for reading",
    "out_of_range": "data past the buffer's end",
    "dtype": "bound to a parameter of another element type",
}

_FIELDS: dict[str, tuple[str, ...]] = {
    "create": ("buffer", "dtype", "length"),
    "write": ("buffer", "offset", "data"),
    "read": ("buffer",),
    "map": ("buffer", "mode", "as"),
    "map_read": ("mapping",),
    "map_write": ("mapping", "offset", "data"),
    "unmap": ("mapping",),
    "free": ("buffer",),
    "launch": (),
}


class HostError(Exception):
    """A host program broke a rule at run time: the program ends here."""

    def __init__(self, kind: str) -> None:
        super().__init__(kind)
        self.kind = kind


def parse_host(obj: Any, fn: Function, where: str) -> list[dict[str, Any]]:
    """Validated steps (plain dicts, as in the file). Everything static is checked here;
    a wrong field is one CaseError naming the step."""
    if not isinstance(obj, list):
        raise CaseError(f"{where}: field 'host' must be a list of steps")
    if len(obj) > MAX_STEPS:
        raise CaseError(f"{where}: field 'host' has {len(obj)} steps (at most {MAX_STEPS})")
    buffers = {p.name: p.ty for p in fn.params if p.ty.is_buffer}
    if any(p.ty.is_float or p.ty.is_buffer and p.ty.element.is_float for p in fn.params):
        raise CaseError(f"{where}: a host program moves integer buffers only; kernel "
                        f"'{fn.name}' takes floats (docs/semantics.md, \"32-bit floats\")")
    steps = []
    for i, step in enumerate(obj):
        at = f"{where}: host step {i}"
        if not isinstance(step, dict) or step.get("op") not in OPS:
            raise CaseError(f"{at}: a step is an object with 'op' one of {', '.join(OPS)}")
        op = step["op"]
        allowed = {"op", *_FIELDS[op]} | ({"bind"} if op == "launch" else set())
        unknown = sorted(set(step) - allowed)
        if unknown:
            raise CaseError(f"{at}: unknown field '{unknown[0]}' for '{op}'")
        for key in _FIELDS[op]:
            if key not in step:
                raise CaseError(f"{at}: '{op}' needs field '{key}'")
        for key in ("buffer", "as", "mapping"):
            if key in step and (not isinstance(step[key], str) or not step[key]):
                raise CaseError(f"{at}: field '{key}' must be a non-empty name")
        if op == "create":
            if step["dtype"] not in _HOST_DTYPES:
                raise CaseError(f"{at}: field 'dtype' must be one of {', '.join(_HOST_DTYPES)}")
            if not _count(step["length"]) or step["length"] > MAX_LENGTH:
                raise CaseError(f"{at}: field 'length' must be an integer 0..{MAX_LENGTH}")
        if op == "map" and step["mode"] not in ("read", "write"):
            raise CaseError(f"{at}: field 'mode' must be \"read\" or \"write\"")
        if "offset" in step and not _count(step["offset"]):
            raise CaseError(f"{at}: field 'offset' must be a non-negative integer")
        if "data" in step:
            lo, hi = -(1 << 63), (1 << 64) - 1  # an i64's values or a u64's
            data = step["data"]
            if not isinstance(data, list) or not all(_int(x) and lo <= x <= hi for x in data):
                raise CaseError(f"{at}: field 'data' must be a list of 64-bit integers "
                                f"(-2^63..2^64-1: a signed or unsigned one)")
            if len(data) > MAX_LENGTH:
                raise CaseError(f"{at}: field 'data' holds {len(data)} values, over "
                                f"{MAX_LENGTH}")
        if op == "launch":
            bind = step.get("bind", {})
            if not isinstance(bind, dict) or not all(
                    isinstance(v, str) and v for v in bind.values()):
                raise CaseError(f"{at}: field 'bind' maps parameters to buffer names")
            for p in bind:
                if p not in buffers:
                    raise CaseError(f"{at}: 'bind': {p!r} is not a buffer parameter of "
                                    f"'{fn.name}'")
            bound = [bind.get(p, p) for p in buffers]
            if len(set(bound)) != len(bound):
                raise CaseError(f"{at}: 'bind' binds one buffer to two parameters")
        steps.append(dict(step))
    return steps


def data_words(step: dict[str, Any]) -> np.ndarray:
    """A write's data as 64-bit words (a value from 2^63 up: its bits; every element
    type then keeps the low bits it needs)."""
    return np.array([x - (1 << 64) if x >= 1 << 63 else x for x in step["data"]], np.int64)


def binding(step: dict[str, Any], fn: Function) -> dict[str, str]:
    """parameter -> buffer name, for a launch step."""
    bind = step.get("bind", {})
    return {p.name: bind.get(p.name, p.name) for p in fn.params if p.ty.is_buffer}


def dtype_name(element: Type) -> str:
    """A buffer's element type as a `create` step names it ("u8", "i64", ...)."""
    return element.value


def storage_dtype(name: str) -> type:
    """The NumPy dtype a buffer of element type `name` is held in (its storage form, as
    a case file's buffer argument): int32 for i32, int64 for every other integer."""
    return np.int32 if DTYPES[name] is I32 else np.int64


@dataclass
class HostRules:
    """The program's state as the rules see it: which buffers exist (with their element
    type and length) and which mappings are open."""

    buffers: dict[str, tuple[str, int]] = field(default_factory=dict)
    mappings: dict[str, tuple[str, str]] = field(default_factory=dict)  # name -> (buf, mode)

    @classmethod
    def for_case(cls, args: dict[str, Any], fn: Function) -> HostRules:
        """The state before the first step: the case's buffer arguments exist, of their
        parameters' element types."""
        return cls({p.name: (dtype_name(p.ty.element), len(args[p.name]))
                    for p in fn.params if p.ty.is_buffer})

    def mode(self, buffer: str) -> str | None:
        for buf, mode in self.mappings.values():
            if buf == buffer:
                return mode
        return None

    def check(self, step: dict[str, Any], fn: Function) -> None:
        """Raise HostError if `step` breaks a rule now; otherwise apply its effect on the
        state (the caller does the data part)."""
        op = step["op"]
        if op == "create":
            if step["buffer"] in self.buffers:
                raise HostError("exists")
            self.buffers[step["buffer"]] = (step["dtype"], step["length"])
            return
        if op in ("map_read", "map_write", "unmap"):
            if step["mapping"] not in self.mappings:
                raise HostError("no_mapping")
            buf, mapped = self.mappings[step["mapping"]]
            if op == "map_write":
                if mapped != "write":
                    raise HostError("read_only_mapping")
                self._range(buf, step)
            if op == "unmap":
                del self.mappings[step["mapping"]]
            return
        if op == "launch":
            params = {p.name: p.ty for p in fn.params if p.ty.is_buffer}
            for param, buf in binding(step, fn).items():
                if buf not in self.buffers:
                    raise HostError("no_buffer")
                if self.mode(buf) == "write":
                    raise HostError("mapped_for_writing")
                if DTYPES[self.buffers[buf][0]] is not params[param].element:
                    raise HostError("dtype")
            return
        buf = step["buffer"]
        if buf not in self.buffers:
            raise HostError("no_buffer")
        mode = self.mode(buf)
        if op == "map":
            if mode is not None:
                raise HostError("already_mapped")
            if step["as"] in self.mappings:
                raise HostError("already_mapped")
            self.mappings[step["as"]] = (buf, step["mode"])
        elif op == "free":
            if mode is not None:
                raise HostError("mapped")
            del self.buffers[buf]
        elif mode == "write":  # write, read
            raise HostError("mapped_for_writing")
        elif op == "write":
            self._range(buf, step)

    def _range(self, buf: str, step: dict[str, Any]) -> None:
        if step["offset"] + len(step["data"]) > self.buffers[buf][1]:
            raise HostError("out_of_range")


def _int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _count(v: Any) -> bool:
    return _int(v) and v >= 0
