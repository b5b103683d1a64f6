"""Private arrays (docs/semantics.md, "Private arrays"): kernels whose every output is
worked out by hand in the row's comment, run on the reference, on numba-simt (its
machine, with 4 registers, and with every lane forced to deopt: its host loop), and --
through the same rows -- on the real targets (tests/real_targets/test_int_types_targets.py);
and the checker's word for each way a kernel can misuse one."""

from __future__ import annotations

from pathlib import Path

import pytest

from difftest.core.errors import KernelError
from difftest.core.ir import parse
from difftest.core.kernelfile import load_case
from oracles.reference import run_full

# (name, kernel body after `g = gid()`, the launch's n, out's element type, expected out:
# a list, with out's length; or (gid, fault kind) of the one workitem that faults, the
# others' outputs as listed)
ROWS: list[tuple[str, str, int, str, list[int], tuple[int, str] | None]] = [
    # zero each time the declaration runs: 2 trips, each adds 5 to a fresh a[0]
    ("zero each trip", """
    t = 0
    for j in range(2):
        a: Array[i32, 2]
        a[0] = a[0] + 5
        t = t + a[0]
    out[g] = t""", 2, "i32", [10, 10], None),
    # each lane its own: the even lanes write a[1], the odd ones read theirs (0)
    ("per lane under divergence", """
    a: Array[i32, 4]
    if g % 2 == 0:
        a[1] = g + 10
    out[g] = a[1]""", 4, "i32", [10, 0, 12, 0], None),
    # a run-time index per lane: a[k] = k * 3, read at (g + 1) % 4
    ("run-time index", """
    a: Array[i64, 4]
    for k in range(4):
        a[k] = k * 3
    out[g] = a[(g + 1) % 4]""", 4, "i64", [3, 6, 9, 0], None),
    # narrow elements wrap at their width: 127 + 1 in an i8 is -128; 250 + 10 in a u8, 4
    ("narrow wraps", """
    a: Array[i8, 2]
    a[0] = i8(127)
    a[0] = a[0] + i8(1)
    b: Array[u8, 1]
    b[0] = u8(250)
    b[0] = b[0] + u8(10)
    out[g] = i32(a[0]) * 1000 + i32(b[0])""", 1, "i32", [-128000 + 4], None),
    # len is N; an index of another integer type (u8) reads as its value
    ("len and a u8 index", """
    a: Array[u32, 5]
    a[u8(4)] = u32(4000000000)
    out[g] = i64(a[4]) + len(a)""", 1, "i64", [4000000005], None),
    # f32 elements: a stored 0.1 reads back as the same f32, an unwritten one is 0.0
    ("f32 elements", """
    a: Array[f32, 2]
    a[1] = 0.1
    out[g] = i32(a[1] == 0.1) * 10 + i32(a[0] == 0.0)""", 1, "i32", [11], None),
    # an index past the end faults (workitem 1: index 4 of 4); the others store
    ("past the end faults", """
    a: Array[i32, 4]
    a[g * 4] = 7
    out[g] = a[0]""", 2, "i32", [7, 0], (1, "out_of_bounds")),
    # a negative index faults (a load)
    ("negative index faults", """
    a: Array[i32, 4]
    out[g] = a[g - 1]""", 2, "i32", [0, 0], (0, "out_of_bounds")),
    # a u64 index of 2^63 (negative as an i64's bits) is past the end, not before it
    ("u64 index past the end", """
    a: Array[i32, 2]
    out[g] = a[u64(9223372036854775808) * u64(g)]""", 2, "i32", [0, 0],
     (1, "out_of_bounds")),
    # the value first, then the index, then the bounds: the division faults first
    ("value before bounds", """
    a: Array[i32, 2]
    a[5] = 1 // g""", 1, "i32", [0], (0, "division_by_zero")),
    # a helper's array is fresh on each call: h(1) then h(2) each see a zero a[0]
    ("fresh per call", """
    out[g] = h(1) * 10 + h(2)
def h(v: i32) -> i32:
    a: Array[i32, 3]
    r = a[0] + v
    a[0] = 9
    return r""", 1, "i32", [12], None),
    # declared in both arms: after the if, it is the arm's (lane 0: 1, lane 1: 2)
    ("declared in both arms", """
    if g == 0:
        a: Array[i32, 2]
        a[1] = 1
    else:
        a: Array[i32, 2]
        a[1] = 2
    out[g] = a[1]""", 2, "i32", [1, 2], None),
]


def kernel_file(folder: Path, k: int) -> Path:
    name, body, n, elem, want, _ = ROWS[k]
    head, _, helpers = body.partition("\ndef ")
    lines = [f"# difftest: launch n={n} wave={n}",
             f"# difftest: arg out = {elem}[0] * {len(want)}",
             f"def kernel(out: Buffer[{elem}]):", "    g = gid()" + head]
    if helpers:
        lines.append("def " + helpers)
    path = folder / f"array{k}.py"
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.mark.parametrize("k", range(len(ROWS)), ids=[r[0] for r in ROWS])
def test_the_reference_runs_private_arrays_as_the_semantics_says(k: int,
                                                                 tmp_path: Path) -> None:
    _, _, n, _, want, fault = ROWS[k]
    run = run_full(load_case(kernel_file(tmp_path, k)))
    faulted = [(g, f.kind) for g, f in enumerate(run.fates) if f is not None]
    assert faulted == ([fault] if fault else [])
    assert [int(x) for x in run.final["out"]] == want


