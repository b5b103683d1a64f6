"""numba-simt: a small GPU (compiler with exec masks, numba machine, runtime with deopt)."""
