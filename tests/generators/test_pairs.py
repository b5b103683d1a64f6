"""Coverage of pairs (generators/pairs.py; docs/semantics.md, "Coverage of pairs"): each
pair read off hand-written kernels and host programs, where the answer is worked out by
hand in the comments; and the generators reach every pair in a fixed-seed sample."""

from __future__ import annotations

import collections
import textwrap
from typing import Any

import pytest

from difftest.core.host import HostError
from difftest.core.ir import parse
from generators.cases import kernel_cases
from generators.pairs import ALL_PAIRS, HOST_PAIRS, BufferStates, host_pairs, kernel_pairs
from generators.sampling import draw


def pairs_of(source: str, prefix: str) -> set[str]:
    found = kernel_pairs(parse(textwrap.dedent(source)))
    return {p for p in found if p.startswith(prefix)}


def test_a_value_read_before_the_body_redefines_it_is_live_across_continue() -> None:
    # v: read at the top of each trip, redefined after the continue, reassigned after the
    # loop before any read: dead at the exit, live at the continue point
    kernel = """
        def kernel(inp: Buffer[i32], out: Buffer[i32]):
            i = gid()
            v = inp[i]
            for k in range(0, 4):
                out[i] = out[i] + v
                if k < inp[i]:
                    continue
                v = wave_sum(k)
            v = 0
            out[i] = out[i] + v
    """
    assert "live:across_continue" in pairs_of(kernel, "live:")
    # read after the loop: live at its exit; i is too; k is read only in the body
    assert pairs_of(kernel.replace("            v = 0\n", ""), "live:") == {
        "live:after_loop", "live:in_body"}
    # without the continue the same value is only live in the body
    no_continue = kernel.replace("                if k < inp[i]:\n"
                                 "                    continue\n", "")
    assert "live:across_continue" not in pairs_of(no_continue, "live:")


def test_last_uses_before_a_break_never_and_after_the_loop() -> None:
    kernel = """
        def kernel(out: Buffer[i32]):
            a = 1
            b = 2
            c = 3
            for k in range(0, 3):
                c = k
                if k == 1:
                    out[gid()] = a
                    break
            b = 5
            out[gid()] = out[gid()] + b
    """
    # a: read only on the arm that ends in break; c: assigned in the loop, never read
    # there nor after; b: not in the loop at all; k: read in the body
    assert pairs_of(kernel, "live:") == {"live:before_break", "live:never", "live:in_body"}
    # c read after the loop: live at its exit
    assert "live:after_loop" in pairs_of(kernel.replace("+ b", "+ c"), "live:")


def test_wave_operations_by_the_exit_some_lanes_took() -> None:
    kernel = """
        def h(x: i32) -> i32:
            if x > 2:
                return x
            return wave_min(x)

        def kernel(out: Buffer[i32]):
            t = 0
            for k in range(0, 4):
                t = t + wave_sum(k)
                if k == lane():
                    break
                t = t + i32(ballot(k > 1))
            for k in range(0, 4):
                if k == lane():
                    continue
                t = t + shuffle(t, 0)
            t = t + readfirstlane(t) + h(t)
            out[gid()] = t
    """
    # the first wave_sum runs before the break; readfirstlane after both loops (where
    # the lanes reconverged); wave_min after the helper's early return
    assert pairs_of(kernel, "wave@") == {"wave@break:ballot", "wave@continue:shuffle",
                                         "wave@return:wave_min"}


def test_an_early_return_of_the_kernel_is_not_a_helpers() -> None:
    kernel = """
        def kernel(out: Buffer[i32]):
            if lane() == 0:
                return
            out[gid()] = wave_sum(1)
    """
    assert pairs_of(kernel, "wave@") == set()


def _case(host: list[dict[str, Any]]) -> Any:
    from difftest.core.case import case_from_json

    return case_from_json({
        "format": "difftest-case", "version": 3, "entry": "kernel",
        "kernel": "def kernel(out: Buffer[i32], inp: Buffer[i32]):\n"
                  "    out[gid()] = inp[gid()]\n",
        "launch": {"n": 2, "wave": 2},
        "args": {"out": {"dtype": "i32", "data": [0, 0]},
                 "inp": {"dtype": "i32", "data": [1, 2]}},
        "host": host})


