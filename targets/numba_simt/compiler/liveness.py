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

Sets are Python ints used as bitsets (bit v = virtual register v) where passes read them
one instruction at a time; the fixed points themselves are computed on rows of uint64
words (`dataflow.solve`), and a `Liveness` converts a row when it is read.
"""

from __future__ import annotations

import itertools
import operator
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np

from . import dataflow
from ..mutants import NONE, Mutants
from ..isa import (ALWAYS_ALL_LANES, INT_FUNCTIONS_A, INT_FUNCTIONS_AB, UNIFORM_VALUES, Op,
                   WRITES_VREG)
from .lower import PARKING_KINDS, Instr, Label, Lowered, Region

_USES_A = {Op.NEG, Op.NOT, Op.LNOT, Op.WRAP, Op.MOV, Op.LEN, Op.ALLOC, Op.FAIL, Op.M_FROMCOND,
           Op.SET_INACTIVE, Op.WWM_SUM, Op.WWM_MIN, Op.WWM_MAX, Op.WWM_OR, Op.WWM_AND,
           Op.WWM_BALLOT, Op.WWM_SCAN_EXCL, Op.WWM_SCAN_INCL, Op.READFIRST, Op.SPILL,
           Op.CVT_IF, Op.CVT_FI, Op.WWM_FMIN, Op.WWM_FMAX, Op.CHECK_INDEX, Op.CVT_ID,
           Op.CVT_FD, Op.CVT_DF, Op.CVT_DI, Op.BALLOT_FN, *INT_FUNCTIONS_A}
_USES_AB = {Op.ADD, Op.SUB, Op.MUL, Op.DIV, Op.REM, Op.AND, Op.OR, Op.XOR, Op.SHL, Op.SHR,
            Op.CMP_EQ, Op.CMP_NE, Op.CMP_LT, Op.CMP_LE, Op.CMP_GT, Op.CMP_GE, Op.LOAD,
            Op.SHUFFLE, Op.FADD, Op.FSUB, Op.FMUL, Op.FMIN, Op.FMAX, Op.FCMP_EQ, Op.FCMP_NE,
            Op.FCMP_LT, Op.FCMP_LE, Op.FCMP_GT, Op.FCMP_GE, *INT_FUNCTIONS_AB}
_USES_ABC = {Op.STORE, Op.ATOMIC_ADD, Op.ATOMIC, Op.FFMA, Op.SELECT}
#: ops that read other lanes of a source while writing the destination
CROSS_LANE = frozenset({Op.SHUFFLE, Op.WWM_SUM, Op.WWM_MIN, Op.WWM_MAX, Op.WWM_OR,
                        Op.WWM_AND, Op.WWM_BALLOT, Op.WWM_SCAN_EXCL, Op.WWM_SCAN_INCL,
                        Op.READFIRST, Op.WWM_FMIN, Op.WWM_FMAX})


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
    label_at: dict[Label, int]  # -> instruction index
    physical: list[list[int]]
    logical: list[list[int]]
    # per instruction, its `defs`, `uses` and `operands` (each pass over a round's code
    # reads them), and its uses and def as bitsets (what liveness reads)
    defined: list[int | None]
    used: list[list[int]]
    reads: list[list[int]]
    use_bits: list[int]
    def_bits: list[int]
    flags: list[int]  # dataflow.ALL_LANES | NOT_EVERY_READ | UNIFORM | CROSS, as they hold
    _arrays: FlowArrays | None = field(default=None, compare=False, repr=False)

    def arrays(self) -> FlowArrays:
        """Its uses, defs and flags as arrays (what `dataflow` reads; made once)."""
        if self._arrays is None:
            n = len(self.instrs)
            self._arrays = FlowArrays(
                *csr(self.used),
                np.array([-1 if d is None else d for d in self.defined],
                         dtype=np.int64).reshape(n),
                np.array(self.flags, dtype=np.int64).reshape(n))
        return self._arrays


class FlowArrays(NamedTuple):
    use_at: np.ndarray  # instruction i uses use[use_at[i]:use_at[i + 1]]
    use: np.ndarray
    defs: np.ndarray  # its def, or -1
    flags: np.ndarray


def flow(code: list[Instr | Label], overrides: dict[Instr, list[Label]]) -> Flow:
    """The code's flow from scratch: a compilation's first (later allocation rounds work
    theirs out from the round before's: `after_spill`)."""
    instrs: list[Instr] = []
    label_at: dict[Label, int] = {}
    for item in code:
        if isinstance(item, Label):
            label_at[item] = len(instrs)
        else:
            instrs.append(item)
    end = len(instrs)
    f = Flow(instrs, label_at, [], [], [], [], [], [], [], [])
    physical, logical, reads, used = f.physical, f.logical, f.reads, f.used
    use_bits, defined, def_bits, flags = f.use_bits, f.defined, f.def_bits, f.flags
    halt, jmp, jz = Op.HALT, Op.JMP, (Op.JZ_EXEC, Op.JZ_MASK)
    info, all_lanes_flag = _OP_INFO, dataflow.ALL_LANES
    for i, ins in enumerate(instrs):
        op = ins.op
        if op is halt:
            succ = []
        elif op is jmp or op in jz:
            assert ins.target is not None
            t = label_at[ins.target]
            succ = [s for s in ((t,) if op is jmp else (i + 1, t)) if s < end]
        else:
            succ = [i + 1] if i + 1 < end else []
        physical.append(succ)
        logical.append([label_at[lab] for lab in overrides[ins]] if ins in overrides
                       else succ)
        # `_facts`, written out: a call per instruction is a fifth of this pass
        arity, fl, writes = info[op]
        if arity == 0:
            r, ub = [], 0
        elif arity == 1:
            r, ub = [ins.a], 1 << ins.a
        elif arity == 2:
            r, ub = [ins.a, ins.b], 1 << ins.a | 1 << ins.b
        else:
            r, ub = [ins.a, ins.b, ins.c], 1 << ins.a | 1 << ins.b | 1 << ins.c
        reads.append(r)
        if ins.keeps or ins.deopt_uses:
            u = uses(ins)
            ub = 0
            for v in u:
                ub |= 1 << v
            used.append(u)
        else:
            used.append(r)
        use_bits.append(ub)
        flags.append(fl | all_lanes_flag if ins.wm == 1 else fl)
        if writes:
            defined.append(ins.d)
            def_bits.append(1 << ins.d)
        else:
            defined.append(None)
            def_bits.append(0)
    return f


class Rows(Sequence[int]):
    """One set per instruction, held as rows of uint64 words (`dataflow`) and read as
    Python int bitsets (converted when read: most passes read a few)."""

    def __init__(self, rows: np.ndarray) -> None:
        self.rows = rows

    def __len__(self) -> int:
        return int(self.rows.shape[0])

    def __getitem__(self, i: int) -> int:  # type: ignore[override]
        return int.from_bytes(self.rows[i].tobytes(), "little")

    def __iter__(self) -> Iterator[int]:
        return (int.from_bytes(row.tobytes(), "little") for row in self.rows)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, (Rows, list)):
            return list(self) == list(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]


