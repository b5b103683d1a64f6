"""User-facing errors: each carries what was wrong and where, and prints as one line.

Internal invariant violations are `AssertionError`s, never these.
"""

from __future__ import annotations


class DifftestError(Exception):
    """A mistake in the user's input; the CLI prints it as one line and exits 2."""


class KernelError(DifftestError):
    """A kernel that does not parse, validate or type-check."""

    def __init__(self, message: str, line: int = 0, where: str = "") -> None:
        self.message = message
        self.line = line
        self.where = where
        super().__init__(str(self))

    def __str__(self) -> str:
        loc = []
        if self.where:
            loc.append(self.where)
        if self.line:
            loc.append(f"line {self.line}")
        return f"{': '.join(loc)}: {self.message}" if loc else self.message


class CaseError(DifftestError):
    """A case file (or outcome file) that is malformed or does not fit its kernel."""


class NotOnThisMachine(DifftestError):
    """A valid setting this machine cannot run (an instruction set its CPU lacks): a
    corpus replay skips it with the reason, where any other bad option fails."""


#: the oracle's errors that put a kernel outside the semantics: a race, and a barrier
#: that part of a workgroup does not reach
OUTSIDE_SEMANTICS = ("race", "barrier")


class OracleError(DifftestError):
    """The kernel is outside the semantics (`OUTSIDE_SEMANTICS`), or too long for the
    oracle to judge (`work`). It is the kernel's fault, so the CLI reports it as bad
    input (exit 2)."""

    def __init__(self, kind: str, message: str) -> None:
        self.kind = kind
        self.message = message
        super().__init__(f"{kind}: {message}")
