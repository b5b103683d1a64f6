"""The `opencl` target: a kernel translated to OpenCL C (translate.py), built and run by a
real OpenCL implementation -- PoCL's CPU device, an LLVM-based compiler nobody here wrote.

Installed with the `[opencl]` extra (pyopencl and PoCL's wheel); registered only through
the `difftest.targets` entry point, like any third-party target. Options:
- `opt=on|off` (default on): off builds with `-cl-opt-disable`, so a campaign compares
  PoCL's optimised and unoptimised code against the same oracle.

What it cannot run it says so (`unsupported`), and the fuzz loop leaves such kernels out
by its capabilities: wave operations (the device has no subgroups), `alloc()`, host
programs, and the `sequential` policy (every workitem runs: it is a `stream` target).
"""

from __future__ import annotations

import os
import warnings
from collections import OrderedDict
from typing import Any

import numpy as np
import pyopencl as cl  # the [opencl] extra; without it the target cannot be loaded


from difftest.case import Case
from difftest.errors import DifftestError
from difftest.options import describe_budget, trip_budget
from difftest.target import Target
from difftest.outcome import COMPLETED, FAULTED, ExceptionReport, Fault, Frame, Outcome

from .translate import EXHAUSTED, KINDS, MUTANTS, Translation, translate, unsupported

CACHE_SIZE = 128


class OptionError(DifftestError):
    pass


class _Device:
    """One context and queue on PoCL's CPU device for the process, and built programs
    cached by (source, build options)."""

    def __init__(self) -> None:
        self.cl = cl
        devices = [d for p in cl.get_platforms() for d in p.get_devices()
                   if d.type & cl.device_type.CPU]
        if not devices:
            raise DifftestError("no OpenCL CPU device (is pocl-binary-distribution "
                                "installed?)")
        self.device = devices[0]
        self.context = cl.Context([self.device])
        self.queue = cl.CommandQueue(self.context)
        self.programs: OrderedDict[tuple[str, str], Any] = OrderedDict()

    def build(self, source: str, flags: str) -> Any:
        key = (source, flags)
        if key in self.programs:
            self.programs.move_to_end(key)
            return self.programs[key]
        with warnings.catch_warnings():  # clang's notes on the kernel's own code
            warnings.simplefilter("ignore", self.cl.CompilerWarning)
            built = self.cl.Program(self.context, source).build(options=flags)
        program = (built, {k.function_name: k for k in built.all_kernels()})
        self.programs[key] = program
        if len(self.programs) > CACHE_SIZE:
            self.programs.popitem(last=False)
        return program


_device: _Device | None = None
_device_pid = 0


def _get_device() -> _Device:
    """The process's device, made on first use. Not in `warm_up`: the fuzz loop forks its
    workers after warming up, and a forked child cannot use its parent's OpenCL runtime
    (PoCL's worker threads do not survive the fork)."""
    global _device, _device_pid
    if _device is None or _device_pid != os.getpid():
        _device, _device_pid = _Device(), os.getpid()
    return _device


