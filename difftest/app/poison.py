"""Workgroup memory filled with a poison value where a kernel declares it, before the
kernel's own code runs: `export --reduce` runs each candidate's reference check on this
form, so a candidate whose result depends on workgroup memory it never wrote (C-Vise
readily cuts the zeroing loop, and a reference build may happen to hand out zeroed
memory) no longer gives the expected result and is refused.

Standalone (the standard library only): the reduction's folder keeps a copy beside its
interestingness test, for a rerun by hand.

`python3 poison.py KERNEL OUT` writes KERNEL's poisoned form to OUT; the language is
told by KERNEL's suffix (.cl, .cu, .comp, .wgsl).
"""

from __future__ import annotations

import re
import sys

#: the value every element gets: not 0, not small, positive in every integer width
#: it is truncated to (0x5A... keeps the sign bit clear), exact in f32
POISON = "0x5A5A5A5A"

#: OpenCL C and CUDA: `__local T name[N];` / `__shared__ T name[N];` at the kernel's
#: outermost scope, where every work-item of the group passes
_IN_KERNEL = {
    ".cl": (re.compile(r"^([ \t]*)(?:__local|local)\s+(\w+)\s+(\w+)\s*\[\s*(\d+)\s*\]\s*;[^\n]*$",
                       re.M),
            "if (get_local_id(0) == 0) {{ for (int p_ = 0; p_ < {n}; p_++) {name}[p_] = "
            "({ty}){poison}; }} barrier(CLK_LOCAL_MEM_FENCE);"),
    ".cu": (re.compile(r"^([ \t]*)__shared__\s+(\w+(?:\s+\w+)?)\s+(\w+)\s*\[\s*(\d+)\s*\]\s*;"
                       r"[^\n]*$", re.M),
            "if (threadIdx.x == 0) {{ for (int p_ = 0; p_ < {n}; p_++) {name}[p_] = "
            "({ty}){poison}; }} __syncthreads();"),
}

#: GLSL and WGSL declare workgroup memory at module scope: the fill goes first in main
_AT_MODULE = {
    ".comp": (re.compile(r"^shared\s+(\w+)\s+(\w+)\s*\[\s*(\d+)\s*\]\s*;", re.M),
              re.compile(r"^void\s+main\s*\(\s*\)\s*\{", re.M),
              "if (gl_LocalInvocationIndex == 0u) {{ for (int p_ = 0; p_ < {n}; p_++) "
              "{name}[p_] = {ty}({poison}); }} barrier();"),
    ".wgsl": (re.compile(r"^var<workgroup>\s+(\w+)\s*:\s*array<\s*(\w+)\s*,\s*(\d+)\s*>\s*;",
                         re.M),
              re.compile(r"^fn\s+main\s*\([^{]*@builtin\(local_invocation_index\)\s+(\w+)"
                         r"[^{]*\{", re.M),
              "if ({li} == 0u) {{ for (var p_ = 0; p_ < {n}; p_++) {{ {name}[p_] = "
              "{ty}({poison}); }} }} workgroupBarrier();"),
}


def poisoned(source: str, suffix: str) -> str:
    """`source` with its workgroup arrays filled with POISON first; unchanged where it
    declares none (or is in a language without workgroup memory)."""
    if suffix in _IN_KERNEL:
        pattern, fill = _IN_KERNEL[suffix]

        def after(m: re.Match[str]) -> str:
            ty, name, n = m.group(2), m.group(3), m.group(4)
            return m.group(0) + "\n" + m.group(1) + fill.format(
                n=n, name=name, ty=ty, poison=POISON)

        return pattern.sub(after, source)
    if suffix in _AT_MODULE:
        declaration, main, fill = _AT_MODULE[suffix]
        arrays = declaration.findall(source)
        head = main.search(source)
        if not arrays or head is None:
            return source
        li = head.group(1) if head.groups() else ""
        fills = []
        for m in arrays:
            ty, name, n = (m[0], m[1], m[2]) if suffix == ".comp" else (m[1], m[0], m[2])
            fills.append(fill.format(n=n, name=name, ty=ty, poison=POISON, li=li))
        return source[:head.end()] + "\n    " + " ".join(fills) + source[head.end():]
    return source


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print("usage: poison.py KERNEL OUT", file=sys.stderr)
        return 2
    with open(argv[0]) as f:
        source = f.read()
    suffix = argv[0][argv[0].rfind("."):]
    with open(argv[1], "w") as f:
        f.write(poisoned(source, suffix))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
