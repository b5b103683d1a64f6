"""The device process (targets/device/process.py): a runtime that aborts, segfaults or
hangs is contained in its own process, reported as a crash or a timeout, and the next
request gets a fresh process. Limits count the CPU time the process (and what it runs)
uses, so a busy machine that gives it a small share of each second -- modelled by a
runner that sleeps -- is no timeout. A fake runner module plays the device."""

from __future__ import annotations

import os
import time
from pathlib import Path

import numpy as np
import pytest

from targets.device.process import DeviceCrash, DeviceProcess, DeviceTimeout

RUNNER = '''
import os, signal, sys, time
import numpy as np

def spin(seconds):
    end = time.process_time() + seconds
    while time.process_time() < end:
        pass

def handle(header, arrays, built):
    op = header["op"]
    if op == "slow-build":  # a compiler that works for a while, then a quick run
        spin(header["build_s"])
        built()
        return {"ran": True}, []
    if op == "sleepy-build":  # a build on a busy machine: long in wall time, little CPU
        time.sleep(header["build_s"])
        built()
        return {"ran": True}, []
    if op == "compiler-child":  # the work done by a process it runs (a compiler)
        import subprocess
        subprocess.run([sys.executable, "-c", "import time; t = time.process_time() + "
                        + str(header["build_s"]) + "; all(iter(lambda: "
                        "time.process_time() < t, False))"])
        built()
        return {"ran": True}, []
    if op == "hang-after-build":
        built()
        while True:
            pass
    if op == "sleep-after-build":  # a GPU working: the process only waits
        built()
        time.sleep(header["run_s"])
        return {"ran": True}, []
    if op == "double":
        return {"pid": os.getpid()}, [a * 2 for a in arrays]
    if op == "chatter":
        os.write(1, b"a runtime writing on stdout\\n")
        print("and Python printing", flush=True)
        return {"ok": True}, []
    if op == "abort":
        sys.stderr.write("free(): invalid next size (fast)\\n")
        sys.stderr.flush()
        os.abort()
    if op == "segv":
        os.kill(os.getpid(), signal.SIGSEGV)
    if op == "hang":  # a compiler in an endless loop
        while True:
            pass
    if op == "deadlock":  # waits for what never comes: no CPU used
        time.sleep(3600)
    if op == "reject":
        raise ValueError("the runner itself failed")
'''


@pytest.fixture
def device(tmp_path: Path) -> DeviceProcess:
    (tmp_path / "fake_runner.py").write_text(RUNNER)
    repo = str(Path(__file__).resolve().parents[2])
    path = os.pathsep.join([str(tmp_path), repo])
    dev = DeviceProcess("fake_runner", {"PYTHONPATH": path})
    yield dev
    dev.close()


def test_arrays_round_trip_whole_and_typed(device: DeviceProcess) -> None:
    a = np.arange(-5, 5, dtype=np.int64) * (1 << 40)
    b = np.array([], dtype=np.int32)
    c = np.array([7, -7], dtype=np.int32)
    header, out = device.call({"op": "double"}, [a, b, c], 30)
    assert [x.dtype for x in out] == [np.int64, np.int32, np.int32]
    assert out[0].tolist() == (a * 2).tolist() and out[1].size == 0
    assert out[2].tolist() == [14, -14]


def test_what_a_runtime_writes_on_stdout_does_not_corrupt_a_reply(
        device: DeviceProcess) -> None:
    header, _ = device.call({"op": "chatter"}, [], 30)
    assert header == {"ok": True}


@pytest.mark.parametrize("op,how", [("abort", "SIGABRT"), ("segv", "SIGSEGV")])
def test_a_dying_runtime_is_a_crash_with_its_last_words_and_the_next_call_restarts(
        device: DeviceProcess, op: str, how: str) -> None:
    first, _ = device.call({"op": "double"}, [], 30)
    with pytest.raises(DeviceCrash) as crash:
        device.call({"op": op}, [], 30)
    assert how in str(crash.value)
    if op == "abort":
        assert "free(): invalid next size" in str(crash.value)
    again, _ = device.call({"op": "double"}, [], 30)
    assert again["pid"] != first["pid"]


def test_a_hang_is_killed_at_the_time_limit(device: DeviceProcess) -> None:
    device.call({"op": "double"}, [], 30)  # started, so the limit times the call alone
    start = time.monotonic()
    with pytest.raises(DeviceTimeout, match="its build did not finish: within 1 CPU s") as e:
        device.call({"op": "hang"}, [], 1.0)
    assert e.value.phase == "build" and e.value.clock == "cpu" and e.value.used >= 1.0
    assert time.monotonic() - start < 10
    header, _ = device.call({"op": "double"}, [], 30)
    assert "pid" in header


