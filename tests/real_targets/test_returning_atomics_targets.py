"""Atomics that return on the real targets (docs/semantics.md, "Atomics that return"): each
translation spells them with the language's own atomics, the kernel it runs writes the
values they returned (targets/returned_log.py), and the checker accepts the order the
device took: the example agrees, 64-bit ones too, and what a language lacks (8- and
16-bit atomics) is a case the target cannot run."""

from __future__ import annotations

import textwrap

import pytest

from difftest.campaign.runner import check_case
from difftest.core.case import case_from_json
from difftest.core.kernelfile import load_case
from targets.returned_log import logged

from ..conftest import EXAMPLES
from .test_real_targets import target

TARGETS = ("opencl-intel", "opencl", "lavapipe-glsl", "lavapipe-wgsl", "cuda-sim")
#: how each language spells compare-exchange
CAS = {"opencl-intel": "atomic_cmpxchg(", "opencl": "atomic_cmpxchg(",
       "lavapipe-glsl": "atomicCompSwap(", "lavapipe-wgsl": "atomicCompareExchangeWeak(",
       "cuda-sim": "atomicCAS("}


@pytest.mark.parametrize("name", TARGETS)
def test_the_example_agrees_in_its_own_atomics(name: str) -> None:
    t = target(name)
    case = load_case(EXAMPLES / "returning_atomics.py")
    source = t.listing(logged(case, 16)[0], {})
    assert source is not None and CAS[name] in source, source
    res = check_case(case, t, {}, {})
    assert res.verdict.agree and not res.verdict.unchecked, str(res.verdict)
    assert res.outcome.returned is not None and len(res.outcome.returned) == 12
    assert res.outcome.buffers["cnt"][0] == 8


WIDE = """
def k(a: Buffer[i64], w: Buffer[u64], out: Buffer[i64]):
    x = atomic_min(a, 0, i64(gid()) - 3)
    y = atomic_max(w, 0, u64(18446744073709551615) - u64(gid()))
    z = atomic_add(a, 1, i64(1) << 40)
    e = atomic_compare_exchange(a, 2, i64(0), i64(gid()) + (i64(1) << 35))
    out[gid()] = x + i64(y) + z + e
"""


@pytest.mark.parametrize("name", TARGETS)
def test_64_bit_atomics_agree(name: str) -> None:
    case = case_from_json({
        "kernel": textwrap.dedent(WIDE), "entry": "k", "launch": {"n": 8, "wave": 4},
        "args": {"a": {"dtype": "i64", "data": [0, 0, 0]}, "w": {"dtype": "u64", "data": [1]},
                 "out": {"dtype": "i64", "data": [0] * 8}}})
    res = check_case(case, target(name), {}, {})
    assert res.verdict.agree and not res.verdict.unchecked, str(res.verdict)
    assert res.outcome.buffers["a"].tolist()[:2] == [-3, 8 << 40]
    assert res.outcome.buffers["w"].tolist() == [-1]  # 2^64 - 1, as its bits


@pytest.mark.parametrize("name", ["opencl-intel", "lavapipe-glsl", "cuda-sim"])
def test_what_a_language_lacks_is_unsupported(name: str) -> None:
    src = """
    def k(b: Buffer[u8]):
        x = atomic_max(b, 0, u8(gid()))
    """
    case = case_from_json({"kernel": textwrap.dedent(src), "entry": "k",
                           "launch": {"n": 8, "wave": 4},
                           "args": {"b": {"dtype": "u8", "data": [0]}}})
    res = check_case(case, target(name), {}, {})
    assert res.verdict.unchecked and "8- or 16-bit atomics" in str(res.verdict), \
        str(res.verdict)
