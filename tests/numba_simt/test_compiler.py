"""numba-simt's compiler passes, checked on their own outputs (no machine run).

The interference rules are docs/semantics.md's: an all-lane write may not share a register with
a value live in any lane (inactive ones included), a masked write may.
"""

from __future__ import annotations


import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from difftest.core.case import case_from_json
from difftest.core.ir import parse
from generators.kernels import kernels
from targets.numba_simt import mutants
from targets.numba_simt.compiler.emit import emit
from targets.numba_simt.isa import Op
from targets.numba_simt.compiler.liveness import all_lanes, bits, defs, flow, liveness
from targets.numba_simt.compiler.lower import Instr, lower
from targets.numba_simt.compiler.regalloc import (AllocationError, allocate_registers,
                                         interference)

from ..conftest import example_json
from ..models.liveness_reference import spill_rounds


def program(name: str):
    case = case_from_json(example_json(name))
    return case.program, case.entry


def vreg_of(lowered, name: str) -> int:
    [v] = [v for v, nm in lowered.vreg_names.items() if nm == name]
    return v


@pytest.mark.parametrize("uniform", [True, False])
def test_payload_clobber_a_and_b_share_a_register(uniform: bool) -> None:
    prog, entry = program("payload_clobber")
    lowered = lower(prog, entry, uniform_all_lanes=uniform)
    alloc = allocate_registers(lowered, 32)
    a, b = vreg_of(lowered, "a"), vreg_of(lowered, "b")
    # Per lane, a is dead where b lives (then-arm) and b is written under the exec mask.
    assert alloc.color[a] == alloc.color[b]


def test_payload_clobber_all_lane_constant_avoids_a() -> None:
    prog, entry = program("payload_clobber")
    lowered = lower(prog, entry, uniform_all_lanes=True)
    alloc = allocate_registers(lowered, 32)
    a = vreg_of(lowered, "a")
    sevens = [ins for ins in alloc.code if isinstance(ins, Instr) and ins.op == Op.MOVI
              and ins.imm == 7]
    assert len(sevens) == 1 and sevens[0].wm == 1
    seven = sevens[0].d
    assert a in interference(alloc.live)[seven]
    assert alloc.color[seven] != alloc.color[a]


def test_payload_clobber_liveness_parks_a_in_the_then_arm() -> None:
    prog, entry = program("payload_clobber")
    lowered = lower(prog, entry)
    live = liveness(flow(lowered.code, lowered.logical), lowered.regions)
    a = vreg_of(lowered, "a")
    [i7] = [i for i, ins in enumerate(live.flow.instrs) if ins.op == Op.MOVI and ins.imm == 7]
    assert not live.live_out[i7] >> a & 1      # per lane (then-lanes): a is dead here
    assert live.parked[i7] >> a & 1            # but the else-lanes still need it


def _all_lane_writes_in_loop(alloc) -> list[Instr]:
    instrs = alloc.live.flow.instrs
    tops = [i for i, ins in enumerate(instrs) if ins.op == Op.JMP]
    assert tops, "no loop back edge"
    back = tops[-1]
    start = alloc.live.flow.label_at[instrs[back].target]
    return [ins for ins in instrs[start:back] if defs(ins) is not None and all_lanes(ins)]


@pytest.mark.parametrize("registers", [32, 8, 6])
def test_loop_exit_value_survives_whole_wave_code(registers: int) -> None:
    prog, entry = program("loop_exit_liveness")
    lowered = lower(prog, entry)
    alloc = allocate_registers(lowered, registers)
    x = vreg_of(lowered, "x")
    writes = _all_lane_writes_in_loop(alloc)
    assert any(ins.op == Op.SET_INACTIVE for ins in writes)
    if x in alloc.slot:
        # Spilled: every reload/spill of x's slot moves all lanes.
        for ins in alloc.code:
            if isinstance(ins, Instr) and ins.op in (Op.SPILL, Op.RELOAD) and ins.imm == alloc.slot[x]:
                assert ins.wm == 1
    else:
        for ins in writes:
            assert alloc.color[ins.d] != alloc.color[x], f"{ins.op.name} clobbers x"


