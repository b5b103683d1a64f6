"""Source names a target language cannot spell, renamed before it is emitted.

The kernel language takes Python's identifiers: any letters (`数`, `kër`), of any length.
GLSL takes ASCII letters, digits and underscores, and glslang a name of at most 1,024
characters (the translation prefixes its own: `v_`), so a kernel that spells a name
otherwise failed to build there -- a failure of the translation, not of the driver.
Such names become `u0`, `u1`, ... (none the program uses); the translation maps its
parameters and functions back, so a run reads and reports the kernel's own names.
"""

from __future__ import annotations

import dataclasses
import re

from difftest.core.ir import nodes as n
from difftest.core.ir.walk import rewrite, walk

from .emit import BufferParam, Translation

#: the fields of the IR's nodes that hold a source name (a variable, buffer, array,
#: parameter or function)
_NAME_FIELDS = {n.Assign: "target", n.AtomicAdd: "buffer", n.AtomicOp: "buffer",
                n.Call: "func", n.For: "var", n.Function: "name", n.Len: "buffer",
                n.Load: "buffer", n.LocalArray: "name", n.Name: "id", n.Param: "name",
                n.PrivateArray: "name", n.Store: "buffer"}
_PLAIN = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,63}")


def plain_names(program: n.Program) -> tuple[n.Program, dict[str, str]]:
    """`program` with every name outside ASCII or past 64 characters renamed, and the
    renaming (empty, and the program itself, where there is none)."""
    names = {getattr(x, _NAME_FIELDS[type(x)]) for x in walk(program.functions)
             if type(x) in _NAME_FIELDS}
    odd = sorted(x for x in names if not (x.isascii() and _PLAIN.fullmatch(x)))
    if not odd:
        return program, {}
    fresh = (f"u{k}" for k in range(len(names) + len(odd)) if f"u{k}" not in names)
    renaming = dict(zip(odd, fresh))

    def rename(x: object) -> object:
        field = _NAME_FIELDS.get(type(x))  # type: ignore[call-overload]
        if field is None or getattr(x, field) not in renaming:
            return x
        return n.replace(x, **{field: renaming[getattr(x, field)]})

    return rewrite(program, rename), renaming


def named_back(tr: Translation, renaming: dict[str, str]) -> Translation:
    """`tr` with its parameters, buffers and functions under the kernel's own names (the
    source keeps the plain ones)."""
    if not renaming:
        return tr
    back = {v: k for k, v in renaming.items()}

    def param(p: n.Param) -> n.Param:
        return n.replace(p, name=back.get(p.name, p.name))

    def buffer(b: BufferParam) -> BufferParam:
        return dataclasses.replace(b, name=back.get(b.name, b.name))

    return dataclasses.replace(
        tr, params=tuple(map(param, tr.params)), scalars=tuple(map(param, tr.scalars)),
        buffers=tuple(map(buffer, tr.buffers)),
        functions=tuple(back.get(f, f) for f in tr.functions))
