"""Run a CUDA C++ kernel on an NVIDIA GPU: NVRTC builds it into a cubin, CuPy loads and
launches it. Standalone on purpose (it imports only numpy and cupy): `difftest
export` copies this file beside a reproducer.

A request: `source` (the kernel, `extern "C" __global__ void NAME(...)`), `entry`,
`blocks`, `threads` and `params`: one per kernel parameter, ["ptr", array index, C type]
for a pointer to one of the request's arrays (copied to the device and back) or ["value",
number, C type] for a scalar. A launch that fails (an illegal address, a trap) leaves the
CUDA context unusable, so the process says what happened and exits: the next request
starts a fresh one.
"""

from __future__ import annotations

import hashlib
import os
import sys
import tempfile

import cupy as cp
import numpy as np
from cupy.cuda import nvrtc

# NVRTC's defaults are IEEE (denormals kept, exact division and square root), but CuPy's
# own compile path adds -ftz=true: this runner calls NVRTC itself, every choice spelt out
OPTIONS = ("-std=c++17", "--fmad=false", "--ftz=false", "--prec-div=true",
           "--prec-sqrt=true")  # no a * b + c contracted, subnormals kept: f32 exact
_TYPES = {"signed char": np.int8, "unsigned char": np.uint8, "short": np.int16,
          "unsigned short": np.uint16, "int": np.int32, "unsigned int": np.uint32,
          "long long": np.int64, "unsigned long long": np.uint64, "bool": np.bool_}
_KERNELS: dict[str, object] = {}


class BuildError(Exception):
    """NVRTC refused the kernel; the message is its log."""


def build(source: str, entry: str) -> object:
    """The kernel, built by NVRTC into a cubin for this GPU (cached by its text)."""
    key = hashlib.sha256(source.encode()).hexdigest()
    if key not in _KERNELS:
        arch = f"sm_{_arch()}"
        prog = nvrtc.createProgram(source, "kernel.cu", (), ())
        try:
            try:
                nvrtc.compileProgram(prog, OPTIONS + (f"--gpu-architecture={arch}",))
            except nvrtc.NVRTCError as e:
                raise BuildError(nvrtc.getProgramLog(prog) or str(e)) from None
            cubin = nvrtc.getCUBIN(prog)
        finally:
            nvrtc.destroyProgram(prog)
        with tempfile.NamedTemporaryFile(suffix=".cubin") as f:
            f.write(cubin)
            f.flush()
            _KERNELS[key] = cp.RawModule(path=f.name).get_function(entry)  # loads it now
    return _KERNELS[key]


def _arch() -> int:
    """The newest architecture NVRTC can build that this GPU runs: its own, or below it
    where the GPU is newer than the NVRTC installed (a cubin runs on its major version's
    later minors)."""
    own = int(cp.cuda.Device().compute_capability)
    try:
        known = [int(a) for a in nvrtc.getSupportedArchs()]
    except (AttributeError, nvrtc.NVRTCError):  # an NVRTC older than 11.2 lists none
        return own
    fits = [a for a in known if a <= own and a // 10 == own // 10]
    return max(fits) if fits else own


def describe() -> dict:
    dev = cp.cuda.Device()
    props = cp.cuda.runtime.getDeviceProperties(dev.id)
    name = props["name"].decode() if isinstance(props["name"], bytes) else str(props["name"])
    driver = cp.cuda.runtime.driverGetVersion()
    version = ".".join(map(str, nvrtc.getVersion()))
    return {"name": name, "compute_capability": f"{props['major']}.{props['minor']}",
            "warp_size": int(props["warpSize"]),
            "driver": f"CUDA driver {driver // 1000}.{driver % 1000 // 10}",
            "nvrtc": version}


def run(kernel: object, blocks: int, threads: int, params: list[list],
        arrays: list[np.ndarray]) -> list[np.ndarray]:
    on_device = [cp.asarray(np.ascontiguousarray(a)) for a in arrays]
    args = []
    for kind, what, ctype in params:
        if kind == "value" and ctype == "float":  # a float comes as its bits
            args.append(np.array([what], dtype=np.int32).view(np.float32)[0])
        elif kind == "value" and ctype == "double":
            args.append(np.array([what], dtype=np.int64).view(np.float64)[0])
        else:
            # a value comes as its 64 bits (a u64 past 2^63 negative): cut to the type's
            args.append(on_device[what] if kind == "ptr" else
                        np.array([what], dtype=np.int64).astype(_TYPES[ctype])[0])
    try:
        kernel((blocks,), (threads,), tuple(args))  # type: ignore[operator]
        cp.cuda.runtime.deviceSynchronize()
        return [cp.asnumpy(a) for a in on_device]
    except cp.cuda.runtime.CUDARuntimeError as e:
        print(f"the launch failed: {e}", file=sys.stderr, flush=True)
        os._exit(3)  # the context is lost: let the next request start a fresh process


def handle(header: dict, arrays: list[np.ndarray], built=lambda *_: None
           ) -> tuple[dict, list[np.ndarray]]:
    """One request of the device-process protocol (targets/device/process.py)."""
    if header.get("op") == "describe":
        p = describe()
        return {"device": f"{p['name']} (sm_{p['compute_capability'].replace('.', '')}, "
                          f"{p['driver']}, NVRTC {p['nvrtc']})", "properties": p}, []
    try:
        kernel = build(header["source"], header["entry"])
    except BuildError as e:
        return {"error": "build", "message": str(e)}, []
    built()
    return {}, run(kernel, int(header["blocks"]), int(header["threads"]), header["params"],
                   arrays)
