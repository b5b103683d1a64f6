"""Tests of the reference oracle."""
