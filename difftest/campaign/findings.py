"""Known bugs of real targets, as the corpus records them.

A real target's bug cannot be fixed here, so its reduced case is kept in the corpus as a
*finding*: a corpus entry with `"finding": "<id>"` (the section of docs/findings.md that
argues it), `"expected": {"verdict": "disagree", "rule": ...}` and the `"signature"` of
the failure (difftest.campaign.signature). Replay checks that the target still shows it (when it
stops showing, the target was fixed and the finding needs a new look), and a disagreement
of that target on any other case that the finding explains is reported as that known
bug, not as a new failure. A finding explains a failure by its cause where it can: an
entry with `"avoid": "<variant>"` names a translation variant that spells the bug's
trigger another way (the target's `avoid` option), and a failure of its target (and
compiler) that goes away under that variant is that bug, whatever the failing rule or
the kernel's shape. A finding without a variant explains by shape: the same failure
class, every operation of its reduced case present. Nothing else is ever excused: a
disagreement no finding explains fails, and a finding only explains failures of its own
target.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from difftest.core.case import Case
from difftest.campaign.signature import Signature, launch_wave, setting, shape, verdict_class


@dataclass(frozen=True)
class KnownFinding:
    id: str
    signature: Signature
    path: Path
    avoid: str = ""  # the variant that spells its trigger another way, if any
    lead: bool = False  # shown, not yet argued to the end (docs/findings.md, Open leads)

    @property
    def target(self) -> str:
        return self.signature.target

    @property
    def name(self) -> str:
        """What a campaign or a replay calls it: its id, and "(a lead)" for a lead."""
        return f"{self.id} (a lead)" if self.lead else self.id


def known_findings(paths: list[Path]) -> list[KnownFinding]:
    """The findings among the corpus files under `paths` (malformed ones are the
    replay's business, skipped here)."""
    from difftest.campaign.corpus import entries

    out = []
    for entry in entries(list(paths)):
        if entry.case is None:
            continue
        extra = entry.case.extra
        if isinstance(extra.get("finding"), str) and isinstance(extra.get("signature"), dict):
            try:
                sig = Signature.from_json(extra["signature"])
            except (KeyError, TypeError):
                continue
            avoid = extra.get("avoid", "")
            out.append(KnownFinding(extra["finding"], sig, entry.path,
                                    avoid if isinstance(avoid, str) else "",
                                    extra.get("lead") is True))
    return out


#: reruns the failing case with these options added; True when it then agrees
Rerun = Callable[[dict[str, Any]], bool]


def explain(known: list[KnownFinding], target: str, case: Case, verdict: Any,
            options: dict[str, Any] | None = None, compiler: str = "",
            rerun: Rerun | None = None, capabilities: frozenset[str] = frozenset({"wave_ops"})
            ) -> KnownFinding | None:
    """The known finding of `target` (running `compiler`, where it names one) that
    explains this disagreement under `options` (default: the case's), if one does: by
    its cause when it names a variant and `rerun` can try it, else by shape (the
    target's `capabilities` say whether its launch is cut into waves: `launch_wave`)."""
    if verdict.agree:
        return None
    failure = verdict_class(verdict)
    case_shape = shape(case.program, case.entry, case.n, launch_wave(capabilities, case.wave))
    where = setting(case.options if options is None else options)
    for f in known:
        without = f.signature.without_passes(target, failure, compiler)
        if f.avoid and rerun is not None:
            if f.signature.on_any_version(target, compiler) and rerun({"avoid": f.avoid}):
                return f
        elif without is not None and rerun is not None:
            if rerun(without):  # an optimizer's failure, gone without the finding's passes
                return f
        elif f.signature.explains(target, failure, case_shape, where, compiler):
            return f
    return None
