"""Human-facing renderings of a case and its outcome (terminal text and PNG).

Cell legend, one per workitem, waves separated: `.` completed, `F` faulted, `-` never
ran, `D` completed or faulted after a deopt (when the target lists `deopted` gids in its
diagnostics). Pillow is needed only for PNG output (the `plot` extra).
"""

from __future__ import annotations

from pathlib import Path

from .case import Case
from .errors import DifftestError
from .outcome import COMPLETED, FAULTED, NEVER_RAN, Outcome

_CHAR = {COMPLETED: ".", FAULTED: "F", NEVER_RAN: "-"}
_RGB = {".": (76, 175, 80), "F": (229, 57, 53), "-": (189, 189, 189), "D": (255, 179, 0)}
ROW = 64
MAX_ROWS = 64


def numbered_source(text: str) -> str:
    lines = text.splitlines()
    width = len(str(len(lines)))
    return "\n".join(f"{i:>{width}} | {line}" for i, line in enumerate(lines, 1))


def cells(outcome: Outcome) -> list[str]:
    deopted = set(outcome.diagnostics.get("deopted", []))
    return ["D" if g in deopted and s != NEVER_RAN else _CHAR.get(s, "?")
            for g, s in enumerate(outcome.status)]


def status_picture(case: Case, outcome: Outcome) -> str:
    cs = cells(outcome)
    per_row = max(ROW - ROW % case.wave, case.wave)
    rows: list[str] = []
    for start in range(0, len(cs), per_row):
        if len(rows) == MAX_ROWS:
            rows.append(f"... ({len(cs) - start} more workitems)")
            break
        chunk = cs[start:start + per_row]
        waves = [
            "".join(chunk[i:i + case.wave]) for i in range(0, len(chunk), case.wave)
        ]
        rows.append(f"{start:>6} {' '.join(waves)}")
    legend = ". completed  F faulted  - never ran  D deopted"
    return "\n".join(["status by workitem (waves separated):", *rows, legend])


def render_png(case: Case, outcome: Outcome, path: str | Path, cell: int = 8) -> None:
    """One cell per workitem, one row per `ROW` workitems, a gap between waves."""
    try:
        from PIL import Image
    except ImportError:
        raise DifftestError("--png needs Pillow: pip install 'difftest-simt[plot]'") from None
    cs = cells(outcome)
    per_row = max(ROW - ROW % case.wave, case.wave)
    nrows = max(1, (len(cs) + per_row - 1) // per_row)
    gaps = (per_row - 1) // case.wave
    width = per_row * cell + gaps * 2 + 2
    img = Image.new("RGB", (width, nrows * cell + 2), (255, 255, 255))
    px = img.load()
    assert px is not None
    for g, c in enumerate(cs):
        r, col = divmod(g, per_row)
        x0 = 1 + col * cell + (col // case.wave) * 2
        y0 = 1 + r * cell
        for dx in range(cell - 1):
            for dy in range(cell - 1):
                px[x0 + dx, y0 + dy] = _RGB[c] if c in _RGB else (0, 0, 0)
    try:
        img.save(str(path), format="PNG")
    except OSError as e:
        raise DifftestError(f"{path}: cannot write PNG: {e}") from None
