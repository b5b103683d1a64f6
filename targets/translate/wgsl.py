"""WGSL (through wgpu and naga), with the `subgroups` and 64-bit integer features.

WGSL's own rules that differ from the kernel language's, and what the translation does:
`x / 0 == x` and `x % 0 == 0` (the zero divisor is checked first and faults), shifts are
taken mod the width (masked explicitly anyway), out-of-bounds accesses are clamped or
dropped (every access is bounds-checked first and faults), parameters are immutable
(copied into variables), a constant index out of bounds is an error even where the
bounds check makes it unreachable (indices are kept non-negative), storage buffers cannot
be referenced from variables (buffer
values are binding ids, shader.py), atomics need atomic element types (an atomic buffer's
plain accesses use atomicLoad/atomicStore), and the subgroup operations take no bools and
there is no subgroupElect (the first active lane is the one whose index
subgroupBroadcastFirst returns). The kernels put wave operations in non-uniform control
flow on purpose; WGSL's uniformity analysis would reject them (its `subgroup_uniformity`
rule), but naga does not implement that rule (it rejects the rule's name in a
`diagnostic` directive too), so the text carries none: what a target's results there mean
is its reconvergence model's business.
"""

from __future__ import annotations

from difftest.core.ir import nodes as n
from difftest.core.ir.types import BOOL, I32, I64, U32, U64, Type

from .emit import UNCHECKED_SUBGROUPS, FunctionEmitter, Translator
from .shader import FIRST_BUFFER, PARAMS, STATUS, ShaderDialect


#: the vote of sync mode (emit.py). WGSL's uniformity analysis lets a barrier follow a
#: decision only on a uniform value: the answer comes through workgroupUniformLoad
_VOTE = [
    "var<workgroup> VT: array<atomic<i32>, 2>;",
    "var<workgroup> VU: i32;",
    "fn vote(c: i32) -> bool {",
    "    workgroupBarrier();",
    "    if (C.local_id == 0i) { atomicStore(&VT[0], 0i); atomicStore(&VT[1], 0i); }",
    "    workgroupBarrier();",
    "    if (c == 1i) { atomicOr(&VT[0], 1i); } else if (c == 0i) { atomicOr(&VT[1], 1i); }",
    "    workgroupBarrier();",
    "    if (C.local_id == 0i) {",
    "        let yes = atomicLoad(&VT[0]); let no = atomicLoad(&VT[1]);",
    "        VU = yes;",
    "        if (yes != 0i && no != 0i) { atomicAdd(&ST[1], 1li); }",
    "    }",
    "    return workgroupUniformLoad(&VU) != 0i;",
    "}",
]


