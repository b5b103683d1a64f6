"""`difftest report FOLDER -o report.html`: one self-contained page about a campaign
folder, for a person who would rather look than read a log.

It reads what the campaigns left (difftest.campaign.results journals, the counterexample files)
and shows: how many distinct bugs (triage buckets) and how fast they were found, checked
cases and findings over time per campaign, each hunted mutant's times to detection, the
constructs covered, and per bucket its smallest kernel, its verdict, the memory that
differs and a status picture of its workitems (run again on its target when that is
installed). Plots are matplotlib's, embedded as PNG data: the page needs no network and
no server.
"""

from __future__ import annotations

import base64
import html
import json
import io
from pathlib import Path
from typing import Any

from difftest.core.errors import DifftestError
from difftest.campaign.results import campaigns
from difftest.campaign.triage import Bucket, buckets, load_findings, probe_causes

_CSS = """
body { font-family: sans-serif; margin: 24px auto; max-width: 1100px; color: #222; }
h1 { font-size: 1.6em; } h2 { margin-top: 1.6em; border-bottom: 1px solid #ccc; }
table { border-collapse: collapse; } td, th { padding: 3px 10px; text-align: left; }
tr:nth-child(even) { background: #f4f4f4; } .big { font-size: 1.3em; }
pre { background: #f7f7f7; padding: 8px; overflow-x: auto; }
.bucket { border: 1px solid #ddd; padding: 8px 16px; margin: 16px 0; }
img { max-width: 100%; }
"""


def _plt() -> Any:
    try:
        import matplotlib
    except ImportError:
        raise DifftestError("difftest report needs matplotlib: pip install "
                            "'difftest-simt[report]'") from None
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _png(fig: Any) -> str:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=90, bbox_inches="tight")
    _plt().close(fig)
    return _img(buf.getvalue(), "plot")


def _img(png: bytes, kind: str) -> str:
    """A PNG inside the page (a data URI): the page loads nothing."""
    return (f"<img alt='{kind}' class='{kind}' src='data:image/png;base64,"
            + base64.b64encode(png).decode() + "'>")


def _label(c: dict[str, Any]) -> str:
    opts = c["settings"].get("options") or {}
    extra = f" {','.join(opts['mutants'])}" if opts.get("mutants") else ""
    return f"{c['target']}{extra} ({c['started'][11:16]})"


def _over_time(fuzz: list[dict[str, Any]]) -> str:
    plt = _plt()
    fig, (a, b) = plt.subplots(1, 2, figsize=(11, 3.6))
    for c in fuzz:
        ts = [p["t"] for p in c["progress"]]
        a.plot(ts, [_num(p, "cases") for p in c["progress"]], label=_label(c))
        times = sorted(f["first"] for f in c["findings"])
        b.step([0.0] + times + [ts[-1] if ts else 0.0],
               [0] + list(range(1, len(times) + 1)) + [len(times)], where="post",
               label=_label(c))
    a.set(title="checked cases", xlabel="campaign seconds", ylabel="cases")
    b.set(title="findings (reduced counterexamples)", xlabel="campaign seconds",
          ylabel="findings")
    for ax in (a, b):
        ax.grid(alpha=0.3)
        if len(fuzz) <= 8:
            ax.legend(fontsize=7)
    return _png(fig)


