"""Reference oracles: the sequential, obviously-correct semantics of the kernel language."""
