"""difftest: property-based differential testing of SIMT kernel execution with deopt."""

__version__ = "0.1.0"
