"""The Target protocol and the registry that finds targets through entry points.

A target turns (case, schedule, options) into an `Outcome`. Targets register in the
entry-point group `difftest.targets` (name -> "module:Class"), so an installed third-party
package adds a target without editing this repository. Loading is lazy: naming one target
imports only that one (numba-simt's import is slow).
"""

from __future__ import annotations

from importlib.metadata import entry_points
from typing import Any, Protocol, runtime_checkable

from difftest.case import Case
from difftest.errors import DifftestError
from difftest.outcome import Outcome

GROUP = "difftest.targets"


@runtime_checkable
class Target(Protocol):
    name: str

    def run(self, case: Case, schedule: dict[str, Any] | None = None,
            options: dict[str, Any] | None = None) -> Outcome: ...


class UnknownTarget(DifftestError):
    pass


def target_names() -> list[str]:
    return sorted({ep.name for ep in entry_points(group=GROUP)})


def load_target(name: str) -> Target:
    """Instantiate the registered target `name`; UnknownTarget lists the known ones."""
    for ep in entry_points(group=GROUP):
        if ep.name == name:
            target = ep.load()()
            assert isinstance(target, Target), f"{ep.value} does not implement Target"
            return target
    raise UnknownTarget(
        f"unknown target '{name}' (known: {', '.join(target_names()) or 'none registered'})"
    )


class UnknownOption(DifftestError):
    pass


def check_options(target: Target, options: dict[str, Any]) -> None:
    """Reject options and mutants the target does not declare (`option_names`,
    `mutant_names` class attributes), naming the bad one and the known ones."""
    known = tuple(getattr(target, "option_names", ())) + ("mutants",)
    for key in options:
        if key not in known:
            raise UnknownOption(
                f"unknown option '{key}' for target {target.name} "
                f"(known: {', '.join(sorted(known))})"
            )
    mutants = options.get("mutants", [])
    if isinstance(mutants, str):
        mutants = [m for m in mutants.split(",") if m]
    if not isinstance(mutants, list):
        raise UnknownOption("option 'mutants' must be a list or a comma-separated string")
    validate = getattr(target, "validate_options", None)
    if callable(validate):
        validate(options)
    known_mutants = tuple(getattr(target, "mutant_names", ()))
    for m in mutants:
        if m not in known_mutants:
            raise UnknownOption(
                f"unknown mutant '{m}' for target {target.name} "
                f"(known: {', '.join(known_mutants) or 'none'})"
            )
