"""When two failures are the same failure, and when two findings are the same bug.

A *failure class* is what a disagreement says, with its particulars left out: the
failing rule, and for R0 (a target error) the error's kind and first clause with numbers
and paths replaced (`internal: build failed: ...`, `crash: the device's process killed
by SIGSEGV`, `timeout`). The reducer keeps a candidate only when it fails with the same
class (not only by the same rule: an R0 build failure must not reduce into another R0
error such as a crash).

A *finding's signature* is (target, setting, failure class, shape of its reduced case):
the setting is the target options it was found under (`opt=off`); where the target names
the compiler it ran (`Target.compiler`: a Vulkan target's front end and driver, "glsl on
llvmpipe Mesa 22.3.6"), that compiler stands for the target, so a bug lavapipe-glsl
found is the same bug when vulkan-glsl meets it on that lavapipe, and not on an NVIDIA
driver; the shape
being the operations left in the reduced kernel: its statement and expression kinds,
operators, wave operations and casts, and whether the launch has partial waves (on a
target with wave operations: `launch_wave`). Two
reduced findings of one target and class are the same bug when one's shape contains the
other's (`same_bug`: the extra operations are what a reduction could not take out). A
campaign that keeps going skips a failing case without reducing it when it fails with a
known finding's class and contains every operation of that finding's shape (`explains`):
the known reduced case is then the smaller witness of the same thing.

SPIRV-Tools' optimizer runs the passes of a recipe (`spirv_opt`, `spirv_recipe`): a
finding's passes are those its compiler's name lists, and a case whose passes hold them
is under the same setting (a random recipe is longer than the one a reduction leaves).
Where the optimizer itself failed (its error names spirv-opt), its release is the
compiler: the driver never ran.

docs/semantics.md ("Findings") states these rules for users.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from difftest.core.ir import nodes as n
from difftest.core.ir.walk import walk
from difftest.core.outcome import TargetError

_NUMBER = re.compile(r"-?\b\d+\b")
_PATH = re.compile(r"(/[\w.\-]+)+")
_VERSION = re.compile(r"\d[\w.~+\-]*")


#: SPIRV-Tools' optimizer in a compiler's name or an error ("spirv-opt v2025.5 --a --b",
#: "spirv-opt --a --b crashed"): its release, then its flags (the passes it ran)
_OPTIMIZER = re.compile(r"(spirv-opt(?: v[\w.]+)?)((?: -{1,2}[A-Za-z][\w\-=.]*)+)")
#: the options that choose the optimizer's passes: a finding's passes are read from its
#: compiler instead (`passes`), so that a recipe holding them is the same setting
_OPTIMIZER_OPTIONS = ("spirv_opt", "spirv_recipe")


def passes(compiler: str) -> frozenset[str]:
    """The optimizer flags a compiler's name lists (none without the optimizer)."""
    m = _OPTIMIZER.search(compiler)
    return frozenset(m.group(2).split()) if m else frozenset()


def _flags(compiler: str) -> list[str]:
    """The optimizer flags a compiler's name lists, in order."""
    m = _OPTIMIZER.search(compiler)
    return m.group(2).split() if m else []


def _passless(text: str) -> str:
    """A compiler's name or an error with the optimizer's flags left out: a finding met
    under a longer random recipe than the one its reduction left is the same finding
    (`passes` compares the flags by containment)."""
    return _OPTIMIZER.sub(r"\1 <passes>", text)


def _pipeline(compiler: str, failure: str) -> str:
    """What a failure is the fault of, as a compiler's name: where the optimizer itself
    failed (its error names it), its release alone -- the driver never ran, so a crash
    of spirv-opt met on Mesa 25 is the one recorded on Mesa 22 -- else the whole
    pipeline, the optimizer's flags left out."""
    m = _OPTIMIZER.search(compiler)
    if m and "spirv-opt" in failure:
        return m.group(1)
    return _passless(compiler)


def unversioned(compiler: str) -> str:
    """A compiler's name with its version numbers left out ("glsl on llvmpipe Mesa #
    (LLVM #, # bits)"): its family, across the releases that may share a bug."""
    return _VERSION.sub("#", compiler)


def failure_class(rule: str | None, error: TargetError | str | None) -> str:
    """A disagreement's class: its rule, and for R0 the normalised target error (a
    verdict read back from JSON holds its written form)."""
    if rule != "R0 error" or not error:
        return rule or "agree"
    if isinstance(error, str):
        error = TargetError.parse(error)
    kind = error.kind
    first = error.message.split(";")[0].strip()
    if kind == "timeout":
        first = ""
    first = _passless(_PATH.sub("<path>", first))  # (the passes: the compiler's name)
    first = _NUMBER.sub("#", first)
    return f"R0 error: {kind}: {first[:120]}".rstrip(": ")


def verdict_class(verdict: Any) -> str:
    """`failure_class` of a Verdict (its `actual` holds the target's error for R0)."""
    if verdict.agree:
        return "agree"
    error = verdict.actual if isinstance(verdict.actual, (TargetError, str)) else None
    return failure_class(verdict.rule, error)


def shape(program: n.Program, entry: str, n_items: int, wave: int) -> frozenset[str]:
    """The operations a case uses: what stays in a reduced case is what the bug needs."""
    out: set[str] = set()
    for node in walk(program.functions):
        kind = type(node).__name__
        if isinstance(node, (n.Function, n.Param, n.Program)):
            continue
        if isinstance(node, (n.Binary, n.Unary, n.Compare, n.Logic)):
            out.add(f"{kind}:{node.op}")
        elif isinstance(node, n.WaveOp):
            out.add(f"wave:{node.op}")
        elif isinstance(node, n.Cast):
            out.add(f"cast:{node.to}")
        elif isinstance(node, n.WorkId):
            out.add(f"id:{node.which}")
        elif isinstance(node, n.Call):
            out.add("call")
        elif kind not in ("Const", "Name", "Assign"):
            out.add(kind)
    if len(program.functions) > 1:
        out.add("helpers")
    if wave > 1 and n_items % wave:
        out.add("partial_wave")
    return frozenset(out)


