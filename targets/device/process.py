"""A real device runs in a process of its own, so its crashes and hangs stay there.

A vendor runtime can abort the process (Intel's OpenCL runtime corrupts the heap on a
stray store: `free(): invalid next size`), segfault, or spin forever in a miscompiled
loop. The parent (a fuzz worker, or the CLI) keeps one child per device configuration
(`DeviceProcess`: a runner module and its environment) and sends it requests; a child
that dies becomes `DeviceCrash` (with its signal or exit code and the last lines it wrote
on stderr), one that does not answer within its limit is killed and becomes
`DeviceTimeout`, and the next request starts a fresh child. Targets turn a crash into an
R0 outcome (`crash: ...`), and a timeout into a rerun with a much larger limit first
(targets/translated.py): only a case past that one too is a hang.

Limits count work, not the wall clock (a busy machine gives the child less of each
second, never a different answer): a build's limit counts the CPU time of the child and
of every process it started (a compiler it runs: the child leads a session of its own,
and `session_cpu` sums it from /proc), and so does the run's on a device the CPU is
(lavapipe, a CPU OpenCL runtime, a simulator); on a GPU, where the process only waits,
the run's limit is wall-clock seconds (`run_clock="wall"`). A child that uses next to
no CPU for `IDLE_SECONDS` of wall clock while the CPU is its clock waits for something
that never comes, and counts as hung whatever its limit.

The protocol, over the child's stdin and stdout: a frame is an 8-byte little-endian
length, that many bytes of JSON header, then the raw bytes of each array the header's
`arrays` lists as [dtype, count]. A request's header is the runner's (`handle(header,
arrays, progress)`); a reply's header may carry `error` and `message` (the runner's own
rejection, such as a build failure, which is not a crash), and `times`: the seconds its
front end, the rest of its build and its launch took (wall clock, in the child), and the
CPU seconds of its build and launch (`build_cpu`, `launch_cpu`: the child's threads and
the children it waited for). Before
its reply the runner may send progress frames (`{"progress": "built"}`, no arrays): the
build and the run have limits of their own, because a compiler that takes half a minute
over a large kernel is slow, while a kernel that never finishes is a wrong answer.

The child is `python -m targets.device.process MODULE`: it imports only the runner
module (which imports numpy and its device API) and serves until its stdin closes. A
forked parent (the fuzz loop forks its workers) never shares a child: a process uses
only children it started itself. Within a process, every target object that wants the
same configuration gets the same child (`shared`): a runtime holds hundreds of megabytes,
and a test session or corpus replay that loads a target per case would otherwise keep a
child per load alive until it ends.
"""

from __future__ import annotations

import importlib
import json
import os
import select
import signal
import struct
import subprocess
import sys
import tempfile
import time
from typing import IO, Any

import numpy as np

_LEN = struct.Struct("<Q")
STDERR_TAIL = 6  # lines of a dead child's stderr kept in the crash message
#: wall seconds over which a child whose clock is the CPU and that uses less than 1% of
#: a core waits for something that never comes (a deadlock): hung, whatever its limit
IDLE_SECONDS = 60.0
IDLE_SHARE = 0.01


class DeviceCrash(Exception):
    """The device's process died while serving a request. `fresh`: it had served no
    request before (else an earlier request may have left it corrupted: a miscompiled
    kernel that wrote out of bounds)."""

    def __init__(self, message: str, fresh: bool = True) -> None:
        super().__init__(message)
        self.fresh = fresh


class DeviceDeadline(BaseException):
    """A call was still waiting when its caller's deadline passed (`set_deadline`: a
    campaign's `--time`, the one budget the wall clock decides): the device's process
    was killed and the call has no answer. A BaseException, so that no handler on the
    way takes it for the target's answer or a failure of the case."""


#: the monotonic time past which a call is abandoned (None: never); per process
_DEADLINE: list[float | None] = [None]


def set_deadline(at: float | None) -> None:
    """Abandon every call of this process still waiting at `at` (time.monotonic()),
    with DeviceDeadline; None: no deadline."""
    _DEADLINE[0] = at


