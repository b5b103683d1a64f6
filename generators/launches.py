"""`launches()`: (n, wave) pairs for a 1-D launch.

n is small by default: a size class is drawn first (1..8: 10%, 9..63: 15%, 64..127: 25%,
128..256: 30%, 257..1024: 15%, 1025..max_n: 5%), so the median is about 128 and a few
thousand is rare; waves are powers of two 1..64, uniformly. n is a multiple of the wave
only by chance, so partial last waves are common (about 80% of launches with wave > 1).
Two choices per launch. Shrinks toward n = 1, wave = 1 (the class first, then n within
it).
"""

from __future__ import annotations

from hypothesis import strategies as st

from .kernels import integers

WAVES = (1, 2, 4, 8, 16, 32, 64)
# (percent of launches, smallest n, largest n) per size class, smallest class first.
SIZE_CLASSES = ((10, 1, 8), (15, 9, 63), (25, 64, 127), (30, 128, 256), (15, 257, 1024),
                (5, 1025, 3000))

_WAVE = st.sampled_from(WAVES)


def _classes(max_n: int) -> tuple[tuple[int, int], ...]:
    """One (lo, hi) entry per percent; classes above max_n are dropped, the one holding
    it clipped (so smaller max_n keeps the lower classes' proportions)."""
    out: list[tuple[int, int]] = []
    for percent, lo, hi in SIZE_CLASSES:
        if lo <= max_n:
            out += [(lo, min(hi, max_n))] * percent
    return tuple(out)


#: with `whole_waves`, the share of launches whose n is rounded up to whole waves
WHOLE_WAVES_PERCENT = 75
_PERCENT = st.integers(0, 99)


def launches(max_n: int = 3000, waves: tuple[int, ...] = WAVES, whole_waves: bool = False
             ) -> st.SearchStrategy[tuple[int, int]]:
    """(n, wave) with 1 <= n <= max_n and wave in `waves` (a target's wave sizes); see
    the module docstring for the distribution. `whole_waves` rounds n up to a multiple of
    the wave in most launches: a target promising only uniform control flow defines wave
    operations in full waves alone (lanes past n are not there to run them)."""
    if max_n < 1:
        raise ValueError(f"Invalid max_n={max_n} < 1")
    if not waves or any(w not in WAVES for w in waves):
        raise ValueError(f"Invalid waves={waves!r}: expected some of {WAVES}")
    classes = _classes(max_n)
    which = st.integers(0, len(classes) - 1)
    wave = _WAVE if tuple(waves) == WAVES else st.sampled_from(tuple(sorted(waves)))

    @st.composite
    def launch(draw: st.DrawFn) -> tuple[int, int]:
        lo, hi = classes[draw(which)]
        size, w = draw(integers(lo, hi)), draw(wave)
        if whole_waves and draw(_PERCENT) < WHOLE_WAVES_PERCENT:
            up = -(-size // w) * w
            size = up if up <= max_n else max(size, up - w) if up - w >= 1 else size
        return size, w

    return launch()
