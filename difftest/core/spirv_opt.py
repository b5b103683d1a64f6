"""SPIRV-Tools' optimizer in a Vulkan target's pipeline: the options that ask for it and
the passes a recipe may name (docs/semantics.md, "The SPIR-V optimizer").

`spirv_opt` is `off` (the default), a level (`O`, `Os`: spirv-opt's own recipes), a
recipe (`merge-blocks,if-conversion,...`: these passes in this order), or `random`: the
case's `spirv_recipe`, drawn by the generators from `RECIPE_PASSES` (shrinking drops
passes, so a counterexample's recipe comes out as short as still fails; a Vulkan
target's `avoid` may leave passes of known bugs out of it: AVOIDED_PASSES in
targets/vulkan/target.py), and `-O` for a case without one. Every setting is an
option recorded in the case, so replay, reduction and export run the same passes.
"""

from __future__ import annotations

#: the passes a recipe draws from: those that restructure control flow (what moves a wave
#: operation across a merge: merge-return, loop-unswitch, loop-unroll, dead-branch
#: elimination, if-conversion, block merging, inlining, code sinking and hoisting) and
#: the ones that make SSA values and fold them, which those passes need to do anything
RECIPE_PASSES: tuple[str, ...] = (
    "eliminate-local-multi-store", "merge-return", "loop-unswitch", "loop-unroll",
    "eliminate-dead-branches", "if-conversion", "merge-blocks",
    "inline-entry-points-exhaustive", "code-sink", "loop-invariant-code-motion",
    "ssa-rewrite", "eliminate-local-single-block", "eliminate-local-single-store",
    "ccp", "simplify-instructions", "eliminate-dead-code-aggressive",
    "redundancy-elimination", "local-redundancy-elimination", "loop-peeling",
    "scalar-replacement", "private-to-local", "copy-propagate-arrays", "vector-dce",
    "cfg-cleanup", "wrap-opkill", "strength-reduction", "combine-access-chains",
    "convert-local-access-chains", "reduce-load-size", "eliminate-dead-inserts",
    "unify-const", "eliminate-dead-functions",
)
LEVELS = {"O": "-O", "Os": "-Os"}
SETTINGS = ("off", *LEVELS, "random")


class RecipeError(ValueError):
    """A setting or recipe that names what spirv-opt has not (the message says which)."""


def recipe(text: str) -> list[str]:
    """A recipe's passes, each one spirv-opt has (RecipeError naming the first that is
    not, or an empty recipe)."""
    passes = [p.strip() for p in text.split(",") if p.strip()]
    if not passes:
        raise RecipeError("an empty recipe")
    for p in passes:
        if p not in RECIPE_PASSES:
            raise RecipeError(f"unknown pass {p!r} (known: {', '.join(RECIPE_PASSES)})")
    return passes


def flags(setting: object, drawn: object = None) -> list[str]:
    """spirv-opt's flags for a `spirv_opt` setting (`drawn`: the case's `spirv_recipe`);
    [] for off. RecipeError for a setting that is none of those."""
    if setting is None or setting == "off":
        return []
    if not isinstance(setting, str):
        raise RecipeError(f"expected {', '.join(SETTINGS)} or a recipe, got {setting!r}")
    if setting in LEVELS:
        return [LEVELS[setting]]
    if setting == "random":
        if drawn is None:
            return [LEVELS["O"]]
        if not isinstance(drawn, str):
            raise RecipeError(f"spirv_recipe={drawn!r}: expected passes, comma-separated")
        return _runnable(recipe(drawn))
    return _runnable(recipe(setting))


def _runnable(passes: list[str]) -> list[str]:
    """The flags of `passes`, each merge-return preceded by dead-branch elimination:
    merge-return refuses a module with unreachable blocks ("Run dead branch elimination
    before merge return", as spirv-opt's own -O does), and naga's modules have them; a
    refusal of a precondition says nothing about the optimizer."""
    out: list[str] = []
    for p in passes:
        if p == "merge-return" and out[-1:] != ["--eliminate-dead-branches"]:
            out.append("--eliminate-dead-branches")
        out.append(f"--{p}")
    return out


__all__ = ["LEVELS", "RECIPE_PASSES", "RecipeError", "SETTINGS", "flags", "recipe"]
