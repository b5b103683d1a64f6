"""GLSL 4.60 for Vulkan (compiled by glslangValidator), with the KHR subgroup extensions
and 64-bit integers.

GLSL's own rules that differ from the kernel language's, and what the translation does:
integer division by zero is undefined, and so are `%` with a negative operand and
`MIN / -1` (both computed here on magnitudes, in unsigned arithmetic, then signed back:
truncation toward zero spelled out); shifts by the width or more are undefined (masked);
out-of-bounds accesses are undefined (every access is bounds-checked first and faults);
globals are not initialised (the context is, field by field, in `main`); storage buffers
cannot be referenced from variables (buffer values are binding ids, shader.py); indices
are 32-bit (converted after the bounds check, and kept non-negative for glslang, which
rejects a constant negative index even where the check makes it unreachable).

f32 (docs/semantics.md, "32-bit floats", "Real targets"): every float variable is
`precise` (glslang decorates its operations NoContraction: no fused multiply-add), the
runner asks the device for signed zeros, infinities and NaNs, round to nearest even and,
where it can, subnormals (SPIR-V float controls: vulkan_runner.float_controlled). `fma`
is not Vulkan's (whose precision is that of a multiply then an add): `fma_rn` computes it
in binary64, where the product is exact, with the sum rounded to odd, so that the one
rounding to binary32 is the correctly rounded result (Boldo and Melquiond, "Emulation of
FMA and correctly rounded sums: proved algorithms using rounding to odd", 2008). Buffers
of f32 hold the bits (an `int` array, as the host moves them).
"""

from __future__ import annotations

from difftest.core import f32, f64
from difftest.core.ir import nodes as n
from difftest.core.ir.types import BOOL, F32, F64, I8, I16, I32, I64, U8, U16, U32, U64, Type
from difftest.core.ir.walk import int_types_used

from .emit import UNCHECKED_SUBGROUPS, FunctionEmitter, Translator, Unsupported
from .shader import FIRST_BUFFER, PARAMS, STATUS, ShaderDialect

EXTENSIONS = ("GL_KHR_shader_subgroup_basic", "GL_KHR_shader_subgroup_vote",
              "GL_KHR_shader_subgroup_arithmetic", "GL_KHR_shader_subgroup_ballot",
              "GL_KHR_shader_subgroup_shuffle", "GL_KHR_shader_subgroup_shuffle_relative",
              "GL_KHR_shader_subgroup_quad", "GL_KHR_shader_subgroup_clustered",
              "GL_EXT_shader_explicit_arithmetic_types_int64",
              "GL_EXT_shader_subgroup_extended_types_int64", "GL_EXT_shader_atomic_int64")
#: what a program of 8- or 16-bit integers asks for besides (arithmetic, storage, and
#: subgroup operations of the width: the device's shaderInt8/Int16, 8/16-bit storage
#: buffer access and shaderSubgroupExtendedTypes features, which the runner enables)
NARROW_EXTENSIONS = {8: ("GL_EXT_shader_explicit_arithmetic_types_int8",
                         "GL_EXT_shader_8bit_storage",
                         "GL_EXT_shader_subgroup_extended_types_int8"),
                     16: ("GL_EXT_shader_explicit_arithmetic_types_int16",
                          "GL_EXT_shader_16bit_storage",
                          "GL_EXT_shader_subgroup_extended_types_int16")}


#: `fma(a, b, c)` rounded once, for finite operands through binary64 rounded to odd (the
#: sum's error by TwoSum: a sum that was not exact and came out even moves one unit
#: toward the error); any other operand gives the binary64 result, already exact
_FMA = [
    "float fma_rn(float a, float b, float c) {",
    "    precise double p = double(a) * double(b);",
    "    precise double s = p + double(c);",
    "    if (isinf(a) || isnan(a) || isinf(b) || isnan(b) || isinf(c) || isnan(c)) {",
    "        return float(s);",
    "    }",
    "    precise double t = s - p;",
    "    precise double e = (p - (s - t)) + (double(c) - t);",
    "    int64_t bits = doubleBitsToInt64(s);",
    "    if (e != 0.0lf && (bits & 1l) == 0l) {",
    "        bits += ((e > 0.0lf) == (s > 0.0lf)) ? 1l : -1l;",
    "    }",
    "    return float(int64BitsToDouble(bits));",
    "}",
]

