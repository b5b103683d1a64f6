"""Reference models: simple, obviously correct versions the fast code must match."""
