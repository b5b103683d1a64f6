"""Tests of campaigns: fuzz, hunt, reduce, corpus, sharing, triage."""