def launch_wave(capabilities: frozenset[str], wave: int) -> int:
    """The wave a target's launch of a case of `wave` is cut into, for `shape`: the
    case's on a target with wave operations (its launch is whole waves, the last one's
    extra lanes guarded), 1 on one without (PoCL: it launches the case's `n` items in
    work-groups of its own choosing), where a partial wave is nothing the compiler sees --
    so a finding reduced to fewer items than a wave does not ask every failure it explains
    for a partial wave."""
    return wave if "wave_ops" in capabilities else 1


def setting(options: dict[str, Any]) -> str:
    """The target options a finding depends on, as text (budgets and mutants aside, and
    `avoid`, which spells known bugs' triggers another way but is no bug's condition: a
    bug found past the known ones is the same bug with any variants on): `opt=off`, or
    "" for the defaults."""
    keep = {k: v for k, v in options.items()
            if k not in ("mutants", "step_budget", "work_budget", "timeout", "device", "icd",
                         "avoid", *_OPTIMIZER_OPTIONS)}
    return ",".join(f"{k}={keep[k]}" for k in sorted(keep))


def within(setting_text: str, options_text: str) -> bool:
    """Whether every option of one `setting` is in another, with the same value."""
    def pairs(text: str) -> set[str]:  # (a finding recorded with the optimizer's options
        # in its setting: its compiler names the passes)
        return {p for p in text.split(",")
                if p and p.split("=")[0] not in _OPTIMIZER_OPTIONS}

    return pairs(setting_text) <= pairs(options_text)


@dataclass(frozen=True)
class Signature:
    target: str
    failure: str
    shape: frozenset[str]
    setting: str = ""  # the target options it was found under (`setting`)
    compiler: str = ""  # the compiler the target ran (`Target.compiler`), if it names one

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"target": self.target, "failure": self.failure,
                               "shape": sorted(self.shape)}
        if self.setting:
            out["setting"] = self.setting
        if self.compiler:
            out["compiler"] = self.compiler
        return out

    @staticmethod
    def from_json(obj: dict[str, Any]) -> Signature:
        return Signature(str(obj["target"]), str(obj["failure"]), frozenset(obj["shape"]),
                         str(obj.get("setting", "")), str(obj.get("compiler", "")))

    def on(self, target: str, compiler: str) -> bool:
        """Whether a failure of `target` running `compiler` is one this finding's
        target could show: the same compiler where both name one, else the same target."""
        if self.compiler and compiler:
            return _pipeline(self.compiler, self.failure) == \
                _pipeline(compiler, self.failure) and passes(self.compiler) <= passes(compiler)
        return self.target == target

    def on_any_version(self, target: str, compiler: str) -> bool:
        """`on`, but for any release of the finding's compiler: recognition by cause
        (the case agrees once the trigger is spelled another way) tells the bug, whatever
        version the campaign runs (a bug of Mesa 22.3.6 still in Mesa 25.0.7 is the same
        bug there), while the family still tells lavapipe's bugs from NVIDIA's."""
        if self.compiler and compiler:
            return unversioned(self.compiler) == unversioned(compiler)
        return self.target == target

    def explains(self, target: str, failure: str, case_shape: frozenset[str],
                 options: str = "", compiler: str = "") -> bool:
        """Whether a failing case of `target` (running `compiler`) under the setting
        `options` with this class and shape is most likely this finding again (the
        module docstring): the case holds every operation of the finding's shape and
        every option of its setting (an unreduced case runs under more options than
        the reduction left the finding)."""
        return (self.on(target, compiler) and _passless(failure) == _passless(self.failure)
                and within(self.setting, options) and self.shape <= case_shape)

    def without_passes(self, target: str, failure: str, compiler: str
                       ) -> dict[str, str] | None:
        """The options that run a failing case's recipe without this finding's passes,
        where this finding is a failure of the optimizer itself (its error names
        spirv-opt) that the case's could be: its class, its passes among the case's, the
        same target or compiler family. A case that then agrees failed by those passes:
        this finding, by its cause, whatever else the kernel holds (None: no such test)."""
        mine, flags = passes(self.compiler), _flags(compiler)
        if "spirv-opt" not in self.failure or not mine or not mine <= set(flags) \
                or _passless(failure) != _passless(self.failure):
            return None
        if self.compiler and compiler and unversioned(_pipeline(self.compiler, self.failure)) \
                != unversioned(_pipeline(compiler, self.failure)):
            return None
        rest = [f for f in flags if f not in mine]
        if any(not f.startswith("--") for f in rest):
            return None  # a level (-O): no recipe to take the passes out of
        return {"spirv_opt": ",".join(f[2:] for f in rest) or "off"}

    def same_bug(self, other: Signature) -> bool:
        """Two reduced findings of one target (or compiler), setting and class whose
        shapes nest: the larger one's extra operations are what its reduction could not
        take out."""
        return ((other.on(self.target, self.compiler) or self.on(other.target, other.compiler))
                and _passless(self.failure) == _passless(other.failure)
                and within(self.setting, other.setting) and within(other.setting, self.setting)
                and (self.shape <= other.shape or other.shape <= self.shape))
