"""What every target that runs a translation on a real device shares: the translation
(targets/translate, cached), the launch on the device's own process (targets/device),
and the status rows read back into an Outcome.

Such a target is a `stream` target with nothing never-ran: every workitem runs to its
fate, and the reported exception is the lowest faulting gid's (R1 allows it). A device
whose process crashes gives an R0 outcome (`crash: ...`); a translation the device's
compiler rejects gives `internal: build failed: ...` with the whole build log in the
diagnostics. A case past its limit (`build_timeout` CPU seconds for the build, default
60; `timeout` for the run, default 10, CPU seconds on a CPU device and wall-clock ones on
a GPU: targets/device/process.py) is run again alone with PATIENCE times the limits
before it counts: one that then answers was only slow, and is not checked (the outcome
error `slow`, with its CPU seconds); one that does not is a hang (`timeout: ...`, R0).
Options: those two, `patience` (that multiple; 1: no rerun, what a campaign's shrinking
and reduction use, confirming the case they keep with the full one), and what a subclass
adds.
"""

from __future__ import annotations

import hashlib

from collections import OrderedDict
from typing import Any

import numpy as np

from difftest.core.case import Case
from difftest.core.ir.types import F32, F64, I8, I16, I32, I64, U8, U16, U32, U64, Type
from difftest.core.errors import DifftestError
from difftest.core.options import avoided, describe_budget, out_of_budget
from difftest.core.outcome import (COMPLETED, FAULTED, ExceptionReport, Fault, Frame, Outcome,
                                   TargetError)
from difftest.core.target import Target, declared_unsupported

from .device.process import DeviceCrash, DeviceProcess, DeviceTimeout, shared
from .translate import (EXHAUSTED, HEADER, KINDS, Translation, Unsupported, subgroup_size,
                        translate)
from .translate.mutants import described

#: the numpy type a device holds each element type in (a float as its bits)
DEVICE_DTYPES: dict[Type, type[np.generic]] = {
    I8: np.int8, U8: np.uint8, I16: np.int16, U16: np.uint16, I32: np.int32,
    U32: np.uint32, I64: np.int64, U64: np.uint64, F32: np.int32, F64: np.int64}


def device_array(value: Any, element: Type) -> np.ndarray:
    """A buffer argument (the case's int32 or int64 array, in storage form) as the
    device holds it: its element type's width and signedness."""
    return np.asarray(value).astype(DEVICE_DTYPES[element])


DEFAULT_TIMEOUT = 10.0
DEFAULT_BUILD_TIMEOUT = 60.0
PATIENCE = 10  # a case past its limits is run again with this many times them
#: the options every translated target takes: its limits, and how patient it is past them
LIMITS = ("timeout", "build_timeout", "patience")
CACHE_SIZE = 256


class OptionError(DifftestError):
    pass


