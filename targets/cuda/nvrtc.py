"""NVRTC without a GPU: compile a CUDA C++ translation to PTX, so that every generated
kernel's translation is checked by NVIDIA's own compiler front end even where no GPU is
(the `[cuda]` extra: NVIDIA's cuda-bindings and its NVRTC wheel)."""

from __future__ import annotations

#: what targets/device/cuda_runner.py builds with (a test keeps the two the same)
OPTIONS = ("-std=c++17", "--fmad=false", "--ftz=false", "--prec-div=true", "--prec-sqrt=true")
ARCH = "compute_90"  # the H100's: __reduce_*_sync needs compute_80 or later


def available() -> str | None:
    """None when NVRTC can be used here, else why not."""
    try:
        from cuda.bindings import nvrtc
    except ImportError:
        return "NVIDIA's cuda-bindings is not installed (pip install 'difftest-simt[cuda]')"
    try:
        err, *_ = nvrtc.nvrtcVersion()
    except Exception as e:  # noqa: BLE001 - the library itself is missing
        return f"NVRTC cannot be loaded: {e}"
    return None if err == nvrtc.nvrtcResult.NVRTC_SUCCESS else f"NVRTC: {err}"


def compile_ptx(source: str, arch: str = ARCH) -> tuple[bool, str]:
    """(whether NVRTC compiled `source` for `arch`, its log)."""
    from cuda.bindings import nvrtc

    ok = nvrtc.nvrtcResult.NVRTC_SUCCESS
    err, prog = nvrtc.nvrtcCreateProgram(source.encode(), b"kernel.cu", 0, [], [])
    assert err == ok, err
    try:
        opts = [o.encode() for o in OPTIONS + (f"--gpu-architecture={arch}",)]
        (result,) = nvrtc.nvrtcCompileProgram(prog, len(opts), opts)
        err, size = nvrtc.nvrtcGetProgramLogSize(prog)
        log = b" " * size
        nvrtc.nvrtcGetProgramLog(prog, log)
        return result == ok, log.rstrip(b"\0").decode(errors="replace").strip()
    finally:
        nvrtc.nvrtcDestroyProgram(prog)
