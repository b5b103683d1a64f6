"""A campaign shared through a real Redis server (`difftest fuzz --database redis://...`),
started by the tests on loopback: two fuzz processes, one finds a counterexample, the
other replays it; the server killed mid-run degrades to local-only with one warning.

Needs `redis-server` (the Debian package; `.ci/run` installs it) and the `redis` package
(the `[test]` extra).
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("redis", reason="the redis package is not installed")
SERVER = shutil.which("redis-server")
pytestmark = pytest.mark.skipif(SERVER is None, reason="redis-server is not installed "
                                "(apt-get install redis-server; .ci/run does)")

REPO = Path(__file__).resolve().parents[2]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _start(port: int, folder: Path) -> subprocess.Popen[bytes]:
    import redis

    assert SERVER is not None
    proc = subprocess.Popen([SERVER, "--port", str(port), "--bind", "127.0.0.1", "--save", "",
                             "--appendonly", "no", "--dir", str(folder)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    client = redis.Redis(port=port)
    for _ in range(100):
        try:
            client.ping()
            return proc
        except redis.ConnectionError:
            time.sleep(0.05)
    proc.kill()
    pytest.fail("redis-server did not start")


@pytest.fixture
def server(tmp_path: Path) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    port = _free_port()
    proc = _start(port, tmp_path)
    yield f"redis://127.0.0.1:{port}", proc
    proc.kill()
    proc.wait()


def _fuzz(cwd: Path, *args: str) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    return subprocess.Popen([sys.executable, "-m", "difftest", "fuzz", "--target", "numba-simt",
                             "--workers", "1", *args], cwd=cwd, env=env, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT)


def test_a_counterexample_found_by_one_campaign_is_replayed_by_another(
        server: tuple[str, subprocess.Popen[bytes]], tmp_path: Path) -> None:
    url, _ = server
    bug = "mutants=loop-var-before-check"  # found in about a second, alone
    first = _fuzz(tmp_path, "--opt", bug, "--time", "60", "--database", url, "--corpus", "a",
                  "--stop-on-first")
    out_a, _ = first.communicate(timeout=300)
    assert first.returncode == 1, out_a
    found = sorted(p.name for p in (tmp_path / "a").glob("*.json"))
    assert len(found) == 1, out_a
    # the second campaign draws one kernel: what it keeps, it got from the server
    second = _fuzz(tmp_path, "--opt", bug, "--examples", "1", "--database", url,
                   "--corpus", "b")
    out_b, _ = second.communicate(timeout=300)
    assert f"replayed an announced counterexample: b/{found[0]}" in out_b, out_b
    assert "announced counterexamples replayed: 1, 1 failing here too" in out_b, out_b
    assert (tmp_path / "b" / found[0]).read_text() == (tmp_path / "a" / found[0]).read_text()


def test_killing_the_server_mid_run_degrades_to_local_with_one_warning(
        server: tuple[str, subprocess.Popen[bytes]], tmp_path: Path) -> None:
    url, proc = server
    bug = "mutants=loop-var-before-check"
    campaign = _fuzz(tmp_path, "--opt", bug, "--time", "20", "--database", url,
                     "--corpus", "c", "--workers", "2")
    time.sleep(0.5)
    proc.kill()  # before the campaign's first announcement (it finds at ~1 s, reduces ~5 s)
    out, _ = campaign.communicate(timeout=300)
    assert "Traceback" not in out, out
    warnings = [line for line in out.splitlines() if line.startswith("warning:")]
    assert len(warnings) == 1, out
    assert "going on with the local database and corpus only" in warnings[0]
    assert campaign.returncode == 1, out  # the counterexample was still found ...
    kept = list((tmp_path / "c").glob("*.json"))
    assert kept, out  # ... and kept in the local corpus, whole
    for path in kept:
        assert path.read_text().endswith("}\n")


def test_a_bad_database_url_is_one_clear_error(tmp_path: Path) -> None:
    bad = _fuzz(tmp_path, "--time", "5", "--database", "http://example.com")
    out, _ = bad.communicate(timeout=120)
    assert bad.returncode == 2, out
    assert "--database 'http://example.com': expected redis://HOST:PORT" in out


def _doubling_helpers(levels: int) -> str:
    """Helpers each calling the next twice: a few hundred bytes, 2**levels inlined calls."""
    src = "def kernel(out: Buffer[i32]):\n    out[gid()] = h0(gid())\n"
    for i in range(levels):
        src += f"\n\ndef h{i}(x: i32) -> i32:\n    return h{i + 1}(x) + h{i + 1}(x + 1)\n"
    return src + f"\n\ndef h{levels}(x: i32) -> i32:\n    return x\n"


def test_a_case_from_a_peer_is_validated_like_a_file(
        server: tuple[str, subprocess.Popen[bytes]], tmp_path: Path) -> None:
    """A peer announcing a kernel that inlines to millions of nodes (numba-simt's compiler
    would take gigabytes) is refused by the same checker as a file, before any work."""
    import json

    import redis

    from difftest.campaign.sharing import ANNOUNCED

    url, _ = server
    entry = {"format": "difftest-case", "version": 2, "kernel": _doubling_helpers(16),
             "entry": "kernel", "launch": {"n": 8, "wave": 8},
             "args": {"out": {"dtype": "i32", "data": [0] * 8}}}
    redis.Redis.from_url(url).xadd(ANNOUNCED, {"message": json.dumps({"origin": "peer",
                                                                     "entry": entry})})
    campaign = _fuzz(tmp_path, "--examples", "1", "--database", url, "--corpus", "d")
    out, _ = campaign.communicate(timeout=300)
    assert "warning: an announced counterexample is malformed" in out, out
    assert "with its helpers inlined at every call; the limit is 50000" in out, out
    assert campaign.returncode == 0, out
    assert not list((tmp_path / "d").glob("*.json"))


def test_a_server_that_comes_back_is_used_again(server: tuple[str, subprocess.Popen[bytes]],
                                                 tmp_path: Path) -> None:
    """One error used to stop sharing for good; now the server is tried again every
    `retry` seconds, and announcements flow again once it answers."""
    from difftest.campaign.sharing import Shared

    url, proc = server
    said: list[tuple[str, str]] = []
    a = Shared(url, lambda text, key: said.append((text, key)), retry=0.2)
    b = Shared(url, lambda text, key: None)
    b.origin = "peer"
    assert a.announce({"n": 1})
    proc.kill()
    proc.wait()
    assert not a.announce({"n": 2}) and len(said) == 1 and "failed" in said[0][0]
    assert said[0][1] == "server-down"
    assert not a.announce({"n": 3}) and len(said) == 1  # still down: said once
    restarted = _start(int(url.rsplit(":", 1)[1]), tmp_path)
    try:
        time.sleep(0.3)
        assert a.announce({"n": 4}, ["f1"]), said
        assert said[-1] == (f"the shared database at {url} is back; sharing again",
                            "server-up")
        # the first went with the old server; each comes with its failing cases' prints
        assert b.new_announcements() == [({"n": 4}, ["f1"])]
    finally:
        restarted.kill()
        restarted.wait()


def test_announcements_keep_only_the_newest(server: tuple[str, subprocess.Popen[bytes]]
                                            ) -> None:
    """The announcements used to grow without end; the stream keeps the newest `keep`."""
    import redis

    from difftest.campaign.sharing import ANNOUNCED, Shared

    url, _ = server
    a = Shared(url, lambda text, key: None, keep=5)
    b = Shared(url, lambda text, key: None)
    b.origin = "peer"
    for i in range(12):
        assert a.announce({"n": i})
    assert redis.Redis.from_url(url).xlen(ANNOUNCED) == 5
    assert b.new_announcements() == [({"n": i}, []) for i in range(7, 12)]
    assert a.announce({"n": 12})
    assert b.new_announcements() == [({"n": 12}, [])]  # only what came since it last looked


def test_a_peers_failures_are_known_here_not_shrunk_again(
        server: tuple[str, subprocess.Popen[bytes]], tmp_path: Path) -> None:
    """Campaign A keeps counterexamples and shares its example database; campaign B,
    the same seed on the same server, replays A's announcements (each failing here
    too), then meets failing cases of A's bugs in its own generation: it knows them as
    A's counterexamples (named in its summary, one case kept to check) and keeps no
    second copy of any. Which of A's bugs B meets again is chance (replaying the
    database changes what B draws next), so the test asks that each one B meets is
    A's, not that it meets them all; and B may meet a bug A did not (another failure
    class or shape), which it keeps."""
    url, _ = server
    bug = "mutants=div-floor"
    a = _fuzz(tmp_path, "--opt", bug, "--seed", "8", "--examples", "100", "--database",
              url, "--corpus", "a")
    out_a, _ = a.communicate(timeout=300)
    kept_a = sorted(p.name for p in (tmp_path / "a").glob("*.json"))
    assert a.returncode == 1 and kept_a, out_a
    b = _fuzz(tmp_path, "--opt", bug, "--seed", "8", "--examples", "100", "--database",
              url, "--corpus", "b", "--json", "b.json")
    out_b, _ = b.communicate(timeout=300)
    assert "Traceback" not in out_b, out_b
    replayed = out_b[out_b.index("  announced counterexamples replayed:"):]
    assert replayed.startswith(f"  announced counterexamples replayed: {len(kept_a)}, "
                               f"{len(kept_a)} failing here too"), out_b
    # B may meet a failure of another class or shape than A's (another bug, by the
    # campaign's rule), but keeps no second copy of any of A's
    import json

    def signature(path: Path) -> str:
        return json.dumps(json.loads(path.read_text())["signature"], sort_keys=True)

    own_b = [p for p in (tmp_path / "b").glob("*.json") if p.name not in kept_a]
    assert not {signature(p) for p in own_b} & {signature(tmp_path / "a" / name)
                                               for name in kept_a}, out_b
    assert "  seen again:" in out_b, out_b
    seen = out_b[out_b.index("  seen again:"):].splitlines()[1:]
    met = {line.split(": ")[0].strip() for line in seen if line.startswith("    b/")}
    # A's bugs, recognised here under the names B replayed them as
    assert met and met <= {f"b/{name}" for name in kept_a}, out_b
    # named in the JSON summary and the journal too, each with one case kept to check
    summary = json.loads((tmp_path / "b.json").read_text())
    [journal] = (tmp_path / "b" / "campaigns").glob("*.jsonl")
    end = json.loads(journal.read_text().splitlines()[-1])
    assert end["type"] == "end" and end["summary"]["seen_again"] == summary["seen_again"]
    named = {r["name"]: r for r in summary["seen_again"]}
    assert set(named) == met
    for record in named.values():
        assert record["count"] >= 1 and (tmp_path / record["case"]).is_file()


def test_the_server_coming_back_reaches_the_screen(tmp_path: Path) -> None:
    """Every worker says when the server fails and when it is back: the campaign prints
    each change of its state once, however many workers saw it (it used to print one
    server message per campaign, so "back" never reached the screen)."""
    import io

    from difftest.campaign.fuzz import FuzzConfig, _Campaign, _Warning

    out = io.StringIO()
    campaign = _Campaign(FuzzConfig(target="numba-simt", corpus=tmp_path), out)
    down = _Warning("the shared database at X failed (E); going on", "server-down")
    up = _Warning("the shared database at X is back; sharing again", "server-up")
    for msg in (down, down, up, up, down, up, _Warning("other"), _Warning("other")):
        campaign.take(msg)
    assert out.getvalue().splitlines() == [
        "warning: the shared database at X failed (E); going on",
        "the shared database at X is back; sharing again",
        "warning: the shared database at X failed (E); going on",
        "the shared database at X is back; sharing again",
        "warning: other"]
