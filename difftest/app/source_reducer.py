"""A reproducer a maintainer reads: the kernel's source in the target's own language,
reduced by C-Vise (Debian's `cvise`) with the standalone reproducer as its
interestingness test, so the reduced file still shows the bug on the target and nothing
else.

A miscompilation cannot be reduced against its own expected values alone: a kernel that
stores nothing "shows" a missing store, and one that stores the wrong constant shows a
wrong value. So a candidate is interesting when (1) run as the finding's reproducer it
differs from the expected result in exactly the original's way (the same lines), and (2)
run on a *reference* -- the same case on a setting the bug does not have: another
driver's version (`icd=`), another build (`opt=off`), another instruction set
(`cpu_arch=`) -- it gives exactly the expected result. The reduced kernel thus still
computes what the original computed where the compiler is right, and the compiler still
gets it wrong: no reduction to nothing, little room for undefined behaviour.

C-Vise's own passes tidy as they go (unused declarations and, for C, names). One kind
of undefined behaviour it readily makes, and a reference run need not notice, is
refused by a guard before anything runs: a declaration without an initializer that the
original does not have (`int x = 0;` cut to `int x;`, the context struct's `= {0}` cut
off), whose indeterminate value a candidate would then read; a pointer set to null that
the original does not set so (C-Vise's cut of an argument: defined while only untaken
code reads it, but the first thing a maintainer asks about); and, for OpenCL C where a
clang is installed, what clang's front end warns of as undefined or as no longer C (a
function that can fall off its end, a value used uninitialized, a type left to implicit
int: `CLANG_OPENCL`). Workgroup memory has no
initializer to keep: the reference run is made on a copy of the candidate that fills it
with a poison value first (difftest/app/poison.py), so a candidate that reads workgroup
memory before writing it no longer gives the expected result. What no rule on the text
can see -- a data race, even one of equal values (C-Vise turns a `local_id == 0` into
`local_id != 0` when the result allows), an access out of bounds, a barrier some
work-items miss -- Oclgrind sees: an OpenCL C candidate must also give the expected
result on Oclgrind's simulator with its checks on, where Oclgrind is installed and the
original passes them (`oclgrind_check`). The result is a folder of its own: the reduced
kernel, the reproducer beside it.

Then the result is tidied for a reader (`TIDY_STEPS`): statements of one word, fields of
the context struct nothing uses, truth values named once and read once, parentheses and
blocks that group nothing, and clang-format's layout with short records on one line.
Each step is a plain rewrite that keeps the program's meaning, and is kept only where its
result still passes the interestingness test (guard, difference, reference).
"""

from __future__ import annotations

import json
import os
import re
import shlex
import signal
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

from difftest.core.errors import DifftestError


def differences(output: str) -> list[str]:
    """The lines of a reproducer's output that say how the result differs."""
    skip = ("device: ", "no difference", "this reproducer needs")
    return [x for x in output.splitlines()
            if x.strip() and not x.startswith(skip) and not x.endswith("from the expected result")]


#: a declaration with no initializer: `int x;`, `__global long *r;`, `Ctx c;`, `int a[4];`
#: at a line's start, after another statement (C-Vise joins lines) or in a `for`'s head
#: (`for (int i; ...)`); the statements that look alike start with keywords
_BARE_DECLARATION = re.compile(
    r"(?:^|(?<=[;{}(]))\s*(?!(?:return|break|continue|goto|else|do)\b)(?:[A-Za-z_]\w*\s+)+"
    r"\**\s*"
    r"[A-Za-z_]\w*\s*(?:\[[^\]]*\]\s*)*;", re.M)


def bare_declarations(source: str) -> set[str]:
    """The declarations of `source` that give no initial value, whitespace normalised."""
    return {" ".join(m.group(0).split()) for m in _BARE_DECLARATION.finditer(source)}


#: a pointer set to null where it is declared or assigned (`Ctx *C = 0;`): C-Vise makes
#: one of an argument it cut, and a reader's first question is whether it is dereferenced
_NULL_POINTER = re.compile(
    r"\*(?:\s*\w+)+\s*=\s*(?:0|NULL|\(\s*void\s*\*\s*\)\s*0)\s*[;,)]")  # qualifiers too

