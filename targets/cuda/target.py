"""The CUDA targets: the kernel translated to CUDA C++ (targets/translate/cuda.py), with
each warp operation passed the member mask of exactly the lanes maximal reconvergence
puts there, run in a process of its own:

- `cuda`: built by NVRTC and launched through CuPy on an NVIDIA GPU
  (targets/device/cuda_runner.py). Needs CuPy and the NVIDIA driver; without a GPU it is
  not installed, and says why.
- `cuda-sim`: the same translation built by g++ against warpsim.h, CUDA's warp operations
  simulated on the CPU with a fiber per thread and their member masks checked as CUDA
  defines them (targets/device/warpsim_runner.py): the translation and its mutants tested
  where there is no GPU. A mask that leaves out its caller, threads of one mask at
  different warp operations and deadlocks are the error `internal: warp simulator: ...`.

A wave is a warp: W in 1..32, one block of W threads (W < 32 a partial warp); a launch
in workgroups of G > W is blocks of G threads, warps of 32, so W = 32 there (other
waves are unsupported). Workgroup arrays are `__shared__`, `barrier()` is
`__syncthreads()`; a thread that faults or ends exits, which PTX defines as releasing
the barriers it would hold up (no ghosts, unlike OpenCL C and GLSL). Checked
against `maximal`: CUDA itself promises no reconvergence, so the translation does not
rely on any -- it computes each warp operation's lanes, and a difference is the
compiler's (or the translation's), never a reconvergence CUDA was free not to make
(docs/semantics.md, "Reconvergence models").

Options: `timeout` (the run), `build_timeout`, `patience`.
"""

from __future__ import annotations

import ctypes.util
import importlib.util
import shutil
from typing import Any

import numpy as np

from difftest.core import f32, f64
from difftest.core.case import Case
from difftest.core.ir.types import F32, F64, INTS
from difftest.core.options import trip_budget
from difftest.core.reconvergence import MAXIMAL

from ..translate import Translation
from ..translated import DEFAULT_TIMEOUT, TranslatedTarget, device_array

#: the C type of each kernel parameter kind, as the runners pass it
_CTYPES = {"i8": "signed char", "u8": "unsigned char", "i16": "short",
           "u16": "unsigned short", "i32": "int", "u32": "unsigned int", "i64": "long long",
           "u64": "unsigned long long", "bool": "bool", "f32": "float", "f64": "double"}


