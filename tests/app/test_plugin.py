"""The pytest plugin end to end, through pytester (a fresh pytest run in a temp folder)."""

from __future__ import annotations

import json

import pytest

from difftest.core.case import case_from_json
from difftest.campaign.corpus import corpus_json

from ..conftest import example_json

pytest_plugins = ["pytester"]


def corpus_entry(expected: dict) -> str:
    case = case_from_json(example_json("payload_clobber"))
    return json.dumps(corpus_json(case, "reference", expected, "test"))


def test_corpus_files_are_collected_and_replayed(pytester: pytest.Pytester) -> None:
    pytester.makeini("[pytest]\ndifftest_corpus = corpus\n")
    corpus = pytester.mkdir("corpus")
    (corpus / "good.json").write_text(corpus_entry({"verdict": "agree"}))
    (corpus / "stale.json").write_text(corpus_entry({"verdict": "disagree", "rule": "R3 memory"}))
    (corpus / "torn.json").write_text("{")
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "--difftest-target", "reference")
    result.assert_outcomes(passed=1, failed=2)
    result.stdout.fnmatch_lines(["*stale.json*", "*expected disagree (R3 memory), got agree*"])
    result.stdout.fnmatch_lines(["*torn.json: malformed JSON*"])


def test_json_outside_the_corpus_is_not_collected(pytester: pytest.Pytester) -> None:
    pytester.makeini("[pytest]\ndifftest_corpus = corpus\n")
    (pytester.mkdir("data") / "x.json").write_text("{")
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.NO_TESTS_COLLECTED


def test_profile_fixture_and_bad_target(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        "def test_profile(difftest_settings, difftest_targets):\n"
        "    assert difftest_settings.max_examples == 5000\n"
        "    assert difftest_targets == ['reference']\n"
    )
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "--difftest-profile", "fuzz",
                                           "--difftest-target", "reference")
    result.assert_outcomes(passed=1)
    bad = pytester.runpytest_subprocess("-p", "no:cacheprovider", "--difftest-target", "nope")
    assert bad.ret == pytest.ExitCode.USAGE_ERROR
    bad.stderr.fnmatch_lines(["*--difftest-target: unknown target 'nope'*"])
    bad = pytester.runpytest_subprocess("-p", "no:cacheprovider", "--difftest-profile", "turbo")
    assert bad.ret == pytest.ExitCode.USAGE_ERROR


def test_fuzz_shards_run_on_xdist_gateways() -> None:
    """The fuzz shards through xdist's own gateways (`--tx`): popen here; `--tx
    ssh=HOST//python=...` spreads the same shards over machines (README, "pytest")."""
    import subprocess
    import sys
    from pathlib import Path

    repo = Path(__file__).resolve().parents[2]
    shards = [f"tests/campaign/test_fuzz.py::test_target_agrees_with_oracle[reference-{k}]"
              for k in (0, 1)]
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *shards,
         "--tx", f"2*popen//python={sys.executable}", "--dist", "load",
         "--difftest-profile", "ci", "--difftest-target", "reference"],
        cwd=repo, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "2 passed" in done.stdout
    assert "bringing up nodes" in done.stdout  # xdist's gateways ran them