class OpenCLTarget(Target):
    name = "opencl"
    description = "OpenCL C on PoCL's CPU device (LLVM): a compiler nobody here wrote"
    capabilities = frozenset({"faults"})
    option_names = ("opt",)
    option_help = {"opt": "on (default) | off: build with -cl-opt-disable"}
    mutant_names = tuple(MUTANTS)
    mutant_help = {name: f"[translate] {text}" for name, (_, text) in MUTANTS.items()}
    mutant_seeds = {name: seed for name, (seed, _) in MUTANTS.items()}

    def validate_options(self, options: dict[str, Any]) -> None:
        opt = options.get("opt", "on")
        if opt not in ("on", "off"):
            raise OptionError(f"option opt={opt!r}: expected on or off")

    def unsupported(self, case: Case) -> str | None:
        if case.host is not None:
            return "host programs"
        if case.policy != "stream":
            return f"policy {case.policy}: every workitem runs (a stream target)"
        return unsupported(case.program)

    def listing(self, case: Case, options: dict[str, Any]) -> str | None:
        return translate(case.program, case.entry,
                         frozenset(options.get("mutants", ()))).source

    def run(self, case: Case, schedule: dict[str, Any] | None = None,
            options: dict[str, Any] | None = None) -> Outcome:
        options = options or {}
        why = self.unsupported(case)
        if why is not None:
            return Outcome(case.buffers(), None, [], error=f"unsupported: {why}")
        tr = translate(case.program, case.entry, frozenset(options.get("mutants", ())))
        flags = "-w" + (" -cl-opt-disable" if options.get("opt", "on") == "off" else "")
        dev = _get_device()
        try:
            program = dev.build(tr.source, flags)
        except dev.cl.RuntimeError as e:  # a translation PoCL rejects: ours or its bug
            first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
            return Outcome(case.buffers(), None, [], error=f"internal: build failed: {first}")
        bufs, rows = _launch(dev, program, tr, case, options)
        return _outcome(tr, case, options, bufs, rows)


def _launch(dev: _Device, program: Any, tr: Translation, case: Case,
            options: dict[str, Any]) -> tuple[dict[str, np.ndarray], np.ndarray]:
    cl = dev.cl
    mf = cl.mem_flags
    n = case.n
    status = np.zeros(n * tr.row, dtype=np.int64)
    st_buf = cl.Buffer(dev.context, mf.READ_WRITE | mf.COPY_HOST_PTR, hostbuf=status)
    args: list[Any] = [st_buf, np.int32(case.wave), np.int64(trip_budget(options, n))]
    host: dict[str, np.ndarray] = {}
    device: dict[str, Any] = {}
    for p in tr.params:
        value = case.args[p.name]
        if p.ty.is_buffer:
            dtype = np.int32 if p.ty.element.bits == 32 else np.int64
            data = np.asarray(value).astype(dtype)
            host[p.name] = data
            backing = data if len(data) else np.zeros(1, dtype=dtype)  # no empty buffers
            device[p.name] = cl.Buffer(dev.context, mf.READ_WRITE | mf.COPY_HOST_PTR,
                                       hostbuf=backing)
            args += [device[p.name], np.int64(len(data))]
        elif p.ty.is_int:
            args.append(np.int32(value) if p.ty.bits == 32 else np.int64(value))
        else:
            args.append(np.int32(1 if value else 0))
    kernel = program[1][tr.kernel]
    kernel(dev.queue, (n,), None, *args)
    cl.enqueue_copy(dev.queue, status, st_buf)
    out = {}
    for name, data in host.items():
        if len(data):
            cl.enqueue_copy(dev.queue, data, device[name])
        out[name] = data.astype(np.int64)
    dev.queue.finish()
    return out, status.reshape(n, tr.row)


def _outcome(tr: Translation, case: Case, options: dict[str, Any],
             bufs: dict[str, np.ndarray], rows: np.ndarray) -> Outcome:
    status: list[str] = []
    faults: dict[int, Fault] = {}
    for gid, row in enumerate(rows.tolist()):
        kind = row[0]
        if kind == 0:
            status.append(COMPLETED)
        elif kind == EXHAUSTED:
            return Outcome(bufs, None, [], error=(
                f"step_budget: workitem {gid} ran out of its budget of "
                f"{describe_budget(options, case.n)}"))
        elif kind in KINDS:
            depth = row[2]
            stack = tuple(Frame(tr.functions[row[3 + 2 * i]], row[4 + 2 * i])
                          for i in range(depth))
            faults[gid] = Fault(KINDS[kind], stack, row[1] if KINDS[kind] == "fail" else None)
            status.append(FAULTED)
        else:
            return Outcome(bufs, None, [], error=f"internal: workitem {gid} status {kind}")
    exception = None
    if faults:
        first = min(faults)
        exception = ExceptionReport(first, faults[first])
    return Outcome(bufs, exception, status, faults)
