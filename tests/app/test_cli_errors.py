"""Bad input to every subcommand: one line on stderr naming the problem, exit 2, nothing
written."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from difftest.app.cli import main

from ..conftest import EXAMPLES, example_json

CASE = str(EXAMPLES / "simple_deopt.py")


def call(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    try:
        code = main(list(argv))
    except SystemExit as e:
        code = int(e.code or 0)
    err = capsys.readouterr().err
    return code, err


@pytest.mark.parametrize("argv, needle", [
    (["sample", "--count", "0", "--seed", "1", "--out", "{tmp}/new"], "--count must be at least 1"),
    (["sample", "--count", "2", "--out", "{tmp}/file"], "not a folder"),
    (["fuzz", "--target", "nope", "--time", "1"], "unknown target 'nope'"),
    (["fuzz", "--time", "-1"], "--time must be a positive number of seconds"),
    (["fuzz", "--workers", "many", "--time", "1"], "--workers must be a number or 'auto'"),
    (["fuzz", "--target", "numba-simt", "--opt", "registers=1", "--time", "1"],
     "registers=1: expected an integer in 4..256"),
    (["fuzz", "--target", "numba-simt", "--opt", "mutants=nope", "--time", "1"],
     "unknown mutant 'nope'"),
    (["fuzz", "--corpus", "{tmp}/file", "--time", "1"], "not a folder"),
    (["fuzz", "--time", "1", "--examples", "3"], "not allowed with argument"),
    (["show", "{tmp}/missing.json"], "missing.json: no such file"),
    (["compile", "{tmp}/bad.json"], "malformed JSON"),
    (["compile", CASE, "--opt", "uniform_writes=maybe"], "expected all_lanes or active"),
    (["check", CASE, "--outcome", "{tmp}/bad.json"], "malformed JSON"),
    (["check", CASE, "--outcome", "{tmp}/partial.json"], "missing field 'status'"),
    (["check", CASE, "--schedules", "0"], "--schedules must be at least 1"),
    (["check", CASE, "--policy", "chaos"], "invalid choice: 'chaos'"),
    (["replay", CASE, "--target", "nope"], "unknown target 'nope'"),
    (["run", CASE, "--target", "numba-simt", "--opt", "frobs=1"], "unknown option 'frobs'"),
    # JSON nested too deeply, in every kind of file a subcommand reads
    *[(argv, "JSON nested too deeply") for argv in (
        ["run", "{tmp}/deep.json"], ["check", "{tmp}/deep.json"], ["show", "{tmp}/deep.json"],
        ["compile", "{tmp}/deep.json"], ["check", CASE, "--outcome", "{tmp}/deep.json"])],
    # integers of more than 4,300 digits: in JSON and in kernel text
    (["run", "{tmp}/longint_json.json"], "Exceeds the limit (4300 digits)"),
    (["check", "{tmp}/longint_kernel.json"], "integer literal of more than 4,300 digits"),
    # a helper call chain 300 deep: rejected at validation, with the limit
    (["run", "{tmp}/deepcall.json", "--target", "reference"], "the limit is 16"),
    (["check", "{tmp}/deepcall.json"], "the limit is 16"),
    (["compile", "{tmp}/deepcall.json"], "the limit is 16"),
    # options inside case files: the same validation as --opt
    (["run", "{tmp}/opt_budget_str.json"], "option step_budget='many': expected an integer"),
    (["check", "{tmp}/opt_budget_neg.json"], "option work_budget=-5: expected an integer"),
    (["run", "{tmp}/opt_unknown.json"], "options: unknown option 'frobs'"),
    (["check", "{tmp}/opt_mutant.json"], "unknown mutant 'nope'"),
    (["run", "{tmp}/opt_mutant_str.json"], "option mutants='abc': expected a list"),
    (["run", CASE, "--opt", "step_budget=1.5"], "--opt: option step_budget=1.5"),
    (["check", "{tmp}/opt_section_typo.json"],
     "a section for 'numba_simt', which is no registered target"),
    (["show", "{tmp}/opt_section_flat.json"], "'numba-simt' is a target's section"),
    # schedule values in case files, for the keys the target reads
    (["run", "{tmp}/sched_quantum.json"], "schedule quantum='x': expected an integer >= 1"),
    (["check", "{tmp}/sched_order.json"], "schedule wave_order='sideways': expected one of"),
    # a schedule key no target reads is a misspelling, not another target's key
    (["check", "{tmp}/sched_misspelt.json"], "unknown schedule key 'wave_ordr'"),
    (["run", "{tmp}/sched_misspelt.json", "--target", "reference"],
     "unknown schedule key 'wave_ordr'"),
    (["run", "{tmp}/sched_percent.json"], "schedule deopt_percent=101: expected 0..100"),
    (["check", "{tmp}/sched_limit.json"], "schedule deopt_limit=-1: expected an integer >= 0"),
    # unwritable places
    (["sample", "--count", "2", "--out", "{tmp}/file/sub"], "/file/sub: cannot write there"),
    (["fuzz", "--corpus", "{tmp}/file/sub", "--time", "1"], "cannot write there"),
    # campaign bounds
    (["fuzz", "--workers", "1000000", "--time", "1"], "--workers must be in 1.."),
    (["fuzz", "--time", "nan"], "--time must be a positive number of seconds, got nan"),
    (["fuzz", "--time", "inf"], "--time must be a positive number of seconds, got inf"),
    (["fuzz", "--time", "1", "--database", "redis://127.0.0.1:notaport"],
     "the port is not a number"),
    # a case's recorded fields, in any command that reads it
    (["check", "{tmp}/mutants_str.json"], "field 'mutants' must be a list of mutant names"),
    (["run", "{tmp}/target_int.json"], "field 'target' must be a target name"),
    (["check", CASE, "--outcome", "{tmp}/outcome_wide.json"], "a value past 64 bits"),
    # a decimal past binary64's range is no infinity, nor one too small for it a zero,
    # in a case file's float scalar or buffer and in an outcome file
    (["check", "{tmp}/float_past.json"], "float_past.json: 1e999 is past the float range "
                                         "(it would be read as inf: write inf for that)"),
    (["run", "{tmp}/float_tiny.json"], "-2.5e-400 is past the float range (it would be "
                                       "read as -0.0: write -0.0 for that)"),
    (["check", "{tmp}/f32_case.json", "--outcome", "{tmp}/outcome_past.json"],
     "outcome_past.json: -1E+999 is past the float range"),
    # NaN and Infinity, which Python's json reads and JSON has not
    (["check", "{tmp}/float_nan.json"], 'float_nan.json: NaN is not JSON (a case file '
                                        'writes the string "nan")'),
    (["check", "{tmp}/f32_case.json", "--outcome", "{tmp}/outcome_inf.json"],
     "outcome_inf.json: -Infinity is not JSON"),
    # 20,000 unary minuses: Python's own parser gives up (MemoryError), said as such
    (["check", "{tmp}/deep_unary.json"], "kernel: nested too deeply to parse (Python's parser gives up)"),
    # a kernel file whose first function is a helper: how to name the kernel
    (["check", "{tmp}/helper_first.py"], "entry 'add1' returns a value; a kernel returns "
     "nothing (the entry is the file's first function unless a `# difftest: entry NAME` "
     "line names the kernel)"),
    (["hunt", "--mutants", "", "--trials", "1"], "--mutants: no mutant named"),
    # messages that named the wrong thing
    (["check", "{tmp}/str_version.json"], "field 'version' must be an integer (1..3), got '3'"),
    (["check", "{tmp}/kernel_as.json"], "(it reads as a kernel file: name it .py)"),
    (["upgrade", "{tmp}/arg_twice.py"], "a kernel file, not a case file"),
    (["check", CASE, "--outcome", "{tmp}/outcome_str_exception.json"],
     "exception: expected an object (kind, gid, stack) or null"),
    (["hunt", "--list", "--target", "reference"], "target reference has no mutants"),
    (["show", CASE, "--png", ""], "--png needs a file name"),
    (["check", CASE, "--outcome", "{tmp}/outcome_str_exception.json", "--schedules", "3"],
     "--schedules and --schedule-seed choose the runs of a target: with --outcome none runs"),
    # upgrade rewrote a file every other command refuses
    (["upgrade", "{tmp}/v1_option.json"], "options: unknown option 'nosuch' for target "
                                          "numba-simt (where the file was found)"),
    # ... or a value, a mutant or a target that are none (for a target that runs in this
    # process, the values as a run checks them)
    (["upgrade", "{tmp}/v1_value.json"], "option registers='abc': expected an integer"),
    (["upgrade", "{tmp}/v1_mutant.json"], "unknown mutant 'nosuch' for target numba-simt"),
    (["upgrade", "{tmp}/v1_target.json"], "target: unknown target 'nosuch' (known: "),
    # a mistyped --known turned known-bug recognition off without a word
    (["fuzz", "--known", "{tmp}/nosuch", "--time", "1"], "nosuch: no such folder or file"),
    # export's reduction: a reference without one, a budget that is none
    (["export", CASE, "--out", "{tmp}/ex", "--reference", "opt=off"],
     "--reference is the setting --reduce checks candidates on: give --reduce too"),
    (["export", CASE, "--out", "{tmp}/ex", "--reduce", "-5", "--reference", "opt=off"],
     "--reduce must be a positive number of seconds, got -5.0"),
    (["export", CASE, "--out", "{tmp}/ex", "--reduce", "nan", "--reference", "opt=off"],
     "--reduce must be a positive number of seconds, got nan"),
    # a header key given twice: one would silently win over the other
    (["check", "{tmp}/arg_twice.py"], "arg_twice.py:3: `arg out` given twice (first at "
     "line 2)"),
    (["check", "{tmp}/launch_twice.py"], "launch_twice.py:4: `launch` given twice (first "
     "at line 1)"),
    # a buffer of a type that is none: which types there are
    (["check", CASE, "--arg", "out=u7[0] * 4"], "--arg out: unknown "
     "element type 'u7' (one of i8, i16, i32, i64, u8, u16, u32, u64, f32, f64)"),
    # integers of more than 4,300 digits in a kernel file's header and in --arg (Python
    # refuses to read them: a traceback once)
    *[(["check", f"{{tmp}}/longint_{name}.py"], needle) for name, needle in (
        ("arg", "longint_arg.py:2: arg s: an integer of 5000 digits is past every integer "
                "type's range"),
        ("element", "longint_element.py:3: arg a: an integer of 5000 digits"),
        ("times", "longint_times.py:3: arg a: an integer of 5000 digits"),
        ("launch", "longint_launch.py:1: an integer of 5000 digits"),
        ("options", "longint_options.py:4: options: an integer past every integer type's "
                    "range"),
        ("host", "longint_host.py:4: host: an integer past every integer type's range"))],
    # a host program whose kernel's atomics return: a case no target runs (the checker
    # orders one launch's atomics), refused up front, not judged a target's error
    *[(argv, "host_returning.json: target " + target + " cannot run this case: a host "
      "program's kernel has atomics that return") for argv, target in (
        (["check", "{tmp}/host_returning.json"], "numba-simt"),
        (["run", "{tmp}/host_returning.json"], "numba-simt"),
        (["run", "{tmp}/host_returning.json", "--target", "reference"], "reference"),
        (["reduce", "{tmp}/host_returning.json", "--out", "{tmp}/r.json"], "numba-simt"))],
    # "all" beside a name that is none: the name still checked
    *[(["run", CASE, "--opt", f"avoid={v}"], "option avoid: unknown zz for target numba-simt")
      for v in ("all,zz", "zz,all")],
    # a kernel file where a JSON file is read: not "name it .py", which it is
    *[(["check", CASE, "--outcome", path], "(a .py file is a kernel file: this reads a JSON "
       "file here)") for path in (CASE, "{tmp}/ok.py")],
    # an empty name where a command writes: a mistake, not the default folder
    *[(argv, f"argument {flag}: needs a file or folder name") for argv, flag in (
        (["sample", "--count", "1", "--out", ""], "--out"),
        (["reduce", CASE, "--out", " "], "--out"),
        (["fuzz", "--corpus", "", "--time", "1"], "--corpus"),
        (["report", "{tmp}", "-o", ""], "-o/--output"))],
    # an output file that is the input: writing it would lose the kernel
    (["reduce", "{tmp}/ok.py", "--out", "{tmp}/ok.py"], "ok.py: that is the input file"),
    (["show", "{tmp}/ok.py", "--png", "{tmp}/ok.py"], "ok.py: that is the input file"),
    *[(["check", CASE, "--arg", arg], "--arg out: an integer of 5000 digits") for arg in (
        "out=" + "9" * 5000, "out=i32[" + "9" * 5000 + "]", "out=i32[0] * " + "9" * 5000)],
])
def test_bad_input_is_one_line_and_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                          argv: list[str], needle: str) -> None:
    (tmp_path / "file").write_text("x")
    (tmp_path / "bad.json").write_text("{nope")
    (tmp_path / "partial.json").write_text(json.dumps({"buffers": {}, "exception": None}))
    _write_hostile_files(tmp_path)
    before = sorted(p.name for p in tmp_path.iterdir())
    code, err = call(capsys, *[a.replace("{tmp}", str(tmp_path)) for a in argv])
    assert code == 2, err
    assert needle in err, err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert sorted(p.name for p in tmp_path.iterdir()) == before  # nothing written


def test_sample_writes_loadable_cases(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from difftest.core.kernelfile import load_case

    assert main(["sample", "--count", "3", "--seed", "7", "--out", str(tmp_path / "s")]) == 0
    files = sorted((tmp_path / "s").iterdir())
    assert len(files) == 3
    for f in files:
        load_case(f)
    again = tmp_path / "t"
    assert main(["sample", "--count", "3", "--seed", "7", "--out", str(again)]) == 0
    assert [f.read_text() for f in files] == [f.read_text() for f in sorted(again.iterdir())]


def _case_with(**changes: object) -> str:
    obj = example_json("simple_deopt")
    obj.update(changes)
    return json.dumps(obj)


def _write_hostile_files(tmp: Path) -> None:
    (tmp / "arg_twice.py").write_text(
        "# difftest: launch n=4 wave=4\n# difftest: arg out = i32[0] * 4\n"
        "# difftest: arg out = i32[1] * 4\ndef k(out: Buffer[i32]):\n    out[gid()] = 1\n")
    (tmp / "launch_twice.py").write_text(
        "# difftest: launch n=4 wave=4\n# difftest: arg out = i32[0] * 4\n"
        "def k(out: Buffer[i32]):\n    # difftest: launch n=2 wave=2\n    out[gid()] = 1\n")
    (tmp / "helper_first.py").write_text(
        "# difftest: launch n=1 wave=1\n# difftest: arg out = i32[0]\n"
        "def add1(x: i32) -> i32:\n    return x + 1\n\n"
        "def k(out: Buffer[i32]):\n    out[0] = add1(1)\n")
    (tmp / "deep.json").write_text("[" * 100_000 + "]" * 100_000)
    (tmp / "ok.py").write_text("# difftest: launch n=4 wave=4\n# difftest: arg out = i32[0] * 4\n"
                               "def k(out: Buffer[i32]):\n    out[gid()] = 1\n")
    (tmp / "host_returning.json").write_text(json.dumps({
        "kernel": "def k(out: Buffer[u8], inp: Buffer[u8]):\n"
                  "    o = atomic_add(out, 0, u8(1))\n    inp[gid()] = o\n",
        "entry": "k", "launch": {"n": 4, "wave": 4},
        "args": {"out": {"dtype": "u8", "data": [0] * 4}, "inp": {"dtype": "u8", "data": [1] * 4}},
        "host": [{"op": "launch"}, {"op": "launch"}]}))
    long = "9" * 5000
    for name, lines in (("arg", ("launch n=4 wave=4", f"arg s = {long}", "arg a = u8[0] * 4")),
                        ("element", ("launch n=4 wave=4", "arg s = 1", f"arg a = u8[{long}]")),
                        ("times", ("launch n=4 wave=4", "arg s = 1", f"arg a = u8[0] * {long}")),
                        ("launch", (f"launch n={long} wave=4", "arg s = 1", "arg a = u8[0] * 4")),
                        ("options", ("launch n=4 wave=4", "arg s = 1", "arg a = u8[0] * 4",
                                     f'options {{"step_budget": {long}}}')),
                        ("host", ("launch n=4 wave=4", "arg s = 1", "arg a = u8[0] * 4",
                                  f'host [{{"op": "launch", "n": {long}}}]'))):
        (tmp / f"longint_{name}.py").write_text(
            "".join(f"# difftest: {line}\n" for line in lines)
            + "def k(a: Buffer[u8], s: i32):\n    a[gid()] = u8(s)\n")
    (tmp / "str_version.json").write_text(json.dumps({**example_json("simple_deopt"),
                                                      "version": "3"}))
    (tmp / "kernel_as.json").write_text("def k(out: Buffer[i32]):\n    out[0] = 1\n")
    (tmp / "outcome_str_exception.json").write_text(json.dumps({
        "buffers": {}, "status": [], "exception": "boom"}))
    (tmp / "v1_option.json").write_text(json.dumps({  # an option no version runs
        "format": "difftest-case", "version": 1, "target": "numba-simt", "entry": "k",
        "kernel": "def k(out: Buffer[i32]):\n    out[gid()] = 1\n",
        "launch": {"n": 4, "wave": 4}, "args": {"out": {"dtype": "i32", "data": [0] * 4}},
        "options": {"nosuch": 8}}))
    v1 = {"format": "difftest-case", "version": 1, "target": "numba-simt", "entry": "k",
          "kernel": "def k(out: Buffer[i32]):\n    out[gid()] = 1\n",
          "launch": {"n": 4, "wave": 4}, "args": {"out": {"dtype": "i32", "data": [0] * 4}}}
    for name, fields in (("value", {"options": {"registers": "abc"}}),
                         ("mutant", {"mutants": ["nosuch"]}), ("target", {"target": "nosuch"})):
        (tmp / f"v1_{name}.json").write_text(json.dumps({**v1, **fields}))
    good = example_json("simple_deopt")
    (tmp / "longint_json.json").write_text(
        json.dumps(good).replace('"length": 20', '"length": ' + "9" * 5000))
    kernel = "def k(out: Buffer[i32]):\n    out[0] = " + "1" * 5000 + "\n"
    (tmp / "longint_kernel.json").write_text(json.dumps({
        "kernel": kernel, "entry": "k", "launch": {"n": 1, "wave": 1},
        "args": {"out": {"dtype": "i32", "data": [0]}}}))
    helpers = [f"def h{i}(x: i32) -> i32:\n    return h{i + 1}(x) + 1\n" for i in range(299)]
    chain = ("def k(out: Buffer[i32]):\n    out[0] = h0(1)\n\n" + "\n".join(helpers)
             + "\ndef h299(x: i32) -> i32:\n    return x\n")
    (tmp / "deepcall.json").write_text(json.dumps({
        "kernel": chain, "entry": "k", "launch": {"n": 1, "wave": 1},
        "args": {"out": {"dtype": "i32", "data": [0]}}}))
    (tmp / "opt_budget_str.json").write_text(_case_with(options={"step_budget": "many"}))
    (tmp / "opt_budget_neg.json").write_text(_case_with(options={"work_budget": -5}))
    (tmp / "opt_unknown.json").write_text(_case_with(options={"frobs": 1}))
    (tmp / "opt_mutant.json").write_text(_case_with(options={"mutants": ["nope"]}))
    (tmp / "opt_mutant_str.json").write_text(_case_with(options={"mutants": "abc"}))
    (tmp / "opt_section_typo.json").write_text(
        _case_with(options={"numba_simt": {"mutants": ["break-mask-lost"]}}))
    (tmp / "opt_section_flat.json").write_text(_case_with(options={"numba-simt": 5}))
    (tmp / "sched_quantum.json").write_text(_case_with(schedule={"quantum": "x"}))
    (tmp / "sched_order.json").write_text(_case_with(schedule={"wave_order": "sideways"}))
    (tmp / "sched_misspelt.json").write_text(_case_with(schedule={"wave_ordr": "shuffled"}))
    (tmp / "sched_percent.json").write_text(_case_with(schedule={"deopt_percent": 101}))
    (tmp / "sched_limit.json").write_text(_case_with(schedule={"deopt_limit": -1}))
    (tmp / "mutants_str.json").write_text(_case_with(mutants="break-mask-lost",
                                                     target="numba-simt"))
    (tmp / "target_int.json").write_text(_case_with(target=5))
    (tmp / "deep_unary.json").write_text(json.dumps({
        "kernel": "def k(out: Buffer[i32]):\n    out[0] = " + "-" * 20_000 + "1\n",
        "entry": "k", "launch": {"n": 1, "wave": 1},
        "args": {"out": {"dtype": "i32", "data": [0]}}}))
    scalar = {"kernel": "def k(out: Buffer[f32], s: f32):\n    out[0] = s\n", "entry": "k",
              "launch": {"n": 1, "wave": 1},
              "args": {"out": {"dtype": "f32", "data": [0.0]}, "s": 0.5}}
    (tmp / "f32_case.json").write_text(json.dumps(scalar))
    (tmp / "float_past.json").write_text(json.dumps(scalar).replace("0.5", "1e999"))
    (tmp / "float_tiny.json").write_text(json.dumps(scalar).replace("[0.0]", "[-2.5e-400]"))
    (tmp / "float_nan.json").write_text(json.dumps(scalar).replace("0.5", "NaN"))
    (tmp / "outcome_inf.json").write_text(
        '{"buffers": {"out": [-Infinity]}, "exception": null, "status": ["ok"]}')
    (tmp / "outcome_past.json").write_text(
        '{"buffers": {"out": [-1E+999]}, "exception": null, "status": ["ok"]}')
    (tmp / "outcome_wide.json").write_text(json.dumps(
        {"buffers": {"out": [2**70] * 20}, "exception": None, "status": []}))


def test_replay_reports_a_hostile_corpus_file_by_name_and_goes_on(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _write_hostile_files(tmp_path)
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    for name in ("deep.json", "opt_mutant_str.json"):
        (corpus / name).write_text((tmp_path / name).read_text())
    code = main(["replay", str(corpus), "--target", "reference"])
    out = capsys.readouterr().out
    assert code == 2
    assert "deep.json: JSON nested too deeply" in out
    assert "opt_mutant_str.json" in out and "expected a list of mutant names" in out


def test_kernel_files_with_a_bom_unicode_names_or_an_upper_case_suffix_load(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """An editor's byte-order mark, names the kernel language accepts (identifiers, any
    script) in the header too, and `.PY`: all the same kernel file."""
    text = ("# difftest: launch n=4 wave=4\n# difftest: arg öut = i32[0] * 4\n"
            "def kérnel(öut: Buffer[i32]):\n    öut[gid()] = gid() + 1\n")
    for name, data in (("bom.py", "\ufeff" + text), ("UPPER.PY", text)):
        path = tmp_path / name
        path.write_text(data, encoding="utf-8")
        assert main(["check", str(path)]) == 0, capsys.readouterr().err
    assert "agree" in capsys.readouterr().out


def test_a_repeated_launch_key_and_a_kernel_file_given_to_replay_are_named(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    twice = tmp_path / "twice.py"
    twice.write_text("# difftest: launch n=4 wave=4 n=8\ndef k():\n    pass\n")
    code, err = call(capsys, "check", str(twice))
    assert code == 2 and "`n` given twice" in err, err
    good = EXAMPLES / "simple_deopt.py"
    assert main(["replay", str(good)]) == 2
    out = capsys.readouterr().out
    assert "a kernel file, not a corpus file" in out, out


def test_a_policy_the_target_does_not_follow_is_a_case_it_cannot_run(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """numba-simt is a stream target: its schedules reorder waves and resumptions, so
    under `sequential` correct runs would disagree. One line, exit 2, for check and show."""
    kernel = tmp_path / "seq.py"
    kernel.write_text("# difftest: launch n=8 wave=4\n# difftest: arg out = i32[0] * 8\n"
                      "def kernel(out: Buffer[i32]):\n    if gid() == 1 or gid() == 6:\n"
                      "        fail(gid())\n    out[gid()] = 1\n")
    for command in ("check", "show"):
        code, err = call(capsys, command, str(kernel), "--policy", "sequential")
        assert code == 2 and "cannot run this case: policy sequential" in err, err
    assert main(["check", str(kernel), "--schedules", "8"]) == 0  # under stream: agree


def test_a_json_case_file_with_a_byte_order_mark_loads(tmp_path: Path,
                                                       capsys: pytest.CaptureFixture[str]
                                                       ) -> None:
    """An editor's UTF-8 byte-order mark is no JSON text (it was refused as malformed)."""
    path = tmp_path / "bom.json"
    path.write_bytes(b"\xef\xbb\xbf" + json.dumps(example_json("simple_deopt")).encode())
    code, err = call(capsys, "check", str(path), "--target", "reference")
    assert code == 0, err


