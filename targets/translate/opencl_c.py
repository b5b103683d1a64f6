"""OpenCL C: the dialect of the `opencl` targets (PoCL without subgroups; Intel's CPU
runtime with the cl_khr_subgroup_* extensions).

Buffer values are (pointer, length) pairs; the context is a private struct reached
through a pointer that every function takes first (OpenCL C has no private globals).
Subgroups: the kernel asks for work-groups of W items (`reqd_work_group_size`) and for
subgroups of S lanes (`intel_reqd_sub_group_size`, S = max(W, 4): a work-group of 1 or 2
items is a partial subgroup), and checks `get_sub_group_size() == W` and one subgroup
per work-group at run time.
Workgroups: work-groups of G items (`reqd_work_group_size(G)`) of G/W subgroups of
exactly W lanes; workgroup arrays are `__local` arrays of the kernel function (OpenCL C
allows them nowhere else), passed to the kernel's body with the vote's words; `barrier()`
is `barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE)`.
"""

from __future__ import annotations

from difftest.core.ir import nodes as n
from difftest.core.ir.types import BOOL, F32, F64, I8, I16, I32, I64, U8, U16, U32, U64, Type

from .emit import (HEADER, UNCHECKED_SUBGROUPS, Dialect, FunctionEmitter, Translator,
                   entry_checks, uses_f32, uses_f64)

#: work-group size of the `subgroup-size-unrequested` mutant (the device picks S)
MUTANT_GROUP = 64


