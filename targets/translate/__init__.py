"""Translations of checked kernel programs into real targets' languages: OpenCL C,
WGSL and GLSL, with every rule of docs/semantics.md spelled out (emit.py)."""

from __future__ import annotations

from difftest.core.ir import nodes as n

from .emit import (AVOIDABLE, COMPLETED, EXHAUSTED, HEADER, KINDS, Dialect, Translation,
                   Translator, Unsupported)
from .cuda import CudaC
from .glsl import GLSL
from .identifiers import named_back, plain_names
from .opencl_c import OpenCLC
from .wgsl import WGSL

__all__ = ["AVOIDABLE", "COMPLETED", "EXHAUSTED", "HEADER", "KINDS", "Translation", "Unsupported",
           "subgroup_size", "translate"]


def subgroup_size(wave: int) -> int:
    """S, the subgroup size a launch in waves of W asks for: W, or 4 for W < 4 (a
    work-group of 1 or 2 items is then a partial subgroup)."""
    return max(wave, 4)


def translate(program: n.Program, entry: str, language: str, wave: int,
              mutants: frozenset[str] = frozenset(), subgroup: int = 0,
              avoid: frozenset[str] = frozenset(), group: int = 0,
              features: frozenset[str] = frozenset()) -> Translation:
    """`program` (checked) as source text of `language`: "opencl" (no subgroups),
    "opencl-subgroups", "wgsl", "glsl" or "cuda" (a warp of 32), for launches in waves
    of `wave` on subgroups of `subgroup` lanes (0: `subgroup_size(wave)`, what a device
    that sizes its subgroups to the request gives), spelling around the known target bugs
    `avoid` names (emit.AVOIDABLE), in workgroups of `group` items (0: one wave), with
    the optional device `features` the language may use ("clustered": GLSL's clustered
    subgroup operations). Raises Unsupported for what the language cannot express."""
    dialect: Dialect
    if language == "opencl":
        dialect, s = OpenCLC(subgroups=False), 0
    elif language == "opencl-subgroups":
        dialect, s = OpenCLC(subgroups=True), subgroup_size(wave)
    elif language == "wgsl":
        dialect, s = WGSL(), subgroup_size(wave)
    elif language == "glsl":
        dialect, s = GLSL(mutants, features), subgroup_size(wave)
    elif language == "cuda":
        dialect, s = CudaC(), 32
    else:
        raise ValueError(f"unknown language {language!r}")
    if subgroup and s:
        s = subgroup
    renaming: dict[str, str] = {}
    if language == "glsl":  # ASCII names of at most 1,024 characters (identifiers.py)
        program, renaming = plain_names(program)
    tr = Translator(dialect, program, entry if not renaming else renaming.get(entry, entry),
                    wave, s, mutants, avoid, group).run()
    return named_back(tr, renaming)
