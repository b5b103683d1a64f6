"""The user's documents say what the code does: their examples run, and their lists are
whole."""

from __future__ import annotations

import json
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from difftest.core.case import case_from_json
from difftest.app.cli import main
from difftest.core.ir import nodes
from difftest.core.ir.check import RESERVED

from ..conftest import REPO


def test_the_examples_readme_names_every_built_in() -> None:
    text = (REPO / "examples" / "README.md").read_text()
    names = set(RESERVED) - {"Buffer", "True", "False", "None", "range"}
    missing = sorted(name for name in names if f"`{name}" not in text)
    assert not missing, f"examples/README.md does not name {missing}"
    for word in ("while True", "elect", "inclusive_sum", "alloc"):
        assert word in text
    assert set(nodes.WAVE_OPS) <= names


def test_the_case_format_example_is_a_case_that_runs_on_any_target(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = (REPO / "docs" / "case-format.md").read_text()
    block = re.search(r"```json\n(.*?)```", text, re.S)
    assert block is not None
    path = tmp_path / "case.json"
    path.write_text(block.group(1))
    case_from_json(json.loads(block.group(1)), str(path))
    for target in ("numba-simt", "reference"):
        assert main(["check" if target != "reference" else "run", str(path),
                     "--target", target]) == 0
    capsys.readouterr()


def _blocks(text: str) -> list[tuple[str, str]]:
    """The fenced blocks of a Markdown text: (language, body)."""
    out, lang, body = [], None, []
    for line in text.splitlines():
        if line.startswith("```"):
            if lang is None:
                lang, body = line[3:].strip(), []
            else:
                out.append((lang, "\n".join(body) + "\n"))
                lang = None
        elif lang is not None:
            body.append(line)
    return out


def _tutorial() -> list[tuple[str, str]]:
    text = (REPO / "README.md").read_text()
    return _blocks(text.split("## Tutorial", 1)[1].split("\n## ", 1)[0])


def test_the_readme_tutorial_runs_as_written(tmp_path: Path) -> None:
    """Every `$ ` line of the README's tutorial, run in a fresh folder holding the
    tutorial's kernel file and the examples, with the exit codes it states; each output block the README
    shows is what the last command before it prints, line for line; and the tutorial says
    how to reach the `difftest` its first commands install into .venv."""
    text = (REPO / "README.md").read_text()
    tutorial = text.split("## Tutorial", 1)[1].split("\n## ", 1)[0]
    assert "activate" in tutorial.split("```console", 1)[0]
    blocks = _tutorial()
    kernel = next(body for lang, body in blocks if lang == "python")
    (tmp_path / "scale.py").write_text(kernel)
    shutil.copytree(REPO / "examples", tmp_path / "examples")  # what a checkout has
    pairs: list[tuple[str, str]] = []  # (last command before an output block, the block)
    last = ""
    commands = []
    for lang, body in blocks:
        if lang == "console":
            cmds = [line[2:] for line in body.splitlines() if line.startswith("$ ")]
            commands += cmds
            last = cmds[-1]
        elif lang == "" and last:
            pairs.append((last, body))
    assert len(commands) >= 3 and len(pairs) >= 3
    outputs = {}
    for command in commands:
        argv = shlex.split(command)
        assert argv[0] == "difftest"
        proc = subprocess.run([sys.executable, "-m", "difftest", *argv[1:]], cwd=tmp_path,
                              capture_output=True, text=True, timeout=300)
        assert "Traceback" not in proc.stderr, (command, proc.stderr)
        assert proc.returncode in (0, 1), (command, proc.stdout, proc.stderr)
        outputs[command] = proc.stdout
    for command, shown in pairs:
        for line in shown.splitlines():
            assert line in outputs[command].splitlines(), (command, line, outputs[command])


def test_the_readme_says_how_to_scale_out_and_what_the_plugin_collects() -> None:
    """The scaling section covers what a user spreading a campaign needs: Redis (and
    what happens when it goes away), gathering several machines' folders for triage and
    report, xdist's gateways, and the pytest plugin's collection rule."""
    text = (REPO / "README.md").read_text()
    section = text.split("## Scaling out", 1)[1].split("\n## ", 1)[0]
    for needle in ("--database redis://", "tries the server again", "difftest triage ALL",
                   "campaigns/", "--tx ssh=", "difftest_corpus",
                   "directly in a `difftest_corpus` folder (not in its subfolders)"):
        assert needle in section, needle


def test_the_plugin_page_names_every_part_of_a_target() -> None:
    """docs/plugins.md stays whole: every public part of `Target` is in its table."""
    from difftest.core.target import Target

    text = (REPO / "docs" / "plugins.md").read_text()
    parts = [name for name in vars(Target) if not name.startswith("_")]
    missing = [name for name in parts if f"`{name}" not in text]
    assert not missing, f"docs/plugins.md does not name {missing}"
    assert "any driver's" in text and "icd=" in text


def test_findings_md_has_every_recorded_finding_in_its_table_and_every_lead() -> None:
    """Each known bug the corpus records (`"finding"`) is a row of docs/findings.md's
    summary table, with a status, and has its section; each lead (`"lead": true`) has
    its anchor under "Open leads" (the table once listed 9 of 12 findings)."""
    from difftest.campaign.findings import known_findings

    text = (REPO / "docs" / "findings.md").read_text()
    table = text[:text.index("## Campaigns")]
    rows = {line.split("](#")[1].split(")")[0]: line for line in table.splitlines()
            if line.startswith("| [")}
    leads = text[text.index("## Open leads"):]
    recorded = known_findings([REPO / "corpus"])
    assert recorded
    for f in recorded:
        if f.lead:
            assert f'<a id="{f.id}"></a>' in leads, f.id
            continue
        assert f.id in rows, f"{f.id} is not in the summary table"
        assert rows[f.id].rstrip(" |").split("|")[-1].strip(), f"{f.id} has no status"
        assert f"\n## {f.id}\n" in text, f"{f.id} has no section"