class Liveness:
    """A flow's liveness: `live_in`, `live_out`, `parked` and `whole` (values some
    all-lane instruction reads later, live in every lane), one set per instruction."""

    def __init__(self, f: Flow, live_in: np.ndarray, live_out: np.ndarray,
                 parked: np.ndarray, whole: np.ndarray) -> None:
        self.flow = f
        self.live_in, self.live_out = Rows(live_in), Rows(live_out)
        self.parked, self.whole = Rows(parked), Rows(whole)

    def live_any(self, i: int) -> int:
        return self.live_out[i] | self.parked[i] | self.whole[i]


def csr(lists: list[list[int]]) -> tuple[np.ndarray, np.ndarray]:
    """Lists of ints as (starts, flat): list i is flat[starts[i]:starts[i + 1]]."""
    at = np.zeros(len(lists) + 1, dtype=np.int64)
    np.cumsum(np.fromiter(map(len, lists), dtype=np.int64, count=len(lists)), out=at[1:])
    flat = np.fromiter(itertools.chain.from_iterable(lists), dtype=np.int64,
                       count=int(at[-1]))
    return at, flat


def liveness(f: Flow, regions: list[Region], mutants: Mutants = NONE,
             named: frozenset[int] = frozenset()) -> Liveness:
    """The liveness rule (docs/semantics.md) over `f`, its regions parking lanes:
    - `live_in`/`live_out`: per-lane liveness over the logical CFG;
    - `parked`: at each instruction of a region, the values live at its parking point
      (those wait in lanes inactive there; the liveness mutants forget some region kinds,
      `_DROPS`);
    - `whole`: liveness over the *physical* CFG of the values all-lane instructions read:
      every lane's copy is read there, so the value must survive in every lane on every
      path the wave executes from its def to that read -- through arms and iterations
      other lanes take (a whole-wave value kept across divergence, as compilers keep the
      lane id). Per-lane liveness would let a masked write in another arm clobber it.
      Only the values' own defs kill them (correct code defines them in all lanes; a
      masked def, a mutant's, leaves garbage, which is the bug).
    Computed by `dataflow.solve`; tests/numba_simt/test_dataflow.py has the Python rules.
    `named`: the source variables' vregs (the range mutants, `_SHORT`, shorten only theirs)."""
    dropped = {kind for name, kind in _DROPS.items() if mutants.on(name)}
    regions_at = np.array([(f.label_at[r.start], f.label_at[r.end],
                            f.label_at[r.parked]) for r in regions
                           if r.kind in PARKING_KINDS and r.kind not in dropped],
                          dtype=np.int64).reshape(-1, 3)
    a = f.arrays()
    biggest = max(int(a.use.max(initial=-1)), int(a.defs.max(initial=-1)))
    physical = csr(f.physical)
    same = all(map(operator.is_, f.logical, f.physical))  # no override: nearly always
    rows = dataflow.solve(*(physical if same else csr(f.logical)), *physical, a.use_at,
                          a.use, *csr(f.reads), a.defs, a.flags, regions_at,
                          max(1, (biggest + 64) // 64),
                          mutants.on("whole-wave-read-not-live"))
    short = [m for m in _SHORT if mutants.on(m)]
    if short:
        _shorten(f, regions, named, rows, short[0])
    return Liveness(f, *rows)


#: range mutants: a variable read in a loop and dead after it is live only up to its last
#: read there in the code's order (a live interval not stretched over its loop's back edge)
#: when it is read only on arms that end in the loop's `break` (taken for the loop's exit
#: blocks, outside it), or when it is read elsewhere in the body
_SHORT = ("break-arm-read-ends-range", "loop-read-ends-range")


def _shorten(f: Flow, regions: list[Region], named: frozenset[int],
             rows: tuple[np.ndarray, ...], mutant: str) -> None:
    """Clear, in `rows` (live_in, live_out, parked, whole), the liveness the mutant loses."""
    live_in = rows[0]
    for loop in (r for r in regions if r.kind == "loop_exit"):
        top, stop = f.label_at[loop.start], f.label_at[loop.end]
        arms = set(itertools.chain.from_iterable(
            range(f.label_at[r.start], f.label_at[r.end]) for r in regions
            if r.kind == "exit_arm" and r.parked == loop.parked))
        on_arms = elsewhere = 0
        for i in range(top, stop):
            if i in arms:
                on_arms |= f.use_bits[i]
            else:
                elsewhere |= f.use_bits[i]
        at_exit = int.from_bytes(live_in[stop].tobytes(), "little") if stop < len(f.instrs) else 0
        across = int.from_bytes(live_in[top].tobytes(), "little")  # kept over the back edge
        lost = (on_arms & ~elsewhere if mutant == _SHORT[0] else elsewhere) & across & ~at_exit
        for v in bits(lost):
            if v not in named:
                continue
            last = max(i for i in range(top, stop) if f.use_bits[i] >> v & 1)
            word, bit = divmod(v, 64)
            keep = ~np.uint64(1 << bit)
            for row in rows:
                row[last + 1:stop, word] &= keep
            rows[1][last, word] &= keep


def after_spill(f: Flow, code: list[Instr | Label], groups: dict[int, tuple[int, bool]]
                ) -> Flow:
    """The flow of `code`: `f`'s code with spill code put in, worked out from `f` instead
    of from scratch (`flow(code, ...)`, which it equals: tests check). `groups`: each
    changed instruction's index in `f` -> (the reloads put before it, whether a spill
    follows it); every other instruction and every label is as it was.

    Why this is exact: spill code adds no label and no branch, so each old instruction
    keeps its successors (a label now points at the first reload put before its
    instruction); a group's reloads fall through to its instruction, and that to its
    spill. Only the groups' own facts are worked out."""
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
    new = Flow(instrs, label_at, [], [], [], [], [], [], [], [])
    physical, logical, defined, used = new.physical, new.logical, new.defined, new.used
    reads, use_bits, def_bits, flags = new.reads, new.use_bits, new.def_bits, new.flags
    prev = 0
    for k in sorted(groups) + [n]:
        # the unchanged instructions before group k (a one-successor list, nearly every
        # one, without an inner comprehension: in CPython 3.11 that is a function call an
        # instruction)
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
        flags += f.flags[prev:k]
        prev = k + 1
        if k == n:
            break
        reloads, spill = groups[k]
        j = len(physical)  # the group's first instruction
        members = instrs[j:j + reloads + 1 + spill]
        overridden = f.logical[k] is not f.physical[k]
        for m, ins in enumerate(members):
            if m == reloads:
                succ = [j + m + 1] if spill else [first[s] for s in f.physical[k]]
                lsucc = [first[s] for s in f.logical[k]] if overridden else succ
            else:
                succ = [j + m + 1] if m < reloads or k + 1 < n else []
                lsucc = succ
            r, u, ub, d, db, fl = _facts(ins)
            physical.append(succ)
            logical.append(lsucc)
            reads.append(r)
            used.append(u)
            use_bits.append(ub)
            defined.append(d)
            def_bits.append(db)
            flags.append(fl)
    return new


def _facts(ins: Instr) -> tuple[list[int], list[int], int, int | None, int, int]:
    """An instruction's reads (`operands`), uses, uses as a bitset, def, def bitset and
    `dataflow` flags."""
    r = operands(ins)
    u = uses(ins) if ins.keeps or ins.deopt_uses else r
    ub = 0
    for v in u:
        ub |= 1 << v
    op = ins.op
    fl = _OP_FLAGS.get(op, 0) | (dataflow.ALL_LANES if ins.wm == 1 else 0)
    if op in WRITES_VREG:
        return r, u, ub, ins.d, 1 << ins.d, fl
    return r, u, ub, None, 0, fl


# the flags an opcode alone sets (`wm == 1` sets ALL_LANES too). An all-lane instruction
# reads its operands in every lane, inactive ones too, except SET_INACTIVE (it reads only
# the active lanes) and SPILL (its temporary carries its inactive lanes by itself):
# NOT_EVERY_READ.
_OP_FLAGS = {op: (dataflow.ALL_LANES if op in ALWAYS_ALL_LANES else 0)
             | (dataflow.NOT_EVERY_READ if op in (Op.SET_INACTIVE, Op.SPILL) else 0)
             | (dataflow.UNIFORM if op in UNIFORM_VALUES else 0)
             | (dataflow.CROSS if op in CROSS_LANE else 0) for op in Op}


#: per opcode: its operands' count (`operands`), its flags and whether it writes a vreg
_OP_INFO = {op: (_ARITY.get(op, 0), _OP_FLAGS[op], op in WRITES_VREG) for op in Op}

#: liveness mutants: the physical edges (region kinds) each one forgets
_DROPS = {"wwm-then-else": "then", "wwm-loop-exit": "loop_exit",
          "wwm-loop-continue": "loop_continue", "wwm-call-return": "call"}


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
