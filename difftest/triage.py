"""Triage: many failing cases, a few bugs. Findings go into buckets (one per bug, as far
as their reduced cases can tell) and the buckets are ranked so that the most different
come first.

A finding is a reduced counterexample file with a signature (difftest.signature: target,
setting, failure class, the operations left in the reduced kernel), with what the
campaign journals say about it (difftest.results: when it was first seen, how often
again). Its *core* is its shape without the plumbing every generated kernel uses to make
and move values (`PLUMBING`): what is left is what the bug needed.

Buckets: findings of the same target, setting and failure class are taken smallest
first (statements, then workitems); each joins the first bucket whose representative's
core is contained in its own (the representative is then a smaller witness of the same
thing: the finding's extra operations are what its reduction could not take out), or
starts a bucket of its own as its representative.

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

from .results import campaigns

#: operations that make and move values in nearly every generated kernel
PLUMBING = frozenset({"Load", "Store", "Len", "id:gid", "Binary:+", "Binary:-", "helpers",
                      "call", "CallStmt", "Pass"})


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

    @property
    def core(self) -> frozenset[str]:
        return self.shape - PLUMBING

    def size(self) -> tuple[int, int]:
        return (self.statements, self.n)


@dataclass
class Bucket:
    representative: Finding
    members: list[Finding] = field(default_factory=list)

    @property
    def seen(self) -> int:
        return sum(f.seen for f in self.members)

    def features(self) -> frozenset[str]:
        r = self.representative
        return r.core | {f"target={r.target}", f"setting={r.setting}",
                         f"failure={r.failure}"}

    def to_json(self, rank: int) -> dict[str, Any]:
        r = self.representative
        return {"rank": rank, "target": r.target, "setting": r.setting,
                "failure": r.failure, "core": sorted(r.core), "seen": self.seen,
                "findings": len(self.members), "representative": r.path,
                "statements": r.statements, "n": r.n, "verdict": r.verdict,
                "first": min((f.first for f in self.members if f.first is not None),
                             default=None),
                "members": [f.path for f in self.members]}


def _statements(kernel: str) -> int:
    from .ir import parse
    from .reduce import statements

    return statements(parse(kernel))


def load_findings(folder: Path) -> list[Finding]:
    """Every reduced counterexample in `folder` (its case files with a signature), with
    the journals' counts. Unreadable files are skipped: triage reads what is there."""
    journal: dict[str, dict[str, Any]] = {}
    for c in campaigns(folder):
        for f in c["findings"]:
            path = str(Path(f.get("path", "")).resolve())
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
        info = journal.get(str(case_path.resolve()), {})
        out.append(Finding(
            str(case_path), str(sig.get("target", obj.get("target", "?"))),
            str(sig.get("setting", "")), str(sig.get("failure", "?")),
            frozenset(sig.get("shape", [])), statements, int(launch.get("n", 0)),
            info.get("verdict") or str(obj.get("note", "")).split(": ", 1)[-1],
            1 + int(info.get("repeats", 0)), info.get("first")))
    return out


def buckets(findings: list[Finding]) -> list[Bucket]:
    """The module docstring's buckets, ranked."""
    out: list[Bucket] = []
    for f in sorted(findings, key=lambda f: (f.size(), f.path)):
        for b in out:
            r = b.representative
            if (r.target, r.setting, r.failure) == (f.target, f.setting, f.failure) \
                    and r.core <= f.core:
                b.members.append(f)
                break
        else:
            out.append(Bucket(f, [f]))
    return _rank(out)


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
        core = ", ".join(sorted(r.core)) or "-"
        setting = f" [{r.setting}]" if r.setting else ""
        lines.append(f"{i:3}. {r.target}{setting} {r.failure}: seen {b.seen} time(s) in "
                     f"{len(b.members)} finding(s); core {{{core}}}")
        lines.append(f"     representative {r.path} ({r.statements} statement(s), "
                     f"n = {r.n})")
    return "\n".join(lines)


def triage_json(bs: list[Bucket], folder: Path, findings: int) -> dict[str, Any]:
    return {"format": "difftest-triage", "version": 1, "folder": str(folder),
            "findings": findings,
            "buckets": [b.to_json(i) for i, b in enumerate(bs, 1)]}
