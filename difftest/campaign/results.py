"""The results store: every campaign appends what happened to a journal in its folder.

A campaign that writes counterexamples into `DIR` also keeps `DIR/campaigns/NAME.jsonl`,
one JSON object a line, appended as things happen (each line is one `write` to a file
opened for appending, so a reader never sees half a line and several campaigns may share
a folder, each with its own file). `difftest triage` and `difftest report` read them;
docs/results.md documents the format. The records, in order:

- `{"type": "campaign", "format": "difftest-results", "version": 1, "command": "fuzz" |
  "hunt", "target": T, "started": ISO-8601, "settings": {...}}`;
- `{"type": "progress", "t": SECONDS, "kernels": K, "cases": C, "executions": E,
  "constructs": SEEN, "failures": F, "workers": [{"kernels": ..., "cases": ...}, ...]}`,
  about every 5 s;
- `{"type": "finding", "t": SECONDS, ...}`: a reduced counterexample, with `path`,
  `verdict`, `rule`, `failure`, `key`, `first` and `shrunk` (campaign seconds),
  `statements`, `n`, `host_steps`;
- `{"type": "end", "t": SECONDS, "summary": {...}}`: `difftest fuzz --json`'s summary
  (each finding's `repeats`: the times the campaign saw it again).
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict
from datetime import datetime, UTC
from pathlib import Path
from typing import Any
from collections.abc import Iterator

FORMAT = "difftest-results"
VERSION = 1
FOLDER = "campaigns"


class Journal:
    """One campaign's journal file. A journal that cannot be written says so once (in
    `problem`) and stops trying: the campaign matters more than its record."""

    def __init__(self, folder: Path, command: str, target: str,
                 settings: dict[str, Any]) -> None:
        self.problem: str | None = None
        started = datetime.now(UTC)
        name = f"{started.strftime('%Y%m%dT%H%M%S')}-{os.getpid()}-{command}.jsonl"
        self.path = folder / FOLDER / name
        self._fd: int | None = None
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o666)
        except OSError as e:
            self.problem = f"the results journal {self.path} cannot be written: {e}"
        self.write({"type": "campaign", "format": FORMAT, "version": VERSION,
                    "command": command, "target": target,
                    "started": started.isoformat(timespec="seconds"), "settings": settings})

    def write(self, record: dict[str, Any]) -> None:
        if self._fd is None:
            return
        line = json.dumps(record, sort_keys=True, default=str) + "\n"
        try:
            os.write(self._fd, line.encode())
        except OSError as e:
            self.problem = f"the results journal {self.path} cannot be written: {e}"
            self.close()

    def progress(self, t: float, totals: dict[str, int], workers: list[dict[str, int]]
                 ) -> None:
        self.write({"type": "progress", "t": round(t, 2), **totals, "workers": workers})

    def finding(self, t: float, found: Any) -> None:
        self.write({"type": "finding", "t": round(t, 2), **asdict(found)})

    def end(self, t: float, summary: dict[str, Any]) -> None:
        self.write({"type": "end", "t": round(t, 2), "summary": summary})
        self.close()

    def close(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None


def journals(folder: Path) -> Iterator[Path]:
    yield from sorted((folder / FOLDER).glob("*.jsonl"))


_NUMBER = (int, float)
#: each record type's fields and the JSON types they must have where present
_FIELDS: dict[str, dict[str, Any]] = {
    "campaign": {"command": str, "target": str, "started": str, "settings": dict},
    "progress": {"t": _NUMBER, "kernels": int, "cases": int, "executions": int,
                 "constructs": int, "failures": int, "workers": list},
    "finding": {"t": _NUMBER, "path": str, "verdict": str, "rule": str, "failure": str,
                "key": str, "first": _NUMBER, "shrunk": _NUMBER, "statements": int,
                "n": int, "host_steps": int, "repeats": int},
    "end": {"t": _NUMBER, "summary": dict},
}
_NEEDED = {"progress": ("t",), "finding": ("t", "path"), "end": ("t",)}


def _well_formed(rec: Any) -> bool:
    if not isinstance(rec, dict) or rec.get("type") not in _FIELDS:
        return False
    kind = rec["type"]
    if any(k not in rec for k in _NEEDED.get(kind, ())):
        return False
    return all(isinstance(rec[k], want) and not isinstance(rec[k], bool)
               for k, want in _FIELDS[kind].items() if k in rec)


def read_journal(path: Path) -> list[dict[str, Any]]:
    """The records of one journal; a line that is not a record of this format (a
    campaign killed mid-write cannot leave one, but a hand edit can: not JSON, an
    unknown type, a field of the wrong type) is skipped."""
    records = []
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            try:
                rec = json.loads(line)
            except (ValueError, RecursionError):
                continue
            if _well_formed(rec):
                records.append(rec)
    return records


def campaigns(folder: Path) -> list[dict[str, Any]]:
    """Each campaign of the folder: its header's fields, `progress` (the progress
    records), `findings` (with `repeats` from the end record where there is one) and
    `end` (the end record's summary, or None for a campaign that did not end)."""
    out = []
    for path in journals(folder):
        records = read_journal(path)
        if not records or records[0].get("type") != "campaign" \
                or records[0].get("format") != FORMAT:
            continue
        head = dict(records[0])
        head["journal"] = str(path)
        head["progress"] = [r for r in records if r["type"] == "progress"]
        findings = [r for r in records if r["type"] == "finding"]
        ends = [r for r in records if r["type"] == "end"]
        head["end"] = ends[-1]["summary"] if ends else None
        repeats = {f.get("key"): f.get("repeats", 0)
                   for f in (head["end"] or {}).get("found", [])}
        for f in findings:
            f["repeats"] = repeats.get(f.get("key"), f.get("repeats", 0))
        head["findings"] = findings
        out.append(head)
    return out

