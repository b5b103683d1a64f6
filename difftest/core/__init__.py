"""The language and its contracts: the IR, cases and kernel files, outcomes, options,
the Target protocol and the checker. Imports nothing of difftest above it, nor
generators, oracles or targets (which build on it)."""
