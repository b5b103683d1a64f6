"""Tests of numba-simt: compiler, machine, runtime, mutants."""
