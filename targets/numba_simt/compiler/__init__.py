"""numba-simt's compiler: kernel IR to whole-wave code with exec masks, registers
allocated and deopt metadata (lower -> speculate -> liveness/regalloc -> emit)."""
