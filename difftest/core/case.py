"""Case files: one kernel, its entry, a launch and arguments (plus schedule and options).

The JSON contract (field names fixed by the foundation issue)::

    {"kernel": "<source>", "entry": "<kernel name>",
     "launch": {"n": <workitems>, "wave": <wave size>, "group": <workgroup size>},
     "args": {"<buffer>": {"dtype": "i8"|"i16"|"i32"|"i64"|"u8"|...|"u64"|"f32",
                           "data": [...]},
              "<scalar>": <int|bool|number>},
     "schedule": {...}, "options": {...}, "policy": "stream"|"sequential", ...}

Loading validates everything against the kernel's signature and raises one `CaseError`
naming the file, the field and what is wrong. `launch.group` (version 3) is optional: a
launch without it has workgroups of one wave. Unknown top-level fields are kept (notes,
expected verdicts, mutants) so a round trip loses nothing.

An integer is a JSON integer in its type's range (0..2^64-1 for a u64); in memory an i32
buffer is an int32 array, any other integer buffer an int64 array of its elements'
storage forms (difftest/core/ir/types.py: a u64 as its bits), and so is an integer
scalar. An f32 is a JSON number that binary32 holds exactly, or "nan", "inf", "-inf"; in
memory an f32 buffer is an int32 array of the values' bits (difftest/core/f32.py), so
every target moves it as it moves an i32 buffer; an f32 scalar is a Python float. An f64
is any JSON number (its nearest binary64) or one of the three strings; in memory an f64
buffer is an int64 array of its bits (difftest/core/f64.py), a scalar a Python float.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from difftest.core.errors import CaseError, KernelError
from difftest.core.host import parse_host
from difftest.core.ir import parse
from difftest.core.ir.nodes import Function, Program
from difftest.core import f32
from difftest.core.floats import fmt
from difftest.core.ir.types import BOOL, DTYPES, F32, I32, Type, int_range, storage, value_of
from difftest.core.options import COMMON

MAX_WORKITEMS = 1 << 22
#: the largest workgroup (what CUDA and every Vulkan GPU offer, and lavapipe)
MAX_GROUP = 1024
#: the most elements a buffer argument holds, in a case file and in a kernel file's header
MAX_BUFFER_LENGTH = 1 << 22
POLICIES = ("stream", "sequential")
_KNOWN = ("kernel", "entry", "launch", "args", "schedule", "options", "policy", "host")
#: the newest case-file format version this difftest reads and writes (1: options flat;
#: 3 added `launch.group`)
VERSION = 3

Arg = np.ndarray | int | bool | float

_SPECIAL = {"nan": float("nan"), "inf": float("inf"), "-inf": float("-inf")}


def float_json(x: float, ty: Type = F32) -> float | str:
    """A float as a case file writes it: its shortest decimal, or "nan", "inf", "-inf"."""
    if x != x:
        return "nan"
    if x in (float("inf"), float("-inf")):
        return "inf" if x > 0 else "-inf"
    return float(fmt(ty).shortest(x))


def _float_value(v: Any, where: str, ty: Type = F32) -> float:
    if isinstance(v, str) and v in _SPECIAL:
        return _SPECIAL[v]
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise CaseError(f"{where}: expected an {ty} (a number, \"nan\", \"inf\" or "
                        f"\"-inf\"), got {v!r}")
    try:
        x = float(v)
    except OverflowError:
        raise CaseError(f"{where}: {v!r} is past the {ty} range") from None
    if ty is not F32:
        if isinstance(v, int) and x != v:
            raise CaseError(f"{where}: {v!r} is not an {ty}: the nearest is {x!r}")
        return x
    if not f32.written(x) or (isinstance(v, int) and x != v):
        raise CaseError(f"{where}: {v!r} is not an f32: write the value exactly or as the "
                        f"shortest decimal of one (the nearest is "
                        f"{f32.shortest(f32.rounded(x))}, exactly {f32.rounded(x)!r})")
    return f32.rounded(x)


@dataclass
class Case:
    kernel: str
    entry: str
    n: int
    wave: int
    args: dict[str, Arg]
    program: Program = field(repr=False)
    schedule: dict[str, Any] = field(default_factory=dict)
    options: dict[str, Any] = field(default_factory=dict)
    policy: str = "stream"
    extra: dict[str, Any] = field(default_factory=dict)
    host: list[dict[str, Any]] | None = None  # a host program (difftest/core/host.py)
    # options per target, from the file's `options` object: {target: {option: value}}
    target_options: dict[str, dict[str, Any]] = field(default_factory=dict)
    group: int | None = None  # the workgroup size G (None: one wave, G = W)

    @property
    def launch_text(self) -> str:
        """The launch as a kernel file's header writes it: `n=16 wave=4 group=8`."""
        group = "" if self.group is None else f" group={self.group}"
        return f"n={self.n} wave={self.wave}{group}"

    @property
    def group_size(self) -> int:
        """G: consecutive gids that share workgroup memory and meet at barriers."""
        return self.wave if self.group is None else self.group

    @property
    def function(self) -> Function:
        return self.program.function(self.entry)

    def buffers(self) -> dict[str, np.ndarray]:
        """Fresh copies of the buffer arguments (targets mutate their copies)."""
        return {k: v.copy() for k, v in self.args.items() if isinstance(v, np.ndarray)}

    def options_for(self, target: str, known: tuple[str, ...]
                    ) -> tuple[dict[str, Any], list[str]]:
        """The options a run on `target` (whose own options are `known`) takes from the
        case: the common ones, the target's own section, and the flat ones (a version 1
        file's, or a hand-written one's) that it knows. Also the flat ones it does not
        know: they are another target's, and a caller says it leaves them aside."""
        own = self.target_options.get(target, {})
        mine = {k: v for k, v in self.options.items() if k in COMMON or k in known}
        aside = sorted(k for k in self.options if k not in mine)
        return {**mine, **own}, aside

    def recorded_for(self, target: str) -> Case:
        """A copy whose run options (`options`, as a fuzz loop or a reducer ran it) are
        filed under `target`: the common ones stay common, the others go to its
        section, so the file runs on any target."""
        return self.filed({k: (target,) for k in self.options})

    def filed(self, readers: dict[str, tuple[str, ...]]) -> Case:
        """A copy whose run options are filed under the targets that read them
        (`readers`: option -> targets; the common ones stay common), so the file runs on
        any target: a generated case's compile options under numba-simt, its SPIR-V
        recipe under the Vulkan targets."""
        import dataclasses

        sections = {k: dict(v) for k, v in self.target_options.items()}
        for key, value in self.options.items():
            if key not in COMMON:
                for target in readers.get(key, ()):
                    sections.setdefault(target, {})[key] = value
        return dataclasses.replace(
            self, options={k: v for k, v in self.options.items() if k in COMMON},
            target_options=sections)

    def to_json(self) -> dict[str, Any]:
        args: dict[str, Any] = {}
        types = {p.name: p.ty for p in self.function.params}
        for name, v in self.args.items():
            if isinstance(v, np.ndarray):
                element = types[name].element
                if element.is_float:
                    args[name] = {"dtype": element.value,
                                  "data": [float_json(fmt(element).from_bits(int(x)), element)
                                           for x in v]}
                    continue
                element = types[name].element
                args[name] = {"dtype": element.value,
                              "data": [value_of(int(x), element) for x in v]}
            elif isinstance(v, float):
                args[name] = float_json(v, types[name])
            elif isinstance(v, int) and not isinstance(v, bool):
                args[name] = value_of(v, types[name])
            else:
                args[name] = v
        out: dict[str, Any] = {
            "kernel": self.kernel,
            "entry": self.entry,
            "launch": {"n": self.n, "wave": self.wave},
            "args": args,
        }
        if self.group is not None:
            out["launch"]["group"] = self.group
        if self.schedule:
            out["schedule"] = self.schedule
        options = {**self.options, **{t: dict(o) for t, o in self.target_options.items()
                                      if o}}
        if options:
            out["options"] = options
        if self.policy != "stream":
            out["policy"] = self.policy
        if self.host is not None:
            out["host"] = [dict(s) for s in self.host]
        out.update(self.extra)
        return out


