"""numba-simt's mutants, each on its own mechanism's output: the interference graph, the
parked sets, the allocated code, the lowered code, the machine's arithmetic -- never by
corrupting outputs. (That each one is *caught*, and flips a case, is the hunt's and the
corpus's business: `corpus/` holds a counterexample per mutant.)"""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pytest

from difftest.core.case import case_from_json
from difftest.core.ir import parse
from targets.numba_simt import mutants
from targets.numba_simt.device import machine
from targets.numba_simt.isa import EXEC, Op
from targets.numba_simt.compiler.liveness import all_lanes, bits, defs, flow, liveness
from targets.numba_simt.compiler.lower import Instr, lower
from targets.numba_simt.compiler.regalloc import allocate_registers, interference
from targets.numba_simt.target import NumbaSimtTarget, compile_program, compile_options

from ..conftest import REPO, example_json


def example(name: str) -> Any:
    return case_from_json(example_json(name))


def vreg(lowered: Any, name: str) -> int:
    [v] = [v for v, nm in lowered.vreg_names.items() if nm == name]
    return v


def with_mutant(name: str | None, fn: Any, *args: Any) -> Any:
    return fn(*args, mutants=mutants.Mutants.of([name] if name else []))


# -------------------------------------------------------------------------- registry


def test_registry_names_seeds_and_the_target_agree() -> None:
    assert len(set(mutants.NAMES)) == len(mutants.NAMES)
    for m in mutants.REGISTRY.values():
        assert m.seed and m.mechanism and m.description, m
    target = NumbaSimtTarget()
    assert target.mutant_names == mutants.NAMES
    assert set(target.mutant_help) == set(mutants.NAMES)
    assert mutants.MACHINE_FLAGS["div-floor"] == machine.FLAG_DIV_FLOOR
    with pytest.raises(AssertionError, match="unknown mutant"):
        mutants.Mutants.of(["no-such-mutant"])


def test_a_mutants_value_says_which_are_on_and_whose_they_are() -> None:
    assert not any(mutants.NONE.on(m) for m in mutants.NAMES)
    some = mutants.Mutants.of(["div-floor", "wwm-then-else", "free-wrong-item"])
    assert some.on("div-floor") and not some.on("break-mask-lost")
    assert some.compiler().names == {"wwm-then-else"}
    assert some.runtime().names == {"free-wrong-item"}
    assert some.machine_flags() == mutants.MACHINE_FLAGS["div-floor"]
    with pytest.raises(AssertionError, match="unknown mutant"):
        some.on("no-such-mutant")


def test_compile_options_key_the_compiler_mutants_only() -> None:
    a = compile_options({"mutants": ["div-floor"]})
    b = compile_options({})
    c = compile_options({"mutants": ["wwm-then-else"]})
    assert a == b and c != b  # a machine mutant does not recompile the kernel


# ---------------------------------------------------------------- liveness / regalloc


def _payload(name: str | None, uniform: bool = True) -> tuple[Any, Any, int, int]:
    """payload_clobber: (lowered, allocation, a's vreg, the all-lane `7`'s vreg)."""
    case = example("payload_clobber")

    def run(mutants: Any) -> tuple[Any, Any]:
        lowered = lower(case.program, case.entry, uniform, mutants=mutants)
        return lowered, allocate_registers(lowered, 32, mutants=mutants)

    lowered, alloc = with_mutant(name, run)
    [seven] = [i.d for i in alloc.code if isinstance(i, Instr) and i.op == Op.MOVI
               and i.imm == 7]
    return lowered, alloc, vreg(lowered, "a"), seven


def test_wwm_ignores_inactive_drops_the_parked_interference() -> None:
    _, alloc, a, seven = _payload(None)
    assert a in interference(alloc.live)[seven]
    _, alloc, a, seven = _payload("wwm-ignores-inactive")
    assert a not in with_mutant("wwm-ignores-inactive", interference, alloc.live)[seven]


