"""Tests of the Hypothesis strategies."""
