"""Triage: many failing cases, a few bugs. Findings go into buckets (one per bug, as far
as their reduced cases can tell) and the buckets are ranked so that the most different
come first.

A finding is a reduced counterexample file with a signature (difftest.campaign.signature: target,
setting, failure class, the operations left in the reduced kernel), with what the
campaign journals say about it (difftest.campaign.results: when it was first seen, how often
again). Its *core* is its shape without the plumbing every generated kernel uses to make
and move values (`PLUMBING`), with the operations a compiler lowers along one path named
by their family (`FAMILIES`: `//` and `%` are division, `for` and `while` are loops, the
comparisons and the logic operators one each), together with the schedule keys and
target options its reduced case still holds (the reducer takes out every one the failure
does not need, so what is left -- `never_ran`, `registers`, `deopt_percent` -- is what
the bug needed as much as its operations).

A finding's *cause*: the target's probes (Target.probes: one mechanism switched off or
swapped, such as numba-simt's spills, allocation order or wave-operation lowering) under
which its case agrees when run again -- what it needs of the target, told by the target
rather than by the reducer's leftovers (a register-corruption bug shows as wrong memory,
a bad buffer id or a wrong fate by turns; which mechanism it needs does not change).

Buckets: the findings of one target are taken fewest core operations first (then
fewest statements, then workitems); each joins the first bucket whose pattern (its first
finding's core) is contained in its own core and is at least half of it, and whose
first finding has its cause (the bucket's first finding is then the more general witness
of the same thing: the extra operations are what a reduction could not take out, and
they are not most of the witness), or starts a bucket with its core as the pattern. The
failure class need not be the same among wrong results (R1 to R6: one register clobber
shows as a wrong fate in one kernel, as wrong memory in another), but a target's error
(R0) shares a bucket only with errors of its own kind (`failure_group`): a workitem out
of its step budget, a crash, a hang or a rejected build is not a wrong value, and
a reader must see it apart (decided so: a new user found an R0 step-budget finding in an
R3 bucket). Where the pattern is empty, too: such a witness says
nothing about the operations, and an empty set is in every core, so its bucket takes
only findings of its own failure class whose whole shape is its own (decided so: the
first rule let one empty pattern take every later finding of its class, twenty
different bugs in one bucket). A bucket's representative is its smallest finding
(statements, then workitems).

Known bugs: each bucket is linked to the known finding of the corpus it is, if any (the
finding that explains its representative: by cause, running it again with the trigger
spelled another way, where the finding names such a variant and the target is here;
else by its signature's class and shape).

Ranking (furthest point first, as in "Taming compiler fuzzers", PLDI 2013): the bucket
seen most often first, then again and again the bucket whose features (target, setting,
failure class and core) are furthest, in Jaccard distance, from every bucket already
listed. A reader who stops early has seen the most different bugs.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from difftest.campaign.results import campaigns

#: operations that make and move values in nearly every generated kernel (a workgroup
#: array's declaration too: it is storage, as a buffer parameter is)
PLUMBING = frozenset({"Load", "Store", "Len", "id:gid", "Binary:+", "Binary:-", "helpers",
                      "call", "CallStmt", "Pass", "LocalArray"})


#: operations of one family: a compiler lowers them along one path
FAMILIES = {"Binary://": "division", "Binary:%": "division", "For": "loop", "While": "loop"}


def _family(op: str) -> str:
    if op in FAMILIES:
        return FAMILIES[op]
    if op.startswith(("Compare:", "Logic:")):
        return op.split(":", 1)[0].lower()
    return op


@dataclass
class Finding:
    path: str
    target: str
    setting: str
    failure: str
    shape: frozenset[str]
    statements: int
    n: int
    verdict: str = ""
    seen: int = 1          # the finding and its repeats
    first: float | None = None  # campaign seconds to its first failure (the journal's)
    needs: frozenset[str] = frozenset()  # schedule keys and options left in its case
    mutants: tuple[str, ...] = ()  # the injected bugs it was found with (a hunt's)
    compiler: str = ""  # the compiler its target ran, where the signature names one
    cause: dict[str, str] = field(default_factory=dict)  # probes it agrees under (probe_causes)

    @property
    def core(self) -> frozenset[str]:
        return frozenset(_family(op) for op in self.shape - PLUMBING) | self.needs

    def size(self) -> tuple[int, int]:
        return (self.statements, self.n)


@dataclass
class Bucket:
    pattern: Finding  # the first finding: its core decides who joins
    members: list[Finding] = field(default_factory=list)
    known: str = ""  # the known finding (docs/findings.md) it is, and how it was told

    @property
    def representative(self) -> Finding:
        return min(self.members, key=lambda f: (f.size(), f.path))

    @property
    def seen(self) -> int:
        return sum(f.seen for f in self.members)

    def features(self) -> frozenset[str]:
        r = self.pattern
        return r.core | {f"target={r.target}", f"failure={r.failure}"} | {
            f"agrees with {name}" for name in r.cause}

    def to_json(self, rank: int) -> dict[str, Any]:
        r = self.representative
        return {"rank": rank, "target": r.target, "setting": r.setting,
                "failure": r.failure, "pattern": sorted(self.pattern.core),
                "core": sorted(r.core), "seen": self.seen,
                "findings": len(self.members), "representative": r.path,
                "statements": r.statements, "n": r.n, "verdict": r.verdict,
                "mutants": sorted({m for f in self.members for m in f.mutants}),
                "known": self.known, "agrees_with": sorted(self.pattern.cause.values()),
                "first": min((f.first for f in self.members if f.first is not None),
                             default=None),
                "members": [f.path for f in self.members]}


def _statements(kernel: str) -> int:
    from difftest.core.ir import parse
    from difftest.campaign.reduce import statements

    return statements(parse(kernel))


#: the steps every host program takes (a buffer made, a launch): a second launch is not
_HOST_PLUMBING = frozenset({"create", "launch"})

#: options that are no part of what a bug needs (budgets, the injected bugs themselves)
_NOT_NEEDS = frozenset({"mutants", "step_budget", "work_budget", "timeout", "build_timeout"})


def _needs(obj: dict[str, Any]) -> frozenset[str]:
    """The schedule keys, target options and kinds of host-program steps a reduced case
    still holds."""
    out = set()
    schedule = obj.get("schedule")
    for key in schedule if isinstance(schedule, dict) else ():
        if not key.endswith("_seed"):  # a seed goes with its key
            out.add(f"schedule:{key}")
    host = obj.get("host")
    launches = 0
    for step in host if isinstance(host, list) else ():
        if isinstance(step, dict) and isinstance(step.get("op"), str):  # a kept step
            op, mode = step["op"], step.get("mode")
            launches += op == "launch"
            if op not in _HOST_PLUMBING:
                out.add(f"host:{op}" + (f":{mode}" if isinstance(mode, str) else ""))
    if launches > 1:
        out.add("host:launch:again")
    options = obj.get("options")
    for key, value in (options.items() if isinstance(options, dict) else ()):
        if isinstance(value, dict):  # a target's own section
            out |= {f"option:{k}" for k in value if k not in _NOT_NEEDS}
        elif key not in _NOT_NEEDS:
            out.add(f"option:{key}")
    return frozenset(out)


def load_findings(folder: Path) -> list[Finding]:
    """Every reduced counterexample in `folder` (its case files with a signature), with
    the journals' counts. Unreadable files are skipped: triage reads what is there.
    A journal's findings are known by their file's name (a hash of the case), not its
    path: a folder copied, moved or merged keeps them (it lost them all)."""
    journal: dict[str, dict[str, Any]] = {}
    for c in campaigns(folder):
        for f in c["findings"]:
            path = Path(str(f.get("path", ""))).name
            if path in journal:
                journal[path]["repeats"] += f.get("repeats", 0) + 1
            else:
                journal[path] = {"repeats": f.get("repeats", 0), "first": f.get("first"),
                                 "verdict": f.get("verdict", "")}
    out = []
    for case_path in sorted(folder.glob("*.json")):
        try:
            obj = json.loads(case_path.read_text())
            sig = obj["signature"]
            launch = obj["launch"]
            statements = _statements(obj["kernel"])
        except Exception:  # noqa: BLE001 - not a counterexample file: not triaged
            continue
        info = journal.get(case_path.name, {})
        out.append(Finding(
            str(case_path), str(sig.get("target", obj.get("target", "?"))),
            str(sig.get("setting", "")), str(sig.get("failure", "?")),
            frozenset(sig.get("shape", [])), statements, int(launch.get("n", 0)),
            info.get("verdict") or str(obj.get("note", "")).split(": ", 1)[-1],
            1 + int(info.get("repeats", 0)), info.get("first"), _needs(obj),
            tuple(str(m) for m in obj.get("mutants", []) if isinstance(m, str)),
            str(sig.get("compiler", ""))))
    return out


def failure_group(failure: str) -> str:
    """What may share a bucket: every wrong result (R1 to R6) is one group, a target's
    error (R0) one group for each kind ("R0 error: crash", "R0 error: step_budget")."""
    if failure.startswith("R0 error"):
        return ":".join(failure.split(":")[:2]).strip()
    return "wrong result"


def buckets(findings: list[Finding]) -> list[Bucket]:
    """The module docstring's buckets, ranked."""
    out: list[Bucket] = []
    for f in sorted(findings, key=lambda f: (len(f.core), f.size(), f.path)):
        for b in out:
            r = b.pattern
            if r.target == f.target and r.cause.keys() == f.cause.keys() \
                    and failure_group(r.failure) == failure_group(f.failure) \
                    and r.core <= f.core and 2 * len(r.core) >= len(f.core) and (
                    r.core or (r.failure == f.failure and r.shape == f.shape)):
                b.members.append(f)
                break
        else:
            out.append(Bucket(f, [f]))
    return _rank(out)


