"""The translations' injectable bugs: the mistakes a translation of the kernel language
into a real target's language really makes (each target offers the ones that apply to
it; `--opt mutants=NAME`). Every one is a small diff in the emitter it names, keeps the
kernel memory-safe (accesses stay bounds-checked), and is measured by `difftest hunt
--target T`.

name -> (where it comes from, what goes wrong)
"""

from __future__ import annotations

MUTANTS: dict[str, tuple[str, str]] = {
    # SPIR-V passes with a historical bug, run on the Vulkan GLSL targets' modules
    # (targets/device/vulkan_runner.py, `mutated`)
    "if-converts-wave-op": (
        "SPIRV-Tools#1991 (if-conversion changing a shader's meaning); hlsl-specs#164 "
        "(compilers hoisting subgroup operations out of control flow)",
        "if-conversion speculates the start of an if's then-block, through its wave "
        "operation, into the if's header: every lane there runs it"),
    "licm-hoists-wave-op": (
        "hlsl-specs#164 and DXC#6222 (a wave operation moved to where other lanes "
        "reconverged)",
        "loop-invariant code motion hoists a wave operation (with its block's code before "
        "it) out of its loop into the preheader: it runs once, with the lanes that "
        "entered the loop"),
    "switch-falls-through": (
        "issue #54 (C's fall-through: a case arm written without its `break`)",
        "a `match` written as a switch whose arms do not end in `break`: the lanes of a "
        "case run the next case's arm too"),
    "switch-label-wraps": (
        "a translation writing every case value as a 32-bit label (the case values "
        "of an i32 variable that it cannot hold)",
        "a `match` case value the variable's type cannot hold is written as a switch "
        "label wrapped to 32 bits, where it never matches: the lanes holding the value "
        "it wraps to take that arm"),
    "bound-per-trip": (
        "the opencl translation's own history",
        "a `for` loop's stop bound is read again at every trip instead of once at entry "
        "(the body may assign what it reads)"),
    "call-no-check": (
        "NOTES: exception stacks",
        "no fault check after a helper call: a workitem that faulted inside the helper "
        "goes on running its caller"),
    "past-n-active": (
        "docs/semantics.md: lanes past n are inactive from launch",
        "the launch is rounded up to whole waves and the lanes past n run the kernel too "
        "(only their status rows are dropped): they join wave operations and atomics"),
    "subgroup-size-unrequested": (
        "NOTES: subgroups (a subgroup size that differs from W)",
        "the kernel neither asks for subgroups of W lanes nor checks them: it launches "
        "work-groups of 64 and takes lane = gid % W, while wave operations run over the "
        "device's own subgroups"),
    "subgroup-size-assumed-32": (
        "NOTES: subgroups; a translation written for one device (NVIDIA's 32-lane warps)",
        "the subgroup size is assumed to be 32 instead of the device's: no size is asked "
        "for (lavapipe keeps its default vector width) and none is checked, so a wave "
        "wider than the device's subgroups is split across several and its wave "
        "operations see part of it"),
    "minmax-unsigned": (
        "docs/semantics.md: wave operations (sums wrap on the unsigned type; min and max "
        "do not)",
        "wave_min and wave_max run on the unsigned type, as the sums do: a negative value "
        "is the largest"),
    "member-mask-full": (
        "CUDA C++ Programming Guide, warp intrinsics (the pre-Volta habit of "
        "__shfl_sync(0xffffffff, ...))",
        "every warp operation names all the wave's lanes in its member mask instead of "
        "the lanes that are there: in divergent code, threads the mask names never come "
        "to it"),
    "member-mask-activemask": (
        "CUDA C++ Programming Guide, __activemask (independent thread scheduling)",
        "every warp operation takes __activemask() as its member mask: the threads the "
        "hardware happens to run together, which since Volta need not be the ones "
        "maximal reconvergence puts there"),
    "reduce-64-as-32": (
        "CUDA C++ Programming Guide, __reduce_add_sync (32-bit operands only)",
        "a 64-bit wave_sum goes through the 32-bit __reduce_add_sync: the high words "
        "are lost"),
    "ballot-low-word": (
        "NOTES: subgroups (ballots are uvec4)",
        "ballot() keeps only the first 32 bits of the subgroup ballot: lanes 32-63 "
        "vanish"),
    "elect-lane0": (
        "NOTES: subgroups (the active set)",
        "elect() is lane() == 0 instead of the lowest active lane"),
    "readfirstlane-lane0": (
        "NOTES: subgroups (the active set)",
        "readfirstlane(x) broadcasts lane 0's x instead of the lowest active lane's "
        "(undefined when lane 0 is not active)"),
    "shuffle-inactive-lane": (
        "NOTES: subgroups (shuffle from an inactive lane is undefined)",
        "shuffle(x, src) does not check that lane src is active: it returns whatever "
        "the device's shuffle gives instead of 0"),
    "workgroup-memory-unzeroed": (
        "wgpu#4591 (workgroup memory zeroing: Vulkan zeroes it only with "
        "VK_KHR_zero_initialize_workgroup_memory, OpenCL and CUDA never)",
        "the translation leaves a group's workgroup arrays as the device hands them over "
        "instead of zeroing them: a group finds what an earlier group left"),
    "ghost-returns": (
        "docs/semantics.md, \"Workgroups in the translations\" (an emulated fault must "
        "not leave a barrier short of a workitem)",
        "in a kernel with barriers, a workitem that faults or returns leaves the kernel "
        "at once instead of following its group to each barrier: the rest of the group "
        "meets barriers it never reaches (undefined behaviour in OpenCL C)"),
    "barrier-warp-only": (
        "CUDA C++ Programming Guide, __syncwarp (a warp-level barrier where a block-level "
        "one is needed: code written for one warp, run in blocks of several)",
        "barrier() is __syncwarp over the lanes there instead of __syncthreads(): the "
        "other warps of the block have not necessarily written what a thread reads "
        "after it"),
    "float-bits-converted": (
        "issue: a float spill stored as an integer conversion (the same mistake in a "
        "translation: a value conversion where a bit cast is meant)",
        "an f32 loaded from a buffer (which holds its bits) is converted from the integer "
        "the bits spell, float(i), instead of reinterpreting them, intBitsToFloat(i)"),
    "zext-as-sext": (
        "docs/findings.md: lavapipe-sext-compare, nvidia-sext-shift (extension bugs)",
        "a conversion that widens an unsigned value goes through the signed type of its "
        "width: its sign bit is extended"),
    "unsigned-compare-signed": (
        "CLsmith/YARPGen's integer bug classes",
        "a comparison of unsigned values compares their bits as the signed type"),
    "shr-arithmetic-unsigned": (
        "CLsmith/YARPGen's integer bug classes",
        "`>>` of an unsigned value shifts it as the signed type of its width (arithmetic "
        "for logical)"),
    "narrow-add-unwrapped": (
        "C's integer promotions (a narrow sum computed in int and never truncated back)",
        "`+` and `-` of an 8- or 16-bit type keep the promoted 32-bit result"),
    "clz-ctz-zero": (
        "llvm.ctlz/cttz's zero_undef, CUDA __ffs(0) - 1",
        "clz(0) and ctz(0) give the width minus one"),
    "popcount-low-word": (
        "GLSL's bitCount of 32 bits used for a 64-bit value",
        "popcount of a 64-bit value counts its low 32 bits"),
    "mul-hi-signed": (
        "CUDA's __mulhi where __umulhi is meant",
        "mul_hi of unsigned values takes the high half of their signed product"),
    "f64-rounded-through-f32": (
        "brian2genn#18 (doubles demoted to float in the kernel code)",
        "f64 + - * and fma round their result to float and back"),
    "div-unchecked": (
        "docs/semantics.md: arithmetic",
        "a zero divisor is left to the target's language (WGSL: x / 0 == x, x % 0 == 0) "
        "instead of faulting"),
}


#: the integer-type mistakes, in the emitter every dialect shares (opencl-intel offers
#: them: its hunt measures them; `narrow-add-unwrapped` needs C's implicit narrowing,
#: where GLSL's would be a build error)
C_INTEGER_MUTANTS = ("zext-as-sext", "unsigned-compare-signed", "shr-arithmetic-unsigned",
                     "clz-ctz-zero", "popcount-low-word", "mul-hi-signed",
                     "narrow-add-unwrapped", "f64-rounded-through-f32")


def described(names: tuple[str, ...]) -> tuple[dict[str, str], dict[str, str]]:
    """(help, seed) tables for a target offering `names`."""
    return ({m: f"[translation] {MUTANTS[m][1]}" for m in names},
            {m: MUTANTS[m][0] for m in names})
