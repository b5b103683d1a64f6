"""Control-flow graphs and liveness over lowered code (virtual registers).

Two CFGs over the same instructions:
- physical: what the wave executes (fall-through and jumps);
- logical: what one lane executes (the program's own CFG; `Lowered.logical` overrides).

`live_in`/`live_out` are per-lane liveness over the logical CFG: right for masked writes,
which touch only the lanes that are on that path. `parked[i]` holds the values live in
lanes that are *inactive* at i but still need them later (they wait at a parking point of
an enclosing region); an all-lane write at i must not clobber those. Together they are
the liveness rule (docs/semantics.md). `whole[i]` holds the values an all-lane
instruction reads later (every lane's copy), live over the physical CFG: any write at i
must leave them alone. `live_any(i) = live_out[i] | parked[i] | whole[i]`.

Sets are Python ints used as bitsets (bit v = virtual register v).
"""

from __future__ import annotations

from dataclasses import dataclass

from . import mutants
from .isa import ALWAYS_ALL_LANES, Op, WRITES_VREG
from .lower import Instr, Label, Lowered, Region

_USES_A = {Op.NEG, Op.NOT, Op.LNOT, Op.WRAP, Op.MOV, Op.LEN, Op.ALLOC, Op.FAIL, Op.M_FROMCOND,
           Op.SET_INACTIVE, Op.WWM_SUM, Op.WWM_MIN, Op.WWM_MAX, Op.WWM_OR, Op.WWM_AND,
           Op.WWM_BALLOT, Op.WWM_SCAN_EXCL, Op.WWM_SCAN_INCL, Op.READFIRST, Op.SPILL}
_USES_AB = {Op.ADD, Op.SUB, Op.MUL, Op.DIV, Op.REM, Op.AND, Op.OR, Op.XOR, Op.SHL, Op.SHR,
            Op.CMP_EQ, Op.CMP_NE, Op.CMP_LT, Op.CMP_LE, Op.CMP_GT, Op.CMP_GE, Op.LOAD,
            Op.SHUFFLE}
_USES_ABC = {Op.STORE, Op.ATOMIC_ADD}
#: ops that read other lanes of a source while writing the destination
CROSS_LANE = frozenset({Op.SHUFFLE, Op.WWM_SUM, Op.WWM_MIN, Op.WWM_MAX, Op.WWM_OR,
                        Op.WWM_AND, Op.WWM_BALLOT, Op.WWM_SCAN_EXCL, Op.WWM_SCAN_INCL,
                        Op.READFIRST})


def uses(ins: Instr) -> list[int]:
    out = operands(ins)
    if ins.keeps:
        out = out + [ins.d]
    if ins.deopt_uses:
        out = out + list(ins.deopt_uses)
    return out


_ARITY = {**dict.fromkeys(_USES_A, 1), **dict.fromkeys(_USES_AB, 2),
          **dict.fromkeys(_USES_ABC, 3)}


def operands(ins: Instr) -> list[int]:
    """The source registers an instruction names (without the `keeps` self-use)."""
    k = _ARITY.get(ins.op, 0)
    if k == 0:
        return []
    if k == 2:
        return [ins.a, ins.b]
    return [ins.a] if k == 1 else [ins.a, ins.b, ins.c]


def defs(ins: Instr) -> int | None:
    return ins.d if ins.op in WRITES_VREG else None


def all_lanes(ins: Instr) -> bool:
    """Whether the instruction writes its destination in every lane."""
    return ins.op in ALWAYS_ALL_LANES or ins.wm == 1


@dataclass
class Flow:
    instrs: list[Instr]
    label_at: dict[int, int]  # id(Label) -> instruction index
    physical: list[list[int]]
    logical: list[list[int]]
    # per instruction, its `defs`, `uses` and `operands` (each pass over a round's code
    # reads them), and its uses and def as bitsets (what liveness reads)
    defined: list[int | None]
    used: list[list[int]]
    reads: list[list[int]]
    use_bits: list[int]
    def_bits: list[int]


def flow(code: list[Instr | Label], overrides: dict[int, list[Label]]) -> Flow:
    """The code's flow from scratch: a compilation's first (later allocation rounds work
    theirs out from the round before's: `after_spill`)."""
    instrs: list[Instr] = []
    label_at: dict[int, int] = {}
    for item in code:
        if isinstance(item, Label):
            label_at[id(item)] = len(instrs)
        else:
            instrs.append(item)
    end = len(instrs)
    f = Flow(instrs, label_at, [], [], [], [], [], [], [])
    halt, jmp, jz = Op.HALT, Op.JMP, (Op.JZ_EXEC, Op.JZ_MASK)
    for i, ins in enumerate(instrs):
        op = ins.op
        if op == halt:
            succ = []
        elif op == jmp or op in jz:
            assert ins.target is not None
            t = label_at[id(ins.target)]
            succ = [s for s in ((t,) if op == jmp else (i + 1, t)) if s < end]
        else:
            succ = [i + 1] if i + 1 < end else []
        f.physical.append(succ)
        if id(ins) in overrides:
            f.logical.append([label_at[id(lab)] for lab in overrides[id(ins)]])
        else:
            f.logical.append(succ)
        r, u, ub, d, db = _facts(ins)
        f.reads.append(r)
        f.used.append(u)
        f.use_bits.append(ub)
        f.defined.append(d)
        f.def_bits.append(db)
    return f