def probe_causes(findings: list[Finding]) -> None:
    """Set each finding's `cause`: the target's probes (Target.probes: one mechanism
    switched off or swapped at a time) under which its case agrees. Two findings whose
    failures go away under different mechanisms are different bugs, whatever their
    shapes; a finding whose target is not here keeps an empty cause."""
    for f in findings:
        rerun = _rerun(f)
        if rerun is not None:
            agrees, probes = rerun
            f.cause = {name: _setting(extra) for name, extra in probes.items()
                       if agrees(extra)}


def _setting(extra: dict[str, Any]) -> str:
    return " ".join(f"{k}={v}" for k, v in sorted(extra.items()))


def _rerun(r: Finding, known: Any = None) -> tuple[Any, dict[str, dict[str, Any]]] | None:
    """(agrees: whether `r`'s case agrees with some options added, the target's probes),
    or None where its target cannot run it here (or, with `known`, runs a compiler the
    known finding's cannot be)."""
    from difftest.campaign.registry import load_target
    from difftest.campaign.runner import oracle_run, rerun_with
    from difftest.core.errors import DifftestError
    from difftest.core.kernelfile import load_case
    from difftest.core.options import case_options

    try:
        case = load_case(r.path)
        target = load_target(r.target)
        # a hunt's finding shows its injected bugs: they are switched on again
        options, _ = case_options(case, target, r.path, list(r.mutants) or None)
        target.configure(options)
        if known is not None and not known.on(r.target, target.compiler(options)):
            return None
        full, error = oracle_run(case, options)
        agrees = rerun_with(case, target, options, full, error)
    except (DifftestError, OSError):
        return None

    def safe(extra: dict[str, Any]) -> bool:
        try:
            return agrees(extra)
        except (DifftestError, OSError):
            return False

    return safe, target.probes(options)


