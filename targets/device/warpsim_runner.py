"""Run a CUDA C++ kernel on the CPU: g++ builds it against warpsim.h (beside this file:
CUDA's warp operations with a fiber per thread, their member masks checked as CUDA
defines them) into a shared library, and ctypes launches it. Standalone on purpose (it
imports only numpy and the standard library): `difftest export` copies this file and
warpsim.h beside a reproducer.

A request: `source` (the kernel, `extern "C" __global__ void NAME(...)`), `entry`,
`blocks`, `threads`, `seed` (the order threads run in), and `params`: one per kernel
parameter, ["ptr", array index, C type] for a pointer to one of the request's arrays
(returned as the kernel left them) or ["value", number, C type] for a scalar. What the
simulator found wrong (a mask without its caller, threads of one mask at different
operations, a deadlock) comes back as the error `warp`.
"""

from __future__ import annotations

import atexit
import ctypes
import functools
import hashlib
import os
import shutil
import subprocess
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
CXX = os.environ.get("CXX", "g++")
FLAGS = ("-std=c++17", "-O1", "-shared", "-fPIC", "-w", "-ffp-contract=off")
_LIBS: dict[str, ctypes.CDLL] = {}


@functools.cache
def _folder() -> str:
    """This process's build folder, made on first use and removed when it exits."""
    path = tempfile.mkdtemp(prefix="difftest-warpsim-")
    atexit.register(shutil.rmtree, path, ignore_errors=True)
    return path


class CompileError(Exception):
    """g++ rejected the kernel (its log is the message)."""


def _stub(entry: str, params: list[list]) -> str:
    """The C entry the runner calls: the kernel's arguments from an array of pointers."""
    args = []
    for i, (kind, _, ctype) in enumerate(params):
        args.append(f"({ctype}*)a[{i}]" if kind == "ptr" else f"*({ctype}*)a[{i}]")
    return (f'\nextern "C" int warpsim_run(unsigned blocks, unsigned threads, '
            f'unsigned long long seed, void** a, char* error, int size) {{\n'
            f'  std::string e = warpsim::launch(blocks, threads, seed, [&]() {{ '
            f'{entry}({", ".join(args)}); }});\n'
            f'  snprintf(error, size, "%s", e.c_str());\n'
            f'  return e.empty() ? 0 : 1;\n}}\n')


def _header() -> str:
    """A folder holding warpsim.h and its precompiled form (made once per process: the
    standard headers it includes are most of a kernel's build time)."""
    copy = os.path.join(_folder(), "warpsim.h")
    if not os.path.exists(copy):
        with open(os.path.join(HERE, "warpsim.h")) as f, open(copy, "w") as out:
            out.write(f.read())
        flags = [x for x in FLAGS if x != "-shared"]
        subprocess.run([CXX, *flags, "-x", "c++-header", copy, "-o", copy + ".gch"],
                       capture_output=True)  # without it, builds are slower, not wrong
    return _folder()


def build(source: str, entry: str, params: list[list]) -> ctypes.CDLL:
    """The kernel built against warpsim.h (cached by its text)."""
    text = f'#include "warpsim.h"\n#line 1 "kernel.cu"\n{source}\n' + _stub(entry, params)
    key = hashlib.sha256(text.encode()).hexdigest()[:24]
    if key not in _LIBS:
        src = os.path.join(_folder(), f"{key}.cpp")
        lib = os.path.join(_folder(), f"{key}.so")
        with open(src, "w") as f:
            f.write(text)
        proc = subprocess.run([CXX, *FLAGS, "-I", _header(), "-o", lib, src],
                              capture_output=True, text=True)
        if proc.returncode != 0:
            raise CompileError((proc.stdout + proc.stderr).strip())
        _LIBS[key] = ctypes.CDLL(lib)
    return _LIBS[key]


_SCALARS = {"signed char": np.int8, "unsigned char": np.uint8, "short": np.int16,
            "unsigned short": np.uint16, "int": np.int32, "unsigned int": np.uint32,
            "long long": np.int64, "unsigned long long": np.uint64, "bool": np.bool_,
            "float": np.int32, "double": np.int64}


def run(lib: ctypes.CDLL, blocks: int, threads: int, seed: int, params: list[list],
        arrays: list[np.ndarray]) -> tuple[list[np.ndarray], str]:
    """Launch; the arrays as the kernel left them, and what went wrong ("" if nothing)."""
    arrays = [np.ascontiguousarray(a).copy() for a in arrays]
    keep = []
    pointers = (ctypes.c_void_p * max(1, len(params)))()
    for i, (kind, what, ctype) in enumerate(params):
        if kind == "ptr":
            pointers[i] = arrays[what].ctypes.data
        else:
            # a float comes as its bits, and goes in as them; an integer as its 64 bits
            # (a u64 past 2^63 negative), cut to the type's
            value: np.ndarray = np.array([what], dtype=np.int64).astype(_SCALARS[ctype])
            keep.append(value)
            pointers[i] = value.ctypes.data
    error = ctypes.create_string_buffer(512)
    lib.warpsim_run.restype = ctypes.c_int
    lib.warpsim_run(ctypes.c_uint(blocks), ctypes.c_uint(threads), ctypes.c_ulonglong(seed),
                    pointers, error, ctypes.c_int(len(error)))
    return arrays, error.value.decode(errors="replace")


def handle(header: dict, arrays: list[np.ndarray], built=lambda *_: None
           ) -> tuple[dict, list[np.ndarray]]:
    """One request of the device-process protocol (targets/device/process.py)."""
    if header.get("op") == "describe":
        version = subprocess.run([CXX, "--version"], capture_output=True, text=True)
        first = (version.stdout.splitlines() or ["?"])[0]
        return {"device": f"warpsim: CUDA warps simulated on the CPU ({first})"}, []
    try:
        lib = build(header["source"], header["entry"], header["params"])
    except CompileError as e:
        return {"error": "build", "message": str(e)}, []
    built()
    out, error = run(lib, int(header["blocks"]), int(header["threads"]),
                     int(header.get("seed", 1)), header["params"], arrays)
    if error:
        return {"error": "warp", "message": f"warp simulator: {error}"}, []
    return {}, out
