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
off), whose indeterminate value a candidate would then read. The result is a folder of
its own: the reduced kernel, the reproducer beside it.
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
from pathlib import Path

from difftest.core.errors import DifftestError


def differences(output: str) -> list[str]:
    """The lines of a reproducer's output that say how the result differs."""
    skip = ("device: ", "no difference", "this reproducer needs")
    return [x for x in output.splitlines()
            if x.strip() and not x.startswith(skip) and not x.endswith("from the expected result")]


#: a declaration with no initializer: `int x;`, `__global long *r;`, `Ctx c;`, `int a[4];`
#: at a line's start or after another statement (C-Vise joins lines); the statements
#: that look alike start with keywords
_BARE_DECLARATION = re.compile(
    r"(?:^|(?<=[;{}]))\s*(?!(?:return|break|continue|goto|else|do)\b)(?:[A-Za-z_]\w*\s+)+"
    r"\**\s*"
    r"[A-Za-z_]\w*\s*(?:\[[^\]]*\]\s*)*;", re.M)


def bare_declarations(source: str) -> set[str]:
    """The declarations of `source` that give no initial value, whitespace normalised."""
    return {" ".join(m.group(0).split()) for m in _BARE_DECLARATION.finditer(source)}


_GUARD = """import re, sys
BARE = re.compile({pattern!r}, re.M)
def bare(path):
    with open(path) as f:
        return {{" ".join(m.group(0).split()) for m in BARE.finditer(f.read())}}
# a candidate may not declare without an initial value what the original initializes
sys.exit(0 if bare(sys.argv[2]) <= bare(sys.argv[1]) else 1)
"""


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


def reduce_source(folder: Path, reference: Path, seconds: float, workers: int) -> Path:
    """Reduce the kernel of the reproducer in `folder` (reference data: `reference`, the
    same case's data.json under the reference setting) for at most `seconds`; returns
    the folder of the reduced reproducer."""
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
    guard.write_text(_GUARD.format(pattern=_BARE_DECLARATION.pattern))
    py, repro = shlex.quote(sys.executable), shlex.quote(str(folder / "repro.py"))
    test.write_text(
        "#!/bin/sh\n"
        "# interesting: no value left uninitialized, the finding's difference, and none\n"
        "# on the reference setting\n"
        f"{py} {shlex.quote(str(guard))} {shlex.quote(str(kernel))} "
        f'"$PWD/{kernel.name}" || exit 1\n'
        f'out=$({py} {repro} "$PWD/{kernel.name}" 2>/dev/null)\n'
        f'[ $? -eq {status} ] || exit 1\n'
        "printf '%s\\n' \"$out\" | grep -v -e '^device: ' -e 'from the expected result$' "
        f"| grep -v '^$' | cmp -s - {shlex.quote(str(witness))} || exit 1\n"
        f'{py} {repro} --data {shlex.quote(str(reference))} "$PWD/{kernel.name}" '
        ">/dev/null 2>&1\n")
    test.chmod(0o755)
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
    reduced = candidate.read_text()
    for text in (tidy(reduced), reduced):  # the tidied form, if it still shows the bug
        (out / kernel.name).write_text(text)
        code, output = run_reproducer(out)
        if code is not None and (code if code == 1 else 128 - code) == status \
                and differences(output) == expected:
            return out  # `reduce/` keeps the test and the witness, for a rerun by hand
    raise DifftestError("the reduced reproducer lost the difference (C-Vise stopped "
                        f"mid-way?): {output[:300]}")


#: empty attribute lists C-Vise leaves where it took out what they held
_EMPTY_ATTRIBUTE = re.compile(r"__attribute__\s*\(\(\s*\)\)\s*")


def tidy(source: str) -> str:
    """C-Vise's result laid out for a reader: empty `__attribute__(())` gone, and the
    lines clang-format's (installed with C-Vise) where it is here."""
    source = _EMPTY_ATTRIBUTE.sub("", source)
    fmt = shutil.which("clang-format") or next(
        (p for p in (shutil.which(f"clang-format-{v}") for v in range(20, 10, -1)) if p), None)
    if fmt is None:
        return source
    try:
        done = subprocess.run([fmt, "--assume-filename=kernel.c",
                               "--style={BasedOnStyle: LLVM, ColumnLimit: 90, "
                               "AllowShortFunctionsOnASingleLine: None}"],
                              input=source, capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.SubprocessError):
        return source
    return done.stdout if done.returncode == 0 and done.stdout.strip() else source