class TranslatedTarget(Target):
    """A target whose kernels are translated into `language` and run by the runner
    module `runner` in a device process (one per `process_env(case)`)."""

    language = ""
    runner = ""
    capabilities = frozenset({"faults", "mutants"})
    option_names: tuple[str, ...] = LIMITS
    option_help = {"timeout": f"seconds the run may take once the kernel is built (CPU "
                              f"seconds on a CPU device, wall-clock ones on a GPU; default "
                              f"{DEFAULT_TIMEOUT:g}); past it the case is run again with "
                              f"{PATIENCE} times as long: a slow run is not checked, one "
                              "that never ends is a hang",
                   "build_timeout": f"CPU seconds the build may take (default "
                                    f"{DEFAULT_BUILD_TIMEOUT:g}); past it the case is run "
                                    f"again with {PATIENCE} times as long: a slow compiler "
                                    "is no wrong answer, one that never ends is",
                   "patience": f"how many times its limits a case past them is given on "
                               f"its one rerun before it counts as a hang (default "
                               f"{PATIENCE}; 1: no rerun, a case past its limit is a "
                               "hang at once, as a campaign's shrinking and reduction "
                               "check it)"}
    cases_per_kernel = 16
    reduce_checks = 300  # each check builds the candidate: a reduction takes about a minute
    #: on a GPU, whose compilers take far longer over a kernel than lavapipe's or Intel's
    #: CPU runtimes (a GPU probe built about one kernel in two seconds per worker),
    #: more cases share each build
    GPU_CASES_PER_KERNEL = 48
    one_wave_per_kernel = True
    offered_mutants: tuple[str, ...] = ()
    #: the known bugs of this target's compilers its translation can spell around
    #: (translate.AVOIDABLE): option `avoid`
    avoidable: tuple[str, ...] = ()

    def __init__(self) -> None:
        self.mutant_names = self.offered_mutants
        self.mutant_help, self.mutant_seeds = described(self.offered_mutants)
        self._processes: dict[tuple[tuple[str, str], ...], DeviceProcess] = {}
        self._slow_builds: dict[tuple[Any, ...], str] = {}  # build key -> its timeout
        self._translations: OrderedDict[tuple[Any, ...], Translation] = OrderedDict()
        #: seconds the device processes spent, by phase (front end, build, launch; the
        #: wall clock of their replies): where a checked case's device time goes
        self.phase_seconds: dict[str, float] = {"front_end": 0.0, "build": 0.0,
                                                "launch": 0.0}

    # ------------------------------------------------------------------- subclass parts
    def process_env(self, case: Case, mutants: frozenset[str],
                    options: dict[str, Any]) -> dict[str, str]:
        """The environment of the device process that runs `case` under `options`."""
        return {}

    def request(self, tr: Translation, case: Case, options: dict[str, Any],
                status: np.ndarray, mutants: frozenset[str]
                ) -> tuple[dict[str, Any], list[np.ndarray], list[int]]:
        """(header, arrays, where each kernel buffer comes back among the reply's arrays;
        the status buffer comes back first)."""
        raise NotImplementedError

    # ------------------------------------------------------------------------ parts
    def avoided(self, options: dict[str, Any]) -> frozenset[str]:
        """The known bugs option `avoid` names ("a,b", a list, or "all")."""
        return avoided(self, options.get("avoid", ""))

    def validate_options(self, options: dict[str, Any]) -> None:
        for name, default in (("timeout", DEFAULT_TIMEOUT),
                              ("build_timeout", DEFAULT_BUILD_TIMEOUT)):
            t = options.get(name, default)
            if isinstance(t, bool) or not isinstance(t, (int, float)) or not 0 < t <= 3600:
                raise OptionError(f"option {name}={t!r}: expected seconds in (0, 3600]")
        p = options.get("patience", PATIENCE)
        if isinstance(p, bool) or not isinstance(p, (int, float)) or not 1 <= p <= 100:
            raise OptionError(f"option patience={p!r}: expected a number in [1, 100]")

    def unsupported(self, case: Case) -> str | None:
        why = declared_unsupported(self, case) or _narrow_atomic(case)
        if why is None and case.group_size > case.wave:
            # several waves in a group: each must be a whole subgroup of its own
            s = self.subgroup(case, {}) or subgroup_size(case.wave)
            if s != case.wave:
                why = (f"workgroups of several waves of {case.wave} (a wave is one "
                       f"subgroup, and this target's are {s} lanes)")
        return why

    def subgroup(self, case: Case, options: dict[str, Any]) -> int:
        """S, the subgroup size a wave of `case` runs in (0: the translation's default,
        `subgroup_size(W)`)."""
        return 0

    def run_clock(self, options: dict[str, Any]) -> str:
        """What the run's limit counts: "cpu" where the device is the CPU (the process
        does the work), "wall" on a GPU (the process only waits for it)."""
        return "cpu"

    def features(self, options: dict[str, Any]) -> frozenset[str]:
        """The optional device features the translation may use (translate's
        `features`): none by default."""
        return frozenset()

    def translation(self, case: Case, options: dict[str, Any]) -> Translation:
        mutants = frozenset(options.get("mutants", ()))
        subgroup = self.subgroup(case, options)
        avoid = self.avoided(options)
        features = self.features(options)
        key = (case.kernel, case.entry, case.wave, mutants, subgroup, avoid, case.group_size,
               features)
        hit = self._translations.get(key)
        if hit is not None:
            self._translations.move_to_end(key)
            return hit
        tr = translate(case.program, case.entry, self.language, case.wave, mutants, subgroup,
                       avoid, case.group_size, features)
        self._translations[key] = tr
        if len(self._translations) > CACHE_SIZE:
            self._translations.popitem(last=False)
        return tr

    def listing(self, case: Case, options: dict[str, Any]) -> str | None:
        why = self.unsupported(case)
        if why is not None:
            raise DifftestError(f"target {self.name} cannot run this case: {why}")
        return self._translated(case, options).source

    def _translated(self, case: Case, options: dict[str, Any]) -> Translation:
        """The translation a command shows or exports: one the language cannot spell
        (an 8-bit atomic) is the user's error naming why, as a run's outcome says."""
        try:
            return self.translation(case, options)
        except Unsupported as e:
            raise DifftestError(f"target {self.name} cannot run this case: {e}") from None

    def process(self, case: Case, options: dict[str, Any]) -> DeviceProcess:
        env = self.process_env(case, frozenset(options.get("mutants", ())), options)
        key = tuple(sorted(env.items()))
        if key not in self._processes:
            self._processes[key] = shared(self.runner, env)
        return self._processes[key]

    def device_cpu_seconds(self) -> float:
        """CPU time of this target's live device processes (benchmarks add it to their
        own: a checked case costs both)."""
        return sum(p.cpu_seconds() for p in self._processes.values())

    def describe_device(self, case: Case) -> str:
        """The device and its version, as the runner reports it."""
        header, _ = self.process(case, {}).call(
            {**self.describe_request(), "op": "describe"}, [], DEFAULT_TIMEOUT)
        return str(header.get("device", "?"))

    def describe_request(self) -> dict[str, Any]:
        return {}

    # ----------------------------------------------------------------- reproducers
    kernel_file = "kernel.txt"

    def reproducer(self, case: Case, options: dict[str, Any], expected: Outcome
                   ) -> dict[str, str]:
        """A standalone reproducer of `case` on this target: the kernel in the target's
        own language, the runner module that runs it, the data and a main program
        (targets/device/repro_main.py) that prints what differs from `expected` (the
        oracle's outcome with every workitem run). Files by name."""
        import json
        from pathlib import Path

        from difftest.core.verdict import float_buffers

        mutants = frozenset(options.get("mutants", ()))
        tr = self._translated(case, options)
        status = np.full(HEADER + case.n * tr.row, -1, dtype=np.int64)
        status[:HEADER] = 0
        header, arrays, where = self.request(tr, case, options, status, mutants)
        header = {k: v for k, v in header.items() if k != "source"}
        rows = []
        fid = {name: i for i, name in enumerate(tr.functions)}
        for g, s in enumerate(expected.status):
            f = (expected.faults or {}).get(g)
            if f is None:
                rows.append([0])
                continue
            kind = {v: k for k, v in KINDS.items()}[f.kind]
            row = [kind, f.code or 0, len(f.stack)]
            for frame in f.stack:
                row += [fid[frame.function], frame.line]
            rows.append(row)
        names = [p.name for p in tr.params if p.ty.is_buffer]
        at = dict(zip(names, where))
        device = Path(__file__).parent / "device"
        module = self.runner.rsplit(".", 1)[1]
        data = {
            "runner": module, "env": self.process_env(case, mutants, options),
            "kernel_file": self.kernel_file, "header": header,
            "arrays": [{"dtype": a.dtype.str, "data": a.tolist()} for a in arrays],
            "buffers": at,
            "rows": {"n": case.n, "row": tr.row, "header": HEADER},
            "functions": list(tr.functions), "needs": self.reproducer_needs,
            "floats": sorted(float_buffers(case)),
            "wide_floats": sorted(float_buffers(case).wide),
            # each buffer as the reproducer reads its array back (a u64 from 2^63 up as
            # its value, not the storage form's negative word)
            "expected": {"rows": rows, "buffers": {
                k: np.asarray(v, np.int64).astype(arrays[at[k]].dtype).tolist()
                for k, v in expected.buffers.items()}},
        }
        data.update(self.reproducer_extra(case, options))
        return {self.kernel_file: tr.source,
                f"{module}.py": (device / f"{module}.py").read_text(),
                "repro.py": (device / "repro_main.py").read_text(),
                "data.json": json.dumps(data, indent=1) + "\n", **self.reproducer_files()}

    def reproducer_extra(self, case: Case, options: dict[str, Any]) -> dict[str, Any]:
        return {}

    reproducer_needs = "Python 3 with numpy (pip install numpy)"

    def reproducer_files(self) -> dict[str, str]:
        """Files the runner needs beside it (by name), besides the kernel and data."""
        return {}

    # ------------------------------------------------------------------------- run
    def _call(self, case: Case, options: dict[str, Any], header: dict[str, Any],
              arrays: list[np.ndarray], timeout: float, build_timeout: float, clock: str
              ) -> tuple[dict[str, Any], list[np.ndarray]]:
        """The device process's reply to a run of `case`, within those limits."""
        try:
            return self.process(case, options).call(header, arrays, timeout, build_timeout,
                                                    clock)
        except DeviceCrash as e:
            if e.fresh:
                raise
            # a process that served earlier kernels may die of what one of them did (a
            # miscompiled kernel that wrote out of bounds corrupts its heap): the crash
            # is this case's only if a fresh process dies of it too
            return self.process(case, options).call(header, arrays, timeout, build_timeout,
                                                    clock)

    def run(self, case: Case, schedule: dict[str, Any] | None = None,
            options: dict[str, Any] | None = None) -> Outcome:
        from targets.returned_log import run_logged

        return run_logged(case, lambda c: self._run(c, schedule, options))

    def _run(self, case: Case, schedule: dict[str, Any] | None = None,
             options: dict[str, Any] | None = None) -> Outcome:
        options = options or {}
        why = self.unsupported(case)
        if why is not None:
            return Outcome(case.buffers(), None, [], error=TargetError("unsupported", why))
        mutants = frozenset(options.get("mutants", ()))
        try:
            tr = self.translation(case, options)
        except Unsupported as e:
            return Outcome(case.buffers(), None, [], error=TargetError("unsupported", str(e)))
        status = np.full(HEADER + case.n * tr.row, -1, dtype=np.int64)
        status[:HEADER] = 0
        header, arrays, where = self.request(tr, case, options, status, mutants)
        timeout = float(options.get("timeout", DEFAULT_TIMEOUT))
        build_timeout = float(options.get("build_timeout", DEFAULT_BUILD_TIMEOUT))
        patience = float(options.get("patience", PATIENCE))
        clock = self.run_clock(options)
        # a build is deterministic: one that hung once is not waited for again (a
        # kernel's cases share its translation)
        build_key = (hashlib.sha256(tr.source.encode()).hexdigest(),
                     tuple(sorted(self.process_env(case, mutants, options).items())),
                     repr(sorted((k, v) for k, v in options.items() if k != "mutants")))
        if build_key in self._slow_builds:
            return Outcome(case.buffers(), None, [],
                           error=TargetError("timeout", self._slow_builds[build_key]))
        try:
            try:
                reply, out = self._call(case, options, header, arrays, timeout,
                                        build_timeout, clock)
            except DeviceTimeout as past:
                # past its limit: run again, alone, with `patience` times it before it
                # counts (a busy machine or a slow compiler is no hang)
                if patience <= 1:
                    raise
                reply, out = self._call(case, options, header, arrays, timeout * patience,
                                        build_timeout * patience, clock)
                return Outcome(case.buffers(), None, [], error=_slow(past, reply, (
                    build_timeout if past.phase == "build" else timeout)),
                    diagnostics={"slow": {"phase": past.phase, **_cpu(reply)}})
        except DeviceCrash as e:
            return Outcome(case.buffers(), None, [], error=TargetError("crash", str(e)))
        except DeviceTimeout as e:
            message = (f"{e} -- on a rerun allowed {patience:g} times its limits (a hang: "
                       "a slow device or compiler would have answered)" if patience > 1
                       else f"{e} -- not run again (patience=1)")
            if e.phase == "build":
                self._slow_builds[build_key] = message
            return Outcome(case.buffers(), None, [], error=TargetError("timeout", message))
        for phase, seconds in dict(reply.get("times", {})).items():
            if phase in self.phase_seconds:
                self.phase_seconds[phase] += float(seconds)
        if reply.get("error") == "build":
            log = str(reply.get("message", ""))
            first = _first_error(log)
            return Outcome(case.buffers(), None, [],
                           error=TargetError("internal", f"build failed: {first}"),
                           diagnostics={"build_log": log})
        if reply.get("error"):
            return Outcome(case.buffers(), None, [],
                           error=TargetError("internal",
                                             str(reply.get("message", reply["error"]))))
        bufs = {p.name: out[i].astype(np.int64) for p, i in
                zip([p for p in tr.params if p.ty.is_buffer], where)}
        return decode(tr, case, options, bufs, out[0])


