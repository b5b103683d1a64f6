"""A conformance suite: kernels written from docs/semantics.md alone, each a kernel file in
tests/data/conformance/ whose prose header derives by hand what it must do (conversions,
wrapping, shifts, bit operations, literals, wave operations over every type, match, private
arrays, f64 edges, atomics, faults and their stacks, budgets). Those derivations are also
written as `# expect` lines after the kernel, checked here against the reference oracle;
numba-simt must agree with it, and tests/real_targets/test_conformance_targets.py runs the
same files on the real targets. An expectation is never read back from a tool: if one
disagrees, re-derive it from docs/semantics.md.

The lines (after the kernel, so they move none of its line numbers):
    # expect: NAME = LIST               the buffer's whole final contents
    # expect: NAME[A:B] = LIST          those elements (a Python slice; also [A:B:C], [A::C])
    # expect-sorted: NAME[A:B] = LIST   those elements in some order (integers only)
    # expect-fault: G KIND F:L ...      workitem G faults with KIND (`fail(CODE)` for fail);
                                        its stack, outermost first: function F at line L
    # expect-exhausted: G ...           those workitems run out of their step budget
LIST is `[x, ...]`, optionally `* N`, several joined by ` + `. An integer element is the
value (a u64 as 0..2^64-1, in range for the type); `a|b` allows either (an atomic's old
value, whose order is free); `_` allows any. A float element is `nan` (any NaN), `inf`,
`-inf`, its bits (`0x` and 8 or 16 hex digits), or a decimal that is its exact value or its
shortest round-trip decimal in the buffer's precision; nothing else is read. Lines count
from the file's top. Every workitem no fault or exhausted line names completes, and every
element no `expect` line names keeps its initial value.
"""

from __future__ import annotations

import math
import re
import struct
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path

import numpy as np
import pytest

from difftest.core.kernelfile import load_case
from oracles.reference import run_full

DATA = Path(__file__).resolve().parents[1] / "data" / "conformance"
FILES = sorted(DATA.glob("*.py"))

Key = int | str  # an integer's value, a float's bits, or "nan"
Allowed = frozenset[Key] | None  # None: any value


@dataclass
class Expect:
    exact: dict[str, dict[int, Allowed]] = field(default_factory=dict)  # buffer -> index -> ...
    sorted_: list[tuple[str, slice, list[int]]] = field(default_factory=list)
    faults: dict[int, tuple[str, int | None, list[tuple[str, int]]]] = field(default_factory=dict)
    exhausted: list[int] = field(default_factory=list)


_LINE = re.compile(r"#\s*(expect(?:-sorted|-fault|-exhausted)?):\s*(.*)")
_TARGET = re.compile(r"(\w+)(?:\[(\d*):(\d*)(?::(\d+))?\])?\s*=\s*(.+)")
_DECIMAL = re.compile(r"-?\d+(?:\.\d*)?(?:[eE][-+]?\d+)?")


