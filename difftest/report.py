"""Human-facing renderings of a case and its outcome (terminal text and PNG).

Cell legend, one per workitem, waves separated: `.` completed, `F` faulted, `-` never
ran, `D` completed or faulted after a deopt (when the target lists `deopted` gids in its
diagnostics). The PNG draws waves down and lanes across, with a legend of the same four.
Pillow is needed only for PNG output (the `plot` extra).
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


LEGEND = ((".", "completed"), ("F", "faulted"), ("-", "never ran"), ("D", "deopted"))


def render_png(case: Case, outcome: Outcome, path: str | Path, cell: int = 8) -> None:
    """Waves down, lanes across: one row per wave, one cell per lane (a wave of more than
    64 lanes wraps), with axis labels and a colour legend. Lanes past n are blank."""
    try:
        from PIL import Image, ImageDraw
    except ImportError:
        raise DifftestError("--png needs Pillow: pip install 'difftest-simt[plot]'") from None
    cs = cells(outcome)
    wave = case.wave
    n_waves = max(1, (len(cs) + wave - 1) // wave)
    shown = min(n_waves, 256)
    cols = min(wave, 64)
    rows_per_wave = (wave + cols - 1) // cols
    left, top, pad = 56, 22, 6
    grid_w = cols * cell
    grid_h = shown * rows_per_wave * cell + (shown - 1) * (2 if rows_per_wave > 1 else 0)
    legend_h = 18 * len(LEGEND) + 8
    width = max(left + grid_w + pad, 220)
    height = top + grid_h + pad + 16 + legend_h
    img = Image.new("RGB", (width, height), (255, 255, 255))
    draw = ImageDraw.Draw(img)
    ink = (40, 40, 40)
    draw.text((left, 4), f"lanes 0..{wave - 1} ->", fill=ink)
    draw.text((4, 4), "wave", fill=ink)
    y = top
    for w in range(shown):
        if w % 4 == 0:
            draw.text((8, y - 2), f"{w}", fill=ink)
        for r in range(rows_per_wave):
            for col in range(cols):
                g = w * wave + r * cols + col
                if g >= len(cs):
                    continue
                x0 = left + col * cell
                draw.rectangle([x0, y, x0 + cell - 2, y + cell - 2],
                               fill=_RGB.get(cs[g], (0, 0, 0)))
            y += cell
        y += 2 if rows_per_wave > 1 else 0
    if shown < n_waves:
        draw.text((left, y + 2), f"... {n_waves - shown} more waves", fill=ink)
    y = top + grid_h + pad + 16
    for key, label in LEGEND:
        draw.rectangle([left, y, left + 10, y + 10], fill=_RGB[key])
        draw.text((left + 16, y), label, fill=ink)
        y += 18
    try:
        img.save(str(path), format="PNG")
    except OSError as e:
        raise DifftestError(f"{path}: cannot write PNG: {e.strerror or e}") from None
