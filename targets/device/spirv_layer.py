"""The SPIR-V filter layer (spirv_layer.c): built once per source into difftest's cache
folder with its manifest, `environment()` is what a process needs to load it, and
`Filter` is the in-process end that runs each module the application creates through
the optimizer (vulkan_runner.through_optimizer) before the driver sees it."""

from __future__ import annotations

import ctypes
import hashlib
import json
import os
import subprocess
from pathlib import Path

LAYER_NAME = "VK_LAYER_DIFFTEST_spirv_filter"
#: the environment variable that names the built library to the process loading it
LIBRARY_ENV = "DIFFTEST_SPIRV_LAYER"
#: set: the layer enables maximal reconvergence on the devices it creates, and the
#: filter marks each module MaximallyReconvergesKHR before optimizing it
MAXIMAL_ENV = "DIFFTEST_LAYER_MAXIMAL"
_SOURCE = Path(__file__).with_name("spirv_layer.c")


class LayerError(RuntimeError):
    pass


def _cache() -> Path:
    return Path(os.environ.get("XDG_CACHE_HOME", os.path.expanduser("~/.cache"))) / "difftest"


def build() -> Path:
    """The layer's folder (library and manifest), built if it is not yet; LayerError
    naming what is missing where it cannot be."""
    source = _SOURCE.read_text()
    stamp = hashlib.sha256(source.encode()).hexdigest()[:16]
    folder = _cache() / f"spirv-layer-{stamp}"
    lib, manifest = folder / "libdifftest_spirv_layer.so", folder / "layer.json"
    if lib.exists() and manifest.exists():
        return folder
    if not Path("/usr/include/vulkan/vk_layer.h").exists():
        raise LayerError("the SPIR-V filter layer needs the Vulkan headers to build "
                         "(apt-get install libvulkan-dev)")
    folder.mkdir(parents=True, exist_ok=True)
    tmp = folder / f"lib.{os.getpid()}.so"
    done = subprocess.run(["cc", "-shared", "-fPIC", "-O1", "-fvisibility=hidden", "-o",
                           str(tmp), str(_SOURCE)], capture_output=True, text=True)
    if done.returncode != 0:
        raise LayerError(f"the SPIR-V filter layer did not build: {done.stderr.strip()}")
    os.replace(tmp, lib)  # atomic: a parallel worker never loads half a library
    text = json.dumps({"file_format_version": "1.1.2", "layer": {
        "name": LAYER_NAME, "type": "GLOBAL", "library_path": str(lib),
        "api_version": "1.3.239", "implementation_version": "1",
        "description": "difftest: SPIR-V modules through a filter before the driver"}})
    tmp_manifest = folder / f"layer.{os.getpid()}.json"
    tmp_manifest.write_text(text)
    os.replace(tmp_manifest, manifest)
    return folder


def environment(maximal: bool) -> dict[str, str]:
    """What a process's environment needs for the Vulkan loader to put the layer in."""
    folder = build()
    env = {"VK_LAYER_PATH": str(folder), "VK_ADD_LAYER_PATH": str(folder),
           "VK_INSTANCE_LAYERS": LAYER_NAME,
           LIBRARY_ENV: str(folder / "libdifftest_spirv_layer.so")}
    if maximal:
        env[MAXIMAL_ENV] = "1"
    return env


_FILTER_TYPE = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_size_t,
                                ctypes.POINTER(ctypes.c_void_p),
                                ctypes.POINTER(ctypes.c_size_t))


class Filter:
    """The in-process end: `flags` (spirv-opt's) and `mutants` (mutated passes) for the
    modules created until the next `set`; `error` is why it refused the last module it
    refused (the kind the runner reports: build for a front end's module the validator
    refuses, optimizer)."""

    def __init__(self) -> None:
        path = os.environ.get(LIBRARY_ENV, "")
        if not path:
            raise LayerError(f"the SPIR-V filter layer is not loaded ({LIBRARY_ENV} unset)")
        self.lib = ctypes.CDLL(path)  # the loader's copy: the same library, one filter
        self.maximal = bool(os.environ.get(MAXIMAL_ENV))
        self.flags: tuple[str, ...] = ()
        self.mutants: tuple[str, ...] = ()
        self.error: tuple[str, str] | None = None  # (the error's kind, its message)
        self._out = b""
        self._callback = _FILTER_TYPE(self._filter)  # kept: the layer holds its address
        self.lib.difftest_layer_set_filter(self._callback)

    def set(self, flags: tuple[str, ...], mutants: tuple[str, ...]) -> None:
        """Armed with passes (until the next `set`), the filter changes the modules made
        meanwhile; disarmed, every module passes unchanged (wgpu's own)."""
        self.flags, self.mutants = flags, mutants
        if flags or mutants:
            self.error = None

    def _filter(self, code: int, size: int, out: object, out_size: object) -> int:
        from .vulkan_runner import (CompileError, OptimizerError,
                                    layouts_dropped_where_meaningless,
                                    maximally_reconverging, through_optimizer)

        module = ctypes.string_at(code, size)
        if not (self.flags or self.mutants):
            self._out = module
            return self._give(out, out_size)
        try:
            module = layouts_dropped_where_meaningless(module)
            if self.maximal:
                module = maximally_reconverging(module)
            self._out = through_optimizer(module, self.flags, self.mutants)
        except CompileError as e:  # the front end's module, refused before the optimizer
            self.error = ("build", str(e))
            return 1
        except (OptimizerError, ValueError) as e:
            self.error = ("optimizer", str(e))
            return 1
        except Exception as e:  # noqa: BLE001 - an exception must not cross into C
            self.error = ("internal", f"{type(e).__name__}: {e}")
            return 1
        return self._give(out, out_size)

    def _give(self, out: object, out_size: object) -> int:
        """Hands `_out` to the layer (kept alive here until the next module)."""
        self._keep = ctypes.create_string_buffer(self._out, len(self._out))
        out[0] = ctypes.cast(self._keep, ctypes.c_void_p).value  # type: ignore[index]
        out_size[0] = len(self._out)  # type: ignore[index]
        return 0