def test_all_lane_writes_never_share_with_anything_live_in_any_lane() -> None:
    for name in ("payload_clobber", "loop_exit_liveness", "divergent_wave_ops", "simple_deopt"):
        prog, entry = program(name)
        for uniform in (True, False):
            for registers in (32, 6, 5):
                lowered = lower(prog, entry, uniform)
                alloc = allocate_registers(lowered, registers)
                live = alloc.live
                for i, ins in enumerate(live.flow.instrs):
                    d = defs(ins)
                    if d is None:
                        continue
                    across = live.live_any(i) if all_lanes(ins) else live.live_out[i]
                    for u in bits(across):
                        if u != d:
                            assert alloc.color[u] != alloc.color[d], (name, i, ins)


def test_spills_move_all_lanes_and_registers_bound_is_respected() -> None:
    prog, entry = program("divergent_wave_ops")
    lowered = lower(prog, entry)
    alloc = allocate_registers(lowered, 4)
    assert alloc.slot, "4 registers should force spills"
    spill_ops = [ins for ins in alloc.code if isinstance(ins, Instr)
                 and ins.op in (Op.SPILL, Op.RELOAD)]
    assert spill_ops and all(ins.wm == 1 for ins in spill_ops)
    assert max(alloc.color.values()) < 4
    masked = allocate_registers(lower(prog, entry), 4,
                                mutants=mutants.Mutants.of({"spill-under-mask"}))
    assert all(ins.wm == 0 for ins in masked.code if isinstance(ins, Instr)
               and ins.op in (Op.SPILL, Op.RELOAD))


def test_too_few_registers_is_an_allocation_error() -> None:
    prog = parse("def k(out: Buffer[i32]):\n    out[gid()] = wave_sum(gid()) + gid() * gid()\n")
    with pytest.raises(AllocationError, match="registers=1 is too few"):
        allocate_registers(lower(prog, "k"), 1)


def test_infopoints_carry_stacks_and_reference_bits() -> None:
    prog, entry = program("simple_deopt")
    lowered = lower(prog, entry)
    compiled = emit(lowered, allocate_registers(lowered, 32))
    kinds = sorted(info.kind for info in compiled.infopoints)
    assert kinds == ["division_by_zero", "out_of_bounds"]  # length // 2 and the store
    [store] = [i for i in compiled.infopoints if i.kind == "out_of_bounds"]
    assert [(f.function, f.line) for f in store.stack] == [("simple_deopt", 15), ("write_int_array", 19)]
    live = {loc.name.split(" (")[0]: loc for loc in store.live}  # "... (inlined at ...)"
    assert live["write_int_array.ary"].is_ref and not live["write_int_array.index"].is_ref
    assert {"write_int_array.ary", "write_int_array.index", "write_int_array.val"} <= set(live)
    for info in compiled.infopoints:
        row = compiled.rows[info.pc]
        assert row[7] == compiled.infopoints.index(info)


def test_break_and_continue_have_lane_edges_not_wave_edges() -> None:
    prog = parse(
        "def k(out: Buffer[i32]):\n"
        "    for j in range(0, 4):\n"
        "        if j == gid():\n"
        "            break\n"
        "        if j == 1:\n"
        "            continue\n"
        "        out[gid()] = j\n"
    )
    lowered = lower(prog, "k")
    f = flow(lowered.code, lowered.logical)
    clears = [i for i, ins in enumerate(f.instrs) if ins.op == Op.M_CLEAR and ins.d == 0]
    assert len(clears) == 2
    for i in clears:
        assert f.physical[i] == [i + 1]          # the wave falls through
        assert f.logical[i] != [i + 1]           # the lane leaves (to exit / continue)



def test_spill_temp_of_a_masked_def_keeps_its_register_until_the_spill() -> None:
    """Regression (corpus/kernel-2c7f39c4b4526c15.json): the temp reloaded before a masked
    def carries the inactive lanes to the all-lane spill after it; nothing in between may
    take its register."""
    checked = 0
    for name in ("payload_clobber", "loop_exit_liveness", "divergent_wave_ops", "simple_deopt"):
        prog, entry = program(name)
        for registers in (4, 5, 6, 8):
            alloc = allocate_registers(lower(prog, entry), registers)
            instrs = alloc.live.flow.instrs
            for i, ins in enumerate(instrs):
                if not ins.keeps:
                    continue
                reg = alloc.color[ins.d]
                start = max(j for j in range(i) if instrs[j].op == Op.RELOAD
                            and instrs[j].d == ins.d)
                stop = min(j for j in range(i + 1, len(instrs)) if instrs[j].op == Op.SPILL
                           and instrs[j].a == ins.d)
                for j in range(start + 1, stop):
                    other = defs(instrs[j])
                    if j != i and other is not None:
                        assert alloc.color[other] != reg, (name, registers, j)
                checked += 1
    assert checked > 0