def test_host_steps_by_the_state_of_their_buffer() -> None:
    program = [
        {"op": "read", "buffer": "inp"},                                  # created
        {"op": "launch"},                     # created x2: in the pool, out before inp
        {"op": "map", "buffer": "inp", "mode": "read", "as": "r"},        # bound
        {"op": "write", "buffer": "inp", "offset": 0, "data": [5]},       # mapped_read
        {"op": "map", "buffer": "out", "mode": "write", "as": "w"},       # bound: a hole
        {"op": "unmap", "mapping": "w"},                                  # mapped_write
        {"op": "create", "buffer": "big", "dtype": "i32", "length": 9},
        {"op": "create", "buffer": "big2", "dtype": "i32", "length": 9},
        {"op": "launch", "bind": {"out": "big", "inp": "big2"}},  # created x2; takes in
        {"op": "map_read", "mapping": "r"},          # moved (inp was after the hole)
        {"op": "unmap", "mapping": "r"},                                  # mapped_read
        {"op": "map", "buffer": "big", "mode": "write", "as": "w2"},      # bound
        {"op": "unmap", "mapping": "w2"},                                 # mapped_write
        {"op": "free", "buffer": "big"},                                  # unmapped
    ]
    assert host_pairs(_case(program)) == {
        "host:read@created", "host:launch@created", "host:map@bound",
        "host:write@mapped_read", "host:map_read@moved", "host:unmap@mapped_read",
        "host:unmap@mapped_write", "host:free@unmapped"}
    # without the hole nothing moves: a launch that takes a buffer in appends it
    no_hole = program[:4] + program[6:9] + program[9:11]
    assert "host:map_read@moved" not in host_pairs(_case(no_hole))
    assert host_pairs(_case(program)) <= set(HOST_PAIRS)


def test_a_step_that_breaks_a_rule_makes_no_pair_and_ends_the_count() -> None:
    program = [{"op": "map", "buffer": "out", "mode": "write", "as": "w"},
               {"op": "read", "buffer": "out"},      # mapped for writing: a host error
               {"op": "read", "buffer": "inp"}]
    assert host_pairs(_case(program)) == {"host:map@created"}
    states = BufferStates.for_case(_case([]))
    case = _case([])
    states.step(program[0], case.function)
    with pytest.raises(HostError):
        states.step(program[1], case.function)


def test_the_generators_reach_every_pair() -> None:
    """What `difftest fuzz --time 60 --workers 2` shows as "pair coverage: 68/68": the
    kernels two workers draw (seed 0), in the campaign's own batches, about as many as a
    minute makes. (One long Hypothesis run is no such sample: its examples are not
    independent, and one seed's run drew no `wave@return:elect` in 3,000 kernels.)"""
    from difftest.campaign.fuzz import BATCH, batch_seed

    count: collections.Counter[str] = collections.Counter()
    for worker in range(2):
        for batch in range(1000 // BATCH):
            for kernel, cases in draw(kernel_cases(), BATCH, batch_seed(0, worker, batch)):
                found = set(kernel.constructs)
                for case in cases:
                    found |= host_pairs(case)
                count.update(p for p in found if p in ALL_PAIRS)
    missing = [p for p in ALL_PAIRS if not count[p]]
    assert not missing, missing


def test_a_target_is_counted_only_on_the_pairs_it_can_be_given() -> None:
    """Host pairs need host programs, wave pairs wave operations: a Vulkan or CUDA
    campaign is not shown 30 host pairs 'never reached' that it can never be given."""
    from generators.pairs import ALL_PAIRS, HOST_PAIRS, unreachable_pairs

    wave = {p for p in ALL_PAIRS if p.startswith("wave@")}
    assert unreachable_pairs(frozenset({"host_programs", "wave_ops"})) == frozenset()
    assert unreachable_pairs(frozenset({"wave_ops", "f32"})) == set(HOST_PAIRS)
    assert unreachable_pairs(frozenset()) == set(HOST_PAIRS) | wave
    assert not any(p.startswith("live:") for p in unreachable_pairs(frozenset()))


@pytest.mark.parametrize("name", ["reference", "lavapipe-wgsl"])
def test_a_campaign_summary_leaves_out_the_pairs_its_target_cannot_reach(name: str,
                                                                        tmp_path: Any) -> None:
    import io

    from difftest.campaign.fuzz import FuzzConfig, format_summary, fuzz
    from difftest.campaign.registry import installed_target_names, load_target
    from generators.pairs import unreachable_pairs

    if name not in installed_target_names():
        pytest.skip(f"{name} is not installed here")
    s = fuzz(FuzzConfig(target=name, examples=2, workers=1, corpus=tmp_path), io.StringIO())
    hidden = unreachable_pairs(frozenset(load_target(name).capabilities))
    assert set(s.construct_counts) & set(ALL_PAIRS) == set(ALL_PAIRS) - hidden
    assert (name == "reference") == (not hidden)
    shown = format_summary(s, name)
    assert f"/{len(ALL_PAIRS) - len(hidden)} pairs" in shown
    assert not any(p in shown for p in hidden)