def _hunt_plot(hunts: list[dict[str, Any]]) -> tuple[str, str]:
    """Times to first failure per mutant (a dot per trial, misses at the budget as x)."""
    by: dict[str, list[tuple[float, bool]]] = {}
    for c in hunts:
        mutants = (c["settings"].get("options") or {}).get("mutants") or ["?"]
        budget = c["settings"].get("seconds") or 0.0
        first = min((f["first"] for f in c["findings"]), default=None)
        if c["end"] is None and first is None:
            continue  # an unfinished trial
        by.setdefault(",".join(mutants), []).append(
            (first, True) if first is not None else (budget, False))
    if not by:
        return "", ""
    plt = _plt()
    names = sorted(by, key=lambda m: sorted(t for t, _ in by[m])[len(by[m]) // 2])
    fig, ax = plt.subplots(figsize=(11, 0.3 * len(names) + 1.2))
    for i, m in enumerate(names):
        hit = [t for t, ok in by[m] if ok]
        miss = [t for t, ok in by[m] if not ok]
        ax.scatter(hit, [i] * len(hit), s=14, color="#1e88e5", alpha=0.7)
        ax.scatter(miss, [i] * len(miss), s=30, color="#e53935", marker="x")
    ax.set_yticks(range(len(names)), names, fontsize=7)
    ax.set_xscale("symlog", linthresh=1.0)
    ax.set(title="time to first failure per trial (x: missed within the budget)",
           xlabel="seconds")
    ax.grid(alpha=0.3)
    rows = "".join(
        f"<tr><td>{html.escape(m)}</td><td>{sum(ok for _, ok in by[m])}/{len(by[m])}</td>"
        f"<td>{sorted(t for t, _ in by[m])[len(by[m]) // 2]:.1f} s</td></tr>"
        for m in names)
    table = ("<table><tr><th>mutant</th><th>caught</th><th>median time to first failure"
             f"</th></tr>{rows}</table>")
    return _png(fig), table


def _num(record: dict[str, Any], key: str) -> float:
    """A count or a time from a journal record; a hand-edited value of another type reads
    as 0 (a report draws what it can)."""
    v = record.get(key, 0)
    return v if isinstance(v, (int, float)) and not isinstance(v, bool) else 0


def _coverage(fuzz: list[dict[str, Any]], key: str = "constructs",
              what: str = "constructs covered") -> str:
    """A bar per construct (or pair: `key="pairs"`), the share of the campaigns' kernels
    that had it; pairs never reached are named under the chart."""
    ended = [c for c in fuzz if c["end"] and _num(c["end"], "kernels")]
    if not ended:
        return ""
    counts: dict[str, float] = {}
    kernels = 0.0
    for c in ended:
        kernels += _num(c["end"], "kernels")
        found = c["end"].get(key)
        for k in (found if isinstance(found, dict) else ()):
            counts[k] = counts.get(k, 0) + _num(found, k)
    if not counts:
        return ""
    plt = _plt()
    names = sorted(counts)
    fig, ax = plt.subplots(figsize=(11, 3.2))
    ax.bar(range(len(names)), [100 * counts[k] / kernels for k in names], color="#43a047")
    ax.set_xticks(range(len(names)), names, rotation=90, fontsize=6)
    reached = sum(1 for k in names if counts[k])
    ax.set(title=f"{what}: {reached} of {len(names)} (% of {kernels:.0f} kernels)",
           ylabel="%")
    missing = [k for k in names if not counts[k]]
    note = (f"<p>never reached: {html.escape(', '.join(missing))}</p>" if missing else "")
    return _png(fig) + note


def _bucket_html(rank: int, b: Bucket) -> str:
    r = b.representative
    classes = sorted({f.failure for f in b.members})
    parts = [f"<div class='bucket'><h3>{rank}. {html.escape(r.target)}: "
             f"{html.escape('; '.join(classes))}</h3>",
             f"<p>seen {b.seen} time(s) in {len(b.members)} finding(s); first after "
             f"{min((f.first for f in b.members if f.first is not None), default=0):.1f} s;"
             f" smallest case {html.escape(r.path)} ({r.statements} statement(s), n = "
             f"{r.n}); pattern: {html.escape(', '.join(sorted(b.pattern.core)) or '-')}</p>"]
    mutants = sorted({m for f in b.members for m in f.mutants})
    if mutants:
        parts.append(f"<p>found with the mutant(s) {html.escape(', '.join(mutants))}</p>")
    parts.append(_rerun(r.path))
    parts.append("</div>")
    return "".join(parts)


def _rerun(path: str) -> str:
    """The case's kernel, and its verdict, differing memory and status picture from a
    run on its recorded target (or why there is none)."""
    from difftest.core.kernelfile import load_case

    try:
        case = load_case(path)
    except Exception as e:  # noqa: BLE001 - a file triage read but that no longer loads
        return f"<p>(cannot load {html.escape(path)}: {html.escape(str(e))})</p>"
    out = [f"<pre>{html.escape(case.kernel)}</pre>",
           f"<p>launch n = {case.n}, wave = {case.wave}</p>"]
    if case.host is not None:  # the host program's steps, one a line
        steps = "\n".join(json.dumps(step, sort_keys=True) for step in case.host)
        out.append(f"<p>host program:</p><pre>{html.escape(steps)}</pre>")
    try:
        out.append(_run_html(case))
    except Exception as e:  # noqa: BLE001 - the target is not installed here, or refuses
        out.append(f"<p>(not run here: {html.escape(str(e))})</p>")
    return "".join(out)


def _run_html(case: Any) -> str:
    from difftest.campaign.registry import load_target
    from difftest.app.report import render_png
    from difftest.campaign.runner import check_case, oracle_run
    from difftest.core.verdict import float_buffers, memory_differences

    target_name = str(case.extra.get("target") or "numba-simt")
    target = load_target(target_name)
    options, _ = case.options_for(target_name, tuple(target.option_names))
    if case.extra.get("mutants"):
        options["mutants"] = list(case.extra["mutants"])
    full, error = oracle_run(case, options)
    if full is None:
        return f"<p>(the oracle refuses it: {html.escape(str(error))})</p>"
    res = check_case(case, target, case.schedule, options, None, full, None)
    full = res.full or full  # (the run that replays the target's returned values)
    rows, total = memory_differences(full, res.outcome, floats=float_buffers(case))
    out = [f"<p class='big'>{html.escape(target_name)}: {html.escape(str(res.verdict))}</p>"]
    if rows:
        cells = "".join(f"<tr><td>{html.escape(name)}[{i}]</td><td>{want}</td><td>{got}</td>"
                        f"<td>{', '.join(map(str, who[:8])) or '-'}</td></tr>"
                        for name, i, want, got, who in rows)
        out.append(f"<table><tr><th>location</th><th>expected</th><th>{target_name}</th>"
                   f"<th>written by</th></tr>{cells}</table>")
        if total > len(rows):
            out.append(f"<p>... and {total - len(rows)} more</p>")
    if res.outcome.error is None and res.outcome.status:
        buf = io.BytesIO()
        render_png(case, res.outcome, buf, title=f"{case.entry} on {target_name}")
        out.append(_img(buf.getvalue(), "status"))
    elif res.outcome.error:
        out.append(f"<p>target error: {html.escape(str(res.outcome.error))}</p>")
    return "".join(out)


def build_report(folder: Path) -> str:
    cs = campaigns(folder)
    findings = load_findings(folder)
    probe_causes(findings)
    bs = buckets(findings)
    fuzz = [c for c in cs if c["command"] == "fuzz"]
    hunts = [c for c in cs if c["command"] == "hunt"]
    kernels = sum(_num(c["end"] or {}, "kernels") or
                  (_num(c["progress"][-1], "kernels") if c["progress"] else 0) for c in fuzz)
    cases = sum(_num(c["end"] or {}, "cases") or
                (_num(c["progress"][-1], "cases") if c["progress"] else 0) for c in fuzz)
    seconds = sum(_num(c["end"] or {}, "elapsed") for c in fuzz)
    firsts = sorted(min((f.first for f in b.members if f.first is not None), default=0.0)
                    for b in bs)
    body = [f"<h1>difftest report: {html.escape(str(folder))}</h1>",
            f"<p class='big'><b>{len(bs)}</b> distinct bug(s) (triage buckets) from "
            f"<b>{len(findings)}</b> reduced counterexample(s)"
            + (f"; the first found after {firsts[0]:.1f} s, the last after {firsts[-1]:.1f} s"
               if firsts else "") + "</p>",
            f"<p>{len(fuzz)} fuzz campaign(s): {seconds:.0f} s, {kernels} kernels, {cases} "
            f"checked cases; {len(hunts)} hunt trial(s).</p>"]
    if fuzz:
        body += ["<h2>Over time</h2>", _over_time(fuzz), _coverage(fuzz),
                 _coverage(fuzz, "pairs", "pairs covered (host steps by their buffer's "
                           "state, where values die, wave operations by divergence)")]
    plot, table = _hunt_plot(hunts)
    if plot:
        body += ["<h2>Hunts: time to detection</h2>", plot, table]
    body.append("<h2>Buckets, most different first</h2>")
    body += [_bucket_html(i, b) for i, b in enumerate(bs, 1)] or ["<p>none</p>"]
    return ("<!DOCTYPE html><html><head><meta charset='utf-8'><title>difftest report"
            f"</title><style>{_CSS}</style></head><body>{''.join(body)}</body></html>\n")