#: OpenCL C through clang's front end (no code made): the warnings of undefined behaviour
#: it can see without running, as errors
CLANG_OPENCL = ("-x", "cl", "-cl-std=CL3.0", "-Xclang", "-finclude-default-header",
                "-Xclang", "-cl-ext=+all", "-target", "spir64", "-fsyntax-only",
                "-Werror=return-type", "-Werror=uninitialized",
                "-Werror=sometimes-uninitialized", "-Werror=conditional-uninitialized",
                "-Werror=null-dereference", "-Werror=array-bounds", "-Werror=division-by-zero",
                "-Werror=implicit-function-declaration", "-Werror=int-conversion",
                "-Werror=incompatible-pointer-types", "-Werror=implicit-int",
                "-Werror=missing-declarations")

_GUARD = """import re, subprocess, sys
BARE = re.compile({pattern!r}, re.M)
NULL = re.compile({null!r})
CLANG = {clang!r}
def found(pattern, path):
    with open(path) as f:
        return {{" ".join(m.group(0).split()) for m in pattern.finditer(f.read())}}
original, candidate = sys.argv[1], sys.argv[2]
# a candidate may not declare without an initial value what the original initializes,
# nor set a pointer to null where the original does not
if not found(BARE, candidate) <= found(BARE, original):
    sys.exit(1)
if not found(NULL, candidate) <= found(NULL, original):
    sys.exit(1)
# nor draw from clang a warning of undefined behaviour (the original draws none)
if CLANG and subprocess.run(CLANG + [candidate], capture_output=True).returncode != 0:
    sys.exit(1)
"""


def clang_check(kernel: Path) -> list[str] | None:
    """The clang command that checks an OpenCL C candidate (`CLANG_OPENCL`), when a clang
    is installed and the original passes it; else None (the guard then does without)."""
    if kernel.suffix != ".cl":
        return None
    for name in ("clang", *(f"clang-{v}" for v in range(20, 13, -1))):
        found = shutil.which(name)
        if found:
            argv = [found, *CLANG_OPENCL]
            done = subprocess.run(argv + [str(kernel)], capture_output=True)
            return argv if done.returncode == 0 else None
    return None


#: Oclgrind's checks for a run: data races (writes of equal values too, which it
#: otherwise forgives), values used uninitialized (at -cl-opt-disable: its checker does
#: not know every instruction the optimiser makes), and, always on, accesses out of
#: bounds and barriers some work-items of a group miss
OCLGRIND_ENV = {"OCLGRIND_DATA_RACES": "1", "OCLGRIND_UNIFORM_WRITES": "1",
                "OCLGRIND_UNINITIALIZED": "1", "OCLGRIND_BUILD_OPTIONS": "-cl-opt-disable"}


def oclgrind_library() -> Path | None:
    """Oclgrind's OpenCL platform (Debian's `oclgrind`), found beside its command."""
    command = shutil.which("oclgrind")
    if command is None:
        return None
    library = Path(command).resolve().parent.parent / "lib/oclgrind/liboclgrind-rt-icd.so"
    return library if library.exists() else None


def oclgrind_check(folder: Path, kernel: Path, work: Path) -> str:
    """The interestingness test's lines that run a candidate on Oclgrind, a simulator of
    OpenCL that reports what a run does undefined (`OCLGRIND_ENV`): the candidate must
    give the expected result there and draw no report. Empty where there is no Oclgrind,
    the kernel is not OpenCL C, or the original itself does not pass (Oclgrind is OpenCL
    1.2 and has no subgroups, for one): the test then does without."""
    library = oclgrind_library()
    if kernel.suffix != ".cl" or library is None:
        return ""
    icd = work / "oclgrind-icd"
    icd.mkdir(exist_ok=True)
    (icd / "oclgrind.icd").write_text(f"{library}\n")
    data = json.loads((folder / "data.json").read_text())
    data["header"]["platform"] = "Oclgrind"
    data["env"] = {}
    (work / "oclgrind.json").write_text(json.dumps(data))
    env = {"OCL_ICD_VENDORS": str(icd), **OCLGRIND_ENV}
    log = work / "oclgrind-original.log"
    log.unlink(missing_ok=True)
    try:
        done = subprocess.run([sys.executable, str(folder / "repro.py"), "--data",
                               str(work / "oclgrind.json"), str(kernel)],
                              env={**os.environ, **env, "OCLGRIND_LOG": str(log)},
                              capture_output=True, timeout=300)
    except subprocess.TimeoutExpired:
        return ""
    if done.returncode != 0 or (log.exists() and log.stat().st_size):
        return ""
    py, repro = shlex.quote(sys.executable), shlex.quote(str(folder / "repro.py"))
    settings = " ".join(f"{k}={shlex.quote(v)}" for k, v in env.items())
    return ('rm -f "$PWD/oclgrind.log"\n'
            f'{settings} OCLGRIND_LOG="$PWD/oclgrind.log" {py} {repro} --data '
            f'{shlex.quote(str(work / "oclgrind.json"))} "$PWD/{kernel.name}" '
            ">/dev/null 2>&1 || exit 1\n"
            '[ ! -s "$PWD/oclgrind.log" ] || exit 1\n')


