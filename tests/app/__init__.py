"""Tests of the CLI, the pytest plugin, reports, benchmarks and docs, as a user meets them."""
