"""The registry: targets and oracles found through entry points, and the Target protocol.

A target turns (case, schedule, options) into an `Outcome`; an oracle turns (case, options)
into a full run (every workitem once, with its fate and write log). Both register in
entry-point groups (`difftest.targets`, `difftest.oracles`: name -> "module:Class"), so an
installed third-party package adds one without editing this repository, and nothing in
`difftest` imports `targets/` or `oracles/` by name. Loading is lazy: naming one target
imports only that one (numba-simt's import is slow).

What a target may declare besides `name` and `run` (all optional; `difftest targets`
prints them):
- `description`: one line;
- `option_names` / `option_help`: its own options (the common ones are in
  `difftest.options`) and a line on each; `validate_options(options)` checks their values;
- `mutant_names` / `mutant_help`: injectable bugs, and a line on each;
- `never_ran_granularity`: "wave" when it checks the deopt flag at wave start (R5);
- `capabilities`: a set of strings; `"wave_ops"` means it runs wave operations,
  `"alloc"` kernels that call `alloc()`, `"host_programs"` cases' host programs
  (difftest/host.py): the fuzz loop's generators leave out what a target does not
  declare (`generators.cases.NEEDS`);
- `unsupported(case)`: a reason it cannot run a case (None when it can): the fuzz loop and
  the checker skip such a case instead of failing it;
- `listing(case, options)`: its compiled code as text (`difftest compile`);
- `warm_up()`: load or compile what it needs once, before parallel workers start;
- `cold_start_note()`: a line to print first when that will take a while (None when not).
"""

from __future__ import annotations

import functools
from importlib.metadata import entry_points
from typing import Any, Protocol, runtime_checkable

from .case import Case
from .errors import DifftestError
from .outcome import Outcome

TARGETS = "difftest.targets"
ORACLES = "difftest.oracles"


@runtime_checkable
class Target(Protocol):
    name: str

    def run(self, case: Case, schedule: dict[str, Any] | None = None,
            options: dict[str, Any] | None = None) -> Outcome: ...


@runtime_checkable
class Oracle(Protocol):
    name: str

    def run_full(self, case: Case, options: dict[str, Any] | None = None) -> Any: ...


class UnknownTarget(DifftestError):
    """A target name nobody registered, or one whose package fails to load."""


def _names(group: str) -> list[str]:
    return sorted({ep.name for ep in entry_points(group=group)})


def target_names() -> list[str]:
    return _names(TARGETS)


def installed_target_names() -> list[str]:
    """The registered targets whose package loads here: a plugin registered by this
    distribution whose extra is not installed (say `opencl` without `[opencl]`) is left
    out of "every target" (corpus replay); naming it still fails with the reason."""
    out = []
    for ep in entry_points(group=TARGETS):
        try:
            ep.load()
        except ImportError:
            continue
        out.append(ep.name)
    return sorted(set(out))


def oracle_names() -> list[str]:
    return _names(ORACLES)


def _load(group: str, name: str, what: str) -> Any:
    for ep in entry_points(group=group):
        if ep.name == name:
            try:
                return ep.load()()
            except ImportError as e:
                raise UnknownTarget(f"{what} '{name}' is registered by {ep.value} but cannot "
                                    f"be loaded: {e}") from None
    known = ", ".join(_names(group)) or "none registered"
    raise UnknownTarget(f"unknown {what} '{name}' (known: {known})")


def load_target(name: str) -> Target:
    """Instantiate the registered target `name`; UnknownTarget lists the known ones."""
    target = _load(TARGETS, name, "target")
    assert isinstance(target, Target), f"target {name} does not implement Target"
    return target  # type: ignore[no-any-return]


@functools.cache
def load_oracle(name: str = "reference") -> Oracle:
    """The registered oracle `name`, made once per process (oracles hold no state; the
    entry-point lookup costs more than a small case's whole oracle run)."""
    oracle = _load(ORACLES, name, "oracle")
    assert isinstance(oracle, Oracle), f"oracle {name} does not implement Oracle"
    return oracle  # type: ignore[no-any-return]


def capabilities(target: Any) -> frozenset[str]:
    return frozenset(getattr(target, "capabilities", ()))