def case_from_json(obj: Any, where: str = "case") -> Case:
    if not isinstance(obj, dict):
        raise CaseError(f"{where}: a case must be a JSON object")
    for key in ("kernel", "entry", "launch", "args"):
        if key not in obj:
            raise CaseError(f"{where}: missing field '{key}'")
    kernel = obj["kernel"]
    if not isinstance(kernel, str):
        raise CaseError(f"{where}: field 'kernel' must be the kernel's source text")
    try:
        program = parse(kernel)
    except KernelError as e:
        raise CaseError(f"{where}: kernel {e}" if e.line or e.where else
                        f"{where}: kernel: {e}") from None
    entry = obj["entry"]
    if not isinstance(entry, str) or entry not in program.names():
        raise CaseError(
            f"{where}: field 'entry': {entry!r} is not a function of the kernel "
            f"(it defines {', '.join(program.names())})"
        )
    fn = program.function(entry)
    if fn.returns is not None:
        raise CaseError(f"{where}: entry '{entry}' returns a value; a kernel returns nothing")
    n_items, wave, group = _launch(obj["launch"], where)
    args = _args(obj["args"], fn, where)
    version = obj.get("version", VERSION)
    if _int(version) and version < 3 and group is not None:
        raise CaseError(f"{where}: launch.group came with case format version 3, but the "
                        f"file says version {version} (a file with workgroups says "
                        "\"version\": 3)")
    if not _int(version):
        raise CaseError(f"{where}: field 'version' must be an integer (1..{VERSION}), got "
                        f"{version!r}")
    if not 1 <= version <= VERSION:
        raise CaseError(f"{where}: field 'version': {version!r} is not a case format this "
                        f"difftest reads (1..{VERSION}; a newer difftest wrote it?)")
    schedule = obj.get("schedule", {})
    options = obj.get("options", {})
    for key, val in (("schedule", schedule), ("options", options)):
        if not isinstance(val, dict):
            raise CaseError(f"{where}: field '{key}' must be an object")
    flat = {k: v for k, v in options.items() if not isinstance(v, dict)}
    sections = {k: dict(v) for k, v in options.items() if isinstance(v, dict)}
    recorded = obj.get("target")
    if recorded is not None and not isinstance(recorded, str):
        raise CaseError(f"{where}: field 'target' must be a target name, got "
                        f"{recorded!r:.40}")
    mutants = obj.get("mutants", [])
    if not (isinstance(mutants, list) and all(isinstance(m, str) for m in mutants)):
        raise CaseError(f"{where}: field 'mutants' must be a list of mutant names, got "
                        f"{mutants!r:.40}")
    if version == 1 and isinstance(recorded, str):
        # version 1 kept a corpus entry's options flat: they were its target's
        own = {k: v for k, v in flat.items() if k not in COMMON}
        if own:
            sections[recorded] = {**own, **sections.get(recorded, {})}
        flat = {k: v for k, v in flat.items() if k in COMMON}
    policy = obj.get("policy", "stream")
    if policy not in POLICIES:
        raise CaseError(f"{where}: field 'policy' must be one of {', '.join(POLICIES)}")
    extra = {k: v for k, v in obj.items() if k not in _KNOWN}
    if "version" in extra:
        extra["version"] = VERSION  # what to_json writes: the options are migrated
    host = parse_host(obj["host"], fn, where) if "host" in obj else None
    return Case(kernel, entry, n_items, wave, args, program, schedule, flat, policy, extra,
                host, sections, group)


