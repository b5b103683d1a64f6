"""Targets under test and the registry that finds them (entry point group difftest.targets)."""