def test_uniform_writemask_all_lets_the_constant_take_a_parked_register() -> None:
    _, alloc, a, seven = _payload(None)
    assert alloc.color[seven] != alloc.color[a]
    _, alloc, a, seven = _payload("uniform-writemask-all")
    assert alloc.color[seven] == alloc.color[a]  # 002's `b = 7` in a's register


def _parked_at(lowered: Any, op: Op, name: str, mutant: str | None, pick: int = 0) -> bool:
    """Whether variable `name` is parked at the `pick`-th instruction with opcode `op`."""
    live = with_mutant(mutant, liveness, flow(lowered.code, lowered.logical),
                       lowered.regions)
    at = [i for i, ins in enumerate(live.flow.instrs) if ins.op == op][pick]
    return bool(live.parked[at] >> vreg(lowered, name) & 1)


def test_wwm_then_else_forgets_the_else_lanes_values_in_the_then_arm() -> None:
    case = example("payload_clobber")
    lowered = lower(case.program, case.entry)
    seven = [i for i, ins in enumerate(x for x in lowered.code if isinstance(x, Instr))
             if ins.op == Op.MOVI and ins.imm == 7]
    assert seven
    assert _parked_at(lowered, Op.MOVI, "a", None, pick=_movi_index(lowered, 7))
    assert not _parked_at(lowered, Op.MOVI, "a", "wwm-then-else",
                          pick=_movi_index(lowered, 7))


def _movi_index(lowered: Any, value: int) -> int:
    movis = [ins for ins in lowered.code if isinstance(ins, Instr) and ins.op == Op.MOVI]
    return next(k for k, ins in enumerate(movis) if ins.imm == value)


LOOP_EXIT = """
def k(out: Buffer[i32]):
    x = 0
    c = 0
    while True:
        x = wave_sum(1)
        c = c + 1
        if c >= lane() + 1:
            break
    out[gid()] = x
"""


def test_wwm_loop_exit_forgets_the_values_of_lanes_that_left() -> None:
    lowered = lower(parse(LOOP_EXIT), "k")
    # at the whole-wave staging of wave_sum, x is dead for the lanes still iterating
    # (they redefine it) and alive only for the lanes already waiting at the exit
    assert _parked_at(lowered, Op.SET_INACTIVE, "x", None)
    assert not _parked_at(lowered, Op.SET_INACTIVE, "x", "wwm-loop-exit")


BREAK_ARM = """
def k(inp: Buffer[i32], out: Buffer[i32]):
    v = inp[gid()] + 7
    s = inp[0] * 3
    for j in range(8):
        out[gid()] = j + s
        if j >= inp[gid()]:
            out[gid()] = v
            break
"""


def _kept_over_back_edge(name: str, mutant: str | None) -> bool:
    lowered = lower(parse(BREAK_ARM), "k")
    live = liveness(flow(lowered.code, lowered.logical), lowered.regions,
                    mutants.Mutants.of([mutant] if mutant else []),
                    frozenset(lowered.vreg_names))
    [back] = [i for i, ins in enumerate(live.flow.instrs) if ins.op == Op.JMP]
    return bool(live.live_in[back] >> vreg(lowered, name) & 1)


def test_range_mutants_drop_a_variable_dead_after_its_loop_from_the_back_edge() -> None:
    # v is read only on the arm that breaks, s elsewhere in the body; neither after it
    assert _kept_over_back_edge("v", None) and _kept_over_back_edge("s", None)
    assert not _kept_over_back_edge("v", "break-arm-read-ends-range")
    assert _kept_over_back_edge("s", "break-arm-read-ends-range")
    assert not _kept_over_back_edge("s", "loop-read-ends-range")
    assert _kept_over_back_edge("v", "loop-read-ends-range")


DEAD_IN_LOOP = """
def k(inp: Buffer[i32], out: Buffer[i32]):
    a = inp[gid()] + 5
    for j in range(4):
        d = j * 7
        out[gid()] = a + j
"""


