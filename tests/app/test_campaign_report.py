"""`difftest report`: a self-contained page, rendered by a real browser (headless
Chromium): it loads with no console errors and no failed loads, and its plots and
status pictures are there."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from difftest.app.cli import main

CHROMIUM = shutil.which("chromium-headless-shell") or shutil.which("chromium")


@pytest.fixture(scope="module")
def campaign(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("report") / "c"
    # budgets counted in work (a seeded campaign of so many kernels, its first failure
    # shrunk to the end; a hunt trial stops at its catch), so a busy machine draws the
    # same page
    assert main(["fuzz", "--examples", "300", "--stop-on-first", "--workers", "1",
                 "--corpus", str(folder), "--opt", "mutants=div-floor"]) == 1
    assert main(["hunt", "--mutants", "div-floor", "--trials", "1", "--time", "60",
                 "--workers", "1", "--corpus", str(folder)]) == 0
    return folder


def test_the_page_is_self_contained_and_has_its_plots(campaign: Path, tmp_path: Path) -> None:
    page = tmp_path / "report.html"
    assert main(["report", str(campaign), "-o", str(page)]) == 0
    text = page.read_text()
    assert "http://" not in text and "https://" not in text  # nothing to fetch
    assert all(src.startswith("data:") for src in re.findall(r"src='([^']*)'", text))
    assert len(re.findall(r"<img alt='plot' class='plot' src='data:image/png;base64,", text)) >= 4  # over time, constructs, pairs, hunts
    assert "distinct bug(s)" in text and "Hunts: time to detection" in text
    assert "<pre>def kernel" in text  # a bucket's smallest kernel, in the source syntax
    assert "class='status'" in text  # its status picture


@pytest.mark.skipif(CHROMIUM is None, reason="needs headless Chromium (Debian package "
                    "chromium-headless-shell; .ci/run installs it)")
def test_headless_chromium_renders_the_page_without_errors(campaign: Path,
                                                           tmp_path: Path) -> None:
    from PIL import Image

    page = tmp_path / "report.html"
    assert main(["report", str(campaign), "-o", str(page)]) == 0
    shot = tmp_path / "shot.png"
    proc = subprocess.run(
        [str(CHROMIUM), "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
         "--window-size=1200,3600", f"--screenshot={shot}", "--enable-logging=stderr",
         "--v=0", page.as_uri()],
        capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    console = [line for line in proc.stderr.splitlines() if ":CONSOLE" in line]
    assert not console, console
    assert "Failed to load resource" not in proc.stderr
    img = Image.open(shot).convert("RGB")
    assert img.size == (1200, 3600)
    colours = {c for _, c in img.getcolors(maxcolors=1 << 22) or []}
    assert (31, 119, 180) in colours  # matplotlib's first line colour: a plot is drawn
    assert (67, 160, 71) in colours   # the coverage bars
    assert (76, 175, 80) in colours   # a completed workitem in a status picture


def test_a_host_programs_evidence_is_run_not_left_aside() -> None:
    """A finding that is a host program is rerun for the page like a launch: its verdict
    and status picture, no table of writers (its memory is checked per launch)."""
    from difftest.app.campaign_report import _run_html
    from difftest.core.kernelfile import load_case

    html = _run_html(load_case(str(Path(__file__).resolve().parents[2] / "examples" / "host_program.py")))
    assert "numba-simt: agree" in html and "not run here" not in html


def test_a_bucket_names_its_mutants_and_a_host_programs_steps() -> None:
    """The page says which injected bug a finding was made under (a hunt folder holds
    many), and a host program's steps beside its kernel."""
    from difftest.app.campaign_report import _bucket_html
    from difftest.campaign.triage import Bucket, Finding, format_buckets

    path = str(Path(__file__).resolve().parents[2] / "examples" / "host_program.py")
    f = Finding(path, "numba-simt", "", "R6 host", frozenset({"Store"}), 3, 8,
                mutants=("mapping-not-demoted",))
    import html

    page = html.unescape(_bucket_html(1, Bucket(f, [f])))
    assert "found with the mutant(s) mapping-not-demoted" in page
    assert "host program:" in page and '{"op": "launch"}' in page
    assert "found with the mutant(s) mapping-not-demoted" in format_buckets([Bucket(f, [f])], 1)