class OpenCLC(Dialect):
    name = "opencl"
    ctx = "C->"
    has_workgroups = True

    def __init__(self, subgroups: bool) -> None:
        self.has_subgroups = subgroups

    TYPES = {I8: "char", U8: "uchar", I16: "short", U16: "ushort", I32: "int", U32: "uint",
             I64: "long", U64: "ulong", BOOL: "int", F32: "float", F64: "double"}
    #: literal suffixes of the types that have them (the narrow ones are cast)
    SUFFIX = {I64: "L", U32: "u", U64: "UL"}

    def ty(self, t: Type) -> str:
        return self.TYPES[t]

    # floats: binary32 and binary64 with denormals and NaN (the device's floating-point
    # configurations say so: targets/device/opencl_runner.py checks), contraction off
    # (the program's pragma), fma() correctly rounded (OpenCL C requires it of every
    # device, for double with cl_khr_fp64); f64 through cl_khr_fp64
    has_f32 = True
    has_f64 = True

    def flit(self, x: float, t: Type = F32) -> str:
        return f"({x.hex()}{'f' if t is F32 else ''})"  # exact: C99's hexadecimal float

    def f2bits(self, x: str, t: Type = F32) -> str:
        return f"as_int({x})" if t is F32 else f"as_long({x})"

    def bits2f(self, x: str, t: Type = F32) -> str:
        return f"as_float({x})" if t is F32 else f"as_double({x})"

    def ffma(self, a: str, b: str, c: str, t: Type = F32) -> str:
        return f"fma({a}, {b}, {c})"

    def uty(self, t: Type) -> str:
        """The unsigned type `+ - * <<` compute in: the width's, or 32 bits for a
        narrower one (whose operands C would otherwise promote to a signed int, where a
        product can overflow); the result is truncated back by `from_u`."""
        return self.ty(U64) if t.bits == 64 else self.ty(U32)

    def lit(self, value: int | bool, t: Type) -> str:
        if t is BOOL:
            return "1" if value else "0"
        v = int(value)
        if t is U64:
            v %= 1 << 64
        if t.bits < 32:
            return f"(({self.ty(t)})({v}))"
        suffix = self.SUFFIX.get(t, "")
        if t.signed and v == -(1 << (t.bits - 1)):  # no literal of MIN: -MAX - 1
            return f"({v + 1}{suffix} - 1{suffix})"
        return f"({v}{suffix})"

    def narrow(self, x: str) -> str:
        return f"((int)(uint)(ulong)({x}))"

    def bit_count(self, fe: FunctionEmitter, op: str, x: str, t: Type) -> str | None:
        # OpenCL C's popcount and clz (of 0: the width) take every integer type; its ctz
        # is OpenCL C 2.0's, so counted as the ones below the lowest set bit; no
        # bit_reverse (cl_khr_extended_bit_ops is optional): a u64 from its halves
        ut = self.ty(t)
        if op == "popcount":
            return f"popcount({x})"
        if op == "clz":
            return f"clz({x})"
        if op == "ctz":
            return f"popcount(({ut})(({x} & (({ut})0 - {x})) - ({ut})1))"
        return self.reverse32(fe, x) if t is U32 else None

    def b2i(self, x: str, t: Type) -> str:
        return f"(({self.ty(t)})({x} != 0))"

    def function(self, name: str, params: list[tuple[str, str]], returns: str | None,
                 body: list[str]) -> str:
        head = ", ".join(f"{t} {p}" for p, t in params)
        return f"{returns or 'void'} {name}({head}) {{\n" + "\n".join(body) + "\n}\n"

    def param_decls(self, fe: FunctionEmitter) -> list[tuple[str, str]]:
        out = [("C", "__private Ctx*")]
        for p in fe.fn.params:
            if p.ty.is_buffer:
                out += [(f"v_{p.name}", f"__global {self.ty(p.ty.element)}*"),
                        (f"n_{p.name}", "long")]
            else:
                out.append((f"v_{p.name}", self.ty(p.ty)))
        if fe.fn is fe.tr.kernel:
            out += [(f"v_{a.name}", f"__local {self.ty(a.element)}*")
                    for a in fe.tr.local_arrays]
            if fe.tr.synchronising:
                out.append(("VT", "__local int*"))
        return out

    def call_args(self, args: list[str]) -> list[str]:
        return ["C"] + args

    def buffer_decl(self, fe: FunctionEmitter, name: str, t: Type) -> list[str]:
        return [f"__global {self.ty(t.element)}* v_{name} = 0; long n_{name} = 0;"]

    def buffer_temp(self, fe: FunctionEmitter, t: Type) -> tuple[str, str]:
        ref, length = fe.fresh("p"), fe.fresh("l")
        fe.line(f"__global {self.ty(t.element)}* {ref} = 0; long {length} = 0;")
        return ref, length

    def load(self, fe: FunctionEmitter, var: str, ref: str, index: str, elem: Type) -> str:
        return f"{ref}[{index}]"

    def store(self, fe: FunctionEmitter, var: str, ref: str, index: str, value: str,
              elem: Type) -> None:
        fe.line(f"{ref}[{index}] = {value};")

    def atomic_add(self, fe: FunctionEmitter, var: str, ref: str, index: str, value: str,
                   elem: Type) -> None:
        if elem.bits == 32:
            fe.line(f"atomic_add((volatile __global uint*)({ref} + {index}), (uint){value});")
        else:
            fe.line(f"atom_add((volatile __global ulong*)({ref} + {index}), (ulong){value});")

    def atomic(self, fe: FunctionEmitter, op: str, var: str, ref: str, index: str,
               value: str, compare: str | None, elem: Type) -> str:
        return self._atomic("__global", op, ref, index, value, compare, elem)

    def local_atomic(self, fe: FunctionEmitter, op: str, ref: str, index: str, value: str,
                     compare: str | None, elem: Type) -> str:
        return self._atomic("__local", op, ref, index, value, compare, elem)

    def _atomic(self, space: str, op: str, ref: str, index: str, value: str,
                compare: str | None, elem: Type) -> str:
        """OpenCL 1.2's atomic_* on 32 bits; on 64, cl_khr_int64_base_atomics' atom_add,
        atom_xchg, atom_cmpxchg and cl_khr_int64_extended_atomics' atom_min ... atom_xor
        (min and max by the pointer's signedness)."""
        t = ("int" if elem.signed else "uint") if elem.bits == 32 else (
            "long" if elem.signed else "ulong")
        name = ("atomic_" if elem.bits == 32 else "atom_") + _CL_ATOMICS[op]
        args = [f"(volatile {space} {t}*)({ref} + {index})"]
        if compare is not None:
            args.append(f"({t})({compare})")
        args.append(f"({t})({value})")
        return f"(({self.ty(elem)}){name}({', '.join(args)}))"

    # ------------------------------------------------------------------ workgroups
    def barrier(self) -> str:
        return "barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);"

    def run_close(self) -> str:
        return "} while (0);"

    def vote(self, choice: str) -> str:
        return f"vote(C, VT, {choice})"

    def local_atomic_add(self, fe: FunctionEmitter, ref: str, index: str, value: str,
                         elem: Type) -> None:
        if elem.bits == 32:
            fe.line(f"atomic_add((volatile __local uint*)({ref} + {index}), (uint){value});")
        else:
            fe.line(f"atom_add((volatile __local ulong*)({ref} + {index}), (ulong){value});")

    # ------------------------------------------------------------------- subgroups
    def ballot_function(self, fe: FunctionEmitter, op: str, m: str) -> str | None:
        if not self.has_subgroups:
            return None
        fn = {"ballot_bit_count": "sub_group_ballot_bit_count",
              "ballot_inclusive_bit_count": "sub_group_ballot_inclusive_scan",
              "ballot_exclusive_bit_count": "sub_group_ballot_exclusive_scan",
              "ballot_find_lsb": "sub_group_ballot_find_lsb",
              "ballot_find_msb": "sub_group_ballot_find_msb"}[op]
        return f"((int){fn}((uint4)((uint){m}, (uint)({m} >> 32), 0u, 0u)))"

    def wave_op(self, fe: FunctionEmitter, e: n.WaveOp, args: list[str]) -> str:
        if not self.has_subgroups:
            return super().wave_op(fe, e, args)
        op, ty, m = e.op, e.ty, fe.mutants
        assert ty is not None
        if op == "elect":
            if "elect-lane0" in m:
                return fe.temp(BOOL, "(C->lane == 0)")
            return fe.temp(BOOL, "(sub_group_elect() != 0)")
        x = args[0]
        if n.clustered(e):
            # cl_khr_subgroup_non_uniform_arithmetic's and cl_khr_subgroup_clustered_reduce's
            w = fe.tr.wave
            cluster = min(n.cluster_of(e), w)
            what = {"wave_sum": "add", "wave_min": "min", "wave_max": "max",
                    "wave_and": "and", "wave_or": "or", "wave_xor": "xor"}[op]
            operand = f"(({self.uty(ty)}){x})" if op == "wave_sum" else x
            call = (f"sub_group_non_uniform_reduce_{what}({operand})" if cluster >= w else
                    f"sub_group_clustered_reduce_{what}({operand}, {cluster}u)")
            return fe.temp(ty, f"(({self.ty(ty)}){call})")
        if op == "wave_all_equal":  # cl_khr_subgroup_non_uniform_vote's
            operand = f"((int){x})" if e.args[0].ty is BOOL else x
            return fe.temp(BOOL, f"(sub_group_non_uniform_all_equal({operand}) != 0)")
        if op in ("wave_sum", "prefix_sum", "inclusive_sum"):
            fn = {"wave_sum": "reduce_add", "prefix_sum": "scan_exclusive_add",
                  "inclusive_sum": "scan_inclusive_add"}[op]
            return fe.temp(ty, f"(({self.ty(ty)})sub_group_non_uniform_{fn}"
                               f"(({self.uty(ty)}){x}))")
        if op in ("wave_min", "wave_max"):
            return fe.temp(ty, f"sub_group_non_uniform_reduce_{op[5:]}({x})")
        if op in ("wave_any", "wave_all"):
            return fe.temp(BOOL, f"(sub_group_non_uniform_{op[5:]}({x}) != 0)")
        if op == "ballot":
            b = fe.fresh("b")
            fe.line(f"uint4 {b} = sub_group_ballot({x});")
            if "ballot-low-word" in m:
                return fe.temp(I64, f"((long)(ulong){b}.x)")
            return fe.temp(I64, f"((long)((ulong){b}.x | ((ulong){b}.y << 32)))")
        if op == "readfirstlane":
            if "readfirstlane-lane0" in m:
                return fe.temp(ty, f"sub_group_non_uniform_broadcast({x}, 0u)")
            return fe.temp(ty, f"sub_group_broadcast_first({x})")
        assert op == "shuffle" or op in n.RELATIVE_SHUFFLES or op in n.QUAD_OPS, op
        src = fe.quad_source(op, e) if op in n.QUAD_OPS else args[1]
        if op in n.RELATIVE_SHUFFLES:  # its source lane, from the lane and the amount
            at = e.args[1].ty
            assert at is not None
            src = fe.relative_source(op, args[1], at)
        w = fe.tr.wave
        act = fe.fresh("b")
        fe.line(f"uint4 {act} = sub_group_ballot(1);")
        in_range = fe.temp(BOOL, f"({src} >= 0 && {src} < {w})")
        idx = fe.temp(I32, f"({in_range} ? {src} : C->lane)")
        if "shuffle-inactive-lane" in m:
            ok = in_range
        else:
            ok = fe.temp(BOOL, f"({in_range} && sub_group_ballot_bit_extract({act}, "
                               f"(uint){idx}) != 0)")
        if op in n.RELATIVE_SHUFFLES:  # the extensions' own, by 0 where there is no
            # lane to read (cl_khr_subgroup_shuffle, cl_khr_subgroup_shuffle_relative)
            got = fe.temp(ty, f"sub_group_{op}({x}, (uint)({ok} ? {args[1]} : 0))")
        else:
            got = fe.temp(ty, f"sub_group_shuffle({x}, (uint)({ok} ? {idx} : C->lane))")
        return fe.temp(ty, f"({ok} ? {got} : {self.zero(ty)})")

    # -------------------------------------------------------------------- program
    def program(self, tr: Translator, functions: list[str]) -> str:
        prelude = [
            "#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable",
            *(["#pragma OPENCL EXTENSION cl_khr_int64_extended_atomics : enable"]
              if _wide_ordered_atomics(tr.program, tr.entry) else []),
            *(["#pragma OPENCL EXTENSION cl_khr_fp64 : enable"]
              if uses_f64(tr.program, tr.entry) else []),
            *(["#pragma OPENCL FP_CONTRACT OFF"] if uses_f32(tr.program, tr.entry) else []),
            "typedef struct {",
            "    int kind; long code; int depth; int fdepth;",
            f"    int fns[{tr.depth}]; int lns[{tr.depth}];",
            "    int gid; int lane; int wave; long trips; long budget;",
            "    int done; int local_id; int group_id; int group_size; __global long* st;",
            "} Ctx;",
            "",
        ]
        if tr.synchronising:
            prelude += _VOTE
        return "\n".join(prelude) + "\n".join(functions) + "\n" + self.entry(tr)

    def entry(self, tr: Translator) -> str:
        checks = entry_checks(tr)
        w, s, g = tr.wave, tr.subgroup, tr.group
        params = ["__global long* ST", "long N", "long BUDGET"]
        args = []
        for p in tr.params:
            if p.ty.is_buffer:
                params += [f"__global {self.ty(p.ty.element)}* v_{p.name}",
                           f"long n_{p.name}"]
                args += [f"v_{p.name}", f"n_{p.name}"]
            else:
                params.append(f"{self.ty(p.ty)} v_{p.name}")
                args.append(f"v_{p.name}")
        head = []
        body = ["    Ctx ctx = {0};", "    __private Ctx* C = &ctx;"]
        body += [f"    __local {self.ty(a.element)} l_{a.name}[{a.length}];"
                 for a in tr.local_arrays]
        args += [f"l_{a.name}" for a in tr.local_arrays]
        if tr.synchronising:
            body.append("    __local int VT[2];")
            args.append("VT")
        if tr.workgroups and self.has_subgroups and checks["subgroups_checked"]:
            head = [f"__attribute__((reqd_work_group_size({g}, 1, 1)))",
                    f"__attribute__((intel_reqd_sub_group_size({s})))"]
            body += ["    int lane = (int)get_sub_group_local_id();",
                     f"    int wave = (int)get_group_id(0) * {g // w} + "
                     "(int)get_sub_group_id();",
                     f"    if (get_sub_group_size() != {w} || get_num_sub_groups() != "
                     f"{g // w}) {{ atom_inc((volatile __global long*)ST); return; }}"]
        elif not self.has_subgroups:
            body += ["    long g = (long)get_global_id(0);",
                     f"    int lane = (int)(g % {w}); int wave = (int)(g / {w});"]
        elif checks["subgroups_checked"]:
            head = [f"__attribute__((reqd_work_group_size({w}, 1, 1)))",
                    f"__attribute__((intel_reqd_sub_group_size({s})))"]
            body += ["    int lane = (int)get_sub_group_local_id();",
                     "    int wave = (int)get_group_id(0);",
                     f"    if (get_sub_group_size() != {w} || get_num_sub_groups() != 1) "
                     "{ atom_inc((volatile __global long*)ST); return; }"]
        else:  # the mutant: the device's subgroups are assumed to be the waves
            body += ["    long g = (long)get_global_id(0);",
                     f"    int lane = (int)(g % {w}); int wave = (int)(g / {w});"]
        body += [f"    long gid = (long)wave * {w} + lane;"]
        if tr.workgroups:
            body += [f"    C->local_id = (int)(gid % {g}); C->group_id = (int)(gid / {g}); "
                     f"C->group_size = {g}; C->st = ST;"]
            if checks["zero_locals"]:
                body += [f"    for (int i = C->local_id; i < {a.length}; i += {g}) "
                         f"l_{a.name}[i] = 0;" for a in tr.local_arrays]
            if tr.local_arrays:
                body.append("    barrier(CLK_LOCAL_MEM_FENCE);")
        if checks["retire_past_n"]:
            # in a kernel with barriers, a workitem past n is a ghost (emit.py)
            body.append("    if (gid >= N) C->done = 1;" if checks["past_n_ghosts"]
                        else "    if (gid >= N) return;")
        body += ["    C->gid = (int)gid; C->lane = lane; C->wave = wave; C->budget = BUDGET;",
                 f"    f_{tr.entry}({', '.join(['C'] + args)});",
                 "    if (gid >= N) return;",
                 f"    __global long* r = ST + {HEADER} + gid * {tr.row};",
                 "    r[0] = C->kind; r[1] = C->code; r[2] = C->fdepth;",
                 "    for (int i = 0; i < C->fdepth; i++) "
                 "{ r[3 + 2 * i] = C->fns[i]; r[4 + 2 * i] = C->lns[i]; }"]
        return "\n".join(head + [f"__kernel void k_{tr.entry}({', '.join(params)}) {{"]
                         + body + ["}", ""])


