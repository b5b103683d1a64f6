"""Edge values meeting their operations (docs/semantics.md, "Coverage of edge values").

A compiler's arithmetic goes wrong on the values where an operation's cases part: a
division by 0 or -1, MIN // -1, a shift by 0 or by the width, a comparison of a NaN, the
two zeros at min and max, a conversion at the integer type's limit. A generator can use
every operation and still never bring those values to it. The oracle notes, for each
operation it evaluates, which of its edge values the operands held (`Edges.note_*`); a
campaign counts each pair per kernel, shows the rare ones and names the ones never met.
Values are read as the oracle holds them: an integer's storage form (an int64; a u64 of
2^63 or more negative), an f32 as a float32, an f64 as a float64.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from .ir.types import INTS, U64, Type, int_range, storage

Array = npt.NDArray[Any]

#: every (operation, edge value) pair counted, as `edge:<operation>:<value>`
EDGE_PAIRS: tuple[str, ...] = tuple(f"edge:{p}" for p in (
    # integer + - *: an operand at its type's MIN or MAX (the result wraps)
    "arith:min", "arith:max",
    # // and %: the divisor 0 (a fault) and -1, and MIN // -1 (wraps to MIN)
    "div:zero", "div:minus_one", "div:min_by_minus_one",
    # << and >>: by 0, by the width or more or below 0 (masked), a negative value shifted
    # right (arithmetic), an unsigned one with its top bit set (logical)
    "shift:zero", "shift:masked", "shift:negative", "shift:top_bit_unsigned",
    # integer comparisons: an operand at MIN or MAX; unsigned with the top bit set
    "compare:limit", "compare:top_bit_unsigned",
    # conversions between integer types: truncating; extending a negative value; extending
    # an unsigned value with its top bit set
    "convert:truncates", "convert:negative", "convert:top_bit_unsigned",
    # each integer function at its own edges: clz and ctz of 0 (the width) and of a 64-bit
    # value whose high (clz) or low (ctz) word is 0 (a count spelled from two 32-bit
    # halves takes the other's); popcount of all ones (a narrow signed type's sign
    # extension not counted); bit_reverse of a value with its low bit set (the result's
    # top bit); a rotation by 0 modulo the width (two shifts, one by the width) and by an
    # amount masked; mul_hi of a negative operand (the signed product's correction) and of
    # an unsigned one with its top bit set; abs of MIN; integer min and max at MIN or MAX,
    # and unsigned with the top bit set
    "clz:zero", "clz:high_word_zero", "ctz:zero", "ctz:low_word_zero", "popcount:all_ones",
    "bit_reverse:low_bit", "rotate:zero", "rotate:masked", "mul_hi:negative",
    "mul_hi:top_bit_unsigned", "abs:min", "int_minmax:limit", "int_minmax:top_bit_unsigned",
    # f32 arithmetic (+ - * fma): NaN, an infinity, a subnormal, -0.0
    "f32_arith:nan", "f32_arith:inf", "f32_arith:subnormal", "f32_arith:minus_zero",
    # f32 comparisons: NaN, an infinity, -0.0 against +0.0
    "f32_compare:nan", "f32_compare:inf", "f32_compare:signed_zeros",
    # f32 min and max: NaN, -0.0 against +0.0
    "f32_minmax:nan", "f32_minmax:signed_zeros",
    # f32 to an integer: NaN, an infinity, the type's limit (the last value that fits, or
    # MIN exactly), past it (a fault)
    "f32_to_int:nan", "f32_to_int:inf", "f32_to_int:limit", "f32_to_int:past_limit",
    # an integer to f32 that must round (past 2^24)
    "int_to_f32:rounds",
    # the same for f64, at binary64's own edges (an integer rounds past 2^53)
    "f64_arith:nan", "f64_arith:inf", "f64_arith:subnormal", "f64_arith:minus_zero",
    "f64_compare:nan", "f64_compare:inf", "f64_compare:signed_zeros",
    "f64_minmax:nan", "f64_minmax:signed_zeros",
    "f64_to_int:nan", "f64_to_int:inf", "f64_to_int:limit", "f64_to_int:past_limit",
    "int_to_f64:rounds",
    # f64 to f32: a value f32 must round, one past its range (an infinity), one in its
    # subnormal range
    "f64_to_f32:rounds", "f64_to_f32:overflow", "f64_to_f32:subnormal",
))

_SMALLEST_NORMAL = np.float32(2.0 ** -126)
_SMALLEST_NORMAL64 = 2.0 ** -1022


def _family(name: str, v: Array) -> str:
    """`name` (an f32 operation's) for the width of the values `v` hold."""
    return name.replace("f32", "f64") if v.dtype == np.float64 else name


def _limits(ty: Type) -> tuple[int, int]:
    lo, hi = int_range(ty)
    return storage(lo, ty), storage(hi, ty)


#: each integer type's MIN and MAX in storage form
_LIMITS = {t: _limits(t) for t in INTS}


#: up to this many lanes a test reads the values as a list (one numpy call costs more
#: than a look at a few dozen ints); a launch's thousands of lanes are tested by numpy
_SMALL = 64


def _has(a: Array, value: int) -> bool:
    return value in a.tolist() if len(a) <= _SMALL else bool((a == value).any())


def _least(a: Array) -> int:
    return min(a.tolist()) if len(a) <= _SMALL else int(a.min())


def _most(a: Array) -> int:
    return max(a.tolist()) if len(a) <= _SMALL else int(a.max())


def _all_ones(ty: Type) -> int:
    """The storage of the value with all of `ty`'s bits set."""
    return -1 if ty.signed or ty is U64 else _LIMITS[ty][1]


def _top_bit(v: Array, ty: Type) -> bool:
    """An unsigned value with its top bit set (a u64's storage is then negative)."""
    if ty is U64:
        return _least(v) < 0
    return _most(v) >= 1 << (ty.bits - 1)


#: operands held before a test runs on them all at once (lanes, summed over the calls):
#: enough that a run's tests run a few times at most, few enough to bound the memory
_HOLD = 1 << 20

#: the integer operators whose operands have edge values, by the pairs they test
_INT_OPS = {"+": "arith", "-": "arith", "*": "arith", "//": "div", "%": "div",
            "<<": "shl", ">>": "shr"}


class Edges:
    """The pairs one run met (`seen`, without the `edge:` prefix until `names`).

    The oracle notes operands at every operation it evaluates, thousands of times a run,
    most of them a wave's few dozen lanes: a test run at each costs more than the
    operation. So `note_*` only holds the operands, by what they are tested for, and
    the tests run on each kind's operands put together, when `seen` is read (or
    `_HOLD` lanes wait). Every pair is "some lane holds the edge value" (of one lane's
    operands, for the pairs of two), so testing the lanes of many calls together finds
    exactly the pairs testing each call would."""

    def __init__(self) -> None:
        self._seen: set[str] = set()
        self._held: dict[tuple[Any, ...], list[tuple[Array, ...]]] = {}
        self._lanes = 0

    @property
    def seen(self) -> set[str]:
        self._test()
        return self._seen

    def names(self) -> frozenset[str]:
        return frozenset(f"edge:{p}" for p in self.seen)

    def _hold(self, key: tuple[Any, ...], *operands: Array) -> None:
        held = self._held.get(key)
        if held is None:
            self._held[key] = [operands]
        else:
            held.append(operands)
        self._lanes += len(operands[0])
        if self._lanes > _HOLD:
            self._test()

    def _test(self) -> None:
        """Run the tests on the operands held."""
        held, self._held, self._lanes = self._held, {}, 0
        for key, calls in held.items():
            operands = [np.concatenate(column) if len(column) > 1 else column[0]
                        for column in zip(*calls)]
            getattr(self, "_" + key[0])(*operands, *key[1:])

    def _add(self, pair: str, hit: bool) -> None:
        if hit:
            self._seen.add(pair)

    # The oracle calls these for every operation it evaluates, on a wave's or a launch's
    # lanes (`ty`, `source`, `to`: integer types).
    def note_int_binary(self, op: str, a: Array, b: Array, ty: Type) -> None:
        kind = _INT_OPS.get(op)
        if kind is not None and len(a):
            self._hold(("int_binary", kind, ty), a, b)

    def note_int_compare(self, a: Array, b: Array, ty: Type) -> None:
        if len(a):
            self._hold(("int_compare", ty), a, b)

    def note_int_convert(self, v: Array, source: Type, to: Type) -> None:
        if len(v) and source is not to:
            self._hold(("int_convert", source, to), v)

    def note_int_function(self, op: str, args: list[Array], ty: Type) -> None:
        if args and len(args[0]):
            self._hold(("int_function", op, ty), *args)

    def note_f32_arith(self, values: list[Array]) -> None:
        """The operands of an f32 or f64 + - * or fma."""
        v = values[0] if len(values) == 1 else np.concatenate(values)
        if len(v):
            self._hold(("specials", "f32_arith", v.dtype), v)

    def note_f32_compare(self, a: Array, b: Array) -> None:
        if len(a):
            self._hold(("float_compare", a.dtype), a, b)

    def note_f32_minmax(self, a: Array, b: Array) -> None:
        if len(a):
            self._hold(("float_minmax", a.dtype), a, b)

    def note_f32_to_int(self, v: Array, to: Type) -> None:
        if len(v):
            self._hold(("float_to_int", v.dtype, to), v)

    def note_int_to_f32(self, v: Array, source: Type, wide: bool = False) -> None:
        """An integer to f32 (to f64 where `wide`)."""
        if len(v):
            self._hold(("int_to_float", source, wide), v)

    def note_f64_to_f32(self, v: Array) -> None:
        if len(v):
            self._hold(("f64_to_f32",), v)

    # ------------------------------------------------------------------ integers
    # The tests, each on the operands of many calls; a test of a pair already seen is
    # skipped.
    def _int_binary(self, a: Array, b: Array, kind: str, ty: Type) -> None:
        seen = self._seen
        if kind == "arith":
            if "arith:min" not in seen or "arith:max" not in seen:
                lo, hi = _LIMITS[ty]
                if len(a) <= _SMALL:  # both limits looked for in one list of each
                    values = set(a.tolist())
                    values.update(b.tolist())
                    self._add("arith:min", lo in values)
                    self._add("arith:max", hi in values)
                else:
                    self._add("arith:min", _has(a, lo) or _has(b, lo))
                    self._add("arith:max", _has(a, hi) or _has(b, hi))
        elif kind == "div":
            if "div:zero" in seen and (not ty.signed or "div:min_by_minus_one" in seen):
                return
            self._add("div:zero", _has(b, 0))
            if ty.signed and _has(b, -1):
                seen.add("div:minus_one")
                self._add("div:min_by_minus_one",
                          bool(((a == _LIMITS[ty][0]) & (b == -1)).any()))
        else:
            right = kind == "shr" and ("shift:negative" if ty.signed else
                                    "shift:top_bit_unsigned") not in seen
            if not right and "shift:zero" in seen and "shift:masked" in seen:
                return
            self._add("shift:zero", _has(b, 0))
            self._add("shift:masked", _most(b) >= ty.bits or _least(b) < 0)
            if right:
                if ty.signed:
                    self._add("shift:negative", _least(a) < 0)
                else:
                    self._add("shift:top_bit_unsigned", _top_bit(a, ty))

    def _int_compare(self, a: Array, b: Array, ty: Type) -> None:
        seen = self._seen
        if "compare:limit" in seen and (ty.signed or "compare:top_bit_unsigned" in seen):
            return
        lo, hi = _LIMITS[ty]
        self._add("compare:limit", _has(a, lo) or _has(b, lo) or _has(a, hi) or _has(b, hi))
        if not ty.signed:
            self._add("compare:top_bit_unsigned", _top_bit(a, ty) or _top_bit(b, ty))

    def _int_convert(self, v: Array, source: Type, to: Type) -> None:
        lo, hi = int_range(to)
        least, most = _least(v), _most(v)
        if source is U64:  # storage: the values of 2^63 and up are negative
            self._add("convert:top_bit_unsigned", least < 0)
            self._add("convert:truncates", least < 0 or most > hi)
            return
        self._add("convert:truncates", least < lo or most > hi)
        if source.signed:
            self._add("convert:negative", least < 0 and to.bits >= source.bits)
        else:
            self._add("convert:top_bit_unsigned", _top_bit(v, source))

    def _int_function(self, *held: Any) -> None:
        """An integer function's operands (`held`: them, then its name and type)."""
        *args, op, ty = held
        x = args[0]
        if op in ("clz", "ctz"):
            self._add(f"{op}:zero", _has(x, 0))
            if ty.bits == 64:  # one 32-bit half all zeros, the value not 0
                half = (x > 0) & (x < 1 << 32) if op == "clz" else \
                    (x != 0) & ((x & 0xFFFFFFFF) == 0)
                self._add(f"{op}:{'high' if op == 'clz' else 'low'}_word_zero",
                          bool(half.any()))
        elif op == "popcount":
            self._add("popcount:all_ones", _has(x, _all_ones(ty)))
        elif op == "bit_reverse":
            self._add("bit_reverse:low_bit", bool((x & 1).any()))
        elif op in ("rotate_left", "rotate_right"):
            amount = args[1]
            self._add("rotate:zero", bool((amount % ty.bits == 0).any()))
            self._add("rotate:masked", _most(amount) >= ty.bits or _least(amount) < 0)
        elif op == "abs":
            self._add("abs:min", ty.signed and _has(x, _LIMITS[ty][0]))
        else:  # mul_hi, min, max: two operands of the type
            y = args[1]
            if ty.signed:
                top = _least(x) < 0 or _least(y) < 0
            else:
                top = _top_bit(x, ty) or _top_bit(y, ty)
            if op == "mul_hi":
                self._add("mul_hi:negative" if ty.signed else "mul_hi:top_bit_unsigned", top)
                return
            lo, hi = _LIMITS[ty]
            self._add("int_minmax:limit", any(_has(v, k) for v in (x, y) for k in (lo, hi)))
            if not ty.signed:
                self._add("int_minmax:top_bit_unsigned", top)

    # ------------------------------------------------------------------ floats
    # f32's and f64's (`dtype`: the values' own; the pairs' names say f32 or f64 by it)
    def _specials(self, v: Array, family: str, dtype: np.dtype[Any]) -> None:
        """NaN, an infinity, a subnormal or -0.0 among the operands."""
        family = _family(family, v)
        smallest = _SMALLEST_NORMAL64 if v.dtype == np.float64 else _SMALLEST_NORMAL
        with np.errstate(invalid="ignore"):
            self._add(f"{family}:nan", bool(np.isnan(v).any()))
            self._add(f"{family}:inf", bool(np.isinf(v).any()))
            mag = np.abs(v)
            self._add(f"{family}:subnormal", bool(((mag > 0) & (mag < smallest)).any()))
            self._add(f"{family}:minus_zero", bool(((v == 0) & np.signbit(v)).any()))

    def _float_compare(self, a: Array, b: Array, dtype: np.dtype[Any]) -> None:
        f = _family("f32_compare", a)
        with np.errstate(invalid="ignore"):
            self._add(f"{f}:nan", bool((np.isnan(a) | np.isnan(b)).any()))
            self._add(f"{f}:inf", bool((np.isinf(a) | np.isinf(b)).any()))
            self._add(f"{f}:signed_zeros", _signed_zeros(a, b))

    def _float_minmax(self, a: Array, b: Array, dtype: np.dtype[Any]) -> None:
        f = _family("f32_minmax", a)
        with np.errstate(invalid="ignore"):
            self._add(f"{f}:nan", bool((np.isnan(a) | np.isnan(b)).any()))
            self._add(f"{f}:signed_zeros", _signed_zeros(a, b))

    def _float_to_int(self, v: Array, dtype: np.dtype[Any], to: Type) -> None:
        lo, hi = int_range(to)
        # the last float at or below hi: hi + 1 is a power of two, a float; the one below
        # it (truncated: for an f64 and i32, 2^31 - 1 itself)
        top = v.dtype.type(hi + 1)
        last = float(np.trunc(np.nextafter(top, v.dtype.type(0))))
        t = np.trunc(v.astype(np.float64))
        f = _family("f32_to_int", v)
        with np.errstate(invalid="ignore"):
            self._add(f"{f}:nan", bool(np.isnan(v).any()))
            self._add(f"{f}:inf", bool(np.isinf(v).any()))
            self._add(f"{f}:limit", bool(((t == last) | (t == float(lo))).any()))
            finite = np.isfinite(t)
            self._add(f"{f}:past_limit",
                      bool((finite & ((t > float(hi)) | (t < float(lo)))).any()))

    def _int_to_float(self, v: Array, source: Type, wide: bool) -> None:
        bits = 53 if wide else 24
        if source is U64:
            big = (v < 0) | (v > (1 << bits))
        else:
            big = np.abs(v.astype(np.float64)) > float(1 << bits)
        # past 2^24 (2^53) an integer rounds unless its low bits are zeros: count any
        self._add("int_to_f64:rounds" if wide else "int_to_f32:rounds", bool(big.any()))

    def _f64_to_f32(self, v: Array) -> None:
        with np.errstate(over="ignore", invalid="ignore"):
            r = v.astype(np.float32)
            finite = np.isfinite(v)
            self._add("f64_to_f32:rounds", bool((finite & (r.astype(np.float64) != v)).any()))
            self._add("f64_to_f32:overflow", bool((finite & np.isinf(r)).any()))
            mag = np.abs(r)
            self._add("f64_to_f32:subnormal",
                      bool(((mag > 0) & (mag < _SMALLEST_NORMAL)).any()))


def _signed_zeros(a: Array, b: Array) -> bool:
    """Some lane compares -0.0 with +0.0 (either way round)."""
    zeros = (a == 0) & (b == 0)
    return bool((zeros & (np.signbit(a) != np.signbit(b))).any())


class Unnoted(Edges):
    """Notes nothing: for a replay of a target's returned values, whose operations the
    case's first run has noted already (a campaign counts that run's pairs)."""

    def _hold(self, key: tuple[Any, ...], *operands: Array) -> None:
        pass


__all__ = ["EDGE_PAIRS", "Edges", "Unnoted"]

