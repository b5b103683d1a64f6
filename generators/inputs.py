"""`arguments(kernel, n)`: arguments for a generated kernel at launch size n.

Edge values first (0, 1, -1, MIN, MAX, values that make indices run off the end or
divisors zero), then small random ones. `out` has K private slots per workitem (sometimes
one short, so the last workitems' stores fault), `acc` a few atomic counters, `s` the loop
bound scalar in -1..4. Shrinks toward short all-zero arrays.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from hypothesis import strategies as st

from .kernels import GeneratedKernel

EDGE32 = (0, 1, -1, 2, 3, 7, 2**31 - 1, -(2**31), 100, -7)


@st.composite
def arguments(draw: st.DrawFn, kernel: GeneratedKernel, n: int) -> dict[str, Any]:
    inp_len = draw(st.sampled_from((n, 1, max(1, n // 2), n + 3, 7)))
    style = draw(st.sampled_from(("edges", "small", "zeros")))
    rng = np.random.default_rng(draw(st.integers(0, 2**16)))
    if style == "zeros":
        inp = np.zeros(inp_len, dtype=np.int32)
    elif style == "small":
        inp = rng.integers(-4, 9, inp_len).astype(np.int32)
    else:
        inp = rng.choice(np.array(EDGE32, dtype=np.int64), inp_len).astype(np.int32)
    out_len = n * kernel.slots - draw(st.sampled_from((0, 0, 0, 1)))
    out_dtype = np.int32 if kernel.out_dtype == "i32" else np.int64
    fill = draw(st.sampled_from((0, -1, 5)))
    out = np.full(max(1, out_len), fill, dtype=out_dtype)
    acc = np.zeros(draw(st.integers(1, 4)), dtype=np.int64)
    return {"inp": inp, "out": out, "acc": acc, "s": draw(st.integers(-1, 4))}