def test_dead_loop_def_no_interference_lets_a_dead_variable_share_a_live_register() -> None:
    lowered = lower(parse(DEAD_IN_LOOP), "k")
    d = vreg(lowered, "d")

    def shares(mutant: str | None) -> bool:
        alloc = allocate_registers(lowered, 32, mutants=mutants.Mutants.of(
            [mutant] if mutant else []))
        f = alloc.live.flow
        [at] = [i for i, ins in enumerate(f.instrs) if f.defined[i] == d]
        live = bits(alloc.live.live_out[at] & ~(1 << d))
        return any(alloc.color.get(v) == alloc.color[d] for v in live)

    assert not shares(None) and shares("dead-loop-def-no-interference")


CALL_RETURN = """
def h(v: i32) -> i32:
    if v > 1:
        return v
    w = wave_sum(1)
    return w + v

def k(out: Buffer[i32]):
    out[gid()] = h(lane())
"""


def test_wwm_call_return_forgets_the_values_of_lanes_that_returned() -> None:
    lowered = lower(parse(CALL_RETURN), "k")
    assert _parked_at(lowered, Op.SET_INACTIVE, "h.return", None)
    assert not _parked_at(lowered, Op.SET_INACTIVE, "h.return", "wwm-call-return")


SPILLY = """
def k(out: Buffer[i32], inp: Buffer[i32]):
    g = gid()
    x = inp[g] * 3
    y = inp[g] + 5
    z = g * 7
    w = g + 11
    if g % 2 == 0:
        x = y + z
    out[g] = x + y + z + w
"""


def _partial_spilled_defs(mutant: str | None) -> list[tuple[Instr, list[Instr]]]:
    """At 4 registers: each masked def of a spilled value (followed by its all-lane
    spill), with the instructions before it."""
    lowered = lower(parse(SPILLY), "k")
    alloc = with_mutant(mutant, allocate_registers, lowered, 4)
    instrs = [x for x in alloc.code if isinstance(x, Instr)]
    found = []
    for j, ins in enumerate(instrs[:-1]):
        nxt = instrs[j + 1]
        if (defs(ins) is not None and not all_lanes(ins) and nxt.op == Op.SPILL
                and nxt.a == ins.d and ins.op != Op.RELOAD):
            found.append((ins, instrs[:j]))
    assert found, "no partial def of a spilled value at 4 registers"
    return found


def _reload_of(ins: Instr, before: list[Instr]) -> Instr | None:
    return next((r for r in reversed(before) if r.op == Op.RELOAD and r.d == ins.d), None)


def test_partial_defs_of_spilled_values_reload_all_lanes_and_keep_their_register() -> None:
    for ins, before in _partial_spilled_defs(None):
        reload = _reload_of(ins, before)
        assert reload is not None and reload.wm == 1 and ins.keeps


def test_reload_under_mask_reloads_only_the_active_lanes_before_a_partial_def() -> None:
    for ins, before in _partial_spilled_defs("reload-under-mask"):
        reload = _reload_of(ins, before)
        assert reload is not None and reload.wm == 0


def test_partial_def_no_reload_drops_the_reload() -> None:
    for ins, before in _partial_spilled_defs("partial-def-no-reload"):
        assert _reload_of(ins, before) is None and not ins.keeps


def test_masked_def_no_keep_lets_the_reloaded_register_go() -> None:
    for ins, before in _partial_spilled_defs("masked-def-no-keep"):
        assert _reload_of(ins, before) is not None and not ins.keeps


def test_spill_under_mask_moves_only_active_lanes() -> None:
    lowered = lower(parse(SPILLY), "k")
    for mutant, wm in ((None, 1), ("spill-under-mask", 0)):
        alloc = with_mutant(mutant, allocate_registers, lowered, 4)
        moves = [x for x in alloc.code if isinstance(x, Instr)
                 and x.op in (Op.SPILL, Op.RELOAD)]
        assert moves and all(x.wm == wm for x in moves)


# ---------------------------------------------------------------------------- lowering


