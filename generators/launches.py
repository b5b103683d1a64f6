"""`launches()`: (n, wave) pairs. Small by default (median n around 128), rarely a few
thousand; waves are powers of two 1..64, and n is often not a multiple of the wave, so
partial last waves are common. Shrinks toward n = 1, wave = 1."""

from __future__ import annotations

from hypothesis import strategies as st

WAVES = (1, 2, 4, 8, 16, 32, 64)


def launches(max_n: int = 3000) -> st.SearchStrategy[tuple[int, int]]:
    n = st.one_of(
        st.integers(1, 48),
        st.integers(49, 160),
        st.integers(161, 400),
        st.integers(401, max_n),
    ) if max_n > 400 else st.integers(1, max_n)
    return st.tuples(n, st.sampled_from(WAVES))
