"""`fma64(x, y, z)`: x * y + z rounded once, for numba code (the machine's and the host's
f64 fma): LLVM's llvm.fma.f64, a fused instruction where the CPU has one and libm's fma
(correctly rounded) where it does not."""

from __future__ import annotations

from llvmlite import ir
from numba import types
from numba.extending import intrinsic


@intrinsic
def fma64(typingctx, x, y, z):  # type: ignore[no-untyped-def]
    sig = types.float64(types.float64, types.float64, types.float64)

    def codegen(context, builder, signature, args):  # type: ignore[no-untyped-def]
        double = ir.DoubleType()
        fn = builder.module.declare_intrinsic("llvm.fma", [double],
                                              ir.FunctionType(double, [double] * 3))
        return builder.call(fn, args)

    return sig, codegen