def link_known(bs: list[Bucket], known: list[Any]) -> None:
    """Set each bucket's `known` (the module docstring): by cause where the finding names
    a variant and its representative can be run here, else by signature."""
    from difftest.campaign.signature import Signature

    for b in bs:
        r = b.representative
        sig = Signature(r.target, r.failure, r.shape, r.setting, r.compiler)
        for f in known:
            if f.avoid and _agrees_avoiding(r, f.avoid, f.signature):
                b.known = f"{f.id} (the case agrees with its trigger avoided: avoid={f.avoid})"
                break
            if f.signature.explains(r.target, r.failure, r.shape, r.setting, r.compiler) \
                    or f.signature.same_bug(sig):
                b.known = f"{f.id} (by its class and shape)"
                break


def _agrees_avoiding(r: Finding, avoid: str, known: Any) -> bool:
    """Whether finding `r`'s case agrees when run again under the variant `avoid`, on its
    target (and a compiler the known finding's can be); False where it cannot run here."""
    rerun = _rerun(r, known)
    return rerun is not None and rerun[0]({"avoid": avoid})


def _distance(a: frozenset[str], b: frozenset[str]) -> float:
    union = a | b
    return 1.0 - len(a & b) / len(union) if union else 0.0


def _rank(bs: list[Bucket]) -> list[Bucket]:
    if not bs:
        return []
    left = sorted(bs, key=lambda b: (-b.seen, b.representative.size()))
    ranked = [left.pop(0)]
    while left:
        best = max(range(len(left)), key=lambda i: (
            min(_distance(left[i].features(), r.features()) for r in ranked),
            left[i].seen))
        ranked.append(left.pop(best))
    return ranked


