"""Campaigns: the runner that wires oracle, target and checker, the fuzz loop, hunts,
the reducer, the corpus, results, triage and sharing through Redis. Builds on
difftest.core, generators, oracles and targets."""