def run_reproducer(folder: Path, data: Path | None = None, kernel: Path | None = None,
                   timeout: float = 120) -> tuple[int | None, str]:
    """(its exit code: negative for a signal; None when it ran past `timeout`, its
    output)."""
    argv = [sys.executable, str(folder / "repro.py")]
    if data is not None:
        argv += ["--data", str(data)]
    if kernel is not None:
        argv.append(str(kernel))
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, "(timed out)"
    return done.returncode, done.stdout


def reduce_source(folder: Path, reference: Path, seconds: float, workers: int,
                  note: Callable[[str], None] = lambda _: None) -> Path:
    """Reduce the kernel of the reproducer in `folder` (reference data: `reference`, the
    same case's data.json under the reference setting) for at most `seconds`; returns
    the folder of the reduced reproducer."""
    # absolute: the interestingness test runs with its own folder as the working one
    folder, reference = folder.resolve(), reference.resolve()
    if shutil.which("cvise") is None:
        raise DifftestError("--reduce needs C-Vise (apt-get install cvise)")
    data = json.loads((folder / "data.json").read_text())
    kernel = folder / data["kernel_file"]
    code, output = run_reproducer(folder)
    if code is None or (code != 1 and code >= 0):
        raise DifftestError(f"the reproducer shows no difference here (exit {code}): "
                            "nothing to reduce")
    # a difference, or a death by a signal (the shell sees 128 + its number)
    expected = differences(output) if code == 1 else []
    status = 1 if code == 1 else 128 - code
    code, output = run_reproducer(folder, reference)
    if code != 0:
        raise DifftestError("the reference setting does not give the expected result "
                            f"either (exit {code}): {' | '.join(differences(output))[:300]}"
                            " -- name a setting the bug does not have")
    work = folder / "reduce"
    work.mkdir(exist_ok=True)
    candidate = work / kernel.name
    shutil.copyfile(kernel, candidate)
    witness = work / "differences.txt"
    witness.write_text("".join(x + "\n" for x in expected))
    test = work / "interesting.sh"
    guard = work / "guard.py"
    clang = clang_check(kernel)
    guard.write_text(_GUARD.format(pattern=_BARE_DECLARATION.pattern,
                                   null=_NULL_POINTER.pattern, clang=clang))
    sanitizer = oclgrind_check(folder, kernel, work)
    if sanitizer:
        note("each candidate also runs on Oclgrind, which must find no data race, "
             "uninitialized value, access out of bounds or divergent barrier")
    elif kernel.suffix == ".cl":
        note("no Oclgrind check: " + ("Oclgrind is not installed (apt-get install "
                                      "oclgrind)" if oclgrind_library() is None else
                                      "the original kernel does not run clean on it"))
    poison = work / "poison.py"
    shutil.copyfile(Path(__file__).with_name("poison.py"), poison)
    poisoned = f'"$PWD/poisoned{kernel.suffix}"'
    py, repro = shlex.quote(sys.executable), shlex.quote(str(folder / "repro.py"))
    test.write_text(
        "#!/bin/sh\n"
        "# interesting: no value left uninitialized, the finding's difference, none on\n"
        "# the reference setting with workgroup memory poisoned first, and (where it\n"
        "# applies) nothing undefined for Oclgrind\n"
        f"{py} {shlex.quote(str(guard))} {shlex.quote(str(kernel))} "
        f'"$PWD/{kernel.name}" || exit 1\n'
        f'out=$({py} {repro} "$PWD/{kernel.name}" 2>/dev/null)\n'
        f'[ $? -eq {status} ] || exit 1\n'
        "printf '%s\\n' \"$out\" | grep -v -e '^device: ' -e 'from the expected result$' "
        f"| grep -v '^$' | cmp -s - {shlex.quote(str(witness))} || exit 1\n"
        f'{py} {shlex.quote(str(poison))} "$PWD/{kernel.name}" {poisoned} || exit 1\n'
        f"{py} {repro} --data {shlex.quote(str(reference))} {poisoned} >/dev/null 2>&1 "
        "|| exit 1\n" + sanitizer)
    test.chmod(0o755)
    shutil.copyfile(kernel, candidate)
    if subprocess.run([str(test)], cwd=work, capture_output=True).returncode != 0:
        raise DifftestError("the original kernel fails the interestingness test: with its "
                            "workgroup memory poisoned first (reduce/poison.py), the "
                            "reference setting does not give the expected result")
    # its own session, so that the budget's end stops C-Vise's workers too (killing
    # C-Vise alone left them behind)
    proc = subprocess.Popen(["cvise", "--n", str(max(1, workers)), "--timeout", "60",
                             "--tidy", "--no-timing", str(test), candidate.name], cwd=work,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True)
    try:
        proc.wait(timeout=seconds)
    except subprocess.TimeoutExpired:
        pass  # C-Vise keeps its best candidate in the file as it goes
    finally:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        proc.wait()
    out = folder / "reduced"
    out.mkdir(exist_ok=True)
    for f in folder.iterdir():
        if f.is_file() and f != kernel:
            shutil.copyfile(f, out / f.name)

    def shows(text: str) -> bool:
        """The interestingness test's verdict on `text`: C-Vise's rule holds for the
        tidied form too."""
        candidate.write_text(text)
        return subprocess.run([str(test)], cwd=work, capture_output=True).returncode == 0

    reduced = candidate.read_text()
    if not shows(reduced):
        raise DifftestError("the reduced reproducer lost the difference (C-Vise stopped "
                            "mid-way?)")
    for step in TIDY_STEPS:  # each kept only where the result still passes the test
        tidied = step(reduced)
        if tidied != reduced and shows(tidied):
            reduced = tidied
    (out / kernel.name).write_text(reduced)
    code, output = run_reproducer(out)
    if code is None or (code if code == 1 else 128 - code) != status \
            or differences(output) != expected:
        raise DifftestError(f"the reduced reproducer lost the difference: {output[:300]}")
    return out  # `reduce/` keeps the test and the witness, for a rerun by hand