def _int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _launch(obj: Any, where: str) -> tuple[int, int, int | None]:
    if not isinstance(obj, dict):
        raise CaseError(f"{where}: field 'launch' must be an object with 'n' and 'wave'")
    unknown = set(obj) - {"n", "wave", "group"}
    if unknown:
        raise CaseError(f"{where}: launch: unknown field '{sorted(unknown)[0]}'")
    n_items, wave = obj.get("n"), obj.get("wave")
    if not isinstance(n_items, int) or isinstance(n_items, bool) \
            or not 1 <= n_items <= MAX_WORKITEMS:
        raise CaseError(f"{where}: launch.n must be an integer in 1..{MAX_WORKITEMS}, "
                        f"got {n_items!r}")
    if not isinstance(wave, int) or isinstance(wave, bool) \
            or wave not in (1, 2, 4, 8, 16, 32, 64):
        raise CaseError(f"{where}: launch.wave must be a power of two in 1..64, got {wave!r}")
    group = obj.get("group")
    if group is not None and (not _int(group) or not 1 <= group <= MAX_GROUP
                              or group % wave):
        raise CaseError(f"{where}: launch.group must be a multiple of the wave size "
                        f"({wave}) in 1..{MAX_GROUP}, got {group!r}")
    return n_items, wave, group


