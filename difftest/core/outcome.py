"""What one run of a case produced: the data every oracle and target reports.

An `Outcome` is target-neutral and JSON-round-trippable (the `difftest run --json`
format). Statuses are strings, fixed by the case-file contract: "completed", "faulted",
"never_ran". A fault's stack is one frame per active function, outermost first; a frame's
line is the 1-based line in the kernel text (of the call, or of the faulting node).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from difftest.core.errors import CaseError

COMPLETED, FAULTED, NEVER_RAN = "completed", "faulted", "never_ran"
STATUSES = (COMPLETED, FAULTED, NEVER_RAN)
FAULT_KINDS = ("out_of_bounds", "division_by_zero", "fail", "invalid_conversion")


@dataclass(frozen=True)
class Frame:
    function: str
    line: int

    def to_json(self) -> dict[str, Any]:
        return {"function": self.function, "line": self.line}


@dataclass(frozen=True)
class Fault:
    """How one workitem faulted: kind, stack (innermost last), and `code` for `fail`."""

    kind: str
    stack: tuple[Frame, ...]
    code: int | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"kind": self.kind, "stack": [f.to_json() for f in self.stack]}
        if self.kind == "fail":
            out["code"] = self.code
        return out

    def describe(self) -> str:
        where = " <- ".join(f"{f.function}:{f.line}" for f in reversed(self.stack))
        code = f" (code {self.code})" if self.kind == "fail" else ""
        return f"{self.kind}{code} at {where}"


@dataclass(frozen=True)
class ExceptionReport:
    """The one exception a launch reports: a workitem's fault."""

    gid: int
    fault: Fault

    def to_json(self) -> dict[str, Any]:
        out = self.fault.to_json()
        return {"kind": out.pop("kind"), "gid": self.gid, **out}


@dataclass(frozen=True)
class TargetError:
    """A run that gave no outcome to check, as `kind: message`. The checker compares
    kinds (R0): `race` and `step_budget` the oracle can give too; `work` (the oracle's
    work limit), `timeout` (a hang), `crash`, `internal`, `unsupported` and `slow` (an
    answer only past the target's limits: not checked) only a target."""

    kind: str
    message: str

    def __str__(self) -> str:
        return f"{self.kind}: {self.message}"

    @staticmethod
    def parse(text: str) -> TargetError:
        """The written form back (an outcome file, or a target that reports a string):
        the kind is the text before the first colon."""
        kind, sep, message = text.partition(":")
        if not sep:
            return TargetError("internal", text)
        return TargetError(kind.strip(), message.strip())