class DeviceTimeout(Exception):
    """The device's process did not answer within its limit (it was killed). `phase` is
    "build" when its build had not finished, else "run"; `used` the seconds of its clock
    ("cpu" or "wall") it had used; `idle` whether it was idle (waiting, not working)."""

    def __init__(self, message: str, phase: str, used: float = 0.0, clock: str = "cpu",
                 idle: bool = False) -> None:
        super().__init__(message)
        self.phase = phase
        self.used = used
        self.clock = clock
        self.idle = idle


def session_cpu(sid: int) -> float | None:
    """CPU seconds of the live processes of session `sid`, with the children each has
    waited for (Linux: /proc); None where it cannot be read."""
    tick = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
    total = 0
    try:
        entries = os.listdir("/proc")
    except OSError:
        return None
    found = False
    for name in entries:
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as f:
                fields = f.read().rsplit(b")", 1)[1].split()
        except OSError:
            continue  # gone meanwhile
        if int(fields[3]) == sid:  # the fields after the name: state ppid pgrp session
            found = True
            total += sum(int(x) for x in fields[11:15])  # utime stime cutime cstime
    return total / tick if found else None


class _Meter:
    """How much of its limit a phase of a request has used: CPU seconds of the child's
    session where `clock` is "cpu" (wall-clock seconds where /proc cannot tell), else
    wall-clock seconds; and whether the child has sat idle."""

    def __init__(self, sid: int, clock: str) -> None:
        self.sid = sid
        self.wall0 = time.monotonic()
        cpu = session_cpu(sid) if clock == "cpu" else None
        self.clock = "cpu" if cpu is not None else "wall"
        self.cpu0 = cpu or 0.0
        self.window = (self.wall0, self.cpu0)  # the idle check's: since when, from what

    def used(self) -> tuple[float, bool]:
        """(seconds of the clock used so far, whether the child has been idle for
        IDLE_SECONDS)."""
        now = time.monotonic()
        if self.clock == "wall":
            return now - self.wall0, False
        cpu = session_cpu(self.sid)
        if cpu is None:  # the session is gone: the child died, the next read says so
            return 0.0, False
        since, at = self.window
        idle = False
        if now - since >= IDLE_SECONDS:
            idle = cpu - at < IDLE_SHARE * (now - since)
            self.window = (now, cpu)
        return cpu - self.cpu0, idle

    def wait(self, limit: float, used: float) -> float:
        """Wall seconds to wait for an answer before looking at the clock again: all
        that is left of a wall-clock limit; at most a second of a CPU limit (a child
        may use several cores)."""
        if self.clock == "wall":
            return max(0.0, limit - used)
        return min(1.0, max(0.005, (limit - used) / 4))


def _encode(header: dict[str, Any], arrays: list[np.ndarray]) -> bytes:
    arrays = [np.ascontiguousarray(a) for a in arrays]
    header = {**header, "arrays": [[a.dtype.str, int(a.size)] for a in arrays]}
    head = json.dumps(header).encode()
    return b"".join([_LEN.pack(len(head)), head] + [a.tobytes() for a in arrays])


def _read_exactly(stream: IO[bytes], size: int) -> bytes:
    chunks, got = [], 0
    while got < size:
        chunk = stream.read(size - got)
        if not chunk:
            raise EOFError
        chunks.append(chunk)
        got += len(chunk)
    return b"".join(chunks)


def _decode(stream: IO[bytes]) -> tuple[dict[str, Any], list[np.ndarray]]:
    (size,) = _LEN.unpack(_read_exactly(stream, _LEN.size))
    header = json.loads(_read_exactly(stream, size))
    arrays = []
    for dtype, count in header.pop("arrays", []):
        dt = np.dtype(dtype)
        arrays.append(np.frombuffer(_read_exactly(stream, dt.itemsize * count),
                                    dtype=dt).copy())
    return header, arrays


def _runtime_dir() -> str:
    """A private folder for a device process's XDG_RUNTIME_DIR where the user has none."""
    path = os.path.join(tempfile.gettempdir(), f"difftest-runtime-{os.getuid()}")
    os.makedirs(path, mode=0o700, exist_ok=True)
    return path