def _cpu(reply: dict[str, Any]) -> dict[str, float]:
    """The CPU seconds the device's process says its build and launch took."""
    times = dict(reply.get("times", {}))
    return {k: round(float(times.get(k, 0.0)), 3) for k in ("build_cpu", "launch_cpu")}


def _slow(past: DeviceTimeout, reply: dict[str, Any], limit: float) -> TargetError:
    """The outcome error of a case that answered only on its rerun: not checked."""
    what = "build" if past.phase == "build" else "run"
    cpu = _cpu(reply)["build_cpu" if what == "build" else "launch_cpu"]
    unit = "CPU s" if past.clock == "cpu" else "s"
    took = f"{cpu:.1f} CPU s" if what == "build" or past.clock == "cpu" else "longer"
    return TargetError("slow", f"its {what} took {took}, past its limit of {limit:g} {unit} "
                               f"(it answered on a rerun allowed {PATIENCE} times as long): "
                               "not checked")


def _first_error(log: str) -> str:
    """The line of a build log that says what is wrong: the first naming an error, else
    the first that is more than a file name."""
    lines = [x.strip() for x in log.splitlines() if x.strip()]
    for x in lines:
        if "error" in x.lower() and len(x) > 20:
            return x
    return next((x for x in lines if " " in x), lines[0] if lines else "no build log")