@dataclass
class Outcome:
    buffers: dict[str, np.ndarray]
    exception: ExceptionReport | None
    status: list[str]
    faults: dict[int, Fault] | None = None
    error: TargetError | None = None
    diagnostics: dict[str, Any] = field(default_factory=dict)
    # a host program's own results: {"observations": [[step, [values]], ...],
    # "error": [step, kind] | None}; status, exception and faults are then its last launch's
    host: dict[str, Any] | None = None
    # a kernel whose atomics are ordered (docs/semantics.md, "Atomics that return"): per
    # workitem, the old values its atomics returned, in program order
    returned: list[list[int]] | None = None
    # the buffers an outcome file wrote a value of 2^63 or more in (read as its 64 bits):
    # only a u64's value, or an f64's bits, may be written so (the checker asks)
    unsigned: frozenset[str] = frozenset()

    def __post_init__(self) -> None:
        if isinstance(self.error, str):  # a target that reports the written form
            self.error = TargetError.parse(self.error)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "buffers": {k: [int(x) for x in v] for k, v in self.buffers.items()},
            "exception": None if self.exception is None else self.exception.to_json(),
            "status": list(self.status),
        }
        if self.faults is not None:
            out["faults"] = {str(g): f.to_json() for g, f in sorted(self.faults.items())}
        if self.error is not None:
            out["error"] = str(self.error)
        if self.host is not None:
            out["host"] = self.host
        if self.returned is not None:
            out["returned"] = [[int(x) for x in r] for r in self.returned]
        if self.diagnostics:
            out["diagnostics"] = self.diagnostics
        return out

    @staticmethod
    def from_json(obj: Any, where: str = "outcome") -> Outcome:
        """Read an outcome in the `difftest run --json` format; `buffers`, `exception` and
        `status` suffice. Raises CaseError naming the bad field."""
        if not isinstance(obj, dict):
            raise CaseError(f"{where}: expected a JSON object")
        for key in ("buffers", "exception", "status"):
            if key not in obj:
                raise CaseError(f"{where}: missing field '{key}'")
        bufs = obj["buffers"]
        if not isinstance(bufs, dict):
            raise CaseError(f"{where}.buffers: expected an object of arrays")
        buffers, unsigned = {}, set()
        for name, data in bufs.items():
            if not isinstance(data, list) or not all(
                isinstance(x, int) and not isinstance(x, bool) for x in data
            ):
                raise CaseError(f"{where}.buffers.{name}: expected a list of integers")
            if any(not -2**63 <= x < 2**64 for x in data):
                raise CaseError(f"{where}.buffers.{name}: a value past 64 bits (a buffer "
                                "holds each element's storage form, -2^63..2^63-1, or a "
                                "u64's value, up to 2^64-1)")
            # a u64 of 2^63 or more written as its value: its storage form
            if any(x >= 2**63 for x in data):
                unsigned.add(name)
            buffers[name] = np.array([x - 2**64 if x >= 2**63 else x for x in data],
                                     dtype=np.int64)
        status = obj["status"]
        if not isinstance(status, list) or any(s not in STATUSES for s in status):
            raise CaseError(f"{where}.status: expected a list of {', '.join(STATUSES)}")
        exc = None
        if obj["exception"] is not None:
            e = obj["exception"]
            if not isinstance(e, dict):
                raise CaseError(f"{where}.exception: expected an object (kind, gid, stack) "
                                "or null")
            gid = e.get("gid") if isinstance(e, dict) else None
            if not isinstance(gid, int) or isinstance(gid, bool):
                raise CaseError(f"{where}.exception.gid: expected an integer")
            exc = ExceptionReport(gid, _fault(e, f"{where}.exception"))
        faults = None
        if obj.get("faults") is not None:
            if not isinstance(obj["faults"], dict):
                raise CaseError(f"{where}.faults: expected an object")
            faults = {}
            for g, f in obj["faults"].items():
                if not (g.isascii() and g.isdigit()):  # (int() takes " 2" and "1_0")
                    raise CaseError(f"{where}.faults: key '{g}' is not a workitem id")
                faults[int(g)] = _fault(f, f"{where}.faults.{g}")
        error = obj.get("error")
        if error is not None and not isinstance(error, str):
            raise CaseError(f"{where}.error: expected a string")
        diagnostics = obj.get("diagnostics") or {}
        if not isinstance(diagnostics, dict):
            raise CaseError(f"{where}.diagnostics: expected an object")
        returned = obj.get("returned")
        if returned is not None and not (
                isinstance(returned, list) and all(
                    isinstance(r, list) and all(isinstance(x, int) and not isinstance(x, bool)
                                                and -2**63 <= x < 2**64 for x in r)
                    for r in returned)):
            raise CaseError(f"{where}.returned: expected a list (one per workitem) of lists "
                            "of integers")
        if returned is not None:  # a 64-bit value either way: as its bits, an int64
            returned = [[x - 2**64 if x >= 2**63 else x for x in r] for r in returned]
        return Outcome(buffers, exc, status, faults,
                       None if error is None else TargetError.parse(error), diagnostics,
                       _host(obj.get("host"), f"{where}.host"), returned, frozenset(unsigned))


def host_result(observations: list[tuple[int, list[int]]],
                error: tuple[int, str] | None) -> dict[str, Any]:
    """The `host` field of an outcome, in its JSON form."""
    return {"observations": [[i, list(v)] for i, v in observations],
            "error": None if error is None else [error[0], error[1]]}


def _host(obj: Any, where: str) -> dict[str, Any] | None:
    if obj is None:
        return None
    ok = isinstance(obj, dict) and isinstance(obj.get("observations"), list) and all(
        isinstance(o, list) and len(o) == 2 and isinstance(o[0], int)
        and isinstance(o[1], list) and all(isinstance(x, int) for x in o[1])
        for o in obj["observations"])
    err = obj.get("error") if isinstance(obj, dict) else None
    if not ok or not (err is None or (isinstance(err, list) and len(err) == 2
                                      and isinstance(err[0], int) and isinstance(err[1], str))):
        raise CaseError(f"{where}: expected {{\"observations\": [[step, [values]], ...], "
                        f"\"error\": [step, kind] | null}}")
    return {"observations": obj["observations"], "error": err}


def _fault(obj: Any, where: str) -> Fault:
    if not isinstance(obj, dict):
        raise CaseError(f"{where}: expected an object")
    kind = obj.get("kind")
    if kind not in FAULT_KINDS:
        raise CaseError(f"{where}.kind: expected one of {', '.join(FAULT_KINDS)}, got {kind!r}")
    stack = obj.get("stack")
    if not isinstance(stack, list):
        raise CaseError(f"{where}.stack: expected a list of frames")
    frames = []
    for i, fr in enumerate(stack):
        if not (
            isinstance(fr, dict)
            and isinstance(fr.get("function"), str)
            and isinstance(fr.get("line"), int) and not isinstance(fr["line"], bool)
        ):
            raise CaseError(f"{where}.stack[{i}]: expected {{'function': str, 'line': int}}")
        frames.append(Frame(fr["function"], fr["line"]))
    if kind != "fail":
        return Fault(kind, tuple(frames), None)
    code = obj.get("code")
    if not isinstance(code, int) or isinstance(code, bool):
        raise CaseError(f"{where}.code: a fail fault needs an integer code")
    if not -2**63 <= code < 2**64:
        raise CaseError(f"{where}.code: {code} is past 64 bits")
    # a u64's code written as its value: its storage form
    return Fault(kind, tuple(frames), code - 2**64 if code >= 2**63 else code)
