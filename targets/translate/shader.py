"""What the two shader languages (WGSL, GLSL) share: storage buffers bound by number,
buffer values as (binding id, length), a parameter buffer, and the entry point.

Bindings: 0 the status buffer (i64; its header word is counted atomically), 1 the
parameters (i64: n, the trip budget, then per kernel parameter its length or value), 2 +
k the kernel's k-th buffer parameter. A shader cannot hold a pointer to a storage buffer
in a variable, so a buffer value is its binding's id: an access through a variable that
`emit.buffer_flow` proves holds one buffer is bound directly, any other goes through an
accessor that switches on the id. A buffer that some `atomic_add` may touch is declared
atomic where the language needs it (WGSL), and every access to it is atomic there.

The workgroups: a 2-D grid of waves (65,535 a row), W invocations each, which must form
one subgroup of S lanes (W < S: a partial subgroup) -- checked at run time.
"""

from __future__ import annotations

from difftest.core.ir import nodes as n
from difftest.core.ir.types import BOOL, F32, F64, I32, I64, U32, Type, int_range

from .emit import HEADER, Dialect, FunctionEmitter, Translator, Unsupported, entry_checks

ROW_GROUPS = 65535  # workgroups per grid row
#: workgroup size of the `subgroup-size-unrequested` mutant
MUTANT_GROUP = 64
STATUS, PARAMS, FIRST_BUFFER = 0, 1, 2