def format_buckets(bs: list[Bucket], findings: int) -> str:
    lines = [f"{findings} finding(s) in {len(bs)} bucket(s), most different first:"]
    for i, b in enumerate(bs, 1):
        r = b.representative
        core = ", ".join(sorted(b.pattern.core)) or "-"
        classes = "; ".join(sorted({f.failure for f in b.members}))
        lines.append(f"{i:3}. {r.target} {classes}: seen {b.seen} time(s) in "
                     f"{len(b.members)} finding(s); pattern {{{core}}}")
        lines.append(f"     representative {r.path} ({r.statements} statement(s), "
                     f"n = {r.n})")
        mutants = sorted({m for f in b.members for m in f.mutants})
        if b.pattern.cause:
            lines.append("     goes away with " + ", ".join(
                f"{v} ({k})" for k, v in sorted(b.pattern.cause.items())))
        if mutants:
            lines.append(f"     found with the mutant(s) {', '.join(mutants)}")
        if b.known:
            lines.append(f"     the known bug {b.known}")
    separation = _separation(bs)
    if separation:
        lines.append(separation)
    return "\n".join(lines)


def _separation(bs: list[Bucket]) -> str:
    """For a hunt's folder, whose findings name the injected bug each was made under:
    how well the buckets separate them ("" elsewhere)."""
    where: dict[str, set[int]] = {}
    for i, b in enumerate(bs):
        for f in b.members:
            for m in f.mutants:
                where.setdefault(m, set()).add(i)
    if not where:
        return ""
    joined = sum(len({m for f in b.members for m in f.mutants}) - 1 for b in bs)
    split = sum(len(v) - 1 for v in where.values())
    return (f"separation (the findings name their injected bugs): {len(where)} mutant(s) "
            f"in {len(bs)} bucket(s); joined {joined} (a bucket's mutants past its first, "
            f"summed), split {split} (a mutant's buckets past its first, summed)")


def triage_json(bs: list[Bucket], folder: Path, findings: int) -> dict[str, Any]:
    return {"format": "difftest-triage", "version": 1, "folder": str(folder),
            "findings": findings,
            "buckets": [b.to_json(i) for i, b in enumerate(bs, 1)]}
