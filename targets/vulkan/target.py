"""The lavapipe targets: a kernel translated to a shader language and run by Mesa's
lavapipe (llvmpipe's Vulkan driver: NIR, then LLVM, a subgroup as one SIMD vector) in a
process of its own, with one of two front ends:

- `lavapipe-wgsl`: WGSL (targets/translate/wgsl.py) through wgpu, whose naga writes the
  SPIR-V (targets/device/wgpu_runner.py); the `[vulkan]` extra;
- `lavapipe-glsl`: GLSL (targets/translate/glsl.py) through glslangValidator and the
  `vulkan` binding (targets/device/vulkan_runner.py); the `[vulkan]` extra and Debian's
  glslang-tools.

Both need Debian's libvulkan1 and mesa-vulkan-drivers. The driver is always lavapipe (its
ICD file is named in VK_DRIVER_FILES), whatever else the machine has. Its subgroup size is
the vector width over 32 bits (LP_NATIVE_VECTOR_WIDTH: 128 bits give 4 lanes, 256 bits 8,
512 bits 16), fixed per process: a wave of W >= 4 runs in a process whose subgroups are W
lanes, W = 1 and 2 as partial subgroups of 4. Wider settings report subgroups of 32 and 64
lanes but run 16-lane ones (a workgroup of 64 is four subgroups), so W is at most 16.
lavapipe runs a subgroup's lanes as one vector under structured control flow with
execution masks, so every merge reconverges: it is checked against maximal reconvergence
(`maximal`).

Options: `icd` (another lavapipe build's ICD file), `timeout` (the run), `build_timeout`.
"""

from __future__ import annotations

import glob
import os
from typing import Any

import numpy as np

from difftest.core.case import Case
from difftest.core.options import trip_budget

from ..translate import Translation, subgroup_size
from ..translate.shader import dispatch_shape
from ..translated import OptionError, TranslatedTarget, require

DRIVER_FILES = "/usr/share/vulkan/icd.d/lvp_icd.*.json"
APT = "apt-get install libvulkan1 mesa-vulkan-drivers"


def lavapipe_icd() -> str:
    found = sorted(glob.glob(DRIVER_FILES))
    if not found:
        raise ImportError(f"lavapipe is not installed ({APT})")
    return found[0]


class _Lavapipe(TranslatedTarget):
    capabilities = frozenset({"wave_ops", "faults", "mutants"})
    wave_sizes = (1, 2, 4, 8, 16)
    option_names = ("icd", "timeout", "build_timeout")
    option_help = {"icd": "the lavapipe ICD file to load (default: the system's, "
                          f"{DRIVER_FILES}); another Mesa's, to see whether a finding "
                          "reproduces there",
                   **TranslatedTarget.option_help}

    def __init__(self) -> None:
        require(APT, libraries=("vulkan",))
        self.icd = lavapipe_icd()
        super().__init__()

    def validate_options(self, options: dict[str, Any]) -> None:
        super().validate_options(options)
        icd = options.get("icd", self.icd)
        if not isinstance(icd, str) or not os.path.isfile(icd):
            raise OptionError(f"option icd={icd!r}: expected the path of an ICD file")

    def process_env(self, case: Case, mutants: frozenset[str],
                    options: dict[str, Any]) -> dict[str, str]:
        icd = str(options.get("icd", self.icd))
        env = {"VK_DRIVER_FILES": icd, "VK_ICD_FILENAMES": icd}
        if "subgroup-size-unrequested" not in mutants:  # the mutant: lavapipe's default
            env["LP_NATIVE_VECTOR_WIDTH"] = str(32 * subgroup_size(case.wave))
        return env

    def request(self, tr: Translation, case: Case, options: dict[str, Any],
                status: np.ndarray, mutants: frozenset[str]
                ) -> tuple[dict[str, Any], list[np.ndarray], list[int]]:
        params = [case.n, trip_budget(options, case.n)]
        arrays = [status]
        where = []
        buffers: list[np.ndarray] = []
        for p in tr.params:
            value = case.args[p.name]
            if p.ty.is_buffer:
                dtype = np.int32 if p.ty.element.bits == 32 else np.int64
                params.append(len(value))  # type: ignore[arg-type]
                where.append(2 + len(buffers))
                buffers.append(np.asarray(value, dtype=dtype))
            else:
                params.append(int(value))
        arrays += [np.array(params, dtype=np.int64)] + buffers
        header = {"source": tr.source,
                  "groups": list(dispatch_shape(case.wave, case.n, mutants))}
        return header, arrays, where


class WgslTarget(_Lavapipe):
    name = "lavapipe-wgsl"
    description = "WGSL through wgpu/naga on Mesa's lavapipe (Vulkan, LLVM)"
    language = "wgsl"
    runner = "targets.device.wgpu_runner"
    kernel_file = "kernel.wgsl"
    offered_mutants = ("elect-lane0", "div-unchecked", "shuffle-inactive-lane")

    def __init__(self) -> None:
        require("pip install 'difftest-simt[vulkan]'", ("wgpu",))
        super().__init__()


class GlslTarget(_Lavapipe):
    name = "lavapipe-glsl"
    description = "GLSL through glslangValidator on Mesa's lavapipe (Vulkan, LLVM)"
    language = "glsl"
    runner = "targets.device.vulkan_runner"
    kernel_file = "kernel.comp"
    offered_mutants = ("readfirstlane-lane0", "subgroup-size-unrequested", "past-n-active")

    def __init__(self) -> None:
        require("pip install 'difftest-simt[vulkan]' and apt-get install glslang-tools",
                ("vulkan",), ("glslangValidator",))
        super().__init__()
