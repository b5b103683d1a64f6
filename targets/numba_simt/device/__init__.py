"""numba-simt's device: the numba-compiled SIMT machine that runs the compiled code."""