def test_an_unknown_target_names_the_case_file(tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    code, err = call(capsys, "check", CASE, "--target", "gpu9000")
    assert code == 2 and err.startswith(f"difftest: error: {CASE}: unknown target 'gpu9000'")


def test_a_case_file_and_a_kernel_file_share_one_buffer_limit(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from difftest.core.case import MAX_BUFFER_LENGTH

    obj = example_json("simple_deopt")
    name = next(k for k, v in obj["args"].items() if isinstance(v, dict))
    obj["args"][name]["data"] = [0] * (MAX_BUFFER_LENGTH + 1)
    path = tmp_path / "big.json"
    path.write_text(json.dumps(obj))
    code, err = call(capsys, "check", str(path), "--target", "reference")
    assert code == 2 and f"a buffer of {MAX_BUFFER_LENGTH + 1} elements is over" in err, err


def test_check_shows_only_the_schedule_keys_its_target_reads(
        capsys: pytest.CaptureFixture[str]) -> None:
    """A generated schedule holds numba-simt's keys; on a target that reads none of them,
    check shows an empty schedule, not keys that changed nothing."""
    code = main(["check", CASE, "--target", "reference", "--schedule-seed", "5"])
    out = capsys.readouterr().out
    assert code == 0 and "schedule seed 5 {}: agree" in out, out


def test_an_output_that_cannot_be_written_is_one_line_and_exit_2(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A full disk (/dev/full) under --json: one line naming the file and why, exit 2
    (it was a traceback, and exit 1 -- a campaign's "found a counterexample")."""
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "a.json").write_text(json.dumps(example_json("simple_deopt")))
    code, err = call(capsys, "replay", str(corpus), "--target", "reference",
                     "--json", "/dev/full")
    assert code == 2 and err.strip().splitlines() == [
        "difftest: error: --json /dev/full: cannot write: No space left on device"], err
    code, err = call(capsys, "fuzz", "--examples", "2", "--workers", "1", "--corpus",
                     str(tmp_path / "cx"), "--json", "/dev/full")
    assert code == 2 and "--json /dev/full: cannot write" in err, err


def test_upgrade_rewrites_older_files_and_none_when_one_is_bad(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Version 1 kept a corpus entry's options flat: `upgrade` rewrites such a file as
    the current version; a folder holding a file it cannot read is left as it was (it
    rewrote the files before that one, and stopped)."""
    old = {**example_json("simple_deopt"), "version": 1, "target": "numba-simt",
           "options": {"registers": 6}}
    folder = tmp_path / "corpus"
    folder.mkdir()
    (folder / "a.json").write_text(json.dumps(old))
    (folder / "b.json").write_text(json.dumps({**old, "launch": {"n": "four"}}))
    before = {p.name: p.read_text() for p in folder.iterdir()}
    code, err = call(capsys, "upgrade", str(folder))
    assert code == 2 and "b.json" in err and "launch" in err, err
    assert {p.name: p.read_text() for p in folder.iterdir()} == before
    (folder / "b.json").unlink()
    assert main(["upgrade", str(folder)]) == 0
    assert "1 of 1 file(s) rewritten" in capsys.readouterr().out
    new = json.loads((folder / "a.json").read_text())
    assert new["version"] == 3 and new["options"] == {"numba-simt": {"registers": 6}}, new
    assert main(["check", str(folder / "a.json")]) == 0