@dataclass
class Liveness:
    flow: Flow
    live_in: list[int]
    live_out: list[int]
    parked: list[int]
    whole: list[int]  # values some all-lane instruction reads later, live in every lane

    def live_any(self, i: int) -> int:
        return self.live_out[i] | self.parked[i] | self.whole[i]


def _reads_every_lane(ins: Instr) -> bool:
    """Whether an instruction reads its operands in every lane, inactive ones too (an
    all-lane op; SET_INACTIVE reads only the active lanes, and a spill's temporary
    carries its inactive lanes by itself)."""
    return ins.op not in (Op.SET_INACTIVE, Op.SPILL) and all_lanes(ins)


def _whole_wave(f: Flow) -> list[int]:
    """Liveness over the *physical* CFG of the values all-lane instructions read: every
    lane's copy is read there, so the value must survive in every lane on every path
    the wave executes from its def to that read -- through arms and iterations other
    lanes take (a whole-wave value kept across divergence, as compilers keep the lane
    id). Per-lane liveness would let a masked write in another arm clobber it."""
    n = len(f.instrs)
    use_bits = [0] * n
    for i, ins in enumerate(f.instrs):
        if f.reads[i] and _reads_every_lane(ins):
            for u in f.reads[i]:
                use_bits[i] |= 1 << u
    tracked = 0
    for b in use_bits:
        tracked |= b
    if not tracked or mutants.on("whole-wave-read-not-live"):
        return [0] * n
    # correct code defines these values in all lanes; a masked def (a mutant's) leaves
    # garbage, which is the bug
    kill = [d & tracked for d in f.def_bits]
    return _backward(f.physical, use_bits, kill)[1]


def _backward(succs: list[list[int]], use_bits: list[int], def_bits: list[int]
              ) -> tuple[list[int], list[int]]:
    """Backward liveness to a fixed point over the CFG `succs`: (live_in, live_out).
    Sweeps the code last to first (code is laid out mostly forward, so a sweep carries
    liveness up a whole loop-free stretch) until no back edge (a successor at or before
    its instruction, read before this sweep reached it) saw a live-in that has changed
    since -- then a sweep would change nothing, and is not run. Cheaper in Python than a
    worklist and its predecessor lists, and the same least fixed point."""
    n = len(succs)
    live_in, live_out = [0] * n, [0] * n
    keep = [~d for d in def_bits]
    back = [(i, s) for i in range(n) for s in succs[i] if s <= i]
    while True:
        for i in range(n - 1, -1, -1):
            out = 0
            for s in succs[i]:
                out |= live_in[s]
            live_out[i] = out
            live_in[i] = use_bits[i] | (out & keep[i])
        # a back edge's source read its target's live-in from the sweep before
        if all(live_in[s] & ~live_out[i] == 0 for i, s in back):
            return live_in, live_out


def liveness(f: Flow, regions: list[Region]) -> Liveness:
    n = len(f.instrs)
    live_in, live_out = _backward(f.logical, f.use_bits, f.def_bits)
    parked = [0] * n
    dropped = {kind for name, kind in _DROPS.items() if mutants.on(name)}
    for r in regions:
        if r.kind in dropped:
            continue
        start, stop = f.label_at[id(r.start)], f.label_at[id(r.end)]
        waiting = live_in[f.label_at[id(r.parked)]] if f.label_at[id(r.parked)] < n else 0
        if not waiting:
            continue
        for i in range(start, stop):
            parked[i] |= waiting
    return Liveness(f, live_in, live_out, parked, _whole_wave(f))


