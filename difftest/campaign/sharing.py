"""A campaign shared across processes and machines through a Redis server
(`difftest fuzz --database redis://HOST:PORT`).

Two things travel through the server; the corpus stays files on each machine:
- Hypothesis's example database: the local one (`.hypothesis/difftest`) multiplexed with
  `hypothesis.extra.redis.RedisExampleDatabase`, so a failure one worker saw is replayed
  first by every worker's next batch, wherever it runs;
- announced counterexamples: each reduced counterexample (its corpus JSON, and the
  fingerprints of the failing cases that led to it) is added to a Redis stream that
  keeps the newest MAX_ANNOUNCED (older ones are trimmed: a long campaign's
  announcements never fill the server), and every worker, before each batch, replays
  the ones announced since it last looked on its own target and options, keeping those
  that still fail in its own corpus and among the findings it knows -- so a failure the
  example database brings back is recognised, not shrunk again.

The server is a convenience, never a dependency of the campaign: a Redis error (the
server killed, unreachable) turns sharing off in that process, with one warning, and the
campaign goes on local-only; every RETRY_SECONDS it tries the server again, and when the
server answers, sharing resumes (saying so once) where it left off. Nothing read from the
server is unpickled or evaluated: example-database entries are Hypothesis's own bytes,
announcements are JSON checked like any corpus file.
"""

from __future__ import annotations

import json
import os
import socket
import time
from collections.abc import Callable, Iterable
from typing import Any

from hypothesis.database import (
    DirectoryBasedExampleDatabase,
    ExampleDatabase,
    MultiplexedDatabase,
)

from difftest.core.errors import DifftestError

ANNOUNCED = b"difftest:announced"  # a stream
MAX_ANNOUNCED = 10_000
RETRY_SECONDS = 30.0
PREFIX = b"difftest:examples:"
LOCAL = ".hypothesis/difftest"


class DatabaseError(DifftestError):
    """A --database value that is not a redis:// URL, or a redis package missing."""


def check_url(url: str) -> str:
    from urllib.parse import urlparse

    if not url.startswith(("redis://", "rediss://", "unix://")):
        raise DatabaseError(f"--database {url!r}: expected redis://HOST:PORT")
    try:
        urlparse(url).port
    except ValueError:
        raise DatabaseError(f"--database {url!r}: the port is not a number (expected "
                            "redis://HOST:PORT)") from None
    try:
        import redis  # noqa: F401
    except ImportError:
        raise DatabaseError("--database needs the redis package: pip install "
                            "'difftest-simt[redis]'") from None
    return url


class Shared:
    """One process's connection to the campaign's server. `warn(text, key)` is called
    with the reason when the server fails (key "server-down"), and once more when it is
    back ("server-up"); while it is away every call is local-only, and the server is
    tried again every `retry` seconds."""

    def __init__(self, url: str, warn: Callable[[str, str], None],
                 retry: float = RETRY_SECONDS, keep: int = MAX_ANNOUNCED) -> None:
        import redis

        self.url = url
        self._errors: tuple[type[BaseException], ...] = (redis.RedisError, OSError)
        self._client = redis.Redis.from_url(url, socket_timeout=2, socket_connect_timeout=2)
        self._warn = warn
        self.retry = retry
        self.keep = keep
        self.up = True
        self.down_since = 0.0
        self.last = b"0-0"  # the id of the last announcement this process read
        self.origin = f"{socket.gethostname()}:{os.getpid()}"  # its own are not replayed

    def _failed(self, e: BaseException) -> None:
        if self.up:
            self.up = False
            self._warn(f"the shared database at {self.url} failed ({type(e).__name__}: "
                       f"{e}); going on with the local database and corpus only, and "
                       f"trying it again every {self.retry:g} s", "server-down")
        self.down_since = time.monotonic()

    def _back(self) -> bool:
        """Whether the server answers again (tried at most every `retry` seconds)."""
        if time.monotonic() - self.down_since < self.retry:
            return False
        try:
            self._client.ping()
        except self._errors as e:
            self._failed(e)
            return False
        self.up = True
        self._warn(f"the shared database at {self.url} is back; sharing again", "server-up")
        return True

    def call(self, f: Callable[[], Any], default: Any) -> Any:
        if not self.up and not self._back():
            return default
        try:
            return f()
        except self._errors as e:
            self._failed(e)
            return default

    def database(self, local: str = LOCAL) -> ExampleDatabase:
        """Hypothesis's database: the local directory and the server's, together."""
        from hypothesis.extra.redis import RedisExampleDatabase

        remote = _Tolerant(self, RedisExampleDatabase(self._client, key_prefix=PREFIX))
        return MultiplexedDatabase(DirectoryBasedExampleDatabase(local), remote)

    def announce(self, entry: dict[str, Any], cases: Iterable[str] = ()) -> bool:
        """Tell every worker about a counterexample (its corpus JSON, and the
        fingerprints of the failing cases that led to it)."""
        text = json.dumps({"origin": self.origin, "entry": entry, "cases": sorted(cases)},
                          sort_keys=True)
        return bool(self.call(lambda: self._client.xadd(
            ANNOUNCED, {"message": text}, maxlen=self.keep, approximate=False), False))

    def announce_cases(self, key: str, cases: Iterable[str]) -> bool:
        """Tell every worker about more failing cases of a finding it knows (by its
        signature's key): cases whose shrinking ended at a known finding."""
        text = json.dumps({"origin": self.origin, "key": key, "cases": sorted(cases)},
                          sort_keys=True)
        return bool(self.call(lambda: self._client.xadd(
            ANNOUNCED, {"message": text}, maxlen=self.keep, approximate=False), False))

    def new_announcements(self) -> list[tuple[dict[str, Any], list[str]]]:
        """The counterexamples announced since this process last asked, each with the
        fingerprints of its failing cases; more failing cases of a finding come as
        ({"key": KEY}, cases). Malformed ones are dropped: a shared server is input like
        any other."""
        read = self.call(lambda: self._client.xread({ANNOUNCED: self.last}, count=1000), [])
        out = []
        for _stream, items in read or []:
            for ident, fields in items:
                self.last = ident
                try:
                    message = json.loads(fields.get(b"message", b""))
                except (ValueError, UnicodeDecodeError):
                    continue
                if not isinstance(message, dict) or message.get("origin") == self.origin:
                    continue
                cases = message.get("cases", [])
                if not isinstance(cases, list):
                    continue
                if isinstance(message.get("entry"), dict):
                    out.append((message["entry"], [str(c) for c in cases]))
                elif isinstance(message.get("key"), str):
                    out.append(({"key": message["key"]}, [str(c) for c in cases]))
        return out


class _Tolerant(ExampleDatabase):
    """The server's example database, turned off (empty, writes dropped) after the first
    error, so the local half of the multiplexed database carries on alone."""

    def __init__(self, shared: Shared, db: ExampleDatabase) -> None:
        super().__init__()
        self._shared = shared
        self._db = db

    def fetch(self, key: bytes) -> Iterable[bytes]:
        return list(self._shared.call(lambda: list(self._db.fetch(key)), []))

    def save(self, key: bytes, value: bytes) -> None:
        self._shared.call(lambda: self._db.save(key, value), None)

    def delete(self, key: bytes, value: bytes) -> None:
        self._shared.call(lambda: self._db.delete(key, value), None)

    def move(self, src: bytes, dest: bytes, value: bytes) -> None:
        self._shared.call(lambda: self._db.move(src, dest, value), None)
