"""The `difftest` commands, by kind (the parser and `main` are in difftest/app/cli.py)."""