def after_spill(live: Liveness, code: list[Instr | Label], groups: dict[int, tuple[int, bool]],
                spilled: int) -> Liveness:
    """The liveness of `code`: `live`'s code with the vregs in `spilled` (a bitset) spilled
    everywhere, worked out from `live` instead of from scratch (`liveness(flow(code))`,
    which it equals: tests check). `groups`: each changed instruction's index in `live`'s
    code -> (the reloads put before it, whether a spill follows it); every other
    instruction and every label is as it was.

    Why this is exact: spill code adds no label and no branch, so each old instruction
    keeps its successors (a label now points at the first reload put before its
    instruction), and liveness is per vreg -- every other vreg is live where it was. A
    spilled vreg is live nowhere (it lives in its slot). A temporary is live only inside
    its group: from its reload to its instruction, from the instruction to the spill, never
    at a group's first instruction. So only the groups are worked out, backward from the
    old facts; an all-lane read of a temporary makes it whole-wave live from its reload."""
    f = live.flow
    n = len(f.instrs)
    first = [0] * (n + 1)  # old index -> new index of its group's first instruction
    at = 0
    for k in range(n):
        first[k] = at
        g = groups.get(k)
        at += 1 if g is None else g[0] + 1 + g[1]
    first[n] = at
    instrs = [item for item in code if not isinstance(item, Label)]
    label_at = {lab: first[i] for lab, i in f.label_at.items()}
    keep = ~spilled
    whole_off = mutants.on("whole-wave-read-not-live")
    new = Flow(instrs, label_at, [], [], [], [], [], [], [])
    physical, logical, defined, used = new.physical, new.logical, new.defined, new.used
    reads, use_bits, def_bits = new.reads, new.use_bits, new.def_bits
    out = Liveness(new, [], [], [], [])
    live_in, live_out, parked, whole = out.live_in, out.live_out, out.parked, out.whole
    prev = 0
    for k in sorted(groups) + [n]:
        # the unchanged instructions before group k: their facts, less the spilled vregs
        # (a one-successor list, nearly every one, without an inner comprehension: in
        # CPython 3.11 that is a function call an instruction)
        phys = [[first[succ[0]]] if len(succ) == 1 else [first[s] for s in succ]
                for succ in f.physical[prev:k]]
        physical += phys
        logical += [p if lg is q else [first[s] for s in lg]
                    for p, q, lg in zip(phys, f.physical[prev:k], f.logical[prev:k])]
        defined += f.defined[prev:k]
        used += f.used[prev:k]
        reads += f.reads[prev:k]
        use_bits += f.use_bits[prev:k]
        def_bits += f.def_bits[prev:k]
        live_in += [b & keep for b in live.live_in[prev:k]]
        live_out += [b & keep for b in live.live_out[prev:k]]
        parked += [b & keep for b in live.parked[prev:k]]
        whole += [b & keep for b in live.whole[prev:k]]
        prev = k + 1
        if k == n:
            break
        reloads, spill = groups[k]
        j = len(physical)  # the group's first instruction
        members = instrs[j:j + reloads + 1 + spill]
        facts = [_facts(ins) for ins in members]
        out_k = live.live_out[k] & keep
        whole_k = live.whole[k] & keep
        # backward through the group: spill, instruction, reloads
        ins_in = [0] * len(members)
        ins_out = [0] * len(members)
        whole_out = [whole_k] * len(members)
        if spill:
            after = live.live_in[k + 1] & keep if k + 1 < n else 0
            ins_out[-1] = after
            ins_in[-1] = facts[-1][2] | after
        overridden = f.logical[k] is not f.physical[k]
        ins_out[reloads] = ins_in[-1] if spill and not overridden else out_k
        r, _, ub, _, db = facts[reloads]
        ins_in[reloads] = ub | (ins_out[reloads] & ~db)
        wh_in = whole_k & ~db
        if not whole_off and r and _reads_every_lane(members[reloads]):
            for v in r:
                wh_in |= 1 << v
        for m in range(reloads - 1, -1, -1):
            ins_out[m] = ins_in[m + 1]
            ins_in[m] = ins_out[m] & ~facts[m][4]
            whole_out[m] = wh_in
            wh_in &= ~facts[m][4]
        for m, (r, u, ub, d, db) in enumerate(facts):
            if m == reloads:
                succ = [j + m + 1] if spill else [first[s] for s in f.physical[k]]
                lsucc = [first[s] for s in f.logical[k]] if overridden else succ
            else:
                succ = [j + m + 1] if m < reloads or k + 1 < n else []
                lsucc = succ
            physical.append(succ)
            logical.append(lsucc)
            reads.append(r)
            used.append(u)
            use_bits.append(ub)
            defined.append(d)
            def_bits.append(db)
        live_in += ins_in
        live_out += ins_out
        parked += [live.parked[k] & keep] * len(members)
        whole += whole_out
    return out


def _facts(ins: Instr) -> tuple[list[int], list[int], int, int | None, int]:
    """An instruction's reads (`operands`), uses, uses as a bitset, def and def bitset."""
    r = operands(ins)
    u = uses(ins) if ins.keeps or ins.deopt_uses else r
    ub = 0
    for v in u:
        ub |= 1 << v
    if ins.op in WRITES_VREG:
        return r, u, ub, ins.d, 1 << ins.d
    return r, u, ub, None, 0


#: liveness mutants: the physical edges (region kinds) each one forgets
_DROPS = {"wwm-then-else": "then", "wwm-loop-exit": "loop_exit", "wwm-call-return": "call"}


def bits(mask: int) -> list[int]:
    """The members of a bitset, lowest first."""
    if mask.bit_count() <= 16:  # few: peel the lowest bit off, one big-int op each
        out = []
        while mask:
            low = mask & -mask
            out.append(low.bit_length() - 1)
            mask ^= low
        return out
    text = bin(mask)[:1:-1]  # many: search the binary text, bit 0 first
    out, i = [], text.find("1")
    while i >= 0:
        out.append(i)
        i = text.find("1", i + 1)
    return out


__all__ = ["CROSS_LANE", "Flow", "Liveness", "Lowered", "after_spill", "all_lanes", "bits", "defs",
           "flow", "liveness", "uses"]