# Tidying: what C-Vise leaves that a reader would not write. Each step is a plain text
# rewrite that keeps the program's meaning where it applies; the reducer still keeps a
# step's result only where it shows the bug.

#: empty attribute lists C-Vise leaves where it took out what they held
_EMPTY_ATTRIBUTE = re.compile(r"__attribute__\s*\(\(\s*\)\)\s*")

#: a statement of one word: `int;` (a declaration of nothing) or `x;`, `0;` (a value
#: unused); not after a `}`, where it names a GLSL block (`} ST;`) or a C struct
_ONE_WORD_STATEMENT = re.compile(
    r"(?<=[;{])[ \t]*\n[ \t]*(?!(?:return|break|continue|discard|default)\b)\w+[ \t]*;"
    r"[ \t]*(?=\n)")


def drop_attributes_and_no_ops(source: str) -> str:
    """Empty `__attribute__(())` and statements of one word gone."""
    source = _EMPTY_ATTRIBUTE.sub("", source)
    while (done := _ONE_WORD_STATEMENT.sub("", source)) != source:
        source = done
    return source


#: an atom in parentheses: a name, a number, a member, an element
_PARENTHESISED_ATOM = re.compile(
    r"\(\s*([\w.]+(?:(?:->|\.)\w+)*(?:\[[^\[\]()]*\])*)\s*\)(?!\s*[\w(])")


def _closing(text: str, i: int) -> int:
    """The index of the bracket that closes the one at `i` (-1: none)."""
    pairs = {"(": ")", "{": "}", "[": "]"}
    depth = 0
    for j in range(i, len(text)):
        if text[j] == text[i]:
            depth += 1
        elif text[j] == pairs[text[i]]:
            depth -= 1
            if depth == 0:
                return j
    return -1


def _top_level_comma(text: str) -> bool:
    return len(_split_arguments(text)) > 1