@pytest.mark.parametrize("op", ["hang", "hang-after-build", "deadlock"])
def test_a_call_waiting_at_the_deadline_is_abandoned(device: DeviceProcess, op: str) -> None:
    """A campaign's --time ends a call still waiting (a compiler given its minutes before
    it counts as hung): DeviceDeadline well within the call's own limits, the process
    killed, and the next call, without a deadline, answered by a fresh one."""
    from targets.device.process import DeviceDeadline, set_deadline

    first, _ = device.call({"op": "double"}, [], 30)
    start = time.monotonic()
    set_deadline(start + 1.0)
    try:
        with pytest.raises(DeviceDeadline):
            device.call({"op": op}, [], 600.0, build_timeout=600.0)
    finally:
        set_deadline(None)
    assert 1.0 <= time.monotonic() - start < 10
    header, _ = device.call({"op": "double"}, [], 30)
    assert header["pid"] != first["pid"]


def test_a_call_that_answers_before_the_deadline_is_not_touched(
        device: DeviceProcess) -> None:
    from targets.device.process import set_deadline

    set_deadline(time.monotonic() + 60)
    try:
        header, _ = device.call({"op": "slow-build", "build_s": 0.3}, [], 30)
    finally:
        set_deadline(None)
    assert header.get("ran") is True


def test_a_runner_exception_is_a_reply_not_a_crash(device: DeviceProcess) -> None:
    header, _ = device.call({"op": "reject"}, [], 30)
    assert header["error"] == "internal" and "the runner itself failed" in header["message"]
    header, _ = device.call({"op": "double"}, [], 30)  # the same process goes on
    assert "pid" in header


def test_a_forked_child_process_never_shares_the_parents_device(
        device: DeviceProcess) -> None:
    parent, _ = device.call({"op": "double"}, [], 30)
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the fuzz loop forks its workers: the child must start its own
        try:
            header, _ = device.call({"op": "double"}, [], 30)
            os.write(write, str(header["pid"]).encode())
        finally:
            os._exit(0)
    os.waitpid(pid, 0)
    child_pid = int(os.read(read, 100))
    assert child_pid != parent["pid"]
    again, _ = device.call({"op": "double"}, [], 30)
    assert again["pid"] == parent["pid"]


def test_the_build_and_the_run_have_limits_of_their_own(device: DeviceProcess) -> None:
    device.call({"op": "double"}, [], 30)
    # a build of 2 CPU s under a build limit of 30 s and a run limit of 1 s: no timeout
    header, _ = device.call({"op": "slow-build", "build_s": 2.0}, [], 1.0, 30.0)
    assert header["ran"] is True
    # the process says where its time went, to its clock's tick (os.times: 10 ms)
    assert header["times"]["build_cpu"] >= 2.0 - 0.02
    with pytest.raises(DeviceTimeout, match="its build did not finish: within 1 CPU s"):
        device.call({"op": "slow-build", "build_s": 2.0}, [], 30.0, 1.0)
    start = time.monotonic()
    with pytest.raises(DeviceTimeout, match="no answer after its build: within 1 CPU s") \
            as e:
        device.call({"op": "hang-after-build"}, [], 1.0, 30.0)
    assert e.value.phase == "run" and time.monotonic() - start < 10


def test_a_busy_machine_is_no_timeout(device: DeviceProcess) -> None:
    """A build that takes 3 s of wall clock but little CPU -- a process the machine gives
    a small share of each second -- is within a limit of 1 CPU s: the limit counts work."""
    header, _ = device.call({"op": "sleepy-build", "build_s": 3.0}, [], 1.0, 1.0)
    assert header["ran"] is True and header["times"]["build"] >= 3.0


def test_the_cpu_time_of_a_compiler_the_process_runs_counts(device: DeviceProcess) -> None:
    with pytest.raises(DeviceTimeout, match="within 1 CPU s"):
        device.call({"op": "compiler-child", "build_s": 3.0}, [], 30.0, 1.0)
    header, _ = device.call({"op": "compiler-child", "build_s": 0.5}, [], 30.0, 5.0)
    assert header["times"]["build_cpu"] >= 0.5 - 0.02  # the child it waited for, counted


def test_a_process_that_waits_for_nothing_is_hung_whatever_its_limit(
        device: DeviceProcess, monkeypatch: pytest.MonkeyPatch) -> None:
    import targets.device.process as process

    monkeypatch.setattr(process, "IDLE_SECONDS", 2.0)
    device.call({"op": "double"}, [], 30)
    with pytest.raises(DeviceTimeout, match="next to no CPU for 2 s") as e:
        device.call({"op": "deadlock"}, [], 600.0, 600.0)
    assert e.value.idle