def groups(waves: int) -> tuple[int, int]:
    """The (x, y) grid of workgroups for `waves` waves."""
    return min(waves, ROW_GROUPS), max(1, -(-waves // ROW_GROUPS))


def group_of(wave: int, mutants: frozenset[str], group: int = 0) -> int:
    """The workgroup size of a launch in waves of `wave`: one wave (one subgroup), or
    `group` items for a kernel that uses workgroups."""
    if "subgroup-size-unrequested" in mutants:
        return max(MUTANT_GROUP, wave)
    return group or wave


def stored(elem: Type) -> Type:
    """The type a buffer of `elem` holds: a float's bits as an i32 (i64 for an f64), else
    the element."""
    return I32 if elem is F32 else I64 if elem is F64 else elem


def accessor(kind: str, elem: Type) -> str:
    """The name of the id-switching accessor of `kind` (ld, st, aa) for buffers of
    `elem`: by width for i32 (and f32's bits) and i64, by type for the others."""
    t = stored(elem)
    return f"{kind}{t.bits}" if t in (I32, I64) else f"{kind}_{t.value}"


def dispatch_shape(wave: int, n_items: int, mutants: frozenset[str], group: int = 0
                   ) -> tuple[int, int]:
    return groups(-(-n_items // group_of(wave, mutants, group)))


class ShaderDialect(Dialect):
    """The parts of WGSL and GLSL translation that differ only in spelling."""

    #: shuffle_xor/up/down as the language's own shuffles (GLSL's take any amount; WGSL's
    #: want it uniform, so WGSL reads the computed source lane with subgroupShuffle)
    native_relative_shuffles = False
    switch_splits_values = True  # (SPIR-V's OpSwitch)

    def __init__(self) -> None:
        self.accessors: set[tuple[str, Type]] = set()  # (load|store|add, storage) needed

    # the spellings a subclass gives
    def buffer_ref(self, k: int, index: str, atomic: bool) -> str:
        raise NotImplementedError

    def atomic_load(self, k: int, index: str) -> str:
        raise NotImplementedError

    def atomic_store(self, k: int, index: str, value: str) -> str:
        raise NotImplementedError

    def atomic_add_stmt(self, k: int, index: str, value: str) -> str:
        raise NotImplementedError

    def id_lit(self, k: int) -> str:
        return self.lit(k, I32)

    # ---------------------------------------------------------------- buffer access
    def _targets(self, fe: FunctionEmitter, var: str) -> list[int]:
        return sorted(fe.tr.flow.get((fe.fn.name, var), frozenset()))

    def load(self, fe: FunctionEmitter, var: str, ref: str, index: str, elem: Type) -> str:
        ks = self._targets(fe, var)
        if len(ks) == 1:
            got = self._load_k(fe.tr, ks[0], index)
        else:
            self.accessors.add(("load", stored(elem)))
            got = f"{accessor('ld', elem)}({ref}, {index})"
        # a float buffer holds bits
        return self.loaded_f32(got, elem) if elem.is_float else got

    def loaded_f32(self, bits: str, elem: Type = F32) -> str:
        """The float whose bits a buffer element holds."""
        return self.bits2f(bits, elem)

    def _load_k(self, tr: Translator, k: int, index: str) -> str:
        if tr.buffers[k].atomic and self.atomics_typed:
            return self.atomic_load(k, index)
        return self.buffer_ref(k, index, False)

    def store(self, fe: FunctionEmitter, var: str, ref: str, index: str, value: str,
              elem: Type) -> None:
        if elem.is_float:
            value = self.f2bits(value, elem)
        ks = self._targets(fe, var)
        if len(ks) == 1:
            fe.line(self._store_k(fe.tr, ks[0], index, value))
            return
        self.accessors.add(("store", stored(elem)))
        fe.line(f"{accessor('st', elem)}({ref}, {index}, {value});")

    def _store_k(self, tr: Translator, k: int, index: str, value: str) -> str:
        if tr.buffers[k].atomic and self.atomics_typed:
            return self.atomic_store(k, index, value)
        return f"{self.buffer_ref(k, index, False)} = {value};"

    def atomic_add(self, fe: FunctionEmitter, var: str, ref: str, index: str, value: str,
                   elem: Type) -> None:
        ks = self._targets(fe, var)
        if len(ks) == 1:
            fe.line(self.atomic_add_stmt(ks[0], index, value))
            return
        self.accessors.add(("add", stored(elem)))
        fe.line(f"{accessor('aa', elem)}({ref}, {index}, {value});")

    def atomic(self, fe: FunctionEmitter, op: str, var: str, ref: str, index: str,
               value: str, compare: str | None, elem: Type) -> str:
        ks = self._targets(fe, var)
        if len(ks) != 1:
            raise Unsupported(f"atomic_{op}() through a buffer reference that may name "
                              f"{len(ks)} buffers (the translation names each buffer)")
        return self.atomic_rmw(fe, op, self.buffer_ref(ks[0], index, True), value,
                               compare, elem)

    def local_atomic(self, fe: FunctionEmitter, op: str, ref: str, index: str, value: str,
                     compare: str | None, elem: Type) -> str:
        return self.atomic_rmw(fe, op, f"{ref}[{index}]", value, compare, elem)

    def atomic_rmw(self, fe: FunctionEmitter, op: str, location: str, value: str,
                   compare: str | None, elem: Type) -> str:
        """The atomic that returns on `location` (a buffer's or an array's element)."""
        raise NotImplementedError

    atomics_typed = False  # WGSL: atomic buffers have atomic element types

    def accessor_functions(self, tr: Translator) -> list[str]:
        """The id-switching accessors the functions used."""
        out = []
        for kind, elem in sorted(self.accessors, key=lambda x: (x[0], x[1].value)):
            ks = [k for k, b in enumerate(tr.buffers) if stored(b.element) is elem]
            if kind == "load":
                cases = [(k, f"return {self._load_k(tr, k, 'i')};") for k in ks]
                out.append(self.switch_function(accessor("ld", elem), elem, cases,
                                                f"return {self.zero(elem)};", False))
            elif kind == "store":
                cases = [(k, self._store_k(tr, k, "i", "v")) for k in ks]
                out.append(self.switch_function(accessor("st", elem), elem, cases, "", True))
            else:
                cases = [(k, self.atomic_add_stmt(k, "i", "v")) for k in ks
                         if tr.buffers[k].atomic]
                out.append(self.switch_function(accessor("aa", elem), elem, cases, "", True))
        return out

    def switch_function(self, name: str, elem: Type, cases: list[tuple[int, str]],
                        default: str, takes_value: bool) -> str:
        raise NotImplementedError

    # -------------------------------------------------------------------- the entry
    def entry_body(self, tr: Translator, wave: str, lane: str, sg_ok: str) -> list[str]:
        """The entry point's statements, given how it spells the wave index, the lane
        index and the subgroup check (each an expression)."""
        checks = entry_checks(tr)
        w, c = tr.wave, self.ctx
        out = []
        out += self.init_context()
        if checks["subgroups_checked"]:
            out.append(f"if (!({sg_ok})) {{ {self.count_mismatch()} return; }}")
            out.append(self.let("wv", I32, wave))
            out.append(self.let("ln", I32, lane))
        else:  # the mutant: the device's subgroups are assumed to be the waves
            flat = f"({self.widen(wave)} * {self.lit(group_of(w, tr.mutants), I64)} + " \
                   f"{self.widen(lane)})"
            out.append(self.let("fl", I64, flat))
            out.append(self.let("wv", I32, self.narrow(f"fl / {self.lit(w, I64)}")))
            out.append(self.let("ln", I32, self.narrow(f"fl % {self.lit(w, I64)}")))
        out.append(self.let("gid", I64, f"{self.widen('wv')} * {self.lit(w, I64)} + "
                                        f"{self.widen('ln')}"))
        out.append(self.let("nn", I64, self.param(0)))
        if tr.workgroups:
            g = self.lit(tr.group, I64)
            out.append(f"{c}local_id = {self.narrow(f'gid % {g}')}; "
                       f"{c}group_id = {self.narrow(f'gid / {g}')}; "
                       f"{c}group_size = {self.lit(tr.group, I32)};")
            if checks["zero_locals"]:
                out += [self.zero_local(tr, a) for a in tr.local_arrays]
            if tr.local_arrays:
                out.append(self.barrier())
        if checks["retire_past_n"]:
            if checks["past_n_ghosts"]:
                out.append(f"if (gid >= nn) {{ {c}done = 1; }}")  # a ghost (emit.py)
            else:
                out.append("if (gid >= nn) { return; }")
        out.append(f"{c}gid = {self.narrow('gid')}; {c}lane = ln; {c}wave = wv; "
                   f"{c}budget = {self.param(1)};")
        args = []
        k = 0
        for i, p in enumerate(tr.params):
            value = self.param(2 + i)
            if p.ty.is_buffer:
                args += [self.id_lit(k), value]
                k += 1
            elif p.ty is I64:
                args.append(value)
            elif p.ty is I32:
                args.append(self.narrow(value))
            elif p.ty.is_int:  # its storage form: a u64 as its bits
                args.append(self.int_cast(value, I64, p.ty))
            elif p.ty is F32:  # its bits
                args.append(self.bits2f(self.narrow(value)))
            elif p.ty is F64:
                args.append(self.bits2f(value, F64))
            else:
                args.append(f"({value} != {self.lit(0, I64)})")
        out.append(f"f_{tr.entry}({', '.join(args)});")
        out.append("if (gid >= nn) { return; }")
        out.append(self.let("r", I64, f"{self.lit(HEADER, I64)} + gid * "
                                      f"{self.lit(tr.row, I64)}"))
        out.append(self.status_store("r", f"{self.widen(f'{c}kind')}"))
        out.append(self.status_store(f"r + {self.lit(1, I64)}", f"{c}code"))
        out.append(self.status_store(f"r + {self.lit(2, I64)}", self.widen(f"{c}fdepth")))
        for i in range(tr.depth):
            out.append(f"if ({c}fdepth > {i}) {{ "
                       + self.status_store(f"r + {self.lit(3 + 2 * i, I64)}",
                                           self.widen(f"{c}fns[{i}]")) + " "
                       + self.status_store(f"r + {self.lit(4 + 2 * i, I64)}",
                                           self.widen(f"{c}lns[{i}]")) + " }")
        return ["    " + x for x in out]

    def init_context(self) -> list[str]:
        return []

    def zero_local(self, tr: Translator, a: n.LocalArray) -> str:
        """The statement by which each workitem zeroes its stride of a workgroup array."""
        raise NotImplementedError

    def opaque_zero(self, tr: Translator) -> str:
        # the parameter buffer's last word, 0 (the targets append it)
        return self.param(2 + len(tr.params))

    def param(self, i: int) -> str:
        raise NotImplementedError

    def count_mismatch(self) -> str:
        raise NotImplementedError

    def status_store(self, index: str, value: str) -> str:
        raise NotImplementedError

    def group_size(self, tr: Translator) -> int:
        return group_of(tr.wave, tr.mutants, tr.group if tr.workgroups else 0)

    # ------------------------------------------------------------------- subgroups
    def wave_op(self, fe: FunctionEmitter, e: n.WaveOp, args: list[str]) -> str:
        op, ty, m = e.op, e.ty, fe.mutants
        assert ty is not None
        c = self.ctx
        if op == "elect":
            if "elect-lane0" in m:
                return fe.temp(BOOL, f"({c}lane == {self.lit(0, I32)})")
            return fe.temp(BOOL, self.elect())
        x = args[0]
        if n.clustered(e):
            return self.reduction(fe, e, x, ty)
        if op == "wave_all_equal":
            return fe.temp(BOOL, self.all_equal(fe, x, e.args[0].ty))
        if op in ("wave_sum", "prefix_sum", "inclusive_sum"):
            fn = {"wave_sum": "subgroupAdd", "prefix_sum": "subgroupExclusiveAdd",
                  "inclusive_sum": "subgroupInclusiveAdd"}[op]
            return fe.temp(ty, self.from_u(f"{fn}({self.to_u(x, ty)})", ty))
        if op in ("wave_min", "wave_max"):
            fn = f"subgroup{op[5:].capitalize()}"
            if "minmax-unsigned" in m:  # the sums' unsigned type, carried over by mistake
                return fe.temp(ty, self.from_u(f"{fn}({self.to_u(x, ty)})", ty))
            return fe.temp(ty, f"{fn}({x})")
        if op in ("wave_any", "wave_all"):
            return fe.temp(BOOL, f"subgroup{op[5:].capitalize()}({x})")
        if op == "ballot":
            b = fe.fresh("b")
            fe.line(self.let_ballot(b, x))
            u64 = self.uty(I64)
            if "ballot-low-word" in m:
                return fe.temp(I64, self.from_u(self.convert(f"{b}.x", u64), I64))
            return fe.temp(I64, self.from_u(
                f"{self.convert(f'{b}.x', u64)} | ({self.convert(f'{b}.y', u64)} << "
                f"{self.lit_u32(32)})", I64))
        if op == "readfirstlane":
            if "readfirstlane-lane0" in m:
                return fe.temp(ty, self.gather(f"subgroupBroadcast({{}}, {self.lit_u32(0)})",
                                               x, ty))
            return fe.temp(ty, self.gather("subgroupBroadcastFirst({})", x, ty))
        assert op == "shuffle" or op in n.RELATIVE_SHUFFLES or op in n.QUAD_OPS, op
        src = fe.quad_source(op, e) if op in n.QUAD_OPS else args[1]
        st = I32 if op in n.QUAD_OPS else e.args[1].ty
        assert st is not None
        if op in n.RELATIVE_SHUFFLES:  # its source lane, from the lane and the amount
            src, st = fe.relative_source(op, args[1], st), I64
        act = fe.fresh("b")
        fe.line(self.let_ballot(act, self.lit(True, BOOL)))
        in_range = fe.temp(BOOL, f"({src} >= {self.lit(0, st)} && {src} < "
                                 f"{self.lit(fe.tr.wave, st)})")
        lane_u = self.convert(f"{c}lane", "u32")
        idx = fe.fresh()
        fe.line(self.let_u32(idx, self.select(in_range, self.convert(src, "u32"), lane_u)))
        if "shuffle-inactive-lane" in m:
            ok = in_range
        else:
            ok = fe.temp(BOOL, f"({in_range} && {self.ballot_bit(act, idx)})")
        if op in n.RELATIVE_SHUFFLES and self.native_relative_shuffles:
            # the language's own (subgroupShuffleXor, Up, Down), by 0 where the source
            # is no lane to read: the lane's own, always there
            got = self.native_relative_shuffle(fe, op, e.args[1], args[1], src, ok, x, ty)
            return fe.temp(ty, self.select(ok, got, self.zero(ty)))
        if op in n.QUAD_OPS and self.native_quads:  # the language's own; a source not
            # active gives an undefined value, replaced by 0
            got = fe.temp(ty, self.gather(self.quad_call(op, e), x, ty))
            return fe.temp(ty, self.select(ok, got, self.zero(ty)))
        got = fe.temp(ty, self.gather(f"subgroupShuffle({{}}, "
                                      f"{self.select(ok, idx, lane_u)})", x, ty))
        return fe.temp(ty, self.select(ok, got, self.zero(ty)))

    def native_relative_shuffle(self, fe: FunctionEmitter, op: str, amount: n.Expr,
                                spelled: str, src: str, ok: str, x: str, ty: Type) -> str:
        """`x` from the lane `src` (where `ok`) by subgroupShuffleXor, Up or Down. Up and
        Down take an unsigned delta, and a lane past the subgroup's ends is undefined, not
        wrapped (NVIDIA's driver gives the lane's own value for `Down` by 2^32 - 1): a
        source below the lane is read by Up, one above by Down, each by the distance --
        decided here where the amount is a literal, else by both and a select."""
        zero = self.lit_u32(0)
        if op == "shuffle_xor":
            mask = self.select(ok, self.convert(spelled, "u32"), zero)
            return fe.temp(ty, self.gather(f"subgroupShuffleXor({{}}, {mask})", x, ty))
        lane = fe.widen(f"{fe.c}lane", I32, I64)

        def distance(below: bool) -> str:
            return fe.temp(U32, self.convert(f"({lane} - {src})" if below
                                             else f"({src} - {lane})", "u32"))

        if isinstance(amount, n.Const):
            reads_below = (int(amount.value) > 0) == (op == "shuffle_up")
            fn = "Up" if reads_below else "Down"
            return fe.temp(ty, self.gather(
                f"subgroupShuffle{fn}({{}}, {self.select(ok, distance(reads_below), zero)})",
                x, ty))
        up, down = distance(True), distance(False)
        below = fe.temp(BOOL, f"({src} < {lane})")
        from_up = fe.temp(ty, self.gather(
            f"subgroupShuffleUp({{}}, {self.select(f'({ok} && {below})', up, zero)})", x, ty))
        from_down = fe.temp(ty, self.gather(
            f"subgroupShuffleDown({{}}, {self.select(f'({ok} && !{below})', down, zero)})",
            x, ty))
        return fe.temp(ty, self.select(below, from_up, from_down))

    #: the quad operations as the language's own (subgroupQuadBroadcast, ...), else as a
    #: shuffle from the computed lane
    native_quads = False

    def quad_call(self, op: str, e: n.WaveOp) -> str:
        """The language's quad operation `op` of `{}`."""
        raise NotImplementedError

    #: the clustered reductions as the language's own (subgroupClusteredAdd, ...) for a
    #: cluster smaller than the wave, else composed of shuffles
    native_clustered = False

    def reduction(self, fe: FunctionEmitter, e: n.WaveOp, x: str, ty: Type) -> str:
        """A bitwise or clustered reduction: over the whole wave (a cluster of W lanes or
        more is the wave) by the language's subgroupAnd, ..., subgroupAdd; over clusters
        by its clustered ones where it has them, else by shuffles."""
        w = fe.tr.wave
        cluster = min(n.cluster_of(e), w)
        name = {"wave_sum": "Add", "wave_min": "Min", "wave_max": "Max", "wave_and": "And",
                "wave_or": "Or", "wave_xor": "Xor"}[e.op]
        if cluster >= w:
            if e.op == "wave_sum":
                return fe.temp(ty, self.from_u(f"subgroupAdd({self.to_u(x, ty)})", ty))
            return fe.temp(ty, f"subgroup{name}({x})")
        if self.native_clustered:
            size = self.lit_u32(cluster)
            if e.op == "wave_sum":
                return fe.temp(ty, self.from_u(
                    f"subgroupClusteredAdd({self.to_u(x, ty)}, {size})", ty))
            return fe.temp(ty, f"subgroupClustered{name}({x}, {size})")
        return self.clustered_by_shuffles(fe, e.op, x, ty, cluster)

    def clustered_by_shuffles(self, fe: FunctionEmitter, op: str, x: str, ty: Type,
                              cluster: int) -> str:
        """A reduction over the lane's cluster of `cluster` lanes: each lane of it read
        by subgroupShuffle (every active lane runs every read, the same count), kept
        where that lane is active."""
        c = self.ctx
        act = fe.fresh("b")
        fe.line(self.let_ballot(act, self.lit(True, BOOL)))
        base = fe.temp(I32, f"({c}lane & {self.lit(-cluster, I32)})")
        lo, hi = int_range(ty)
        # each reduction's identity, a value of `ty` (all ones: -1 signed, MAX unsigned)
        start = {"wave_min": hi, "wave_max": lo, "wave_and": hi if not ty.signed else -1
                 }.get(op, 0)
        acc = fe.mutable(ty, self.lit(start, ty))
        j = fe.fresh("j")
        fe.open(self.for_head(j, self.lit(0, I32), self.lit(cluster, I32), I32))
        src = fe.fresh()
        fe.line(self.let_u32(src, self.convert(f"({base} + {j})", "u32")))
        got = fe.temp(ty, self.gather(f"subgroupShuffle({{}}, {src})", x, ty))
        inside = self.ballot_bit(act, src)
        combined = {"wave_sum": self.from_u(f"({self.to_u(acc, ty)} + {self.to_u(got, ty)})",
                                            ty),
                    "wave_min": self.select(f"({got} < {acc})", got, acc),
                    "wave_max": self.select(f"({got} > {acc})", got, acc),
                    "wave_and": f"({acc} & {got})", "wave_or": f"({acc} | {got})",
                    "wave_xor": f"({acc} ^ {got})"}[op]
        fe.line(f"{acc} = {self.select(inside, combined, acc)};")
        fe.close()
        return fe.temp(ty, acc)

    def all_equal(self, fe: FunctionEmitter, x: str, t: Type | None) -> str:
        """wave_all_equal: whether every active lane's `x` is the lowest one's."""
        first = fe.temp(t or BOOL, self.gather("subgroupBroadcastFirst({})", x, t or BOOL))
        return f"subgroupAll({x} == {first})"

    def elect(self) -> str:
        raise NotImplementedError

    def let_ballot(self, name: str, predicate: str) -> str:
        raise NotImplementedError

    def ballot_bit(self, ballot: str, index: str) -> str:
        raise NotImplementedError

    def convert(self, x: str, to: str) -> str:
        """A value conversion to a type spelled `to` ("u32" is the 32-bit unsigned)."""
        raise NotImplementedError

    def lit_u32(self, v: int) -> str:
        raise NotImplementedError

    def let_u32(self, name: str, value: str) -> str:
        raise NotImplementedError

    def gather(self, call: str, x: str, ty: Type) -> str:
        """`call` (with `{}` for the operand) applied to `x`; a bool travels as 0/1 where
        the language's subgroup operations take no bools."""
        return call.format(x)
