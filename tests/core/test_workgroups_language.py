"""Workgroups in the language: workgroup arrays, `barrier()`, the group work ids and the
launch's workgroup size, through the parser, the checker, the printer, the JSON forms and
the case files (docs/semantics.md, "Workgroups")."""

from __future__ import annotations

import json

import pytest

from difftest.core.case import VERSION, case_from_json
from difftest.core.errors import CaseError, KernelError
from difftest.core.ir import from_json, parse, to_json, to_source
from difftest.core.ir import nodes as n
from difftest.core.ir.serialize import FORMAT_VERSION
from difftest.core.ir.types import I32, I64, LOCAL_I32
from difftest.core.ir.walk import walk
from difftest.core.kernelfile import load_kernel_file

TILED = '''
def kernel(inp: Buffer[i32], out: Buffer[i64]):
    tile: Local[i32, 64]
    sums: Local[i64, 4]
    tile[local_id()] = inp[gid()]
    barrier()
    if local_id() < 4:
        atomic_add(sums, local_id(), tile[group_size() - 1 - local_id()])
    barrier()
    out[gid()] = sums[local_id() % len(sums)] + group_id()
'''


def test_a_tiled_kernel_parses_prints_and_round_trips() -> None:
    p = parse(TILED)
    body = p.function("kernel").body
    assert body[0] == n.LocalArray("tile", I32, 64)
    assert body[1] == n.LocalArray("sums", I64, 4)
    assert isinstance(body[3], n.Barrier)
    assert parse(to_source(p)) == p
    assert to_source(parse(to_source(p))) == to_source(p)
    back = from_json(json.loads(json.dumps(to_json(p))))
    assert back == p
    assert to_json(p)["version"] == FORMAT_VERSION == 6


def test_the_group_work_ids_are_i32() -> None:
    p = parse("def k(out: Buffer[i32]):\n    out[gid()] = local_id() + group_id() * "
              "group_size()\n")
    ids = [x for x in walk(p.functions) if isinstance(x, n.WorkId)]
    assert [(x.which, x.ty) for x in ids] == [("gid", I32), ("local_id", I32),
                                                ("group_id", I32), ("group_size", I32)]


def _error(src: str) -> str:
    with pytest.raises(KernelError) as e:
        parse(src)
    return str(e.value)


@pytest.mark.parametrize("body, message", [
    ("    t: Local[i32, 4]\n    x = t\n",
     "line 3: 't' is a workgroup array, not a value: index it (t[i]) or take len(t)"),
    ("    t: Local[i32, 4]\n    t = 3\n",
     "line 3: cannot assign to 't': it is a workgroup array (store into it: t[i] = v)"),
    ("    if gid() > 0:\n        t: Local[i32, 4]\n",
     "line 3: workgroup array 't' is declared inside a block: declare it at the top level "
     "of the kernel's body"),
    ("    t: Local[i32, 0]\n", "line 2: a workgroup array's length is a constant in "
     "1..4096, got '0'"),
    ("    t: Local[i32, 4097]\n", "line 2: a workgroup array's length is a constant in "
     "1..4096, got '4097'"),
    ("    t: Local[i32, gid()]\n", "line 2: a workgroup array's length is a constant in "
     "1..4096, got 'gid()'"),
    ("    t: Local[bool, 4]\n", "line 2: a workgroup array is Local[T, LENGTH] of a number "
     "type T (i8, i16, i32, i64, u8, u16, u32, u64, f32, f64), got 'Local[bool, 4]'"),
    ("    t: Local[i32, 4] = 0\n", "line 2: a workgroup array starts as zeros: declare it "
     "without a value, `tile: Local[i32, 64]`"),
    ("    t: Local[i64, 2048]\n    u: Local[i32, 1]\n",
     "line 2: 'k' declares 16388 bytes of workgroup arrays; the limit is 16384"),
    ("    out: Local[i32, 4]\n", "line 2: 'out' is already a Buffer[i32]: a workgroup "
     "array needs a name of its own"),
    ("    barrier: Local[i32, 4]\n", "line 2: 'barrier' cannot be a workgroup array: it "
     "is a builtin"),
    ("    barrier(1)\n", "line 2: barrier() takes no arguments"),
    ("    local_id = 3\n", "line 2: cannot assign to 'local_id': it is a builtin"),
    ("    b = alloc(4)\n    barrier()\n", "line 3: alloc() (line 2) and barriers (line 3) "
     "in one program: a program that allocates has no barriers"),
    ("    t: Local[i32, 4]\n    b = alloc(4)\n", "line 2: alloc() (line 3) and workgroup "
     "arrays (line 2) in one program: a program that allocates has no workgroup arrays"),
])
def test_workgroup_mistakes_are_named(body: str, message: str) -> None:
    assert _error("def k(out: Buffer[i32]):\n" + body) == message