class _Cuda(TranslatedTarget):
    int_types = frozenset(INTS)
    language = "cuda"
    capabilities = frozenset({"wave_ops", "faults", "mutants", "workgroups", "f32", "f64",
                              "bit_ops", "private_arrays", "returning_atomics"})
    wave_sizes = (1, 2, 4, 8, 16, 32)
    reconvergence = MAXIMAL
    one_wave_per_kernel = True  # the translation names W (its full warp mask, ranges)
    kernel_file = "kernel.cu"
    offered_mutants: tuple[str, ...] = ("member-mask-full", "member-mask-activemask",
                                        "reduce-64-as-32", "workgroup-memory-unzeroed",
                                        "barrier-warp-only")

    group_waves = (32,)  # the generators draw groups of one wave for the others

    def subgroup(self, case: Case, options: dict[str, Any]) -> int:
        """A warp is 32 threads: a block of several waves is warps of 32, so only waves
        of 32 can be its warps (one wave of fewer is a partial warp, a block of its own)."""
        return 32 if case.group_size > case.wave else 0

    def request(self, tr: Translation, case: Case, options: dict[str, Any],
                status: np.ndarray, mutants: frozenset[str]
                ) -> tuple[dict[str, Any], list[np.ndarray], list[int]]:
        params: list[list[Any]] = [["ptr", 0, "long long"], ["value", case.n, "long long"],
                                   ["value", trip_budget(options, case.n), "long long"]]
        arrays = [status]
        where = []
        for p in tr.params:
            value = case.args[p.name]
            if p.ty.is_buffer:
                arrays.append(device_array(value, p.ty.element))
                where.append(len(arrays) - 1)
                ctype = _CTYPES[str(p.ty.element)]
                params += [["ptr", len(arrays) - 1, ctype],
                           ["value", len(arrays[-1]), "long long"]]
            elif p.ty is F32:  # its bits: the request is JSON, which has no NaN
                params.append(["value", f32.to_bits(float(value)), "float"])
            elif p.ty is F64:
                params.append(["value", f64.to_bits(float(value)), "double"])
            else:
                params.append(["value", int(value), _CTYPES[str(p.ty)]])
        header = {"source": tr.source, "entry": tr.entry_point,
                  "blocks": -(-case.n // case.group_size), "threads": case.group_size,
                  "params": params}
        return header, arrays, where


class CudaTarget(_Cuda):
    name = "cuda"
    description = "CUDA C++ built by NVRTC on an NVIDIA GPU (through CuPy)"
    reproducer_needs = ("Python 3 with numpy and the CuPy matching the CUDA driver (pip "
                        "install numpy cupy-cuda12x) and an NVIDIA GPU")
    runner = "targets.device.cuda_runner"
    cases_per_kernel = TranslatedTarget.GPU_CASES_PER_KERNEL
    # the member-mask mutants are undefined behaviour on a GPU (a hang, a wrong value, or
    # by chance the right one), and what unzeroed shared memory holds is the GPU's
    # business: cuda-sim, which makes every such use visible, measures them
    offered_mutants = ("reduce-64-as-32",)

    def __init__(self) -> None:
        if importlib.util.find_spec("cupy") is None:
            raise ImportError("CuPy is not installed (pip install cupy-cuda12x, or the "
                              "cupy matching the CUDA driver)")
        if ctypes.util.find_library("cuda") is None:
            raise ImportError("no NVIDIA driver here (libcuda): cuda needs an NVIDIA GPU")
        super().__init__()
        self._summary: str | None = None

    def device_summary(self) -> str | None:
        if self._summary is None:
            from ..device.process import DeviceProcess

            process = DeviceProcess(self.runner)
            try:
                reply, _ = process.call({"op": "describe"}, [], DEFAULT_TIMEOUT)
            finally:
                process.close()
            self._summary = str(reply.get("device", reply.get("message", "?")))
        return self._summary

    def compiler(self, options: dict[str, Any]) -> str:
        return f"cuda on {self.device_summary()}"

    def run_clock(self, options: dict[str, Any]) -> str:
        return "wall"  # the GPU runs the kernel; the process only waits


class CudaSimTarget(_Cuda):
    name = "cuda-sim"
    reproducer_needs = "Python 3 with numpy (pip install numpy) and g++"
    description = ("CUDA C++ built by g++ against a warp simulator on the CPU (the cuda "
                   "target's translation, tested without a GPU)")
    runner = "targets.device.warpsim_runner"
    schedule_keys = ("order_seed",)
    schedule_help = {"order_seed": "the order the simulator runs a block's threads in (a "
                                   "seed; CUDA promises none)"}

    def device_summary(self) -> str | None:
        return "warpsim (a fiber per thread, member masks checked), built by g++"

    def __init__(self) -> None:
        if shutil.which("g++") is None:
            raise ImportError("g++ is not installed (apt-get install g++)")
        super().__init__()
        self._seed = 1

    def run(self, case: Case, schedule: dict[str, Any] | None = None,
            options: dict[str, Any] | None = None) -> Any:
        self._seed = int((schedule or {}).get("order_seed", 1))
        return super().run(case, schedule, options)

    def request(self, tr: Translation, case: Case, options: dict[str, Any],
                status: np.ndarray, mutants: frozenset[str]
                ) -> tuple[dict[str, Any], list[np.ndarray], list[int]]:
        header, arrays, where = super().request(tr, case, options, status, mutants)
        header["seed"] = self._seed
        return header, arrays, where

    def reproducer_files(self) -> dict[str, str]:
        from pathlib import Path

        return {"warpsim.h": (Path(__file__).parents[1] / "device" / "warpsim.h").read_text()}