class WGSL(ShaderDialect):
    name = "wgsl"
    ctx = "C."
    atomics_typed = True
    switch_continues = False  # (naga's rule for a `continue` inside a switch: not relied on)
    binds_wide_constants = True

    def switch_head(self, selector: str) -> str:
        return f"switch {selector} {{"

    def case_head(self, labels: list[str]) -> str:
        return f"case {', '.join(labels)}: {{" if labels else "default: {"

    def case_close(self) -> str:
        return "}"
    has_workgroups = True

    # ------------------------------------------------------------------ workgroups
    def barrier(self) -> str:
        return "storageBarrier(); workgroupBarrier();"

    def run_open(self) -> str:
        return "loop {"

    def run_close(self) -> str:
        return "break; }"

    def sync_loop_head(self, k: str, t: Type = I64) -> str:
        return f"for (; ; {k} = {k} + {self.lit(1, t)}) {{"

    def vote(self, choice: str) -> str:
        return f"vote({choice})"

    def local_load(self, tr: Translator, name: str, at: str) -> str:
        if name in tr.atomic_locals:
            return f"atomicLoad(&v_{name}[{at}])"
        return f"v_{name}[{at}]"

    def local_store(self, tr: Translator, name: str, at: str, value: str) -> str:
        if name in tr.atomic_locals:
            return f"atomicStore(&v_{name}[{at}], {value});"
        return f"v_{name}[{at}] = {value};"

    def local_atomic_add(self, fe: FunctionEmitter, ref: str, index: str, value: str,
                         elem: Type) -> None:
        fe.line(f"atomicAdd(&{ref}[{index}], {value});")

    def private_decl(self, name: str, elem: Type, length: int) -> str:
        return f"var {name}: array<{self.ty(elem)}, {length}>;"

    def private_index(self, x: str, t: Type, length: int) -> str:
        # checked already; the clamp keeps naga from rejecting a constant index past
        # the end in code the check makes unreachable
        return f"u32(clamp({x}, {self.lit(0, t)}, {self.lit(length - 1, t)}))"

    def zero_local(self, tr: Translator, a: n.LocalArray) -> str:
        return (f"for (var i: i32 = C.local_id; i < {a.length}i; i += {tr.group}i) "
                f"{{ {self.local_store(tr, a.name, 'i', self.zero(a.element))} }}")

    def ty(self, t: Type) -> str:
        return {I32: "i32", I64: "i64", U32: "u32", U64: "u64", BOOL: "bool"}[t]

    def uty(self, t: Type) -> str:
        return "u32" if t.bits == 32 else "u64"

    def lit(self, value: int | bool, t: Type) -> str:
        if t is BOOL:
            return "true" if value else "false"
        v = int(value)
        if not t.signed:  # an unsigned literal is never negative in WGSL: its bits
            v %= 1 << t.bits
        suffix = {I32: "i", I64: "li", U32: "u", U64: "lu"}[t]
        if t.signed and v == -(1 << (t.bits - 1)):  # no literal of MIN: -MAX - 1
            return f"({v + 1}{suffix} - 1{suffix})"
        return f"{v}{suffix}"

    def int_cast(self, x: str, have: Type, want: Type) -> str:
        """WGSL's own conversions, spelled so that none is a clamp: a bitcast within a
        width, an extension within a signedness, a mask before a narrowing."""
        if have.bits == want.bits:
            return f"bitcast<{self.ty(want)}>({x})"
        if have.bits < want.bits:  # 32 to 64: extended by the source's signedness
            wide = I64 if have.signed else U64
            got = f"{self.ty(wide)}({x})"
            return got if wide is want else f"bitcast<{self.ty(want)}>({got})"
        bits = x if have is U64 else f"bitcast<u64>({x})"
        low = f"u32({bits} & 0xfffffffflu)"
        return low if want is U32 else f"bitcast<i32>({low})"

    def let(self, name: str, t: Type, value: str) -> str:
        return f"let {name}: {self.ty(t)} = {value};"

    def var(self, name: str, t: Type, value: str) -> str:
        return f"var {name}: {self.ty(t)} = {value};"

    def to_u(self, x: str, t: Type) -> str:
        return f"bitcast<{self.uty(t)}>({x})"

    def from_u(self, x: str, t: Type) -> str:
        return f"bitcast<{self.ty(t)}>({x})"

    def widen(self, x: str) -> str:
        return f"i64({x})"

    def narrow(self, x: str) -> str:
        return f"bitcast<i32>(u32(bitcast<u64>({x}) & 0xfffffffflu))"

    def b2i(self, x: str, t: Type) -> str:
        return f"select({self.lit(0, t)}, {self.lit(1, t)}, {x})"

    def select(self, c: str, a: str, b: str) -> str:
        return f"select({b}, {a}, {c})"

    def shift_amount(self, b: str, t: Type, bits: int) -> str:
        return f"u32({b} & {self.lit(bits - 1, t)})"

    def bit_count(self, fe: FunctionEmitter, op: str, x: str, t: Type) -> str | None:
        # WGSL's bit functions of a u32 (of 0: clz and ctz give 32); a u64 from its
        # halves
        if t is U64:
            return None
        return {"popcount": "countOneBits", "clz": "countLeadingZeros",
                "ctz": "countTrailingZeros", "bit_reverse": "reverseBits"}[op] + f"({x})"

    def truncating(self, fe: FunctionEmitter, op: str, a: str, b: str, t: Type) -> str:
        if op == "%" and "srem" in fe.tr.avoid and t.signed:  # no OpSRem (AVOIDABLE)
            return f"({a} - ({a} / {b}) * {b})"
        return super().truncating(fe, op, a, b, t)

    def array_index(self, x: str, t: Type) -> str:
        # checked to be in bounds already; the max() keeps naga from rejecting a
        # constant negative index in code the check makes unreachable
        return f"u32(max({x}, {self.lit(0, t)}))"

    def convert(self, x: str, to: str) -> str:
        return f"{to}({x})"

    def lit_u32(self, v: int) -> str:
        return f"{v}u"

    def let_u32(self, name: str, value: str) -> str:
        return f"let {name}: u32 = {value};"

    def for_head(self, k: str, start: str, bound: str, t: Type = I64) -> str:
        return f"for (var {k}: {self.ty(t)} = {start}; {k} < {bound}; {k}++) {{"

    def loop_head(self) -> str:
        return "loop {"

    def function(self, name: str, params: list[tuple[str, str]], returns: str | None,
                 body: list[str]) -> str:
        head = ", ".join(f"{p}: {t}" for p, t in params)
        ret = f" -> {returns}" if returns else ""
        return f"fn {name}({head}){ret} {{\n" + "\n".join(body) + "\n}\n"

    def param_decls(self, fe: FunctionEmitter) -> list[tuple[str, str]]:
        out = []
        for p in fe.fn.params:
            if p.ty.is_buffer:
                out += [(f"p_{p.name}", "i32"), (f"pn_{p.name}", "i64")]
            else:
                out.append((f"p_{p.name}", self.ty(p.ty)))
        return out

    def param_prologue(self, fe: FunctionEmitter) -> list[str]:
        out = []
        for p in fe.fn.params:
            if p.ty.is_buffer:
                out.append(f"    var v_{p.name}: i32 = p_{p.name}; "
                           f"var n_{p.name}: i64 = pn_{p.name};")
            else:
                out.append(f"    var v_{p.name}: {self.ty(p.ty)} = p_{p.name};")
        return out

    def buffer_decl(self, fe: FunctionEmitter, name: str, t: Type) -> list[str]:
        return [f"var v_{name}: i32 = -1i; var n_{name}: i64 = 0li;"]

    def buffer_temp(self, fe: FunctionEmitter, t: Type) -> tuple[str, str]:
        ref, length = fe.fresh("p"), fe.fresh("l")
        fe.line(f"var {ref}: i32 = -1i; var {length}: i64 = 0li;")
        return ref, length

    def buffer_ref(self, k: int, index: str, atomic: bool) -> str:
        return f"mem{k}[{index}]"

    def atomic_load(self, k: int, index: str) -> str:
        return f"atomicLoad(&mem{k}[{index}])"

    def atomic_store(self, k: int, index: str, value: str) -> str:
        return f"atomicStore(&mem{k}[{index}], {value});"

    def atomic_add_stmt(self, k: int, index: str, value: str) -> str:
        return f"atomicAdd(&mem{k}[{index}], {value});"

    def atomic_rmw(self, fe: FunctionEmitter, op: str, location: str, value: str,
                   compare: str | None, elem: Type) -> str:
        """WGSL's atomic built-ins; compare_exchange from atomicCompareExchangeWeak, which
        may fail where the value matched: tried again until it exchanged or found another
        value (the strong one the semantics has)."""
        if op != "compare_exchange":
            name = {"exchange": "Exchange"}.get(op, op.capitalize())
            return f"atomic{name}(&{location}, {value})"
        old = fe.fresh("o")
        fe.line(f"var {old}: {self.ty(elem)};")
        fe.line("loop {")
        got = fe.fresh("r")
        fe.line(f"    let {got} = atomicCompareExchangeWeak(&{location}, {compare}, {value});")
        fe.line(f"    if ({got}.exchanged || {got}.old_value != {compare}) {{ "
                f"{old} = {got}.old_value; break; }}")
        fe.line("}")
        return old

    def switch_function(self, name: str, elem: Type, cases: list[tuple[int, str]],
                        default: str, takes_value: bool) -> str:
        t = self.ty(elem)
        params = f"id: i32, i: u32, v: {t}" if takes_value else "id: i32, i: u32"
        ret = "" if takes_value else f" -> {t}"
        lines = [f"fn {name}({params}){ret} {{", "    switch id {"]
        for k, stmt in cases:
            lines.append(f"        case {k}i: {{ {stmt} }}")
        lines.append(f"        default: {{ {default} }}")
        lines += ["    }"]
        if not takes_value:
            lines.append(f"    return {self.zero(elem)};")
        return "\n".join(lines + ["}", ""])

    # ------------------------------------------------------------------- subgroups
    def elect(self) -> str:
        return "(subgroupBroadcastFirst(u32(C.lane)) == u32(C.lane))"

    def let_ballot(self, name: str, predicate: str) -> str:
        return f"let {name}: vec4<u32> = subgroupBallot({predicate});"

    def ballot_bit(self, ballot: str, index: str) -> str:
        return f"((({ballot}[{index} / 32u] >> ({index} % 32u)) & 1u) == 1u)"

    def gather(self, call: str, x: str, ty: Type) -> str:
        if ty is BOOL:
            return f"({call.format(f'select(0u, 1u, {x})')} == 1u)"
        return call.format(x)

    # -------------------------------------------------------------------- program
    def param(self, i: int) -> str:
        return f"P[{i}]"

    def count_mismatch(self) -> str:
        return "atomicAdd(&ST[0], 1li);"

    def status_store(self, index: str, value: str) -> str:
        return f"atomicStore(&ST[u32({index})], {value});"

    def program(self, tr: Translator, functions: list[str]) -> str:
        lines = ["struct Ctx {",
                 "    kind: i32, code: i64, depth: i32, fdepth: i32,",
                 f"    fns: array<i32, {tr.depth}>, lns: array<i32, {tr.depth}>,",
                 "    gid: i32, lane: i32, wave: i32, trips: i64, budget: i64,",
                 "    done: i32, local_id: i32, group_id: i32, group_size: i32,",
                 "}",
                 "var<private> C: Ctx;",
                 f"@group(0) @binding({STATUS}) var<storage, read_write> ST: "
                 "array<atomic<i64>>;",
                 f"@group(0) @binding({PARAMS}) var<storage, read> P: array<i64>;"]
        for k, b in enumerate(tr.buffers):
            elem = self.ty(I32 if b.element.bits == 32 and not b.element.is_int
                           else b.element)
            if b.atomic:
                elem = f"atomic<{elem}>"
            lines.append(f"@group(0) @binding({FIRST_BUFFER + k}) var<storage, read_write> "
                         f"mem{k}: array<{elem}>;")
        for a in tr.local_arrays:
            elem = self.ty(a.element)
            if a.name in tr.atomic_locals:
                elem = f"atomic<{elem}>"
            lines.append(f"var<workgroup> v_{a.name}: array<{elem}, {a.length}>;")
        if tr.synchronising:
            lines += _VOTE
        lines.append("")
        body = "\n".join(functions)  # the accessors are known once these are emitted
        lines += self.accessor_functions(tr)
        per_group = tr.group // tr.wave if tr.workgroups else 1
        sg_ok = f"nsg == {per_group}u && sl < {tr.wave}u && ss == {tr.subgroup}u"
        entry = [f"@compute @workgroup_size({self.group_size(tr)})",
                 "fn main(@builtin(workgroup_id) wg: vec3<u32>, "
                 "@builtin(num_workgroups) nwg: vec3<u32>, "
                 "@builtin(local_invocation_index) li: u32, "
                 "@builtin(subgroup_invocation_id) sl: u32, "
                 "@builtin(subgroup_size) ss: u32, "
                 "@builtin(num_subgroups) nsg: u32, "
                 "@builtin(subgroup_id) sgi: u32) {"]
        lane = "i32(sl)" if not UNCHECKED_SUBGROUPS & tr.mutants else "i32(li)"
        wave = "i32(wg.y * nwg.x + wg.x)"
        if per_group > 1:
            wave = f"({wave} * {per_group}i + i32(sgi))"
        entry += self.entry_body(tr, wave, lane, sg_ok)
        return "\n".join(lines) + "\n" + body + "\n" + "\n".join(entry + ["}", ""])
