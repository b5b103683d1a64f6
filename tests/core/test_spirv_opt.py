"""The SPIR-V optimizer's settings (difftest/core/spirv_opt.py): what each asks
spirv-opt for, and the one clear error for what it has not."""

from __future__ import annotations

import pytest

from difftest.core.spirv_opt import RECIPE_PASSES, RecipeError, flags, recipe


def test_off_is_no_optimizer() -> None:
    assert flags(None) == [] and flags("off") == [] and flags("off", "merge-blocks") == []


def test_a_level_is_spirv_opts_own_recipe() -> None:
    assert flags("O") == ["-O"] and flags("Os") == ["-Os"]


def test_a_recipe_is_its_passes_in_order() -> None:
    assert flags("merge-blocks,if-conversion") == ["--merge-blocks", "--if-conversion"]
    assert flags(" loop-unroll , merge-blocks ") == ["--loop-unroll", "--merge-blocks"]


def test_merge_return_runs_after_dead_branch_elimination() -> None:
    # its precondition: no unreachable blocks (naga's modules have them)
    assert flags("loop-unroll,merge-return") == [
        "--loop-unroll", "--eliminate-dead-branches", "--merge-return"]
    assert flags("random", "eliminate-dead-branches,merge-return,merge-return") == [
        "--eliminate-dead-branches", "--merge-return", "--eliminate-dead-branches",
        "--merge-return"]


def test_random_runs_the_cases_drawn_recipe_and_O_without_one() -> None:
    assert flags("random", "code-sink,ccp") == ["--code-sink", "--ccp"]
    assert flags("random") == ["-O"]


@pytest.mark.parametrize("setting, drawn, message", [
    ("bogus", None, "unknown pass 'bogus'"),
    ("merge-blocks,nope", None, "unknown pass 'nope'"),
    ("random", "merge-blocks,-O", "unknown pass '-O'"),
    (",", None, "an empty recipe"),
    (3, None, "expected off, O, Os, random or a recipe"),
    ("random", 7, "expected passes"),
])
def test_what_spirv_opt_has_not_is_named(setting: object, drawn: object, message: str) -> None:
    with pytest.raises(RecipeError, match=message):
        flags(setting, drawn)


def test_every_recipe_pass_is_a_flag_spirv_opt_takes_alone() -> None:
    """No pass of the vocabulary needs an argument (loop-fission's and loop-fusion's
    thresholds, scalar-replacement's limit are left out or optional)."""
    assert len(set(RECIPE_PASSES)) == len(RECIPE_PASSES)
    assert recipe(",".join(RECIPE_PASSES)) == list(RECIPE_PASSES)