def drop_parentheses(source: str) -> str:
    """`((x))` -> `x` wherever the parentheses are not a call's, a cast's or a
    statement's (`if (x)`: what stands before them is not a name or a bracket);
    `((e))` -> `(e)`; `= (e);` and `return (e);` -> `= e;`, `return e;`."""
    def strip(m: re.Match[str]) -> str:
        before = m.string[:m.start()].rstrip()
        return m.group(0) if before and (before[-1].isalnum() or before[-1] in "_)]") \
            else m.group(1)
    while True:
        done = _PARENTHESISED_ATOM.sub(strip, source)
        i = 0
        while (i := done.find("((", i)) >= 0:
            inner, outer = _closing(done, i + 1), _closing(done, i)
            if inner >= 0 and outer == inner + 1 and not _top_level_comma(
                    done[i + 2:inner]) and not done[:i].rstrip().endswith("__attribute__"):
                done = done[:i + 1] + done[i + 2:inner] + done[outer:]
            else:
                i += 1
        for m in reversed(list(re.finditer(r"(?:[^=!<>]=|\breturn)\s*\(", done))):
            start = m.end() - 1
            end = _closing(done, start)
            if end >= 0 and re.match(r"\s*;", done[end + 1:]) \
                    and not _top_level_comma(done[start + 1:end]):
                done = done[:start] + done[start + 1:end] + done[end + 1:]
        if done == source:
            return done
        source = done


def drop_redundant_braces(source: str) -> str:
    """A block in a place a statement stands that is the only statement of its block,
    or that holds one block or one loop, is not a block: `{ { s; t; } }` -> `{ s; t; }`,
    `{ for (...) {...} }` -> `for (...) {...}`."""
    i = 0
    while (i := source.find("{", i)) >= 0:
        end = _closing(source, i)
        before = source[:i].rstrip()
        inner = source[i + 1:end].strip() if end >= 0 else ""
        head = re.match(r"(?:for|while)\s*\(", inner)
        single = source[end + 1:].lstrip().startswith("}") and before.endswith("{")
        if inner.startswith("{"):
            single = single or _closing(inner, 0) == len(inner) - 1
        elif head:
            close = _closing(inner, head.end() - 1)
            rest = inner[close + 1:].lstrip() if close >= 0 else ""
            single = single or rest.startswith("{") and _closing(rest, 0) == len(rest) - 1
        if end >= 0 and single and before and before[-1] in ";{}":
            source = source[:i] + inner + source[end + 1:]
        else:
            i += 1
    return source


#: `int t = a < b;` followed by a statement that reads `t` once: a comparison's or a
#: logical operator's value given a name (C: int, GLSL: bool), as the translation does
_NAMED_TRUTH = re.compile(
    r"^[ \t]*(?:int|bool)[ \t]+(\w+)[ \t]*=[ \t]*([^;{}]*?(?:[<>]=?|[!=]=|&&|\|\|)"
    r"[^;{}]*);[ \t]*\n([^\n]*)\n", re.M)


def inline_truths(source: str) -> str:
    """A named truth value read once, by the next line, and nowhere else, written where
    it is read: `int t4 = a < b;` `if (t4)` -> `if (a < b)`. Only when its expression
    calls nothing (a call between could see other values)."""
    for m in _NAMED_TRUTH.finditer(source):
        name, expr, use = m.group(1), m.group(2), m.group(3)
        if re.search(r"\w\s*\(", expr) or len(re.findall(rf"\b{name}\b", source)) != 2 \
                or len(re.findall(rf"\b{name}\b", use)) != 1:
            continue
        line = re.sub(rf"\b{name}\b", lambda _: f"({expr.strip()})", use)
        return inline_truths(source[:m.start()] + line + "\n" + source[m.end():])
    return source


#: a struct: `typedef struct { ... } Name;` (C) or `struct Name { ... }` (GLSL)
_STRUCT = re.compile(r"typedef\s+struct\s*\w*\s*\{(?P<body>[^{}]*)\}\s*(?P<tname>\w+)\s*;"
                     r"|struct\s+(?P<name>\w+)\s*\{(?P<gbody>[^{}]*)\}")
#: a field's name: the last name of its declaration, before any array bounds
_FIELD_NAME = re.compile(r"(\w+)\s*(?:\[[^\]]*\]\s*)*$")


def _split_arguments(text: str) -> list[str]:
    parts, depth, start = [], 0, 0
    for i, c in enumerate(text):
        depth += c in "([{"
        depth -= c in ")]}"
        if c == "," and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    return parts + [text[start:]]


