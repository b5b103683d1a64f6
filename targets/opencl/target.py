"""The OpenCL targets: a kernel translated to OpenCL C (targets/translate/opencl_c.py),
built and run by a real OpenCL implementation in a process of its own
(targets/device/opencl_runner.py):

- `opencl`: PoCL's CPU device (LLVM), the `[opencl]` extra. It has no subgroups, so
  kernels with wave operations are unsupported by capability, not failures.
- `opencl-intel`: Intel's OpenCL CPU runtime (its own vectoriser, exec masks on AVX-512),
  the `[intel]` extra. Subgroups of 4..64 lanes (`intel_reqd_sub_group_size`), so waves
  of 1..64 (1 and 2 as partial subgroups of 4). OpenCL promises no reconvergence; this
  runtime is checked against `loop-exits-undefined` (difftest/core/reconvergence.py): it was
  seen to run a wave operation in a loop's `break` branch once, after the loop, for every
  lane that left that way.

Options: `opt=on|off` (default on; off builds with -cl-opt-disable), `timeout` (the run),
`build_timeout`, `patience`.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from importlib.metadata import PackageNotFoundError, distribution
from pathlib import Path
from typing import Any

import numpy as np

from difftest.core import f32, f64
from difftest.core.case import Case
from difftest.core.errors import DifftestError
from difftest.core.ir.types import F32, F64, I32, I64, INTS
from difftest.core.options import trip_budget
from difftest.core.reconvergence import LOOP_EXITS_UNDEFINED

from ..translate import Translation
from ..translate.emit import uses_f32, uses_f64
from ..translate.opencl_c import launch_shape
from ..translate.mutants import C_INTEGER_MUTANTS
from difftest.core.errors import NotOnThisMachine

from ..translated import LIMITS, OptionError, TranslatedTarget, device_array, require


class _OpenCL(TranslatedTarget):
    int_types = frozenset(INTS)  # char, short, int and long, signed and unsigned
    runner = "targets.device.opencl_runner"
    reproducer_needs = ("Python 3 with numpy, pyopencl and pocl-binary-distribution (pip "
                        "install numpy pyopencl pocl-binary-distribution)")
    kernel_file = "kernel.cl"
    platform = ""
    option_names: tuple[str, ...] = ("opt", *LIMITS)
    option_help = {"opt": "on (default) | off: build with -cl-opt-disable",
                   **TranslatedTarget.option_help}

    def validate_options(self, options: dict[str, Any]) -> None:
        super().validate_options(options)
        opt = options.get("opt", "on")
        if opt not in ("on", "off"):
            raise OptionError(f"option opt={opt!r}: expected on or off")

    def describe_request(self) -> dict[str, Any]:
        return {"platform": self.platform}

    def request(self, tr: Translation, case: Case, options: dict[str, Any],
                status: np.ndarray, mutants: frozenset[str]
                ) -> tuple[dict[str, Any], list[np.ndarray], list[int]]:
        arrays = [status]
        args: list[list[Any]] = [["array", 0], ["long", case.n],
                                 ["long", trip_budget(options, case.n)]]
        where = []
        for p in tr.params:
            value = case.args[p.name]
            if p.ty.is_buffer:
                where.append(len(arrays))
                args.append(["array", len(arrays)])
                arrays.append(device_array(value, p.ty.element))
                args.append(["long", int(len(value))])  # type: ignore[arg-type]
            elif p.ty is F32:  # its bits: the request is JSON, which has no NaN
                args.append(["f32", f32.to_bits(float(value))])  # type: ignore[arg-type]
            elif p.ty is F64:
                args.append(["f64", f64.to_bits(float(value))])  # type: ignore[arg-type]
            elif p.ty in (I32, I64):
                args.append(["int" if p.ty is I32 else "long", int(value)])
            elif p.ty.is_int:  # its storage form (a u64 as its bits)
                args.append([str(p.ty), int(value)])
            else:
                args.append(["int", 1 if value else 0])
        glob, local = launch_shape(case.wave, case.n, self.language != "opencl", mutants,
                                   tr.group if tr.workgroups else None)
        flags = "-w" + (" -cl-opt-disable" if options.get("opt", "on") == "off" else "")
        header = {"platform": self.platform, "source": tr.source, "flags": flags,
                  "kernel": tr.entry_point, "args": args, "global": glob, "local": local,
                  "f32": uses_f32(case.program, case.entry),
                  "f64": uses_f64(case.program, case.entry)}
        return header, arrays, where


class PoclTarget(_OpenCL):
    name = "opencl"
    description = "OpenCL C on PoCL's CPU device (LLVM): a compiler nobody here wrote"
    language = "opencl"
    platform = "Portable Computing Language"
    # workgroups: PoCL miscompiles many of the translation's kernels with barriers, a
    # known bug (docs/findings.md, pocl-guards-lost-after-conditional-barrier)
    offered_mutants = ("bound-per-trip", "call-no-check")
    avoidable = ("barrier-branch-tail",)
    option_names = ("opt", "avoid", *LIMITS)
    option_help = {**_OpenCL.option_help,
                   "avoid": "known bugs to spell around, so a campaign finds the next "
                            "ones: barrier-branch-tail "
                            "(pocl-guards-lost-after-conditional-barrier), or all"}
    capabilities = frozenset({"faults", "mutants", "workgroups", "f32", "f64", "bit_ops",
                              "private_arrays", "returning_atomics"})

    def __init__(self) -> None:
        require("pip install 'difftest-simt[opencl]'",
                ("pyopencl", "pocl-binary-distribution"))
        why = pocl_cannot_build()
        if why is not None:  # the registry leaves the target out, and says why
            raise ImportError(why)
        super().__init__()

    def request(self, tr: Translation, case: Case, options: dict[str, Any],
                status: np.ndarray, mutants: frozenset[str]
                ) -> tuple[dict[str, Any], list[np.ndarray], list[int]]:
        header, arrays, where = super().request(tr, case, options, status, mutants)
        # PoCL builds the work-group function at the first launch: a dry one (n = 0)
        # before the runner says "built" keeps that in the build's time limit
        header["warm_up"] = 1  # the argument n
        return header, arrays, where


_POCL_PROBE = r"""
import pyopencl as cl
found = [p for p in cl.get_platforms() if p.name == "Portable Computing Language"]
try:
    cl.Program(cl.Context(found[0].get_devices()), "__kernel void k(__global int* o) "
               "{ o[0] = 1; }").build()
    print("built")