# --- reduce=tree: reductions as shuffle butterflies, and whole-wave liveness

TREE = """\
def k(out: Buffer[i32], inp: Buffer[i32]):
    g = gid()
    a = inp[g % len(inp)]
    if lane() % 3 != 1:
        out[g] = wave_sum(a * 3 + g)
    else:
        out[g] = i32(wave_any(a > 5))
"""


def _lane_id(lowered) -> int:
    [v] = [v for v, m in lowered.vreg_meanings.items() if m == "lane id (all lanes)"]
    return v


def test_tree_lowers_each_reduction_to_six_whole_wave_shuffle_steps() -> None:
    lowered = lower(parse(TREE), "k", tree=True)
    instrs = [i for i in lowered.code if isinstance(i, Instr)]
    shuffles = [i for i in instrs if i.op == Op.SHUFFLE]
    assert len(shuffles) == 12 and all(i.wm == 1 for i in shuffles)
    assert not any(i.op in (Op.WWM_SUM, Op.WWM_OR) for i in instrs)
    lane = _lane_id(lowered)
    [prologue] = [i for i in instrs if i.op == Op.LANEID and i.d == lane]
    assert prologue.wm == 1 and instrs.index(prologue) < instrs.index(shuffles[0])
    xors = [i for i in instrs if i.op == Op.XOR]
    assert len(xors) == 12 and all(i.a == lane and i.wm == 1 for i in xors)
    native = [i for i in lower(parse(TREE), "k").code if isinstance(i, Instr)]
    assert {Op.WWM_SUM, Op.WWM_OR} <= {i.op for i in native}


def test_tree_builds_every_integer_reduction_from_the_prologues_lane_id() -> None:
    """Under `tree`, minimum, maximum, the bitwise and the clustered reductions are
    butterflies too, and every one reads the one long-lived lane id (they each made a
    fresh one, and minimum and maximum were native: with the wider vocabulary most of a
    kernel's reductions kept no whole-wave value alive, and whole-wave-read-not-live went
    from 10 of 10 trials to 6 of 10)."""
    text = ("def k(out: Buffer[i32], inp: Buffer[i32]):\n    g = gid()\n"
            "    a = inp[g % len(inp)]\n"
            "    out[g] = wave_min(a) + i32(wave_max(u8(a))) + wave_or(a) + wave_and(a)\n"
            "    out[g] = out[g] + wave_sum(a, cluster=4) + i32(wave_xor(i64(a), cluster=8))\n"
            "    out[g] = out[g] + i32(wave_min(f32(a)))\n")
    lowered = lower(parse(text), "k", tree=True)
    instrs = [i for i in lowered.code if isinstance(i, Instr)]
    lane = _lane_id(lowered)
    assert [i.op for i in instrs].count(Op.LANEID) == 1  # the prologue's alone
    steps = [i for i in instrs if i.op == Op.XOR and i.a == lane and i.wm == 1]
    assert len(steps) == 6 * 4 + 2 + 3  # four whole-wave butterflies, clusters of 4 and 8
    ops = {i.op for i in instrs}
    assert Op.WWM_FMIN in ops and not {Op.WWM_MIN, Op.WWM_MAX} & ops  # f32 stays native
    native = {i.op for i in lower(parse(text), "k").code if isinstance(i, Instr)}
    assert {Op.WWM_MIN, Op.WWM_MAX} <= native


def test_lane_id_is_live_in_every_lane_across_the_then_arm() -> None:
    # The else-arm's shuffles read the lane id in *every* lane, the then-lanes too: per
    # lane it is dead for them, but a masked write in the then-arm must not clobber it
    # (without the whole-wave liveness, registers=4 put wave_sum's result over it).
    lowered = lower(parse(TREE), "k", tree=True)
    live = liveness(flow(lowered.code, lowered.logical), lowered.regions)
    lane = _lane_id(lowered)
    instrs = live.flow.instrs
    first_or = next(i for i, ins in enumerate(instrs) if ins.op == Op.OR)
    movs = [i for i, ins in enumerate(instrs) if ins.op == Op.MOV and i < first_or]
    then_result = instrs[movs[-1]].d  # out = whole: wave_sum's value, a masked write
    assert live.whole[movs[-1]] >> lane & 1
    graph = interference(live)
    assert lane in graph[then_result]
    forgetful = liveness(flow(lowered.code, lowered.logical), lowered.regions,
                         mutants.Mutants.of(["whole-wave-read-not-live"]))
    assert not forgetful.whole[movs[-1]] >> lane & 1
    assert lane not in interference(forgetful)[then_result]
    for regs in (4, 5, 6, 8):
        alloc = allocate_registers(lowered, regs)
        lane_reg = alloc.color.get(lane)
        assert lane_reg is None or lane_reg != alloc.color.get(then_result)