def _float_key(atom: str, dtype: str) -> Key:
    width = 32 if dtype == "f32" else 64
    if atom == "nan":
        return "nan"
    if re.fullmatch(rf"0x[0-9a-fA-F]{{{width // 4}}}", atom):
        bits = int(atom, 16)
        value = struct.unpack("<f" if width == 32 else "<d",
                              bits.to_bytes(width // 8, "little"))[0]
        return "nan" if math.isnan(value) else bits
    if atom in ("inf", "-inf"):
        value = float(atom)
    elif _DECIMAL.fullmatch(atom):
        value = float(atom)
        if width == 32:
            value = float(np.float32(value))
            shortest = np.format_float_scientific(np.float32(value), unique=True)
        else:
            shortest = repr(value)
        assert math.isfinite(value) and Decimal(atom) in (Decimal(value), Decimal(shortest)), \
            f"{atom} is neither an {dtype}'s exact value nor its shortest decimal"
    else:
        raise AssertionError(f"{atom!r} is no {dtype} element")
    return int.from_bytes(struct.pack("<f" if width == 32 else "<d", value), "little")


def _int_key(atom: str, dtype: str) -> int:
    assert re.fullmatch(r"-?\d+", atom), f"{atom!r} is no {dtype} element"
    bits, value = int(dtype[1:]), int(atom)
    low, high = (0, 1 << bits) if dtype[0] == "u" else (-(1 << bits - 1), 1 << bits - 1)
    assert low <= value < high, f"{value} is no {dtype} value"
    return value


def _element(text: str, dtype: str) -> Allowed:
    text = text.strip()
    if text == "_":
        return None
    key = _float_key if dtype[0] == "f" else _int_key
    return frozenset(key(atom.strip(), dtype) for atom in text.split("|"))


def _list(text: str, dtype: str) -> list[Allowed]:
    out: list[Allowed] = []
    for part in text.split("+"):
        m = re.fullmatch(r"\s*\[([^\]]*)\]\s*(?:\*\s*(\d+))?\s*", part)
        assert m is not None, f"expected `[x, ...] * N` joined by +, got {part.strip()!r}"
        items = [_element(x, dtype) for x in m.group(1).split(",")]
        out += items * int(m.group(2) or 1)
    return out


def parse(path: Path, dtypes: dict[str, str], lengths: dict[str, int]) -> Expect:
    want = Expect()
    for number, line in enumerate(path.read_text().splitlines(), 1):
        if not line.lstrip().startswith("# expect"):
            continue
        m = _LINE.fullmatch(line.strip())
        assert m is not None, f"line {number}: {line!r}"
        key, rest = m.groups()
        if key == "expect-fault":
            gid, kind, *frames = rest.split()
            code = re.fullmatch(r"fail\((-?\d+)\)", kind)
            assert frames and int(gid) not in want.faults and (code or kind in (
                "out_of_bounds", "division_by_zero", "invalid_conversion")), \
                f"line {number}: {line!r}"
            want.faults[int(gid)] = ("fail" if code else kind,
                                     int(code.group(1)) if code else None,
                                     [(f, int(n)) for f, n in (x.split(":") for x in frames)])
            continue
        if key == "expect-exhausted":
            want.exhausted += [int(g) for g in rest.split()]
            continue
        t = _TARGET.fullmatch(rest)
        assert t is not None and t.group(1) in dtypes, f"line {number}: {line!r}"
        name, a, b, c, values = t.groups()
        where = slice(int(a) if a else None, int(b) if b else None, int(c) if c else None)
        index = range(lengths[name])[where]
        items = _list(values, dtypes[name])
        assert len(items) == len(index), \
            f"line {number}: {len(items)} values for {len(index)} elements of {name}"
        if key == "expect-sorted":
            assert dtypes[name][0] != "f", f"line {number}: expect-sorted of floats"
            plain = [int(next(iter(x))) for x in items if x is not None and len(x) == 1]
            assert len(plain) == len(items), f"line {number}: `_` or `|` in expect-sorted"
            want.sorted_.append((name, where, sorted(plain)))
            continue
        seen = want.exact.setdefault(name, {})
        assert not seen.keys() & set(index), f"line {number}: {name} elements named twice"
        seen.update(zip(index, items))
    assert want.exact, f"{path.name} has no `# expect:` line"
    return want


def _key(storage: int, dtype: str) -> Key:
    if dtype[0] != "f":
        return storage % (1 << int(dtype[1:])) if dtype[0] == "u" else storage
    width = int(dtype[1:])
    bits = storage % (1 << width)
    value = struct.unpack("<f" if width == 32 else "<d", bits.to_bytes(width // 8, "little"))[0]
    return "nan" if math.isnan(value) else bits


def _lines_of(text: str) -> dict[int, str]:
    """Each statement line's function (the last top-level `def` above it)."""
    out, function = {}, ""
    for number, line in enumerate(text.splitlines(), 1):
        if m := re.match(r"def\s+(\w+)", line):
            function = m.group(1)
        elif line.strip() and not line.lstrip().startswith("#"):
            out[number] = function
    return out


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_the_hand_derived_outcome(path: Path) -> None:
    from difftest.campaign.runner import check_case
    from targets.numba_simt.target import NumbaSimtTarget

    case = load_case(path)
    args = case.to_json()["args"]
    dtypes = {k: v["dtype"] for k, v in args.items() if isinstance(v, dict)}
    want = parse(path, dtypes, {k: len(v["data"]) for k, v in args.items() if k in dtypes})
    run, initial = run_full(case), case.buffers()
    for name, dtype in dtypes.items():
        got = [_key(int(s), dtype) for s in run.final[name].tolist()]
        start = [_key(int(s), dtype) for s in initial[name].tolist()]
        spec = want.exact.get(name, {})  # an element it does not name keeps its value
        wrong = [(i, v) for i, v in enumerate(got)
                 if (allowed := spec.get(i, frozenset([start[i]]))) is not None
                 and v not in allowed]
        assert not wrong, f"{name}: (index, value) {wrong[:8]} against the expectation"
    for name, where, values in want.sorted_:
        assert sorted(_key(int(s), dtypes[name]) for s in run.final[name][where]) == values, name
    lines = _lines_of(case.kernel)
    for g, fate in enumerate(run.fates):
        if g not in want.faults:
            assert fate is None, f"workitem {g}: {fate.describe() if fate else ''}"
            continue
        kind, code, frames = want.faults[g]
        assert all(lines.get(n) == f for f, n in frames), f"{frames}: not lines of code there"
        assert fate is not None and (fate.kind, [(f.function, f.line) for f in fate.stack]) \
            == (kind, frames), f"workitem {g}: {fate and fate.describe()}"
        assert code is None or (fate.code or 0) % (1 << 64) == code % (1 << 64), fate.code
    assert run.exhausted == sorted(want.exhausted)
    verdict = check_case(case, NumbaSimtTarget(), {}, {}).verdict
    assert verdict.agree and not verdict.unchecked, str(verdict)


@pytest.mark.parametrize("line", [
    "# expect: o = [1.1000000238]",     # rounds to an f32, but is not its shortest decimal
    "# expect: o = [1e999]",            # no finite value
    "# expect: o = [0x3f80]",           # bits of another width
    "# expect: o = [1.0] * 2 + [x]",
    "# expect: p = [1, 2]",             # no such buffer
    "# expect: q = [-1, 0]",            # a u64 is written as its value
    "# expect: q = [0]",                # too few
    "# expect: q[0:1] = [0]\n# expect: q[0:2] = [0, 1]",  # an element named twice
    "# expect-sorted: o[0:2] = [1.0, 2.0]",
    "# expect-fault: 1 out_of_bounds",  # no stack
    "# expect-fault: 1 fail k:3",       # no code
    "# expected: o = [1.0, 1.0]",
    "# no expectation at all",
])
def test_a_malformed_expectation_is_refused(line: str, tmp_path: Path) -> None:
    path = tmp_path / "k.py"
    path.write_text(f"{line}\n")
    with pytest.raises((AssertionError, ValueError)):
        parse(path, {"o": "f32", "q": "u64"}, {"o": 2, "q": 2})


def test_the_suite_is_there() -> None:
    assert len(FILES) >= 36, FILES