def _args(obj: Any, fn: Function, where: str) -> dict[str, Arg]:
    if not isinstance(obj, dict):
        raise CaseError(f"{where}: field 'args' must be an object")
    names = [p.name for p in fn.params]
    for name in obj:
        if name not in names:
            raise CaseError(
                f"{where}: args: unknown argument '{name}' (kernel '{fn.name}' takes "
                f"{', '.join(names) or 'nothing'})"
            )
    out: dict[str, Arg] = {}
    for p in fn.params:
        if p.name not in obj:
            raise CaseError(f"{where}: args: missing argument '{p.name}' ({p.ty})")
        out[p.name] = _arg(obj[p.name], p.ty, f"{where}: args.{p.name}")
    return out


def _arg(v: Any, ty: Type, where: str) -> Arg:
    if ty.is_buffer:
        if not isinstance(v, dict) or set(v) != {"dtype", "data"}:
            raise CaseError(f"{where}: a buffer argument is {{\"dtype\": ..., \"data\": [...]}}")
        dtype = DTYPES.get(v["dtype"]) if isinstance(v["dtype"], str) else None
        if dtype is None:
            raise CaseError(f"{where}.dtype: expected a number type ({', '.join(DTYPES)}), "
                            f"got {v['dtype']!r}")
        if dtype is not ty.element:
            raise CaseError(f"{where}.dtype: is {v['dtype']} but the parameter is {ty}")
        data = v["data"]
        if dtype.is_float:
            if not isinstance(data, list):
                raise CaseError(f"{where}.data: expected a list of {dtype} values")
            if len(data) > MAX_BUFFER_LENGTH:
                raise CaseError(f"{where}.data: a buffer of {len(data)} elements is over "
                                f"{MAX_BUFFER_LENGTH}")
            return np.array([fmt(dtype).to_bits(_float_value(x, f"{where}.data[{i}]", dtype))
                             for i, x in enumerate(data)],
                            dtype=np.int32 if dtype is F32 else np.int64)
        if not isinstance(data, list) or not all(_int(x) for x in data):
            raise CaseError(f"{where}.data: expected a list of integers")
        if len(data) > MAX_BUFFER_LENGTH:
            raise CaseError(f"{where}.data: a buffer of {len(data)} elements is over "
                            f"{MAX_BUFFER_LENGTH}")
        lo, hi = int_range(dtype)
        for i, x in enumerate(data):
            if not lo <= x <= hi:
                raise CaseError(f"{where}.data[{i}]: {x} does not fit in {dtype}")
        # i32 in an int32 array (as ever); every other integer type in int64, each
        # element in its storage form (a u64 as its bits)
        return np.array([storage(x, dtype) for x in data],
                        dtype=np.int32 if dtype is I32 else np.int64)
    if ty is BOOL:
        if not isinstance(v, bool):
            raise CaseError(f"{where}: expected true or false, got {v!r}")
        return v
    if ty.is_float:
        return _float_value(v, where, ty)
    if not _int(v):
        raise CaseError(f"{where}: expected an integer ({ty}), got {v!r}")
    lo, hi = int_range(ty)
    if not lo <= v <= hi:
        raise CaseError(f"{where}: {v} does not fit in {ty}")
    return storage(int(v), ty)