def test_on_a_gpu_the_run_is_timed_by_the_wall_clock(device: DeviceProcess) -> None:
    """Where the device is a GPU the process only waits for it: its run's limit is
    wall-clock seconds (the build's is still CPU time)."""
    header, _ = device.call({"op": "sleep-after-build", "run_s": 2.0}, [], 1.0, 30.0, "cpu")
    assert header["ran"] is True
    with pytest.raises(DeviceTimeout, match="no answer after its build: within 1 s") as e:
        device.call({"op": "sleep-after-build", "run_s": 5.0}, [], 1.0, 30.0, "wall")
    assert e.value.clock == "wall"


def test_a_crash_says_whether_the_process_had_served_earlier_requests(
        device: DeviceProcess) -> None:
    """A process that answered earlier requests may die of what one of them did (a
    miscompiled kernel that wrote out of bounds): the crash says so, and the translated
    targets then try the request again on a fresh process before calling it a crash."""
    with pytest.raises(DeviceCrash) as first:
        device.call({"op": "segv"}, [], 10)
    assert first.value.fresh  # nothing ran in that process before
    device.call({"op": "double"}, [np.zeros(1, np.int64)], 10)
    with pytest.raises(DeviceCrash) as later:
        device.call({"op": "abort"}, [], 10)
    assert not later.value.fresh
    with pytest.raises(DeviceCrash) as again:
        device.call({"op": "abort"}, [], 10)
    assert again.value.fresh  # the crash killed it: a fresh one died too


def test_one_child_per_configuration_in_a_process(tmp_path: Path) -> None:
    """Target objects that want the same runner and environment share one child (a
    corpus replay loads a target per case; a child per load kept hundreds alive)."""
    from targets.device.process import shared

    (tmp_path / "fake_runner.py").write_text(RUNNER)
    env = {"PYTHONPATH": os.pathsep.join([str(tmp_path), str(Path(__file__).parents[2])])}
    first, again = shared("fake_runner", env), shared("fake_runner", dict(env))
    other = shared("fake_runner", {**env, "DIFFTEST_TEST_OTHER": "1"})
    try:
        assert first is again and other is not first
        pids = [p.call({"op": "double"}, [], 10)[0]["pid"] for p in (first, again, other)]
        assert pids[0] == pids[1] != pids[2]
    finally:
        first.close()
        other.close()


def test_targets_loaded_twice_share_their_device_process() -> None:
    from difftest.campaign.registry import installed_target_names, load_target
    from difftest.core.kernelfile import load_case
    from targets.translated import TranslatedTarget

    case = load_case(Path(__file__).parents[2] / "examples" / "simple_deopt.py")
    names = [t for t in installed_target_names()
             if isinstance(load_target(t), TranslatedTarget)]
    if not names:
        pytest.skip("no translated target is installed here")
    for name in names:
        one, two = load_target(name), load_target(name)
        if one.unsupported(case):
            continue
        assert one.process(case, {}) is two.process(case, {}), name


def test_a_child_busy_in_a_kernel_that_never_ends_dies_with_its_parent(
        tmp_path: Path) -> None:
    """A campaign stopped while its device runs a kernel that never ends (the child
    reads no stdin then) must not leave the child spinning: it dies with its parent."""
    import signal
    import subprocess
    import sys

    (tmp_path / "fake_runner.py").write_text(RUNNER)
    repo = str(Path(__file__).resolve().parents[2])
    parent = subprocess.Popen(
        [sys.executable, "-c",
         "import sys; from targets.device.process import DeviceProcess\n"
         f"dev = DeviceProcess('fake_runner', {{'PYTHONPATH': {str(tmp_path)!r}}})\n"
         "proc = dev._start(); print(proc.pid, flush=True)\n"
         "dev.call({'op': 'hang-after-build'}, [], 3600)"],
        cwd=repo, stdout=subprocess.PIPE, text=True,
        env={**os.environ, "PYTHONPATH": repo})
    assert parent.stdout is not None
    child = int(parent.stdout.readline())
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:  # the child is in the endless kernel
        with open(f"/proc/{child}/stat") as f:
            if int(f.read().rsplit(")", 1)[1].split()[11]) > 20:  # utime > 0.2 s
                break
        time.sleep(0.1)
    parent.send_signal(signal.SIGKILL)
    parent.wait()
    while time.monotonic() < deadline and Path(f"/proc/{child}").exists():
        state = Path(f"/proc/{child}/stat").read_text().rsplit(")", 1)[1].split()[0] \
            if Path(f"/proc/{child}").exists() else "X"
        if state == "Z":  # gone, its exit status not yet collected by init
            break
        time.sleep(0.1)
    alive = Path(f"/proc/{child}").exists() and \
        Path(f"/proc/{child}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    if alive:
        os.kill(child, signal.SIGKILL)
    assert not alive, "the device's process outlived its parent"