#: the vote of sync mode (emit.py): whether any live workitem of the group says yes; a
#: vote where live ones say both is counted in the status header's word 1
_VOTE = [
    "bool vote(int c) {",
    "    barrier();",
    "    if (C.local_id == 0) { VT[0] = 0; VT[1] = 0; }",
    "    memoryBarrierShared(); barrier();",
    "    if (c == 1) { atomicOr(VT[0], 1); } else if (c == 0) { atomicOr(VT[1], 1); }",
    "    memoryBarrierShared(); barrier();",
    "    int yes = VT[0]; int no = VT[1];",
    "    if (yes != 0 && no != 0 && C.local_id == 0) { atomicAdd(ST.d[1], 1l); }",
    "    return yes != 0;",
    "}",
]


class GLSL(ShaderDialect):
    name = "glsl"
    ctx = "C."
    has_workgroups = True

    TYPES = {I8: "int8_t", U8: "uint8_t", I16: "int16_t", U16: "uint16_t", I32: "int",
             U32: "uint", I64: "int64_t", U64: "uint64_t", BOOL: "bool", F32: "float",
             F64: "double"}
    #: 8- and 16-bit integers are native (SPIR-V's Int8 and Int16: arithmetic wraps at
    #: the width), their subgroup operations too
    narrow_subgroups = True
    native_relative_shuffles = True
    native_quads = True

    def ty(self, t: Type) -> str:
        return self.TYPES[t]

    def __init__(self, mutants: frozenset[str] = frozenset(),
                 features: frozenset[str] = frozenset()) -> None:
        super().__init__()
        self.mutants = mutants
        # the device's clustered subgroup operations (VK_SUBGROUP_FEATURE_CLUSTERED_BIT;
        # Mesa 22's lavapipe has none): without them, composed of shuffles
        self.native_clustered = "clustered" in features
        self.helpers: set[str] = set()  # functions the program needs (fma_rn)

    def let(self, name: str, t: Type, value: str) -> str:
        return ("precise " if t.is_float else "") + f"{self.ty(t)} {name} = {value};"

    var = let

    # ------------------------------------------------------------------------ floats
    has_f32 = True
    #: f64 (shaderFloat64, with the 64-bit float controls): all but fma, which Vulkan
    #: computes as a multiply then an add (the Vulkan target declines it)
    has_f64 = True

    def flit(self, x: float, t: Type = F32) -> str:
        if t is F64:  # by its bits: exact, whatever the front end's decimal reading
            if x == 0.0:
                return "(-0.0lf)" if f64.to_bits(x) < 0 else "(0.0lf)"
            return f"int64BitsToDouble({self.lit(f64.to_bits(x), I64)})"
        bits = f32.to_bits(x)
        if x == 0.0:
            return "(-0.0)" if bits < 0 else "(0.0)"
        if abs(x) >= 2.0 ** -126:
            # binary64's shortest decimal of the value: read back as that binary64
            # exactly, which binary32 holds (no second rounding)
            return f"({x!r})"
        return f"intBitsToFloat({self.lit(bits, I32)})"  # a subnormal, by its bits

    def f2bits(self, x: str, t: Type = F32) -> str:
        return f"floatBitsToInt({x})" if t is F32 else f"doubleBitsToInt64({x})"

    def bits2f(self, x: str, t: Type = F32) -> str:
        return f"intBitsToFloat({x})" if t is F32 else f"int64BitsToDouble({x})"

    def loaded_f32(self, bits: str, elem: Type = F32) -> str:
        if "float-bits-converted" in self.mutants:  # the integer's value, not its bits
            return f"{self.ty(elem)}({bits})"
        return self.bits2f(bits, elem)

    def ffma(self, a: str, b: str, c: str, t: Type = F32) -> str:
        if t is F64:
            raise Unsupported("fma() of f64: Vulkan computes it as a multiply then an add")
        self.helpers.add("fma")
        return f"fma_rn({a}, {b}, {c})"

    def i2f(self, x: str, t: Type, to: Type = F32) -> str:
        return f"{self.ty(to)}({x})"

    def f2i(self, x: str, t: Type) -> str:
        return f"{self.ty(t)}({x})"

    def uty(self, t: Type) -> str:
        return self.TYPES[{8: U8, 16: U16, 32: U32, 64: U64}[t.bits]]

    def lit(self, value: int | bool, t: Type) -> str:
        if t is BOOL:
            return "true" if value else "false"
        v = int(value)
        if t is U64:
            v %= 1 << 64
        if t.bits < 32:  # no literal of the type: a constructor of an int's
            return f"{self.ty(t)}({v})"
        suffix = {I32: "", U32: "u", I64: "l", U64: "ul"}[t]
        if t.signed and v == -(1 << (t.bits - 1)):  # no literal of MIN: -MAX - 1
            return f"({v + 1}{suffix} - 1{suffix})"
        return f"({v}{suffix})"

    def int_cast(self, x: str, have: Type, want: Type) -> str:
        return f"{self.ty(want)}({x})"

    def bit_count(self, fe: FunctionEmitter, op: str, x: str, t: Type) -> str | None:
        # GLSL's bit functions take 32-bit integers only: a u64 from its halves
        if t is U64:
            return None
        if op == "popcount":
            return f"uint(bitCount({x}))"
        if op == "clz":  # findMSB(0) is -1
            return f"uint(31 - findMSB({x}))"
        if op == "ctz":  # findLSB(0) is -1
            return f"(({x}) == 0u ? 32u : uint(findLSB({x})))"
        return f"bitfieldReverse({x})"

    def to_u(self, x: str, t: Type) -> str:
        return f"{self.uty(t)}({x})"

    def from_u(self, x: str, t: Type) -> str:
        return f"{self.ty(t)}({x})"

    def widen(self, x: str) -> str:
        return f"int64_t({x})"

    def narrow(self, x: str) -> str:
        return f"int(uint(uint64_t({x}) & 0xfffffffful))"

    def b2i(self, x: str, t: Type) -> str:
        return f"({x} ? {self.lit(1, t)} : {self.lit(0, t)})"

    def shift_amount(self, b: str, t: Type, bits: int) -> str:
        return f"int({b} & {self.lit(bits - 1, t)})"

    def private_index(self, x: str, t: Type, length: int) -> str:
        # checked already; the clamp keeps glslang from rejecting a constant index past
        # the end in code the check makes unreachable
        return f"int(clamp({x}, {self.lit(0, t)}, {self.lit(length - 1, t)}))"

    def array_index(self, x: str, t: Type) -> str:
        # checked to be in bounds already; the max() keeps glslang from rejecting a
        # constant negative index in code the check makes unreachable
        return f"int(max({x}, {self.lit(0, t)}))"

    def convert(self, x: str, to: str) -> str:
        return f"{'uint' if to == 'u32' else to}({x})"

    def lit_u32(self, v: int) -> str:
        return f"{v}u"

    def let_u32(self, name: str, value: str) -> str:
        return f"uint {name} = {value};"

    def truncating(self, fe: FunctionEmitter, op: str, a: str, b: str, t: Type) -> str:
        if not t.signed:
            return f"{a} {'/' if op == '//' else '%'} {b}"
        u = self.uty(t)
        zero = self.to_u(self.lit(0, t), t)
        ua = fe.fresh("u")
        fe.line(f"{u} {ua} = {a} < {self.lit(0, t)} ? {zero} - {u}({a}) : {u}({a});")
        ub = fe.fresh("u")
        fe.line(f"{u} {ub} = {b} < {self.lit(0, t)} ? {zero} - {u}({b}) : {u}({b});")
        if op == "//":
            q = fe.fresh("u")
            fe.line(f"{u} {q} = {ua} / {ub};")
            negative = f"(({a} < {self.lit(0, t)}) != ({b} < {self.lit(0, t)}))"
            return self.from_u(f"{negative} ? {zero} - {q} : {q}", t)
        r = fe.fresh("u")
        fe.line(f"{u} {r} = {ua} % {ub};")
        return self.from_u(f"{a} < {self.lit(0, t)} ? {zero} - {r} : {r}", t)

    def function(self, name: str, params: list[tuple[str, str]], returns: str | None,
                 body: list[str]) -> str:
        head = ", ".join(f"{t} {p}" for p, t in params)
        return f"{returns or 'void'} {name}({head}) {{\n" + "\n".join(body) + "\n}\n"

    def param_decls(self, fe: FunctionEmitter) -> list[tuple[str, str]]:
        out = []
        for p in fe.fn.params:
            if p.ty.is_buffer:
                out += [(f"v_{p.name}", "int"), (f"n_{p.name}", "int64_t")]
            else:
                out.append((f"v_{p.name}", self.ty(p.ty)))
        return out

    def buffer_decl(self, fe: FunctionEmitter, name: str, t: Type) -> list[str]:
        return [f"int v_{name} = -1; int64_t n_{name} = 0l;"]

    def buffer_temp(self, fe: FunctionEmitter, t: Type) -> tuple[str, str]:
        ref, length = fe.fresh("p"), fe.fresh("l")
        fe.line(f"int {ref} = -1; int64_t {length} = 0l;")
        return ref, length

    def buffer_ref(self, k: int, index: str, atomic: bool) -> str:
        return f"mem{k}.d[{index}]"

    def atomic_load(self, k: int, index: str) -> str:
        return self.buffer_ref(k, index, True)

    def atomic_store(self, k: int, index: str, value: str) -> str:
        return f"{self.buffer_ref(k, index, True)} = {value};"

    def atomic_add_stmt(self, k: int, index: str, value: str) -> str:
        return f"atomicAdd(mem{k}.d[{index}], {value});"

    def atomic_rmw(self, fe: FunctionEmitter, op: str, location: str, value: str,
                   compare: str | None, elem: Type) -> str:
        """GL_KHR_vulkan_glsl's atomic functions (64 bits: GL_EXT_shader_atomic_int64);
        min and max by the element type's signedness."""
        if op == "compare_exchange":
            return f"atomicCompSwap({location}, {compare}, {value})"
        name = {"exchange": "Exchange"}.get(op, op.capitalize())
        return f"atomic{name}({location}, {value})"

    def switch_function(self, name: str, elem: Type, cases: list[tuple[int, str]],
                        default: str, takes_value: bool) -> str:
        t = self.ty(elem)
        params = f"int id, int i, {t} v" if takes_value else "int id, int i"
        ret = "void" if takes_value else t
        lines = [f"{ret} {name}({params}) {{", "    switch (id) {"]
        for k, stmt in cases:
            lines.append(f"        case {k}: {{ {stmt} break; }}")
        lines.append(f"        default: {{ {default} break; }}")
        lines.append("    }")
        if not takes_value:
            lines.append(f"    return {self.zero(elem)};")
        return "\n".join(lines + ["}", ""])

    # ------------------------------------------------------------------ workgroups
    def barrier(self) -> str:
        return "memoryBarrierShared(); memoryBarrierBuffer(); barrier();"

    def vote(self, choice: str) -> str:
        return f"vote({choice})"

    def local_atomic_add(self, fe: FunctionEmitter, ref: str, index: str, value: str,
                         elem: Type) -> None:
        fe.line(f"atomicAdd({ref}[{index}], {value});")

    def zero_local(self, tr: Translator, a: n.LocalArray) -> str:
        return (f"for (int i = C.local_id; i < {a.length}; i += {tr.group}) "
                f"{{ v_{a.name}[i] = {self.zero(a.element)}; }}")

    # ------------------------------------------------------------------- subgroups
    def elect(self) -> str:
        return "subgroupElect()"

    def quad_call(self, op: str, e: n.WaveOp) -> str:
        if op == "quad_broadcast":
            return f"subgroupQuadBroadcast({{}}, {self.lit_u32(n.quad_lane(e))})"
        return {"quad_swap_horizontal": "subgroupQuadSwapHorizontal({})",
                "quad_swap_vertical": "subgroupQuadSwapVertical({})",
                "quad_swap_diagonal": "subgroupQuadSwapDiagonal({})"}[op]

    def all_equal(self, fe: FunctionEmitter, x: str, t: Type | None) -> str:
        return f"subgroupAllEqual({x})"

    def let_ballot(self, name: str, predicate: str) -> str:
        return f"uvec4 {name} = subgroupBallot({predicate});"

    def ballot_function(self, fe: FunctionEmitter, op: str, m: str) -> str | None:
        fn = {"ballot_bit_count": "subgroupBallotBitCount",
              "ballot_inclusive_bit_count": "subgroupBallotInclusiveBitCount",
              "ballot_exclusive_bit_count": "subgroupBallotExclusiveBitCount",
              "ballot_find_lsb": "subgroupBallotFindLSB",
              "ballot_find_msb": "subgroupBallotFindMSB"}[op]
        return f"int({fn}(uvec4(uint({m}), uint({m} >> 32), 0u, 0u)))"

    def ballot_bit(self, ballot: str, index: str) -> str:
        return f"subgroupBallotBitExtract({ballot}, {index})"

    # -------------------------------------------------------------------- program
    def param(self, i: int) -> str:
        return f"P.d[{i}]"

    def count_mismatch(self) -> str:
        return "atomicAdd(ST.d[0], 1l);"

    def status_store(self, index: str, value: str) -> str:
        return f"ST.d[int({index})] = {value};"

    def init_context(self) -> list[str]:
        return ["C.kind = 0; C.code = 0l; C.depth = 0; C.fdepth = 0; C.trips = 0l; "
                "C.done = 0;"]

    def program(self, tr: Translator, functions: list[str]) -> str:
        widths = {t.bits for t in int_types_used(tr.program, tr.entry)}
        extensions = EXTENSIONS + tuple(e for bits in (8, 16) if bits in widths
                                        for e in NARROW_EXTENSIONS[bits])
        lines = ["#version 460"] + [f"#extension {e} : require" for e in extensions]
        lines += [f"layout(local_size_x = {self.group_size(tr)}) in;",
                  "struct Ctx {",
                  "    int kind; int64_t code; int depth; int fdepth;",
                  f"    int fns[{tr.depth}]; int lns[{tr.depth}];",
                  "    int gid; int lane; int wave; int64_t trips; int64_t budget;",
                  "    int done; int local_id; int group_id; int group_size;",
                  "};",
                  # zero in its declaration too: a reducer that cuts main()'s
                  # assignments leaves it defined
                  "Ctx C = Ctx(0, 0l, 0, 0, {0}, {0}, 0, 0, 0, 0l, 0l, 0, 0, 0, 0);".format(
                      f"int[{tr.depth}](" + ", ".join(["0"] * tr.depth) + ")"),
                  f"layout(std430, set = 0, binding = {STATUS}) buffer Status "
                  "{ int64_t d[]; } ST;",
                  f"layout(std430, set = 0, binding = {PARAMS}) readonly buffer Params "
                  "{ int64_t d[]; } P;"]
        for k, b in enumerate(tr.buffers):
            elem = self.ty(I32 if b.element is F32 else I64 if b.element is F64 else b.element)
            lines.append(f"layout(std430, set = 0, binding = {FIRST_BUFFER + k}) buffer "
                         f"B{k} {{ {elem} d[]; }} mem{k};")
        lines += [f"shared {self.ty(a.element)} v_{a.name}[{a.length}];"
                  for a in tr.local_arrays]
        if tr.synchronising:
            lines += ["shared int VT[2];"] + _VOTE
        if "fma" in self.helpers:
            lines += _FMA
        lines.append("")
        body = "\n".join(functions)
        lines += self.accessor_functions(tr)
        per_group = tr.group // tr.wave if tr.workgroups else 1
        sg_ok = (f"gl_NumSubgroups == {per_group}u && gl_SubgroupInvocationID < {tr.wave}u "
                 f"&& gl_SubgroupSize == {tr.subgroup}u")
        lane = ("int(gl_SubgroupInvocationID)" if not UNCHECKED_SUBGROUPS & tr.mutants
                else "int(gl_LocalInvocationIndex)")
        wave = "int(gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x)"
        if per_group > 1:
            wave = f"({wave} * {per_group} + int(gl_SubgroupID))"
        entry = ["void main() {"]
        entry += self.entry_body(tr, wave, lane, sg_ok)
        return "\n".join(lines) + "\n" + body + "\n" + "\n".join(entry + ["}", ""])
