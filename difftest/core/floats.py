"""The float formats by type: difftest.core.f32 and difftest.core.f64 share one interface
(rounded, to_bits, from_bits, canonical, add, sub, mul, fma, fma_lanes, minimum, maximum,
from_int, shortest, written, NAN_BITS), so code that handles a float of either width asks
here."""

from __future__ import annotations

from types import ModuleType

from . import f32, f64
from .ir.types import F64, Type


def fmt(ty: Type) -> ModuleType:
    """The module of float type `ty`'s arithmetic."""
    return f64 if ty is F64 else f32