class DeviceProcess:
    """One child process serving `module`'s `handle` under `env` (added to this
    process's environment)."""

    def __init__(self, module: str, env: dict[str, str] | None = None) -> None:
        self.module = module
        self.env = dict(env or {})
        self._proc: subprocess.Popen[bytes] | None = None
        self._owner = 0
        self._stderr: IO[bytes] | None = None
        self._served = 0  # requests the running process has answered

    def _start(self) -> subprocess.Popen[bytes]:
        if self._proc is not None and self._owner == os.getpid() \
                and self._proc.poll() is None:
            return self._proc
        if self._owner == os.getpid():
            self.close()
        self._stderr = tempfile.TemporaryFile()
        self._served = 0
        env = {**os.environ, **self.env, PARENT_ENV: str(os.getpid())}
        if not env.get("XDG_RUNTIME_DIR"):  # Mesa's drivers complain without one
            env["XDG_RUNTIME_DIR"] = _runtime_dir()
        self._proc = subprocess.Popen(
            [sys.executable, "-m", "targets.device.process", self.module],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._stderr,
            env=env, start_new_session=True,
            bufsize=0)  # unbuffered: select() on the pipe sees every frame not yet read
        self._owner = os.getpid()
        return self._proc

    def call(self, header: dict[str, Any], arrays: list[np.ndarray], timeout: float,
             build_timeout: float | None = None, run_clock: str = "cpu"
             ) -> tuple[dict[str, Any], list[np.ndarray]]:
        """The reply to one request. The build may take `build_timeout` CPU seconds
        (default `timeout`), the rest `timeout` seconds of `run_clock` ("cpu", or "wall"
        for a GPU) from the runner's "built" notice (the module docstring)."""
        proc = self._start()
        fresh = self._served == 0
        assert proc.stdin is not None and proc.stdout is not None
        try:
            proc.stdin.write(_encode(header, arrays))
            proc.stdin.flush()
        except (BrokenPipeError, OSError):
            raise DeviceCrash(self._death(), fresh) from None
        phase, limit = "build", timeout if build_timeout is None else build_timeout
        meter, used = _Meter(proc.pid, "cpu"), 0.0
        while True:
            wait, deadline = meter.wait(limit, used), _DEADLINE[0]
            if deadline is not None:
                wait = min(wait, max(0.0, deadline - time.monotonic()))
            ready, _, _ = select.select([proc.stdout], [], [], wait)
            if not ready:
                if deadline is not None and time.monotonic() >= deadline:
                    self._kill()
                    raise DeviceDeadline(f"the {phase} was stopped when the deadline passed")
                used, idle = meter.used()
                if used < limit and not idle:
                    continue
                self._kill()
                what = ("its build did not finish" if phase == "build"
                        else "no answer after its build")
                unit = "CPU s" if meter.clock == "cpu" else "s"
                why = (f"it used next to no CPU for {IDLE_SECONDS:g} s, waiting" if idle
                       else f"within {limit:g} {unit}")
                raise DeviceTimeout(f"{what}: {why} (the device's process was killed)",
                                    phase, used, meter.clock, idle)
            try:
                reply, out = _decode(proc.stdout)  # a frame started: it comes whole
            except (EOFError, ValueError):
                raise DeviceCrash(self._death(), fresh) from None
            if reply.get("progress") != "built":
                self._served += 1
                return reply, out
            phase, limit = "run", timeout
            meter, used = _Meter(proc.pid, run_clock), 0.0

    def _kill(self) -> None:
        if self._proc is not None and self._proc.poll() is None:
            try:
                os.killpg(self._proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            self._proc.wait()
        self._proc = None

    def _death(self) -> str:
        """What a dead child said on its way out: its signal or exit code and the tail of
        its stderr."""
        assert self._proc is not None
        try:
            code = self._proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self._kill()
            code = -signal.SIGKILL
        self._proc = None
        how = (f"killed by {signal.Signals(-code).name}" if code < 0
               else f"exited with code {code}")
        tail = ""
        if self._stderr is not None:
            self._stderr.seek(0)
            lines = [x for x in self._stderr.read().decode(errors="replace").splitlines()
                     if x.strip()]
            if lines:
                tail = "; it said: " + " | ".join(lines[-STDERR_TAIL:])
        return f"the device's process {how}{tail}"

    def cpu_seconds(self) -> float:
        """CPU time the live child has used, its own threads and the processes it waited
        for (a compiler it ran) included; 0 without a child (Linux: /proc)."""
        if self._proc is None or self._owner != os.getpid() or self._proc.poll() is not None:
            return 0.0
        try:
            with open(f"/proc/{self._proc.pid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            return 0.0
        ticks = sum(int(x) for x in fields[11:15])  # utime stime cutime cstime
        return ticks / os.sysconf("SC_CLK_TCK")

    def close(self) -> None:
        if self._proc is not None and self._owner == os.getpid():
            if self._proc.stdin is not None:
                try:
                    self._proc.stdin.close()
                except OSError:
                    pass
            try:
                self._proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self._kill()
        self._proc = None


_SHARED: dict[tuple[str, tuple[tuple[str, str], ...]], DeviceProcess] = {}


def shared(module: str, env: dict[str, str] | None = None) -> DeviceProcess:
    """This process's one `DeviceProcess` for `module` under `env`. Requests carry all
    they need (the runner keeps no state between them but its caches), so the target
    objects that share a configuration may share its child; it ends with this process
    (its stdin closes)."""
    key = (module, tuple(sorted((env or {}).items())))
    process = _SHARED.get(key)
    if process is None:
        process = _SHARED[key] = DeviceProcess(module, env)
    return process


#: the environment variable that tells a child its parent's pid
PARENT_ENV = "DIFFTEST_DEVICE_PARENT"


def _die_with_parent() -> None:
    """Have the kernel kill this child when its parent dies (Linux's PR_SET_PDEATHSIG): a
    child busy in a kernel that never ends reads no stdin, and would otherwise outlive a
    campaign that was stopped, spinning a core for good. A parent already gone: exit."""
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        return  # not Linux: the child ends when its stdin closes, as before
    parent = os.environ.get(PARENT_ENV, "")
    if parent.isdigit() and os.getppid() != int(parent):
        os._exit(0)


def serve(module_name: str) -> None:
    """The child: answer requests until stdin closes (or its parent dies)."""
    _die_with_parent()
    # the protocol gets a descriptor of its own; descriptor 1 becomes stderr, so what a
    # runtime writes on its stdout cannot corrupt a reply
    stdout = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    stdin = sys.stdin.buffer
    module = importlib.import_module(module_name)

    times: dict[str, float] = {}

    def cpu() -> float:
        t = os.times()
        return t.user + t.system + t.children_user + t.children_system

    def built(front_end: float = 0.0) -> None:
        """The runner's notice that the kernel is built (`front_end`: the seconds of it
        its front end took, where it can tell)."""
        times["built"] = time.perf_counter()
        times["built_cpu"] = cpu()
        times["front_end"] = front_end
        stdout.write(_encode({"progress": "built"}, []))
        stdout.flush()

    while True:
        try:
            header, arrays = _decode(stdin)
        except EOFError:
            return
        times.clear()
        start, start_cpu = time.perf_counter(), cpu()
        try:
            reply, out = module.handle(header, arrays, built)
        except Exception as e:  # noqa: BLE001 - the runner failed: say so, keep serving
            reply, out = {"error": "internal", "message": f"{type(e).__name__}: {e}"}, []
        if "built" in times:  # where the request's time went (difftest bench)
            end, end_cpu = time.perf_counter(), cpu()
            reply["times"] = {"front_end": times["front_end"],
                              "build": times["built"] - start - times["front_end"],
                              "launch": end - times["built"],
                              "build_cpu": times["built_cpu"] - start_cpu,
                              "launch_cpu": end_cpu - times["built_cpu"]}
        stdout.write(_encode(reply, out))
        stdout.flush()


if __name__ == "__main__":
    serve(sys.argv[1])