#: the atomics that return, as OpenCL C spells them after `atomic_` / `atom_`
_CL_ATOMICS = {"add": "add", "min": "min", "max": "max", "and": "and", "or": "or",
               "xor": "xor", "exchange": "xchg", "compare_exchange": "cmpxchg"}


def _wide_ordered_atomics(program: n.Program, entry: str) -> bool:
    """Whether an atomic that returns works on 64 bits (cl_khr_int64_extended_atomics
    has min, max, and, or, xor)."""
    from difftest.core.ir.walk import reachable, walk

    return any(isinstance(x, n.AtomicOp) and x.ty is not None and x.ty.bits == 64
               for f in reachable(program, entry) for x in walk(f.body))


_VOTE = [
    "int vote(__private Ctx* C, __local int* V, int c) {",
    "    barrier(CLK_LOCAL_MEM_FENCE);",
    "    if (C->local_id == 0) { V[0] = 0; V[1] = 0; }",
    "    barrier(CLK_LOCAL_MEM_FENCE);",
    "    if (c == 1) { atomic_or(V, 1); } else if (c == 0) { atomic_or(V + 1, 1); }",
    "    barrier(CLK_LOCAL_MEM_FENCE);",
    "    int yes = V[0]; int no = V[1];",
    "    if (yes != 0 && no != 0 && C->local_id == 0) "
    "{ atom_inc((volatile __global long*)(C->st + 1)); }",
    "    return yes != 0;",
    "}",
    "",
]


def launch_shape(tr_wave: int, n_items: int, subgroups: bool, mutants: frozenset[str],
                 group: int | None = None) -> tuple[int, int | None]:
    """(global size, local size) of a launch of n items in waves of W (in workgroups of
    `group` items, for a kernel that uses workgroups)."""
    if group is not None and not (subgroups and UNCHECKED_SUBGROUPS & mutants):
        return -(-n_items // group) * group, group
    if not subgroups:
        return n_items, None
    if "subgroup-size-unrequested" in mutants:
        group = max(MUTANT_GROUP, tr_wave)
        return -(-n_items // group) * group, group
    return -(-n_items // tr_wave) * tr_wave, tr_wave