def _lowered(src: str, mutant: str | None) -> list[Instr]:
    lowered = with_mutant(mutant, lower, parse(src), "k")
    return [x for x in lowered.code if isinstance(x, Instr)]


FOR = """
def k(out: Buffer[i32], n: i32):
    j = 0
    for j in range(0, n):
        out[gid()] = j
    out[gid()] = out[gid()] + j
"""


def test_loop_var_before_check_writes_the_variable_ahead_of_the_range_check() -> None:
    for mutant, before in ((None, False), ("loop-var-before-check", True)):
        code = _lowered(FOR, mutant)
        cmp = next(i for i, x in enumerate(code) if x.op == Op.CMP_LT)
        trip = next(i for i, x in enumerate(code) if x.op == Op.TRIP)
        movs = [i for i, x in enumerate(code) if x.op == Op.MOV and cmp - 3 <= i < trip + 3]
        assert any(i < cmp for i in movs) == before


BRANCHY = """
def k(out: Buffer[i32]):
    for j in range(0, 3):
        if lane() == j:
            break
        out[gid()] = j
"""


def test_join_restores_saved_exec_sets_the_mask_saved_at_the_head() -> None:
    ok, bad = _lowered(BRANCHY, None), _lowered(BRANCHY, "join-restores-saved-exec")
    joins_ok = [x for x in ok if x.op == Op.M_OR and x.d == EXEC]
    joins_bad = [x for x in bad if x.op == Op.M_OR and x.d == EXEC]
    assert len(joins_bad) == len(joins_ok) - 1  # the if's join became a restore
    saved = next(x.d for x in bad if x.op == Op.M_GETEXEC)
    assert sum(x.op == Op.M_SETEXEC for x in bad) == sum(x.op == Op.M_SETEXEC for x in ok) + 1
    assert saved >= 2


def test_break_mask_lost_parks_a_breaking_lane_at_the_continue_point() -> None:
    for mutant in (None, "break-mask-lost"):
        code = _lowered(BRANCHY, mutant)
        # the loop clears its exit mask before the top and its continue mask at the top
        exit_mask, cont_mask = [x.d for x in code if x.op == Op.M_CLEAR and x.d != EXEC][:2]
        clear = next(i for i, x in enumerate(code) if x.op == Op.M_CLEAR and x.d == EXEC)
        brk = code[clear - 1]  # `break`: the lanes go into a mask, then EXEC is cleared
        assert brk.op == Op.M_OR and brk.b == EXEC
        assert brk.d == (cont_mask if mutant else exit_mask)


SHUFFLE = """
def k(out: Buffer[i32]):
    x = gid() * 3
    out[gid()] = shuffle(x, lane() ^ 1)
"""


def test_shuffle_reads_inactive_reads_the_unstaged_register() -> None:
    for mutant, staged in ((None, True), ("shuffle-reads-inactive", False)):
        code = _lowered(SHUFFLE, mutant)
        seti = next(x for x in code if x.op == Op.SET_INACTIVE)
        shuf = next(x for x in code if x.op == Op.SHUFFLE)
        assert (shuf.a == seti.d) == staged


def test_stack_drops_inlined_frame_loses_the_helpers_frame() -> None:
    case = example("simple_deopt")
    opts = compile_options({})
    good = compile_program(case.program, case.entry, opts)
    bad = compile_program(case.program, case.entry,
                          compile_options({"mutants": ["stack-drops-inlined-frame"]}))
    store_good = [ip for ip in good.infopoints if ip.kind == "out_of_bounds"][-1]
    store_bad = [ip for ip in bad.infopoints if ip.kind == "out_of_bounds"][-1]
    assert [f.function for f in store_good.stack] == ["simple_deopt", "write_int_array"]
    assert [f.function for f in store_bad.stack] == ["simple_deopt"]


# ----------------------------------------------------------------------------- machine


