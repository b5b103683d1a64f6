"""The corpus: one JSON case file per shrunk counterexample, replayed as regression tests.

A corpus file is a case file (difftest.core.case) plus::

    "format": "difftest-case", "version": 2,
    "target": "<name>", "mutants": [...],          # where it was found
    "expected": {"verdict": "agree"} | {"verdict": "disagree", "rule": "R3 memory"},
    "note": "<one line>"

Files are named by a hash of their content and written atomically (a temporary file in the
same folder, then `os.replace`), so parallel fuzz workers never tear or lose one, and the
same counterexample found twice is one file. Files are only ever parsed as JSON.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from collections.abc import Iterator

from difftest.core.case import VERSION, Case, case_from_json
from difftest.core.errors import CaseError, DifftestError
from difftest.core.jsonio import read_json
from difftest.core.kernelfile import PREFIX as HEADER_PREFIX, is_kernel_file

FORMAT = "difftest-case"


def corpus_json(case: Case, target: str, expected: dict[str, Any], note: str = "",
                mutants: list[str] | None = None) -> dict[str, Any]:
    """A corpus entry of `case` found on `target` (its run options filed under the
    target, so the entry runs on any)."""
    obj = case.recorded_for(target).to_json()
    # a kernel file's header lines, which its launch and args now hold (a reduction may
    # have changed them): blank comments, so the kernel's lines keep their numbers
    obj["kernel"] = "\n".join("#" if line.lstrip().startswith(HEADER_PREFIX) else line
                               for line in obj["kernel"].split("\n"))
    for key in ("format", "version", "target", "mutants", "expected", "note"):
        obj.pop(key, None)
    obj.update({
        "format": FORMAT,
        "version": VERSION,
        "target": target,
        "mutants": sorted(mutants or []),
        "expected": expected,
        "note": note,
    })
    return obj


def content_name(obj: dict[str, Any]) -> str:
    """Hash of everything but the note, so rewording a note keeps the name."""
    key = {k: v for k, v in obj.items() if k != "note"}
    digest = hashlib.sha256(json.dumps(key, sort_keys=True).encode()).hexdigest()
    return f"{obj.get('entry', 'case')}-{digest[:16]}.json"


def write_atomic(path: Path, text: str) -> None:
    """Write `text` to `path` whole or not at all: through a temporary file renamed over
    it. A symbolic link is written through (its target is replaced, the link stays); a
    device or a pipe (`/dev/null`, a FIFO) is written to as it is, never replaced by a
    file; a folder is an error naming it."""
    path = _destination(path)
    if path.exists() and not path.is_file():
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        os.fchmod(fd, 0o666 & ~_umask())  # mkstemp's 0600 would hide it from others
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise


def write_output(path: str | Path, text: str, flag: str = "") -> None:
    """`write_atomic` of a file the user named (`flag`: the option that named it): a
    write that fails (a full disk, a file past its size limit) is one error naming the
    file and why, and leaves no part of it."""
    try:
        write_atomic(Path(path), text)
    except OSError as e:
        raise DifftestError(f"{flag + ' ' if flag else ''}{path}: cannot write: "
                            f"{e.strerror or e}") from None


def _destination(path: Path, flag: str = "") -> Path:
    """Where writing `path` lands: a link's target; a folder is the user's mistake."""
    if path.is_symlink():
        path = path.resolve()
    if path.is_dir():
        raise DifftestError(f"{flag + ' ' if flag else ''}{path}: is a folder, not a file")
    return path


def check_destination(path: str | Path, flag: str, source: str | Path | None = None) -> None:
    """An output file named on the command line can be written, checked before the work
    starts (not a folder; its folder exists or can be made, and is writable; not
    `source`, the file the command reads, which writing would lose)."""
    dest = _destination(Path(path), flag)
    if source is not None and dest.exists() and Path(source).exists() \
            and os.path.samefile(dest, source):
        raise DifftestError(f"{flag} {path}: that is the input file {source}, which this "
                            "would overwrite: name another file")
    if dest.exists() and not dest.is_file():
        return  # a device or a pipe: written to as it is
    check_writable(dest.resolve().parent, flag)


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def check_writable(directory: Path, flag: str) -> None:
    """Create `directory` if needed and prove a file can be written there (a campaign must
    not find out after an hour that its counterexamples cannot be kept)."""
    if directory.exists() and not directory.is_dir():
        raise DifftestError(f"{flag} {directory}: not a folder")
    try:
        directory.mkdir(parents=True, exist_ok=True)
        fd, probe = tempfile.mkstemp(prefix=".probe.", dir=directory)
        os.close(fd)
        os.unlink(probe)
    except OSError as e:
        raise DifftestError(f"{flag} {directory}: cannot write there: "
                            f"{e.strerror or e}") from None


def save(directory: str | Path, obj: dict[str, Any]) -> Path:
    """Write one corpus entry; returns its path (an existing identical entry is kept)."""
    path = Path(directory) / content_name(obj)
    if not path.exists():
        write_atomic(path, json.dumps(obj, indent=1, sort_keys=True) + "\n")
    return path


@dataclass
class Entry:
    path: Path
    case: Case | None
    error: str | None = None

    @property
    def target(self) -> str:
        assert self.case is not None
        return str(self.case.extra.get("target", "reference"))

    @property
    def mutants(self) -> list[str]:
        assert self.case is not None
        return list(self.case.extra.get("mutants", []))

    @property
    def expected(self) -> dict[str, Any]:
        assert self.case is not None
        exp = self.case.extra.get("expected", {"verdict": "agree"})
        return exp if isinstance(exp, dict) else {"verdict": "agree"}


def files(paths: list[str | Path]) -> list[Path]:
    """Expand folders to their *.json files (sorted); a missing path is a CaseError."""
    out: list[Path] = []
    for p in map(Path, paths):
        if p.is_dir():
            out.extend(sorted(q for q in p.glob("*.json") if not q.name.startswith(".")))
        elif p.exists():
            out.append(p)
        else:
            raise CaseError(f"{p}: no such file or folder")
    return out


def entries(paths: list[str | Path]) -> Iterator[Entry]:
    """Every corpus file, loaded; a malformed one is an Entry with `error`, never a crash."""
    for path in files(paths):
        if is_kernel_file(path):
            yield Entry(path, None, f"{path}: a kernel file, not a corpus file (replay reads "
                        "the JSON files fuzz, reduce and record write; `difftest check "
                        f"{path.name}` checks a kernel file)")
            continue
        try:
            case = case_from_json(read_json(path), str(path))
        except CaseError as e:
            yield Entry(path, None, str(e))
            continue
        problem = _corpus_fields(case.extra)
        if problem:
            yield Entry(path, None, f"{path}: {problem}")
            continue
        yield Entry(path, case)


def _corpus_fields(extra: dict[str, Any]) -> str | None:
    """What is wrong with a corpus file's own fields (None when they are well-formed)."""
    exp = extra.get("expected", {"verdict": "agree"})
    if not (isinstance(exp, dict) and exp.get("verdict") in ("agree", "disagree")):
        return "field 'expected' must be {\"verdict\": \"agree\"|\"disagree\", ...}"
    return None  # `target` and `mutants`: checked with the case (difftest.core.case)
