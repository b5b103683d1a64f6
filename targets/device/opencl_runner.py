"""Run an OpenCL C kernel on an OpenCL platform with pyopencl. Standalone on purpose (it
imports only numpy and pyopencl): `difftest export` copies this file beside a reproducer.

`run(source, flags, kernel, args, global_size, local_size, platform)` builds the source
(cached per process), passes `args` in order -- a numpy array becomes a read-write
buffer, a numpy scalar a by-value argument -- and returns the arrays as the kernel left
them. `platform` is a substring of the platform's name ("Portable" for PoCL, "Intel" for
Intel's CPU runtime); the first CPU device of the first matching platform runs it.
"""

from __future__ import annotations

import warnings
from collections import OrderedDict
from typing import Any
from collections.abc import Callable

import numpy as np
import pyopencl as cl

CACHE = 64


class BuildError(Exception):
    """The platform's compiler rejected the kernel (its build log is the message)."""


class Device:
    def __init__(self, platform: str) -> None:
        matches = [p for p in cl.get_platforms() if platform.lower() in p.name.lower()]
        devices = [d for p in matches for d in p.get_devices()]
        if not devices:
            names = ", ".join(p.name for p in cl.get_platforms()) or "none"
            raise RuntimeError(f"no OpenCL platform named like {platform!r} (found: {names})")
        self.device = devices[0]
        self.name = f"{self.device.platform.name} {self.device.platform.version}: " \
                    f"{self.device.name}"
        self.context = cl.Context([self.device])
        self.queue = cl.CommandQueue(self.context)
        self.programs: OrderedDict[tuple[str, str], Any] = OrderedDict()
        self.warmed: set[tuple[str, str, int | None]] = set()

    def exact_floats(self, double: bool = False) -> bool:
        """Whether the device's single precision (double: its double precision) keeps
        denormals, infinities and NaN and rounds to nearest (what exact results need;
        a double's fma must be there too)."""
        fp = cl.device_fp_config
        need = fp.DENORM | fp.INF_NAN | fp.ROUND_TO_NEAREST
        if not double:
            return self.device.single_fp_config & need == need
        try:
            config = self.device.double_fp_config
        except cl.Error:  # no cl_khr_fp64
            return False
        return config & (need | fp.FMA) == need | fp.FMA

    def build(self, source: str, flags: str) -> Any:
        key = (source, flags)
        if key in self.programs:
            self.programs.move_to_end(key)
            return self.programs[key]
        program = cl.Program(self.context, source)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                program.build(options=flags, cache_dir=False)  # type: ignore[arg-type]
        except cl.RuntimeError as e:
            try:
                log = program.get_build_info(self.device, cl.program_build_info.LOG)
            except cl.Error:
                log = ""
            raise BuildError(f"{e}\n{log}".strip()) from None
        kernels = {k.function_name: k for k in program.all_kernels()}
        self.programs[key] = kernels
        if len(self.programs) > CACHE:
            self.programs.popitem(last=False)
        return kernels

    def run(self, source: str, flags: str, kernel: str, args: list[Any],
            global_size: int, local_size: int | None) -> list[np.ndarray]:
        kernels = self.build(source, flags)
        mf = cl.mem_flags
        bound, arrays = [], []
        for a in args:
            if isinstance(a, np.ndarray):
                data = np.ascontiguousarray(a).copy()
                backing = data if data.size else np.zeros(1, dtype=data.dtype)
                buf = cl.Buffer(self.context, mf.READ_WRITE | mf.COPY_HOST_PTR, hostbuf=backing)
                bound.append(buf)
                arrays.append((data, buf))
            else:
                bound.append(a)
        kernels[kernel](self.queue, (global_size,),
                        None if local_size is None else (local_size,), *bound)
        for data, buf in arrays:
            if data.size:
                cl.enqueue_copy(self.queue, data, buf)
        self.queue.finish()
        return [data for data, _ in arrays]


_DEVICES: dict[str, Device] = {}


def device(platform: str) -> Device:
    if platform not in _DEVICES:
        _DEVICES[platform] = Device(platform)
    return _DEVICES[platform]


def run(source: str, flags: str, kernel: str, args: list[Any], global_size: int,
        local_size: int | None, platform: str) -> list[np.ndarray]:
    return device(platform).run(source, flags, kernel, args, global_size, local_size)


#: the integer scalars besides int and long, by the kernel language's names
_SCALARS = {"i8": np.int8, "u8": np.uint8, "i16": np.int16, "u16": np.uint16,
            "u32": np.uint32, "u64": np.uint64}


def handle(header: dict[str, Any], arrays: list[np.ndarray],
           built: Callable[..., None] = lambda *_: None
           ) -> tuple[dict[str, Any], list[np.ndarray]]:
    """One request of the device-process protocol (targets/device/process.py); `built`
    is called once the kernel is built."""
    dev = device(header["platform"])
    if header.get("op") == "describe":
        return {"device": dev.name}, []
    args: list[Any] = []
    for kind, value in header["args"]:
        if kind == "array":
            args.append(arrays[value])
        elif kind in _SCALARS:  # the value's 64 bits, cut to the type's
            args.append(np.array([value], dtype=np.int64).astype(_SCALARS[kind])[0])
        else:
            args.append(np.int32(value) if kind == "int" else
                        np.array([value], dtype=np.int32).view(np.float32)[0]
                        if kind == "f32" else  # a float comes as its bits
                        np.array([value], dtype=np.int64).view(np.float64)[0]
                        if kind == "f64" else np.int64(value))
    if header.get("f32") and not dev.exact_floats():
        return {"error": "build", "message": "the device's single precision lacks "
                "denormals, infinities and NaN, or round-to-nearest "
                "(CL_DEVICE_SINGLE_FP_CONFIG): its f32 results are not exact"}, []
    if header.get("f64") and not dev.exact_floats(double=True):
        return {"error": "build", "message": "the device has no double precision, or it "
                "lacks denormals, infinities and NaN, round-to-nearest or fma "
                "(CL_DEVICE_DOUBLE_FP_CONFIG): its f64 results would not be exact"}, []
    try:
        dev.build(header["source"], header["flags"])
    except BuildError as e:
        return {"error": "build", "message": str(e)}, []
    warm = header.get("warm_up")  # the index of the argument n, where asked
    key = (header["source"], header["flags"], header["local"])
    if warm is not None and key not in dev.warmed:
        # PoCL compiles a kernel's work-group function at its first launch for a local
        # size, which under load can take longer than a run may: a launch with n = 0
        # (every workitem past n), on copies of the arrays, does it within the build
        dry = list(args)
        dry[warm] = np.int64(0)
        dev.run(header["source"], header["flags"], header["kernel"], dry,
                header["global"], header["local"])
        dev.warmed.add(key)
    built()
    return {}, dev.run(header["source"], header["flags"], header["kernel"], args,
                       header["global"], header["local"])
