"""`kernels()`: random kernels that are well-typed, race-free by construction, terminating.

Shape of every kernel (one signature, so inputs are generic)::

    def kernel(inp: Buffer[i32], out: Buffer[<i32|i64>], acc: Buffer[i64], s: i32):
        g = gid()
        ...

Race freedom by construction (DESIGN.md's rule):
- `inp` is only ever loaded (anywhere, in or out of bounds);
- `out` is only touched at the workitem's private slots `g * K + c` (c < K): plain
  stores, read-modify-writes, and loads of those slots; an optional `+ len(out)` offset
  under a condition makes some lanes fault instead of writing;
- `acc` is only touched by `atomic_add`.
Termination: loops are `range(0, C)` with C <= 4 or the scalar `s` (inputs keep it in
-1..4), nested at most twice; helpers have no loops.

Generation policy (swarm testing, as YARPGen): each kernel first draws which feature
groups are enabled at all, then draws statements only from those. So rare combinations
are not drowned out, and shrinking first switches features off, then drops statements,
then simplifies expressions (every `one_of`/`sampled_from` lists the simplest choice first).
Kernels are built as source text and parsed: the text is what the case file stores.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from hypothesis import event
from hypothesis import strategies as st

from difftest.ir import nodes as n
from difftest.ir import parse

from .coverage import constructs

FEATURES = ("branch", "loop", "wave", "memory", "atomic", "helper", "fault", "return",
            "logic", "div")

ENTRY = "kernel"
PARAMS = ("inp", "out", "acc", "s")
CONSTS = (0, 1, 2, 3, -1, 7, 100, 2147483647, -2147483648)
WAVE_OPS = ("wave_sum", "shuffle", "readfirstlane", "wave_min", "wave_max", "prefix_sum",
            "inclusive_sum", "ballot", "wave_any", "wave_all")
_ARITH = ("+", "-", "*", "&", "|", "^", "<<", ">>")
_CMP = ("<", "==", "!=", ">", "<=", ">=")


@dataclass(frozen=True)
class GeneratedKernel:
    source: str
    entry: str
    program: n.Program
    out_dtype: str           # "i32" | "i64"
    slots: int               # K private slots of `out` per workitem
    features: frozenset[str]
    constructs: frozenset[str]


class _Gen:
    """Draws one kernel's text. `d` is Hypothesis's draw; `on` the enabled features."""

    def __init__(self, d: st.DrawFn, on: frozenset[str], slots: int) -> None:
        self.d = d
        self.on = on
        self.K = slots
        self.nvars = 0
        self.helpers: list[str] = []
        self.valued_helper = False
        self.void_helper = False

    def feat(self, name: str) -> bool:
        return name in self.on

    # ----------------------------------------------------------- expressions

    @property
    def g(self) -> str:
        return "gid()" if self.in_helper else "g"

    def leaf(self, env: list[str]) -> str:
        kinds = ["const", "g"] + (["var"] if env else []) + ["lane", "len", "wave_id"]
        if not self.in_helper:
            kinds.append("s")
        k = self.d(st.sampled_from(kinds))
        if k == "const":
            return str(self.d(st.sampled_from(CONSTS)))
        if k == "g":
            return self.g
        if k == "var":
            return self.d(st.sampled_from(env))
        if k == "lane":
            return "lane()"
        if k == "s":
            return "s"
        if k == "len":
            return "len(inp)"
        return "wave()"

    def index(self, env: list[str]) -> str:
        """An index into `inp`: mostly in bounds; with `fault`, sometimes not."""
        forms = ["g % len(inp)", "(g + C) % len(inp)"]
        if self.feat("fault"):
            forms += ["E % len(inp)", "g + C"]
        form = self.d(st.sampled_from(forms)).replace("g", self.g)
        if "C" in form:
            form = form.replace("C", str(self.d(st.integers(0, 3))))
        if "E" in form:
            form = form.replace("E", f"({self.expr(env, 1)})")
        return form

    def private(self) -> str:
        c = self.d(st.integers(0, self.K - 1))
        base = "g" if self.K == 1 else f"g * {self.K}"
        return base if c == 0 else f"{base} + {c}"

    def expr(self, env: list[str], depth: int) -> str:
        if depth <= 0:
            return self.leaf(env)
        kinds = ["leaf", "arith"]
        if self.feat("memory"):
            kinds += ["load"] if self.in_helper else ["load", "load_out"]
        if self.feat("branch"):
            kinds.append("select")
        if self.feat("wave"):
            kinds += ["wave", "wave", "wave_bool"]
        if self.feat("div"):
            kinds.append("div")
        if self.feat("helper") and self.valued_helper:
            kinds.append("call")
        kinds += ["cast", "neg"]
        k = self.d(st.sampled_from(kinds))
        sub = depth - 1
        if k == "leaf":
            return self.leaf(env)
        if k == "arith":
            op = self.d(st.sampled_from(_ARITH))
            return f"({self.expr(env, sub)} {op} {self.expr(env, sub)})"
        if k == "load":
            return f"inp[{self.index(env)}]"
        if k == "load_out":
            return f"{self.out_read()}"
        if k == "select":
            return f"({self.expr(env, sub)} if {self.cond(env, sub)} else {self.expr(env, sub)})"
        if k == "wave":
            return self.wave_expr(env, sub)
        if k == "wave_bool":
            return f"i32(ballot({self.cond(env, sub)}))"
        return self._rest(k, env, sub)

    def wave_expr(self, env: list[str], sub: int) -> str:
        op = self.d(st.sampled_from(WAVE_OPS))
        if op == "ballot":
            return f"i32(ballot({self.cond(env, sub)}))"
        if op in ("wave_any", "wave_all"):
            return f"i32({op}({self.cond(env, sub)}))"
        x = self.expr(env, sub)
        if op == "shuffle":
            src = self.d(st.sampled_from(("lane() ^ 1", "0", "lane() + 1", f"{self.g} % 3")))
            return f"shuffle({x}, {src})"
        return f"{op}({x})"

    def _rest(self, k: str, env: list[str], sub: int) -> str:
        if k == "div":
            op = self.d(st.sampled_from(("//", "%")))
            divisor = self.d(st.sampled_from(("3", "inp[IDX]", "(E % 3)", "(G - C)")))
            divisor = divisor.replace("G", self.g).replace("C", str(self.d(st.integers(0, 3))))
            if "IDX" in divisor:
                divisor = divisor.replace("IDX", self.index(env))
            if "E" in divisor:
                divisor = divisor.replace("E", self.expr(env, 0))
            return f"({self.expr(env, sub)} {op} {divisor})"
        if k == "call":
            return f"h0(inp, {self.expr(env, sub)}, {self.expr(env, sub)})"
        if k == "cast":
            return f"i32(i64({self.expr(env, sub)}) * 3)"
        return f"(-{self.expr(env, sub)})"

    def out_read(self) -> str:
        value = f"out[{self.private()}]"
        return value if self.out_i32 else f"i32({value})"

    def cond(self, env: list[str], depth: int) -> str:
        kinds = ["cmp"]
        if self.feat("logic"):
            kinds += ["and", "or", "not"]
        if self.feat("wave"):
            kinds += ["any", "all"]
        k = self.d(st.sampled_from(kinds))
        sub = max(0, depth - 1)
        if k == "cmp" or depth <= 0:
            op = self.d(st.sampled_from(_CMP))
            return f"{self.expr(env, sub)} {op} {self.expr(env, sub)}"
        if k in ("and", "or"):
            return f"({self.cond(env, sub)} {k} {self.cond(env, sub)})"
        if k == "not":
            return f"not ({self.cond(env, sub)})"
        return f"wave_{k}({self.cond(env, sub)})"

    # ------------------------------------------------------------ statements

    def stmt_kinds(self, in_loop: bool, in_helper: bool) -> list[str]:
        kinds = ["assign"]
        if self.feat("memory") and not in_helper:
            kinds += ["store", "rmw"]
        if self.feat("atomic") and not in_helper:
            kinds.append("atomic")
        if self.feat("wave"):
            kinds.append("wave_assign")
        if self.feat("branch"):
            kinds.append("if")
        if self.feat("loop") and not in_helper and self.loop_depth < 2:
            kinds += ["for", "for", "for"] if in_loop else ["for"]
        if in_loop:
            kinds += ["break", "continue", "continue"]
        if self.feat("return"):
            kinds.append("return")
        if self.feat("fault"):
            kinds += ["fail", "oob_store", "plant"] if not in_helper else ["fail"]
        if self.feat("helper") and self.void_helper and not in_helper:
            kinds.append("call_void")
        return kinds

    def block(self, env: list[str], indent: int, in_loop: bool, in_helper: bool,
              max_stmts: int) -> list[str]:
        lines: list[str] = []
        env = list(env)
        count = self.d(st.integers(1, max_stmts))
        for _ in range(count):
            lines += self.stmt(env, indent, in_loop, in_helper)
        return lines

    def stmt(self, env: list[str], indent: int, in_loop: bool, in_helper: bool,
             kind: str | None = None) -> list[str]:
        pad = "    " * indent
        k = kind or self.d(st.sampled_from(self.stmt_kinds(in_loop, in_helper)))
        if k == "assign":
            if env and self.d(st.booleans()):
                # `g` keeps the private slots private; loop variables are not assignable.
                name = self.d(st.sampled_from(
                    [v for v in env if v not in self.loop_vars and v != "g"] or ["fresh"]))
            else:
                name = "fresh"
            if name == "fresh":
                name = f"x{self.nvars}"
                self.nvars += 1
            value = self.expr(env, 2)
            if name not in env:
                env.append(name)
            return [f"{pad}{name} = {value}"]
        if k == "wave_assign":
            name = f"x{self.nvars}"
            self.nvars += 1
            value = self.wave_expr(env, 1)
            env.append(name)
            return [f"{pad}{name} = {value}"]
        if k == "store":
            return [f"{pad}out[{self.private()}] = {self.widen(self.expr(env, 2))}"]
        if k == "rmw":
            slot = self.private()
            return [f"{pad}out[{slot}] = out[{slot}] + {self.widen(self.expr(env, 1))}"]
        if k == "atomic":
            idx = self.d(st.sampled_from(("g % len(acc)", "E % len(acc)", "0")))
            if "E" in idx:
                idx = idx.replace("E", f"({self.expr(env, 1)})")
            return [f"{pad}atomic_add(acc, {idx}, {self.expr(env, 1)})"]
        if k == "if":
            head = [f"{pad}if {self.cond(env, 1)}:"]
            then = self.block(env, indent + 1, in_loop, in_helper, 2)
            if self.d(st.booleans()):
                orelse = [f"{pad}else:"] + self.block(env, indent + 1, in_loop, in_helper, 2)
            else:
                orelse = []
            return head + then + orelse
        if k == "for":
            var = f"k{self.nvars}"
            self.nvars += 1
            bound = self.d(st.sampled_from(("2", "s", "4", "1", "0")))
            self.loop_depth += 1
            self.loop_vars.append(var)
            inner = env + [var]
            exit_kind = self.d(st.sampled_from(("none", "break", "continue")))
            body = self.block(inner, indent + 1, True, in_helper, 3)
            if exit_kind != "none":
                body = self.stmt(inner, indent + 1, True, in_helper, exit_kind) + body
            self.loop_vars.pop()
            self.loop_depth -= 1
            return [f"{pad}for {var} in range(0, {bound}):"] + body
        if k in ("break", "continue"):
            return [f"{pad}if {self.cond(env, 1)}:", f"{pad}    {k}"]
        if k == "return":
            value = f" {self.expr(env, 1)}" if in_helper else ""
            return [f"{pad}if {self.cond(env, 1)}:", f"{pad}    return{value}"]
        if k == "fail":
            code = self.d(st.integers(1, 9))
            return [f"{pad}if {self.cond(env, 1)}:", f"{pad}    fail({code})"]
        if k == "plant":
            # One workitem faults, SimpleDeopt-style: the fault kinds at a steady rate.
            c = self.d(st.integers(0, 12))
            kind = self.d(st.sampled_from(("div", "oob", "fail", "div")))
            if kind == "div":
                name = f"x{self.nvars}"
                self.nvars += 1
                env.append(name)
                return [f"{pad}{name} = 7 // (g - {c})"]
            if kind == "oob":
                return [f"{pad}out[{self.private()} + (len(out) if g == {c} else 0)] = g"]
            return [f"{pad}if g == {c}:", f"{pad}    fail({c + 1})"]
        if k == "oob_store":
            off = f"(len(out) if {self.cond(env, 1)} else 0)"
            return [f"{pad}out[{self.private()} + {off}] = {self.widen(self.expr(env, 1))}"]
        assert k == "call_void"
        return [f"{pad}hv(out, {self.expr(env, 1)})"]

    def widen(self, e: str) -> str:
        return e  # an i32 value widens implicitly into an i64 `out`

    # -------------------------------------------------------------- helpers

    def valued_helper_text(self) -> list[str]:
        lines = ["def h0(inp: Buffer[i32], a: i32, b: i32) -> i32:"]
        env = ["a", "b"]
        lines += self.block(env, 1, False, True, 2)
        lines.append(f"    return {self.expr(env, 1)}")
        return lines

    def void_helper_text(self) -> list[str]:
        out_t = "i32" if self.out_i32 else "i64"
        c = self.d(st.integers(0, self.K - 1))
        slot = "gid()" if self.K == 1 else f"gid() * {self.K} + {c}"
        lines = [f"def hv(o: Buffer[{out_t}], v: i32):"]
        if self.feat("return"):
            lines += ["    if v == 0:", "        return"]
        lines.append(f"    o[{slot}] = o[{slot}] + v")
        return lines

    def kernel(self, out_i32: bool) -> str:
        self.out_i32 = out_i32
        self.loop_depth = 0
        self.loop_vars: list[str] = []
        helper_lines: list[str] = []
        self.in_helper = False
        if self.feat("helper"):
            self.in_helper = True
            helper_lines += self.valued_helper_text() + ["", ""]
            helper_lines += self.void_helper_text() + ["", ""]
            self.in_helper = False
            self.valued_helper = self.void_helper = True
        out_t = "i32" if out_i32 else "i64"
        head = [f"def {ENTRY}(inp: Buffer[i32], out: Buffer[{out_t}], acc: Buffer[i64], s: i32):",
                "    g = gid()"]
        env = ["g"]
        body = self.stmt(env, 1, False, False, "wave_assign") if self.feat("wave") else []
        if self.feat("loop"):
            body += self.stmt(env, 1, False, False, "for")
        body += self.block(env, 1, False, False, 6)
        return "\n".join(head + body + ["", ""] + helper_lines).rstrip() + "\n"


@st.composite
def kernels(draw: st.DrawFn) -> GeneratedKernel:
    """Generate one kernel. Shrinks toward: no features, one statement, constants."""
    # One boolean per feature (not one bitmask) so the shrinker can switch each off.
    on = frozenset(f for f in FEATURES if draw(st.booleans()))
    slots = draw(st.integers(1, 2))
    out_i32 = draw(st.booleans()) is False
    gen = _Gen(draw, on, slots)
    source = gen.kernel(out_i32)
    program = parse(source)  # a generator defect surfaces here as a KernelError
    found = constructs(program)
    for name in found:
        event(f"construct {name}")
    return GeneratedKernel(source, ENTRY, program, "i32" if out_i32 else "i64", slots, on, found)
