"""Kernel files: a kernel's source (`NAME.py`) whose header lines say how to run it, so a
kernel can be checked as it is written, with no JSON to escape by hand.

    # difftest: launch n=8 wave=4
    # difftest: arg inp = i32[5, 0, 7, 2, 9, 4, 0, 6]
    # difftest: arg out = i32[-1] * 8
    # difftest: arg scale = 3
    def kernel(inp: Buffer[i32], out: Buffer[i32], scale: i32):
        ...

Header lines start with `# difftest:` and may sit anywhere in the file (they are comments
to the kernel language, so the kernel's line numbers are the file's); each key (each
argument) once. Keys:
- `launch n=N wave=W [group=G]` (required, here or on the command line);
- `arg NAME = VALUE`, one per parameter: an integer, a float (an f32), `true` or
  `false`, or a buffer `T[v, ...]` of a number type T (`i32[1, 2]`, `u8[255, 0]`,
  `f32[0.5]`; f32 elements are numbers or nan, inf, -inf), optionally repeated: `i32[0]
  * 16`, `f32[1.5, nan] * 4`;
- `entry NAME` (default: the file's first function);
- `schedule {...}`, `options {...}` (JSON objects, as in a case file), `policy NAME`,
  `host [...]` (a host program, a JSON list of steps as in a case file).
The command line's `--n`, `--wave` and `--arg NAME=VALUE` override the header. Everything
then goes through the case file's one validation (difftest.core.case), so a wrong value is the
same one-line error it would be in a JSON file.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from difftest.core.case import MAX_BUFFER_LENGTH, Case, case_from_json
from difftest.core.errors import CaseError
from difftest.core.ir.types import DTYPES
from difftest.core.jsonio import decimal, read_json

PREFIX = "# difftest:"
_BUFFER = re.compile(r"^([iu](?:8|16|32|64)|f32|f64)\[(.*)\]\s*(?:\*\s*(\d+))?$", re.S)
_FLOAT = re.compile(r"^-?(?:\d+\.\d*|\.\d+|\d+(?:\.\d*)?[eE][-+]?\d+|\d*\.\d+[eE][-+]?\d+)$")
_NAME = re.compile(r"^(?!\d)\w+$")  # a Python identifier, as the kernel's own names
MAX_LENGTH = MAX_BUFFER_LENGTH  # one limit, whichever form a case is written in


def _int(text: str, where: str) -> int:
    """A run of digits as an integer (Python refuses to read one of over 4,300 digits)."""
    try:
        return int(text)
    except ValueError:
        raise CaseError(f"{where}: an integer of {len(text.lstrip('-'))} digits is past "
                        "every integer type's range") from None


def parse_value(text: str, where: str) -> Any:
    """An argument's value: an integer, a bool, or a buffer {"dtype", "data"}."""
    text = text.strip()
    if text in ("true", "false", "True", "False"):
        return text.lower() == "true"
    if re.fullmatch(r"-?\d+", text):
        return _int(text, where)
    if _FLOAT.match(text):
        return decimal(text, where)
    if text in ("nan", "inf", "-inf"):  # a float scalar, as a case file writes it
        return text
    m = _BUFFER.match(text)
    if m is None:
        named = re.match(r"(\w+)\s*\[", text)
        if named is not None and named.group(1) not in DTYPES:
            raise CaseError(f"{where}: unknown element type {named.group(1)!r} (one of "
                            f"{', '.join(DTYPES)})")
        raise CaseError(f"{where}: expected an integer, a float, true/false or a buffer "
                        f"such as i32[1, 2, 3], i64[0] * 8 or f32[0.5, nan], got "
                        f"{text[:40]!r}")
    dtype, items, times = m.group(1), m.group(2).strip(), m.group(3)
    data: list[int | float | str] = []
    for item in (x.strip() for x in items.split(",")) if items else ():
        floats = dtype in ("f32", "f64")
        if floats and _FLOAT.match(item):
            data.append(decimal(item, where))
        elif floats and item in ("nan", "inf", "-inf"):
            data.append(item)  # as a case file writes them
        elif re.fullmatch(r"-?\d+", item):
            data.append(_int(item, where))
        else:
            raise CaseError(f"{where}: buffer element {item[:20]!r} is not "
                            + ("a number" if floats else "an integer"))
    count = _int(times, where) if times is not None else 1
    if len(data) * count > MAX_LENGTH:
        raise CaseError(f"{where}: a buffer of {len(data) * count} elements is over "
                        f"{MAX_LENGTH}")
    return {"dtype": dtype, "data": data * count}