def decode(tr: Translation, case: Case, options: dict[str, Any],
           bufs: dict[str, np.ndarray], status: np.ndarray) -> Outcome:
    """The outcome the status rows describe (emit.py's layout)."""
    mismatched = int(status[0])
    if mismatched:
        return Outcome(bufs, None, [], error=TargetError(
            "internal", f"{mismatched} workitem(s) found that their subgroup is not their "
            f"wave of {tr.wave} (asked for subgroups of {tr.subgroup} lanes)"))
    split = int(status[1])
    if split:
        return Outcome(bufs, None, [], error=TargetError(
            "unsupported", f"the live workitems of a group went different ways at a "
            f"statement with a barrier inside ({split} time(s)): allowed where no barrier "
            "is reached differently, but the translation runs such a statement with the "
            "whole group (docs/semantics.md, \"Workgroups in the translations\")"))
    rows = status[HEADER:].reshape(case.n, tr.row).tolist()
    statuses: list[str] = []
    faults: dict[int, Fault] = {}
    for gid, row in enumerate(rows):
        kind = row[0]
        if kind == 0:
            statuses.append(COMPLETED)
        elif kind == EXHAUSTED:
            return Outcome(bufs, None, [],
                           error=out_of_budget(gid, describe_budget(options, case.n)))
        elif kind in KINDS and 1 <= row[2] <= len(tr.functions):
            stack = tuple(Frame(tr.functions[row[3 + 2 * i]], row[4 + 2 * i])
                          for i in range(row[2]))
            faults[gid] = Fault(KINDS[kind], stack, row[1] if KINDS[kind] == "fail" else None)
            statuses.append(FAULTED)
        elif kind == -1:
            return Outcome(bufs, None, [], error=TargetError(
                "internal", f"workitem {gid} never finished (its status row was not "
                "written)"))
        else:
            return Outcome(bufs, None, [],
                           error=TargetError("internal", f"workitem {gid} status row {row}"))
    exception = None
    if faults:
        first = min(faults)
        exception = ExceptionReport(first, faults[first])
    return Outcome(bufs, exception, statuses, faults)