except cl.Error as e:
    print(str(e))
"""


#: the probe's limits: CPU seconds of its own, and wall-clock seconds for a hung one
_PROBE_CPU_S, _PROBE_HANG_S = 60, 900


def _probe_cpu_limit() -> None:
    import resource

    resource.setrlimit(resource.RLIMIT_CPU, (_PROBE_CPU_S, _PROBE_CPU_S))


def pocl_cannot_build() -> str | None:
    """Why pip's PoCL cannot build any kernel on this machine, or None. Its LLVM names a
    CPU newer than itself `generic`, which its own front end then refuses as a target
    CPU (pocl/pocl issue 1049): on such a machine (AMD's Zen 5, for PoCL 3.0) every
    build fails alike, which is the runtime missing here, not a finding. Asked once per
    PoCL library and CPU, in a process of its own, and remembered in a file; any other
    outcome of the probe is left for the target's own runs to report."""
    import subprocess
    import sys

    try:
        pocl = distribution("pocl-binary-distribution")
        lib = next((f.locate() for f in pocl.files or [] if "libpocl" in str(f)), None)
        with open("/proc/cpuinfo") as f:
            cpu = "".join(line for line in f.read().split("\n\n")[0].splitlines(True)
                          if line.split(":")[0].strip() in ("vendor_id", "cpu family",
                                                             "model", "model name"))
    except (OSError, PackageNotFoundError):
        return None
    stat = os.stat(str(lib)) if lib is not None and os.path.exists(str(lib)) else None
    key = hashlib.sha256(f"{pocl.version}|{lib}|{stat and stat.st_size}|"
                         f"{stat and stat.st_mtime_ns}|{cpu}".encode()).hexdigest()[:16]
    memo = Path(tempfile.gettempdir()) / f"difftest-pocl-probe-{os.getuid()}-{key}"
    try:
        said = memo.read_text()
    except OSError:
        try:
            # limited in the probe's own CPU seconds (a busy machine answers alike); the
            # wall-clock bound only ends a probe that hangs without working, and then
            # nothing is decided or kept
            said = subprocess.run([sys.executable, "-c", _POCL_PROBE], capture_output=True,
                                  text=True, timeout=_PROBE_HANG_S,
                                  preexec_fn=_probe_cpu_limit).stdout
        except (OSError, subprocess.SubprocessError):
            return None  # not decided: the target's runs say what is wrong
        tmp = memo.with_name(f"{memo.name}.{os.getpid()}")
        tmp.write_text(said)
        os.replace(tmp, memo)
    if "unknown target CPU" not in said:
        return None
    model = next((line.split(":", 1)[1].strip() for line in cpu.splitlines()
                  if line.startswith("model name")), "this CPU")
    return (f"PoCL (pocl-binary-distribution) cannot build kernels for this CPU ({model}), "
            "which its LLVM does not know (it refuses the target CPU 'generic')")


def intel_icd_dir() -> str:
    """A folder holding an ICD file that names the installed Intel runtime (the wheel's
    own file names a conda path, and pyopencl's loader reads OCL_ICD_VENDORS only)."""
    try:
        files = distribution("intel-opencl-rt").files or []
    except PackageNotFoundError:
        raise DifftestError("target opencl-intel needs Intel's OpenCL runtime: "
                            "pip install 'difftest-simt[intel]'") from None
    lib = next((f.locate() for f in files if str(f).endswith("libintelocl.so")), None)
    if lib is None or not Path(str(lib)).exists():
        raise DifftestError("intel-opencl-rt is installed but libintelocl.so is missing")
    text = str(Path(str(lib)).resolve()) + "\n"
    # one folder per installation: two environments of one user (a CI clone's beside the
    # user's own) must not point each other's device processes at their runtime
    tag = hashlib.sha256(text.encode()).hexdigest()[:12]
    folder = Path(tempfile.gettempdir()) / f"difftest-intel-icd-{os.getuid()}-{tag}"
    folder.mkdir(exist_ok=True)
    icd = folder / "intel.icd"
    if not icd.exists() or icd.read_text() != text:
        tmp = folder / f".intel.icd.{os.getpid()}"
        tmp.write_text(text)
        os.replace(tmp, icd)
    return str(folder)


#: CL_CONFIG_CPU_TARGET_ARCH values (the instruction set Intel's runtime compiles for,
#: instead of the host CPU's) -> the CPU flag (/proc/cpuinfo) a machine needs to run it
CPU_ARCHES = {"corei7": "sse4_2", "corei7-avx": "avx", "core-avx2": "avx2",
              "skx": "avx512f", "sapphirerapids": "amx_tile"}


def cpu_flags() -> frozenset[str]:
    """This machine's CPU flags (Linux); empty where /proc/cpuinfo cannot be read."""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("flags"):
                    return frozenset(line.split(":", 1)[1].split())
    except OSError:
        pass
    return frozenset()


class IntelTarget(_OpenCL):
    reproducer_needs = ("Python 3 with numpy, pyopencl, intel-opencl-rt and "
                        "intel-cmplr-lib-rt (pip install numpy pyopencl intel-opencl-rt "
                        "intel-cmplr-lib-rt)")
    name = "opencl-intel"
    description = ("OpenCL C with subgroups on Intel's OpenCL CPU runtime (its own "
                   "vectoriser, exec masks on AVX-512)")
    language = "opencl-subgroups"
    platform = "Intel(R) OpenCL"
    capabilities = frozenset({"wave_ops", "faults", "mutants", "workgroups", "f32", "f64",
                              "bit_ops", "private_arrays", "returning_atomics"})
    reconvergence = LOOP_EXITS_UNDEFINED
    offered_mutants = ("subgroup-size-unrequested", "ballot-low-word", "past-n-active",
                       "call-no-check", "workgroup-memory-unzeroed", "ghost-returns",
                       *C_INTEGER_MUTANTS)
    avoidable = ("ballot-bit-count",)
    option_names = ("opt", "cpu_arch", "vectorizer", "avoid", *LIMITS)
    option_help = {**_OpenCL.option_help,
                   "avoid": "known bugs to spell around, so a campaign finds the next "
                            "ones: ballot-bit-count (intel-ballot-bit-count-crash), or all",
                   "cpu_arch": "the instruction set the runtime compiles for "
                               f"({' | '.join(CPU_ARCHES)}; default: this CPU's): "
                               "CL_CONFIG_CPU_TARGET_ARCH. Some bugs show only for one",
                   "vectorizer": "on (default) | off: the runtime's vectorizer "
                                 "(CL_CONFIG_USE_VECTORIZER), to see whether a bug is "
                                 "its; off runs each work-item alone, so kernels with "
                                 "wave operations get subgroups of 1"}

    def validate_options(self, options: dict[str, Any]) -> None:
        super().validate_options(options)
        if options.get("vectorizer", "on") not in ("on", "off"):
            raise OptionError(f"option vectorizer={options['vectorizer']!r}: expected on or "
                              "off")
        arch = options.get("cpu_arch")
        if arch is None:
            return
        if arch not in CPU_ARCHES:
            raise OptionError(f"option cpu_arch={arch!r}: expected one of "
                              f"{', '.join(CPU_ARCHES)}")
        flags = cpu_flags()
        if flags and CPU_ARCHES[arch] not in flags:
            raise NotOnThisMachine(f"option cpu_arch={arch}: this CPU lacks "
                                   f"{CPU_ARCHES[arch]}, which that instruction set needs")

    def __init__(self) -> None:
        require("pip install 'difftest-simt[intel]'",
                ("pyopencl", "intel-opencl-rt", "intel-cmplr-lib-rt"))
        super().__init__()
        self._env: dict[str, str] | None = None

    def process_env(self, case: Case, mutants: frozenset[str],
                    options: dict[str, Any]) -> dict[str, str]:
        if self._env is None:
            self._env = {"OCL_ICD_VENDORS": intel_icd_dir()}
        env = dict(self._env)
        if options.get("cpu_arch"):
            env["CL_CONFIG_CPU_TARGET_ARCH"] = str(options["cpu_arch"])
        if options.get("vectorizer") == "off":
            env["CL_CONFIG_USE_VECTORIZER"] = "false"
        return env

    def reproducer_extra(self, case: Case, options: dict[str, Any]) -> dict[str, Any]:
        # the reproducer writes its own ICD; the runtime's settings are kept
        env = {k: v for k, v in self.process_env(case, frozenset(), options).items()
               if k != "OCL_ICD_VENDORS"}
        return {"env": env, "setup": "intel-icd"}