def header(text: str, where: str) -> dict[str, Any]:
    """The case fields the file's header lines give (no kernel yet)."""
    out: dict[str, Any] = {"args": {}}
    given: dict[str, int] = {}  # each key (each argument) given, at its line
    for number, line in enumerate(text.splitlines(), 1):
        stripped = line.strip()
        if not stripped.startswith(PREFIX):
            continue
        at = f"{where}:{number}"
        body = stripped[len(PREFIX):].strip()
        key, _, rest = body.partition(" ")
        rest = rest.strip()
        what = f"arg {rest.partition('=')[0].strip()}" if key == "arg" else key
        if what in given:  # one would silently win over the other
            raise CaseError(f"{at}: `{what}` given twice (first at line {given[what]})")
        given[what] = number
        if key == "launch":
            out["launch"] = _launch(rest, at)
        elif key == "arg":
            name, eq, value = rest.partition("=")
            name = name.strip()
            if not eq or not _NAME.match(name):
                raise CaseError(f"{at}: expected `arg NAME = VALUE`")
            out["args"][name] = parse_value(value, f"{at}: arg {name}")
        elif key == "entry":
            out["entry"] = rest
        elif key in ("schedule", "options", "host"):
            try:
                out[key] = json.loads(rest)
            except (json.JSONDecodeError, RecursionError):
                raise CaseError(f"{at}: {key}: expected JSON") from None
            except ValueError:  # Python reads no integer of over 4,300 digits
                raise CaseError(f"{at}: {key}: an integer past every integer type's "
                                "range") from None
        elif key == "policy":
            out["policy"] = rest
        else:
            raise CaseError(f"{at}: unknown header key {key!r} (launch, arg, entry, "
                            "schedule, options, policy, host)")
    return out


def _launch(text: str, where: str) -> dict[str, Any]:
    launch: dict[str, Any] = {}
    for part in text.split():
        key, eq, value = part.partition("=")
        if not eq or key not in ("n", "wave", "group") or not re.fullmatch(r"\d+", value):
            raise CaseError(f"{where}: expected `launch n=N wave=W [group=G]`, got "
                            f"{text[:40]!r}")
        if key in launch:
            raise CaseError(f"{where}: `{key}` given twice in the launch line")
        launch[key] = _int(value, where)
    return launch


def is_kernel_file(path: str | Path) -> bool:
    """A kernel file is named `*.py` (any case); anything else is read as a case file."""
    return Path(path).suffix.lower() == ".py"


def load_case(path: str | Path) -> Case:
    """Read and validate a case file, or a kernel file (`.py` with `# difftest:` header
    lines); every problem is one CaseError naming the file."""
    if is_kernel_file(path):
        return load_kernel_file(path)
    return case_from_json(read_json(path), str(path))


def load_kernel_file(path: str | Path, n: int | None = None, wave: int | None = None,
                     args: list[str] | None = None, group: int | None = None) -> Case:
    """The case a kernel file describes, with command-line overrides (`args`:
    "NAME=VALUE" strings)."""
    where = str(path)
    try:
        text = Path(path).read_text(encoding="utf-8-sig")  # an editor's BOM is no text
    except (OSError, UnicodeDecodeError) as e:
        raise CaseError(f"{where}: cannot read: {getattr(e, 'strerror', None) or e}") from None
    obj = header(text, where)
    launch = dict(obj.get("launch", {}))
    if n is not None:
        launch["n"] = n
    if wave is not None:
        launch["wave"] = wave
    if group is not None:
        launch["group"] = group
    for pair in args or ():
        name, eq, value = pair.partition("=")
        if not eq or not _NAME.match(name.strip()):
            raise CaseError(f"--arg {pair!r}: expected NAME=VALUE")
        obj["args"][name.strip()] = parse_value(value, f"--arg {name.strip()}")
    for key in ("n", "wave"):
        if key not in launch:
            raise CaseError(f"{where}: no `{key}` for the launch: add `{PREFIX} launch n=N "
                            f"wave=W` to the file or pass --{key}")
    obj["launch"] = launch
    obj["kernel"] = text
    if "entry" in obj:
        return case_from_json(obj, where)
    first = re.search(r"(?m)^\f*def\s+((?!\d)\w+)", text)  # (a form feed may lead a line)
    if first is None:
        raise CaseError(f"{where}: no function in the file")
    obj["entry"] = first.group(1)
    try:
        return case_from_json(obj, where)
    except CaseError as e:  # a helper first: say how to name the kernel
        if f"entry '{first.group(1)}' returns a value" not in str(e):
            raise
        raise CaseError(f"{e} (the entry is the file's first function unless a "
                        f"`{PREFIX} entry NAME` line names the kernel)") from None
