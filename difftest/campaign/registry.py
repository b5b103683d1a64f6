"""The registry: targets and oracles found through entry points.

An oracle turns (case, options) into a full run (every workitem once, with its fate and
write log); a target (difftest.core.target) turns (case, schedule, options) into an `Outcome`.
Both register in entry-point groups (`difftest.targets`, `difftest.oracles`: name ->
"module:Class"), so an installed third-party package adds one without editing this
repository, and nothing in `difftest` imports `targets/` or `oracles/` by name. Loading is
lazy: naming one target imports only that one (numba-simt's import is slow).
"""

from __future__ import annotations

import functools
import sys
from importlib.metadata import entry_points
from typing import Any, Protocol, runtime_checkable

from difftest.core.case import Case
from difftest.core.errors import DifftestError
from difftest.core.fullrun import FullRun, HostRun
from difftest.core.reconvergence import MODELS
from difftest.core.target import Target

TARGETS = "difftest.targets"
ORACLES = "difftest.oracles"


@runtime_checkable
class Oracle(Protocol):
    name: str

    def run_full(self, case: Case, options: dict[str, Any] | None = None,
                 returned: list[list[int]] | None = None, races: bool = True,
                 skipped: frozenset[int] = frozenset()) -> FullRun: ...

    def run_host(self, case: Case, options: dict[str, Any] | None = None) -> HostRun: ...


class UnknownTarget(DifftestError):
    """A target name nobody registered, or one whose package fails to load."""


class TargetNotInstalled(UnknownTarget):
    """A registered target whose extra or runtime is not installed here (its constructor
    raised ImportError naming what is missing)."""


class BrokenPlugin(UnknownTarget):
    """A registered target whose module or constructor fails with anything but
    ImportError: its package is broken (said in one line; the other targets go on)."""


def _names(group: str) -> list[str]:
    return sorted({ep.name for ep in entry_points(group=group)})


def target_names() -> list[str]:
    return _names(TARGETS)


def installed_target_names() -> list[str]:
    """The registered targets that can be made here: a target whose extra or device is
    not installed (say `opencl` without `[opencl]`; its constructor raises ImportError
    naming what is missing) is left out of "every target" (corpus replay); so is a broken
    plugin (its constructor fails otherwise, or its object is no Target), with a warning
    once: one bad package never stops the others. Naming either still fails with the
    reason."""
    out = []
    for ep in entry_points(group=TARGETS):
        try:
            obj = ep.load()()
        except ImportError:
            continue
        except Exception as e:  # noqa: BLE001 - a broken plugin: left out, said once
            _warn_broken(ep.name, ep.value, f"{type(e).__name__}: {e}")
            continue
        if not isinstance(obj, Target):
            _warn_broken(ep.name, ep.value, f"its object ({type(obj).__name__}) does not "
                         "subclass difftest.core.target.Target")
            continue
        out.append(ep.name)
    return sorted(set(out))


def option_readers() -> dict[str, tuple[str, ...]]:
    """Each target option's readers: the registered targets that take it, as their
    classes declare (none is made: a device is not opened to learn its options; a
    target whose extra is missing is left out)."""
    out: dict[str, list[str]] = {}
    for ep in entry_points(group=TARGETS):
        try:
            names = ep.load().option_names
        except Exception:  # noqa: BLE001 - not installed, or broken: it reads nothing here
            continue
        for option in names:
            out.setdefault(option, []).append(ep.name)
    return {k: tuple(sorted(set(v))) for k, v in out.items()}


_WARNED: set[str] = set()


def _warn_broken(name: str, where: str, why: str) -> None:
    if name not in _WARNED:
        _WARNED.add(name)
        print(f"difftest: warning: target '{name}' ({where}) is left out: {why}",
              file=sys.stderr)


def oracle_names() -> list[str]:
    return _names(ORACLES)


def _load(group: str, name: str, what: str) -> Any:
    for ep in entry_points(group=group):
        if ep.name == name:
            try:
                return ep.load()()
            except ImportError as e:
                raise TargetNotInstalled(f"{what} '{name}' is registered by {ep.value} but "
                                         f"cannot be loaded: {e}") from None
            except Exception as e:  # noqa: BLE001 - a broken plugin: one line, not a trace
                first = (str(e).strip().splitlines() or [""])[0]
                raise BrokenPlugin(f"{what} '{name}' is registered by {ep.value} but is "
                                   f"broken: {type(e).__name__}: {first}") from None
    known = ", ".join(_names(group)) or "none registered"
    raise UnknownTarget(f"unknown {what} '{name}' (known: {known})")


def load_target(name: str, options: dict[str, Any] | None = None) -> Target:
    """Instantiate the registered target `name`, configured by `options` (the common ones
    and its own: what they choose, such as a Vulkan target's device, decides its
    declarations); UnknownTarget lists the known ones."""
    target = _load(TARGETS, name, "target")
    if not isinstance(target, Target):  # the one check: every part is then read directly
        raise UnknownTarget(f"target '{name}' is registered, but its object "
                            f"({type(target).__name__}) does not subclass "
                            "difftest.core.target.Target")
    if options:
        target.configure({k: v for k, v in options.items() if k in target.option_names})
    if target.reconvergence not in MODELS:
        raise UnknownTarget(f"target '{name}' declares an unknown reconvergence model "
                            f"'{target.reconvergence}' (known: {', '.join(MODELS)})")
    return target


@functools.cache
def load_oracle(name: str = "reference") -> Oracle:
    """The registered oracle `name`, made once per process (oracles hold no state; the
    entry-point lookup costs more than a small case's whole oracle run)."""
    oracle = _load(ORACLES, name, "oracle")
    assert isinstance(oracle, Oracle), f"oracle {name} does not implement Oracle"
    return oracle  # type: ignore[no-any-return]


def capabilities(target: Target) -> frozenset[str]:
    return target.capabilities
