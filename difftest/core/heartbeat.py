"""A sign of life for work that takes a while with nothing else on screen (the numba
machine's first compile: 10-80 CPU seconds, many more minutes of wall clock on a busy
machine): a line every `every` seconds on stderr, with the wall and CPU seconds so far."""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TextIO


EVERY = 30.0  # seconds between two lines


@contextmanager
def heartbeat(what: str, every: float | None = None, out: TextIO | None = None
              ) -> Iterator[None]:
    """While the block runs, say every `every` seconds (default EVERY) that `what` is
    still going."""
    stream = sys.stderr if out is None else out
    every = EVERY if every is None else every
    done = threading.Event()
    wall, cpu = time.monotonic(), time.process_time()

    def beat() -> None:
        while not done.wait(every):
            stream.write(f"still {what}: {time.monotonic() - wall:.0f} s so far "
                         f"({time.process_time() - cpu:.0f} CPU s; a busy machine "
                         "takes longer)\n")
            stream.flush()

    thread = threading.Thread(target=beat, daemon=True)
    thread.start()
    try:
        yield
    finally:
        done.set()
        thread.join()
