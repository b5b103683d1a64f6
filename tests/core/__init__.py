"""Tests of the language and its contracts: IR, walks, serialization, the checker, host programs."""
