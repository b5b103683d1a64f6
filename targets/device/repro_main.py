"""The main program of a standalone reproducer that `difftest export` writes beside a
kernel, its runner module and its data: it runs the kernel on the device and prints what
differs from the expected result. Standalone on purpose (numpy and the runner only): this
file is copied as it is.

`python3 repro.py [--data FILE] [KERNEL]` runs this folder's kernel, or KERNEL (a reducer's
candidate), as data.json (or FILE: the same case under other settings) says; it exits 1
when the result differs from the expected one, 2 when something it needs is missing (it
says what).

data.json: {"runner": module name, "env": {...}, "kernel_file": ..., "needs": what it
needs, in words, "header": the
runner's request without its source, "arrays": [{"dtype", "data"}], "buffers": {name:
index among the reply's arrays}, "rows": {"n", "row", "header"}, "functions": [...],
"expected": {"rows": [[kind, code, depth, fn, line, ...]], "buffers": {name: [...]}}}
"""

import importlib
import json
import os
import sys

KINDS = {0: "completed", 1: "out of bounds", 2: "division by zero", 3: "fail",
         4: "out of loop-trip budget", -1: "never finished"}


def describe(row, functions):
    kind = row[0]
    what = KINDS.get(kind, f"status {kind}")
    if kind in (1, 2, 3):
        frames = " <- ".join(f"{functions[row[3 + 2 * i]]}:{row[4 + 2 * i]}"
                             for i in reversed(range(row[2])))
        code = f" (code {row[1]})" if kind == 3 else ""
        what += f"{code} at {frames}"
    return what


def intel_icd(here):
    """Intel's OpenCL CPU runtime from PyPI (intel-opencl-rt): its wheel's own ICD file
    names a conda path, so write one naming the installed library, for pyopencl's
    loader (which reads OCL_ICD_VENDORS)."""
    from importlib.metadata import distribution

    files = distribution("intel-opencl-rt").files or []
    lib = next(str(f.locate()) for f in files if str(f).endswith("libintelocl.so"))
    folder = os.path.join(here, "icd")
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, "intel.icd"), "w") as f:
        f.write(os.path.realpath(lib) + "\n")
    os.environ["OCL_ICD_VENDORS"] = folder


def is_nan(bits, wide=False):
    """Whether a float's bits (as an integer; `wide`: an f64's) are a NaN's."""
    if wide:
        return (bits & 0x7FFFFFFFFFFFFFFF) > 0x7FF0000000000000
    return (bits & 0x7FFFFFFF) > 0x7F800000


def as_float(bits, wide=False):
    import struct

    if wide:
        return struct.unpack("<d", struct.pack("<q", ((bits + 2**63) % 2**64) - 2**63))[0]
    return struct.unpack("<f", struct.pack("<i", ((bits + 2**31) % 2**32) - 2**31))[0]


def setup(here, data_file):
    """(data, runner module, numpy) for the case in `data_file`, with the environment
    its runner needs; raises with what is missing."""
    with open(data_file) as f:
        data = json.load(f)
    for key, value in data["env"].items():
        os.environ.setdefault(key, value)
    if not os.environ.get("XDG_RUNTIME_DIR"):  # Mesa's drivers complain without one
        import tempfile

        os.environ["XDG_RUNTIME_DIR"] = tempfile.mkdtemp(prefix="repro-")
    sys.path.insert(0, here)
    if data.get("setup") == "intel-icd" and not os.environ.get("OCL_ICD_VENDORS"):
        intel_icd(here)
    import numpy as np

    return data, importlib.import_module(data["runner"]), np


def arrays_of(data, np):
    return [np.array(a["data"], dtype=a["dtype"]) for a in data["arrays"]]


def differences(data, out):
    """What differs from the expected result, one line each (none: it is the expected
    one)."""
    rows = data["rows"]
    status = out[0][rows["header"]:].reshape(rows["n"], rows["row"]).tolist()
    found = []
    if out[0][0] != 0:
        found.append(f"{int(out[0][0])} workitem(s) found that their subgroup is not their "
                     "wave")
    for gid, (want, got) in enumerate(zip(data["expected"]["rows"], status)):
        if got[:len(want)] != want:
            found.append(f"workitem {gid}: expected {describe(want, data['functions'])}, "
                         f"got {describe(got, data['functions'])}")
    floats = set(data.get("floats", ()))  # float buffers: bits, any NaN equal to any NaN
    wide = set(data.get("wide_floats", ()))  # those of f64
    for name, index in data["buffers"].items():
        want = data["expected"]["buffers"][name]
        got = out[index].tolist()
        for i, (w, g) in enumerate(zip(want, got)):
            f64 = name in wide
            if w != g and not (name in floats and is_nan(w, f64) and is_nan(g, f64)):
                if name in floats:
                    found.append(f"{name}[{i}]: expected {as_float(w, f64)!r}, "
                                 f"got {as_float(g, f64)!r}")
                else:
                    found.append(f"{name}[{i}]: expected {w}, got {g}")
    return found


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    argv = sys.argv[1:]
    data_file = os.path.join(here, "data.json")
    if argv[:1] == ["--data"] and len(argv) >= 2:
        data_file, argv = argv[1], argv[2:]
    try:
        data, runner, np = setup(here, data_file)
    except Exception as e:  # an ImportError, the Intel runtime's PackageNotFoundError
        needs = "numpy and its runner"
        try:
            with open(data_file) as f:
                needs = json.load(f).get("needs", needs)
        except (OSError, ValueError):
            pass
        print(f"this reproducer needs {needs}; here: {type(e).__name__}: {e}")
        return 2
    # the kernel: this folder's, or the file named on the command line (a reducer's)
    kernel = argv[0] if argv else os.path.join(here, data["kernel_file"])
    with open(kernel) as f:
        source = f.read()
    reply, out = runner.handle({**data["header"], "source": source}, arrays_of(data, np))
    if reply.get("error"):
        print(f"the device rejected the kernel ({reply['error']}):\n{reply.get('message')}")
        return 1
    device = runner.handle({**data["header"], "op": "describe"}, [])[0].get("device", "?")
    print(f"device: {device}")
    found = differences(data, out)
    for line in found:
        print(line)
    if found:
        print(f"{len(found)} difference(s) from the expected result")
        return 1
    print("no difference: the result is the expected one")
    return 0


if __name__ == "__main__":
    sys.exit(main())