def require(what: str, distributions: tuple[str, ...] = (), programs: tuple[str, ...] = (),
            libraries: tuple[str, ...] = ()) -> None:
    """Raise ImportError (the registry leaves the target out) naming the first missing
    Python distribution, program or shared library, and `what` installs it."""
    import ctypes.util
    import shutil
    from importlib.metadata import PackageNotFoundError, distribution

    for d in distributions:
        try:
            distribution(d)
        except PackageNotFoundError:
            raise ImportError(f"the Python package {d} is not installed ({what})") from None
    for prog in programs:
        if shutil.which(prog) is None:
            raise ImportError(f"the program {prog} is not installed ({what})")
    for lib in libraries:
        if ctypes.util.find_library(lib) is None:
            raise ImportError(f"the library lib{lib} is not installed ({what})")


def _narrow_atomic(case: Case) -> str | None:
    """An atomic on 8- or 16-bit elements, which OpenCL C, CUDA, GLSL and WGSL have none of
    (the translation declines it too: said here, before any run, as every other thing a
    target cannot run is)."""
    from difftest.core.ir import nodes as n
    from difftest.core.ir.walk import reachable, walk

    for fn in reachable(case.program, case.entry):
        elements = {p.name: p.ty.element for p in fn.params if p.ty.is_buffer}
        nodes = list(walk(fn.body))
        for node in nodes:  # buffer variables and workgroup arrays
            if isinstance(node, n.Assign) and node.value.ty is not None \
                    and (node.value.ty.is_buffer or node.value.ty.is_local):
                elements[node.target] = node.value.ty.element
            elif isinstance(node, n.LocalArray):
                elements[node.name] = node.element
        for node in nodes:
            if isinstance(node, (n.AtomicAdd, n.AtomicOp)):
                elem = elements.get(node.buffer)
                if elem is not None and elem.bits < 32:
                    op = "add" if isinstance(node, n.AtomicAdd) else node.op
                    return (f"atomic_{op}() on {elem} elements (line {node.line}): the "
                            "language has no 8- or 16-bit atomics")
    return None