def test_div_floor_floors_in_the_machine_only_under_its_flag() -> None:
    # one wave of 4 lanes: r0 = gid - 5 (-5..-2), r1 = 2; DIV and REM written to memory
    rows = np.array([
        (int(Op.PARAM), 7, 0, 0, 0, 0, 1, -1),
        (int(Op.GID), 6, 0, 0, 0, 0, 1, -1),
        (int(Op.MOVI), 2, 0, 0, 0, 5, 1, -1),
        (int(Op.SUB), 0, 6, 2, 0, 64, 0, -1),
        (int(Op.MOVI), 1, 0, 0, 0, 2, 1, -1),
        (int(Op.DIV), 3, 0, 1, 0, 64, 0, 0),
        (int(Op.REM), 4, 0, 1, 0, 64, 0, 1),
        (int(Op.MOVI), 5, 0, 0, 0, 4, 1, -1),
        (int(Op.ADD), 5, 6, 5, 0, 64, 0, -1),
        (int(Op.STORE), 0, 7, 6, 3, 0, 0, 2),
        (int(Op.STORE), 0, 7, 5, 4, 0, 0, 3),
        (int(Op.HALT), 0, 0, 0, 0, 0, 0, -1)], dtype=np.int64)

    def run(flags: int) -> list[int]:
        mem = np.zeros(8, dtype=np.int64)
        area = machine.DeoptArea.make(4, 4, 2, range(8), [0], np.zeros((4, 2), np.int64), 4)
        rc = machine.run_launch(rows, 4, 4, 8, 2, 1, mem, np.array([[0, 8, 64]]),
                                np.array([0]), np.array([0]), 1, 64, np.zeros(4, np.int64),
                                area, flags=flags)
        assert rc == 0
        return [int(x) for x in mem]

    # -5, -4, -3, -2 by 2: truncating -2 -2 -1 -1 rem -1 0 -1 0; floor -3 -2 -2 -1 rem 1 0 1 0
    assert run(0) == [-2, -2, -1, -1, -1, 0, -1, 0]
    assert run(machine.FLAG_DIV_FLOOR) == [-3, -2, -2, -1, 1, 0, 1, 0]


# ------------------------------------------------------------------- non-equivalence


def test_every_mutant_has_a_corpus_entry_it_flips() -> None:
    """The proof that no mutant is equivalent: a corpus case recorded with it (replayed by
    the corpus tests: disagree with it, agree without)."""
    flipped = set()
    for path in sorted((REPO / "corpus").glob("*.json")):
        obj = json.loads(path.read_text())
        if obj.get("expected", {}).get("verdict") == "disagree":
            flipped.update(obj.get("mutants", []))
    assert set(mutants.NAMES) <= flipped, sorted(set(mutants.NAMES) - flipped)


def test_each_pair_has_a_mutant_whose_corpus_entries_hold_that_pair() -> None:
    """PAIR_MUTANTS names a mutant for every pair a campaign counts; each corpus entry that
    flips that mutant holds its pair (the proof that the pair matters is a bug only
    programs with it show: a reduced case without the pair would disprove it)."""
    from generators.pairs import ALL_PAIRS, host_pairs, kernel_pairs

    assert set(mutants.PAIR_MUTANTS) == {p if not p.startswith("wave@") else p.split(":")[0]
                                         for p in ALL_PAIRS}
    assert set(mutants.PAIR_MUTANTS.values()) <= set(mutants.NAMES)
    pair_of = {m: p for p, m in mutants.PAIR_MUTANTS.items()}
    checked = set()
    for path in sorted((REPO / "corpus").glob("*.json")):
        obj = json.loads(path.read_text())
        named = obj.get("mutants", [])
        if obj.get("expected", {}).get("verdict") != "disagree" or len(named) != 1 \
                or named[0] not in pair_of:
            continue
        case = case_from_json(obj, path.name)
        held = host_pairs(case) | kernel_pairs(case.program)
        pair = pair_of[named[0]]
        assert any(h == pair or h.startswith(pair + ":") for h in held), (path.name, pair)
        checked.add(named[0])
    assert checked == set(pair_of), sorted(set(pair_of) - checked)