def test_spill_under_mask_spills_the_lane_id_under_the_exec_mask() -> None:
    lowered = lower(parse(TREE), "k", tree=True)
    lane = _lane_id(lowered)

    def lane_spills(names: list[str], seed: int) -> list[Instr]:
        alloc = allocate_registers(lowered, 4, "random", seed,
                                   mutants=mutants.Mutants.of(names))
        if lane not in alloc.slot:
            return []
        return [i for i in alloc.code if isinstance(i, Instr)
                and i.op in (Op.SPILL, Op.RELOAD) and i.imm == alloc.slot[lane]]

    spilled = [s for s in range(20) if lane_spills([], s)]
    assert spilled, "some allocation order spills the lane id at registers=4"
    for seed in spilled:
        assert all(i.wm == 1 for i in lane_spills([], seed))
        assert all(i.wm == 0 for i in lane_spills(["spill-under-mask"], seed))


@given(st.sets(st.integers(0, 3000), max_size=400))
def test_bits_lists_a_bitsets_members_lowest_first(members: set[int]) -> None:
    mask = sum(1 << b for b in members)  # both of bits' ways: few members, and many
    assert bits(mask) == sorted(members)


def test_a_compilation_keeps_no_compiler_state_alive() -> None:
    """What the compile cache holds is the machine's code and the deopt metadata, not the
    lowered code, the allocation or its liveness (thousands of objects a compilation,
    which the garbage collector would scan over and over); its listing, compiled again
    when asked for, is the listing of the compilation itself."""
    import gc
    import types

    from targets.numba_simt.compiler import liveness as liveness_module
    from targets.numba_simt.compiler import lower as lower_module
    from targets.numba_simt.compiler import regalloc
    from targets.numba_simt.target import _compile, compile_options, compile_program

    prog, entry = program("loop_exit_liveness")
    copts = compile_options({"registers": 5})
    compiled = compile_program(prog, entry, copts)
    heavy = (lower_module.Instr, lower_module.Label, lower_module.Lowered,
             regalloc.Allocation, liveness_module.Liveness, liveness_module.Flow)
    seen: set[int] = set()
    todo: list[object] = [compiled]
    while todo:
        obj = todo.pop()
        if id(obj) in seen or isinstance(obj, (type, types.ModuleType, types.FunctionType)):
            continue
        seen.add(id(obj))
        assert not isinstance(obj, heavy), f"the compilation keeps a {type(obj).__name__}"
        todo.extend(gc.get_referents(obj))
    assert compiled.listing == _compile(prog, entry, copts).listing
    assert "spill s" in compiled.listing and len(compiled.slot) > 0  # it spills


@settings(max_examples=30, deadline=None)
@given(kernels(), st.booleans(), st.sampled_from([
    [], ["whole-wave-read-not-live"], ["partial-def-no-reload"],
    ["masked-def-no-keep", "reload-under-mask", "spill-under-mask"],
    ["wwm-then-else", "wwm-loop-exit", "wwm-call-return"]]), st.data())
def test_liveness_after_spilling_is_the_liveness_of_the_spilled_code(
        kernel, tree: bool, names: list[str], data) -> None:
    """Allocation rounds after the first work the flow of the spilled code out from the
    round before (`after_spill`); it must equal the flow worked out from scratch, and so
    must its liveness, whichever vregs are spilled, round after round."""
    lowered = lower(kernel.program, kernel.entry, tree=tree)
    m = mutants.Mutants.of(names)
    for code, overrides, live in spill_rounds(lowered, data, 3, 8, m):
        full = liveness(flow(code, overrides), lowered.regions, m)
        for part in ("instrs", "label_at", "physical", "logical", "defined", "used",
                     "reads", "use_bits", "def_bits", "flags"):
            assert getattr(live.flow, part) == getattr(full.flow, part), part
        for part in ("live_in", "live_out", "parked", "whole"):
            assert getattr(live, part) == getattr(full, part), part
