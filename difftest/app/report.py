"""Human-facing renderings of a case and its outcome (terminal text and PNG).

One cell per workitem, waves separated (workgroups of several waves by ` | `): `.`
completed, `F` faulted, `-` never ran, `D`
completed after a deopt (when the target lists `deopted` gids in its diagnostics). A
faulted workitem is always `F`, deopted or not: the fault is what the reader looks for.
Nothing is cut: the terminal picture folds runs of identical rows into one line, the
PNG shrinks its cells until every workitem fits. Pillow is needed only for PNG output
(the `plot` extra).
"""

from __future__ import annotations

from pathlib import Path
from typing import IO

from difftest.core.case import Case
from difftest.core.errors import DifftestError
from difftest.core.outcome import COMPLETED, FAULTED, NEVER_RAN, Outcome

_CHAR = {COMPLETED: ".", FAULTED: "F", NEVER_RAN: "-"}
_RGB = {".": (76, 175, 80), "F": (229, 57, 53), "-": (189, 189, 189), "D": (255, 179, 0)}
LEGEND = ((".", "completed"), ("F", "faulted"), ("-", "never ran"), ("D", "deopted, completed"))
ROW = 64  # workitems per terminal row (whole waves where a wave fits)


def numbered_source(text: str) -> str:
    lines = text.splitlines()
    width = len(str(len(lines)))
    return "\n".join(f"{i:>{width}} | {line}" for i, line in enumerate(lines, 1))


def cells(outcome: Outcome) -> list[str]:
    deopted = set(outcome.diagnostics.get("deopted", []))
    return ["D" if s == COMPLETED and g in deopted else _CHAR.get(s, "?")
            for g, s in enumerate(outcome.status)]


def status_picture(case: Case, outcome: Outcome) -> str:
    """Rows of whole waves (whole workgroups where a launch has groups of several waves)
    labelled by their first gid; three or more identical rows in a row print as the
    first and a line saying how many more."""
    cs = cells(outcome)
    wave, group = case.wave, case.group_size
    unit = group if group > wave else wave
    per_row = max(ROW - ROW % unit, unit)
    bodies: list[tuple[int, str]] = []
    for start in range(0, len(cs), per_row):
        chunk = cs[start:start + per_row]
        text = ""
        for i in range(0, len(chunk), wave):
            if i:
                text += " | " if (start + i) % group == 0 and group > wave else " "
            text += "".join(chunk[i:i + wave])
        bodies.append((start, text))
    rows: list[str] = []
    i = 0
    while i < len(bodies):
        j = i
        while j + 1 < len(bodies) and bodies[j + 1][1] == bodies[i][1]:
            j += 1
        rows.append(f"{bodies[i][0]:>6} {bodies[i][1]}")
        if j - i >= 2:
            last = min(bodies[j][0] + per_row, len(cs)) - 1
            rows.append(f"{'':>6} ... the same up to gid {last} ({j - i} more rows)")
        else:
            rows.extend(f"{bodies[k][0]:>6} {bodies[k][1]}" for k in range(i + 1, j + 1))
        i = j + 1
    legend = "  ".join(f"{k} {label}" for k, label in LEGEND)
    separated = "waves separated" + (f", workgroups of {group} by |" if group > wave else "")
    return "\n".join([f"status by workitem (gid of each row's first; {separated}):",
                      *rows, legend])


def _layout(n: int, wave: int) -> tuple[int, int, int]:
    """(workitems per row, rows, cell size in pixels): rows of whole waves (64 lanes at
    least, doubled while there would be more than 512 rows), cells as large as fit a
    picture of about 1024 x 1024."""
    cols = max(64 - 64 % wave, wave) if wave <= 64 else 64
    rows = max(1, -(-n // cols))
    while rows > 512 and cols < 1024:
        cols *= 2
        rows = max(1, -(-n // cols))
    cell = max(1, min(16, 1024 // cols, 1024 // rows))
    return cols, rows, cell


def render_png(case: Case, outcome: Outcome, path: str | Path | IO[bytes],
               title: str = "") -> None:
    """Every workitem as a cell, in rows of whole waves labelled by their first gid
    (waves within a row separated by a gap), under a title (the case, the target and the
    verdict) and over a colour legend."""
    try:
        from PIL import Image, ImageDraw
    except ImportError:
        raise DifftestError("--png needs Pillow: pip install 'difftest-simt[plot]'") from None
    cs = cells(outcome)
    wave = case.wave
    cols, rows, cell = _layout(len(cs), wave)
    gap = 2 if cell >= 4 and wave < cols else 0
    left, pad, line = 64, 8, 14
    import textwrap

    titles = [w for t in title.splitlines() for w in textwrap.wrap(t, 110)] \
        or [f"{case.entry}: {case.launch_text}"]
    top = pad + line * (len(titles) + 1) + 4
    grid_w = cols * cell + (cols // wave - 1) * gap if wave < cols else cols * cell
    grid_h = rows * cell
    legend_w = sum(30 + 7 * len(label) for _, label in LEGEND)
    width = max(left + grid_w + pad, left + legend_w, 480,
                7 * max(len(t) for t in titles) + 2 * pad)
    height = top + grid_h + pad + 24
    img = Image.new("RGB", (width, height), (255, 255, 255))
    draw = ImageDraw.Draw(img)
    ink = (40, 40, 40)
    for k, text in enumerate(titles):
        draw.text((pad, pad + k * line), text, fill=ink)
    axis = f"lanes 0..{wave - 1} of each wave ->" if wave <= cols else \
        f"gids across, {cols} a row (a wave of {wave} wraps) ->"
    draw.text((left, top - line - 2), axis, fill=ink)
    draw.text((pad, top - line - 2), "gid", fill=ink)
    label_every = max(1, -(-line // cell))  # a label per row where they fit
    for r in range(rows):
        y = top + r * cell
        if r % label_every == 0:
            draw.text((pad, y), f"{r * cols}", fill=ink)
        for c in range(cols):
            g = r * cols + c
            if g >= len(cs):
                break
            x = left + c * cell + (c // wave) * gap
            draw.rectangle([x, y, x + max(cell - 2, 0), y + max(cell - 2, 0)],
                           fill=_RGB.get(cs[g], (0, 0, 0)))
    x, y = left, top + grid_h + pad
    for key, label in LEGEND:
        draw.rectangle([x, y, x + 10, y + 10], fill=_RGB[key])
        draw.text((x + 14, y), label, fill=ink)
        x += 14 + 7 * len(label) + 16
    try:
        img.save(path if hasattr(path, "write") else str(path), format="PNG")
    except OSError as e:
        raise DifftestError(f"{path}: cannot write PNG: {e.strerror or e}") from None