def test_numba_simt_agrees_on_every_row_on_its_machine_and_its_host(tmp_path: Path) -> None:
    """In registers (as the machine keeps them), spilled (4 registers), and with every
    lane forced to deopt (the host loop runs the rest: the elements travel in the
    frame)."""
    from difftest.campaign.registry import load_target
    from difftest.campaign.runner import check_case

    target = load_target("numba-simt")
    wrong = []
    for k in range(len(ROWS)):
        case = load_case(kernel_file(tmp_path, k))
        for options, schedule in (({}, {}), ({"registers": 4}, {}),
                                  ({}, {"deopt_percent": 100})):
            verdict = check_case(case, target, schedule, options).verdict
            if not verdict.agree or verdict.unchecked:
                wrong.append(f"{ROWS[k][0]} {options} {schedule}: {verdict}")
    assert not wrong, "\n".join(wrong)


@pytest.mark.parametrize("body, message", [
    ("    a: Array[i32, 4] = 0", "starts as zeros"),
    ("    a: Array[i32, 0]", "constant in 1..32"),
    ("    a: Array[i32, 33]", "constant in 1..32"),
    ("    a: Array[bool, 2]", "Array\\[T, LENGTH\\] of a number type"),
    ("    a: Array[i32, 2]\n    a = 1", "it is a private array"),
    ("    a: Array[i32, 2]\n    x = a", "is a private array, not a value"),
    ("    a: Array[i32, 2]\n    atomic_add(a, 0, 1)", "no other workitem sees it"),
    ("    a: Array[i32, 2]\n    a: Array[i32, 3]", "another type or length"),
    ("    a: Array[i32, 2]\n    a: Array[i64, 2]", "another type or length"),
    ("    x = 1\n    x: Array[i32, 2]", "already i32"),
    ("    a[0] = 1", "'a'"),
    ("    if gid() == 0:\n        a: Array[i32, 2]\n    a[0] = 1", "'a'"),
    ("    a: Array[i32, 2]\n    h(a)", "is a private array, not a value"),
    ("    a: Array[i8, 2]\n    a[0] = 300", "300"),
])
def test_private_array_mistakes_are_named(body: str, message: str) -> None:
    src = (f"def kernel(b: Buffer[i32]):\n{body}\n"
           "def h(c: Buffer[i32]):\n    c[0] = 1\n")
    with pytest.raises(KernelError, match=message):
        parse(src)


def test_a_declaration_in_a_loop_reuses_the_lanes_own_array(tmp_path: Path,
                                                            monkeypatch: pytest.MonkeyPatch
                                                            ) -> None:
    """Each trip's declaration gives zeros again (the sum below restarts every trip),
    from the one array each lane already has: memory does not grow with the trips (it
    did: a 200-trip loop of 256 lanes made 51,200 arrays, each copying all before it)."""
    import oracles.reference as reference

    path = tmp_path / "k.py"
    path.write_text("# difftest: launch n=256 wave=64\n"
                    "# difftest: arg out = i64[0] * 256\n"
                    "def kernel(out: Buffer[i64]):\n"
                    "    for k in range(0, 200):\n"
                    "        a: Array[i64, 8]\n"
                    "        a[k % 8] = a[k % 8] + k + 1\n"
                    "        out[gid()] = out[gid()] + a[k % 8]\n")
    allocated: list[int] = []
    real = reference._Memory.allocate

    def counting(self, gids, sizes, element=reference.I32):  # type: ignore[no-untyped-def]
        allocated.append(len(gids))
        return real(self, gids, sizes, element)

    monkeypatch.setattr(reference._Memory, "allocate", counting)
    run = run_full(load_case(path))
    assert sum(allocated) == 256  # one array per lane, not one per lane and trip
    assert [int(v) for v in run.final["out"]] == [200 * 201 // 2] * 256


def test_a_helpers_array_dies_with_its_call(tmp_path: Path,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """A helper with a private array, called once per loop trip: each call's array dies
    with the call, and the next call's is one of those, zeroed (the reference took fresh
    memory for every call, growing it by the whole array each time: 45 s for a loop of
    4,000 calls of 64 workitems). Each call still starts from zeros."""
    from oracles import reference

    fresh: list[int] = []
    allocate = reference._Memory.allocate

    def counted(self: object, gids: object, *rest: object) -> object:
        fresh.append(len(gids))  # type: ignore[arg-type]
        return allocate(self, gids, *rest)  # type: ignore[arg-type]

    monkeypatch.setattr(reference._Memory, "allocate", counted)
    path = tmp_path / "k.py"
    path.write_text("# difftest: launch n=8 wave=4\n# difftest: arg out = i64[0] * 8\n"
                    "def k(out: Buffer[i64]):\n    s: i64 = 0\n"
                    "    for i in range(50):\n        s = s + h(i64(gid() + 1))\n"
                    "    out[gid()] = s\n\n"
                    "def h(v: i64) -> i64:\n    t: Array[i64, 32]\n"
                    "    t[31] = t[0] + v\n    t[0] = 7\n    return t[31]\n")
    run = run_full(load_case(path))
    assert run.final["out"].tolist() == [50 * (g + 1) for g in range(8)]
    assert sum(fresh) == 8, fresh  # one array per workitem, the first call's