def test_a_function_with_workgroup_arrays_is_a_kernel() -> None:
    called = "def h(x: i32):\n    t: Local[i32, 4]\n    t[0] = x\n" \
             "def k(out: Buffer[i32]):\n    h(1)\n"
    assert _error(called) == ("line 2: 'h' declares workgroup arrays, so it is a kernel: "
                              "nothing may call it and it returns nothing")
    valued = "def h(x: i32) -> i32:\n    t: Local[i32, 4]\n    return x\n"
    assert "so it is a kernel" in _error(valued)


def test_workgroup_arrays_index_and_len_like_buffers() -> None:
    p = parse("def k(out: Buffer[i64]):\n    t: Local[i64, 8]\n    t[lane()] = 5\n"
              "    atomic_add(t, 0, lane())\n    out[gid()] = t[len(t) - 1]\n")
    store = p.function("k").body[1]
    assert isinstance(store, n.Store) and store.buffer == "t"
    assert LOCAL_I32.element is I32


def test_a_barrier_may_stand_in_a_helper() -> None:
    p = parse("def sync():\n    barrier()\n"
              "def k(out: Buffer[i32]):\n    sync()\n    out[gid()] = 1\n")
    assert isinstance(p.function("sync").body[0], n.Barrier)


# ------------------------------------------------------------------ case files

def _case(launch: dict[str, object], version: int | None = None) -> dict[str, object]:
    obj: dict[str, object] = {"kernel": "def k(out: Buffer[i32]):\n    barrier()\n",
                              "entry": "k", "launch": launch,
                              "args": {"out": {"dtype": "i32", "data": [0]}}}
    if version is not None:
        obj["version"] = version
    return obj


def test_a_launch_may_name_its_workgroup_size() -> None:
    case = case_from_json(_case({"n": 12, "wave": 4, "group": 8}))
    assert (case.group, case.group_size, case.launch_text) == (8, 8, "n=12 wave=4 group=8")
    assert case.to_json()["launch"] == {"n": 12, "wave": 4, "group": 8}
    assert case_from_json(case.to_json()).group == 8
    plain = case_from_json(_case({"n": 12, "wave": 4}, version=2))  # an old file
    assert (plain.group, plain.group_size) == (None, 4)
    assert plain.to_json()["launch"] == {"n": 12, "wave": 4}
    assert VERSION == 3


@pytest.mark.parametrize("group", [6, 0, 2, 2048, True, "8"])
def test_a_workgroup_size_is_a_multiple_of_the_wave(group: object) -> None:
    with pytest.raises(CaseError) as e:
        case_from_json(_case({"n": 12, "wave": 4, "group": group}))
    assert str(e.value) == (f"case: launch.group must be a multiple of the wave size (4) "
                            f"in 1..1024, got {group!r}")


def test_a_kernel_file_header_and_the_command_line_give_the_group(tmp_path) -> None:
    path = tmp_path / "k.py"
    path.write_text("# difftest: launch n=16 wave=4 group=8\n"
                    "# difftest: arg out = i32[0] * 16\n"
                    "def k(out: Buffer[i32]):\n    barrier()\n")
    assert load_kernel_file(path).group == 8
    assert load_kernel_file(path, group=16).group == 16
    path.write_text("# difftest: launch n=16 wave=4 grp=8\n")
    with pytest.raises(CaseError, match=r"expected `launch n=N wave=W \[group=G\]`"):
        load_kernel_file(path)