def drop_unused_fields(source: str) -> str:
    """A struct's fields that nothing reads or writes (`.f`, `->f`) gone, with their
    place in each constructor call (`Ctx(0, 0l, ...)`, GLSL); a C struct only where its
    initializers name no fields by place (`= {}`, `= {0}`)."""
    for m in _STRUCT.finditer(source):
        body = m.group("body") if m.group("body") is not None else m.group("gbody")
        name = m.group("tname") or m.group("name")
        fields = [f for f in body.split(";") if f.strip()]
        names = [m_.group(1) if (m_ := _FIELD_NAME.search(f.strip())) else ""
                 for f in fields]
        rest = source[:m.start()] + source[m.end():]
        unused = [i for i, n in enumerate(names)
                  if n and not re.search(rf"(?:\.|->)\s*{n}\b", rest)]
        if not unused or len(unused) == len(fields):
            continue
        if m.group("body") is not None and re.search(
                rf"\b{name}\b[^;=]*=\s*\{{\s*[^\s}}0]", rest):
            continue  # a C initializer that fills fields by place
        kept = [f for i, f in enumerate(fields) if i not in unused]
        indent = re.search(r"\n([ \t]*)\S", body)
        pad = indent.group(1) if indent else " "
        new_body = "".join(f"\n{pad}{f.strip()};" for f in kept) + "\n"
        new = source[:m.start()] + m.group(0).replace(body, new_body, 1) + source[m.end():]
        for call in reversed(list(re.finditer(rf"\b{name}\s*\(", new))):
            depth, i = 1, call.end()
            while i < len(new) and depth:
                depth += new[i] == "("
                depth -= new[i] == ")"
                i += 1
            args = _split_arguments(new[call.end():i - 1])
            if len(args) != len(fields):
                return source  # a call that does not match the fields: leave it all
            args = [a.strip() for j, a in enumerate(args) if j not in unused]
            new = new[:call.end()] + ", ".join(args) + new[i - 1:]
        return drop_unused_fields(new)
    return source


def format_source(source: str) -> str:
    """clang-format's layout (installed with C-Vise) where it is here, short blocks and
    records on one line."""
    fmt = shutil.which("clang-format") or next(
        (p for p in (shutil.which(f"clang-format-{v}") for v in range(20, 10, -1)) if p), None)
    if fmt is None:
        return source
    try:
        done = subprocess.run([fmt, "--assume-filename=kernel.c", "--style={"
                               "BasedOnStyle: LLVM, ColumnLimit: 90, "
                               "AllowShortFunctionsOnASingleLine: None, "
                               "AllowShortBlocksOnASingleLine: Always, "
                               "AllowShortIfStatementsOnASingleLine: WithoutElse, "
                               "AllowShortLoopsOnASingleLine: true}"],
                              input=source, capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.SubprocessError):
        return source
    if done.returncode != 0 or not done.stdout.strip():
        return source
    return join_short_records(done.stdout)


def join_short_records(source: str, width: int = 90) -> str:
    """A record of declarations only (`struct {...} Ctx;`, a GLSL buffer block) on one
    line where it fits."""
    lines = source.split("\n")
    out: list[str] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.rstrip().endswith("{") and re.search(r"\b(?:struct|buffer|uniform)\b", line):
            j = i + 1
            while j < len(lines) and not lines[j].lstrip().startswith("}") \
                    and "{" not in lines[j] and "}" not in lines[j]:
                j += 1
            if j < len(lines) and lines[j].lstrip().startswith("}"):
                tail = lines[j].strip()
                k = j
                if tail == "}" and k + 1 < len(lines) and re.fullmatch(
                        r"\s*\w+\s*(?:=.*)?;", lines[k + 1]):
                    k += 1
                    tail += " " + lines[k].strip()
                joined = " ".join([line.rstrip()] + [x.strip() for x in lines[i + 1:j]]
                                  + [tail])
                if len(joined) <= width:
                    out.append(joined)
                    i = k + 1
                    continue
        out.append(line)
        i += 1
    return "\n".join(out)


#: the tidying steps, in order
TIDY_STEPS = (drop_attributes_and_no_ops, drop_unused_fields, inline_truths,
              drop_parentheses, drop_redundant_braces, format_source)
