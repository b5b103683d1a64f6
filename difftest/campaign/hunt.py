"""`difftest hunt`: how good is the fuzzer at finding each of a target's injected bugs?

For each mutant, `trials` independent campaigns (different seeds), each exactly what
`difftest fuzz` does by default (no example database, no corpus or `@example` seeding, no
per-mutant tuning) with that one mutant switched on, stopped at its first counterexample.
Reported per mutant, Magma-style: the detection rate; the median and max time to the
first failure (a miss counts as the whole budget); the median and max time from the first
failure to the reduced case; the reduced case's median size (statements, n). Every
reduced counterexample goes to the corpus with its mutant.
"""

from __future__ import annotations

import json
import statistics
import sys
from dataclasses import asdict, dataclass, field
from pathlib import Path
from collections.abc import Callable
from typing import Any, TextIO, cast

from difftest.campaign.fuzz import Found, FuzzConfig, Interrupted, fuzz


@dataclass
class Trial:
    seed: int
    found: Found | None
    kernels: int
    cases: int
    problems: list[str] = field(default_factory=list)


@dataclass
class MutantResult:
    mutant: str
    seed_doc: str
    trials: list[Trial] = field(default_factory=list)

    def detected(self) -> list[Found]:
        return [t.found for t in self.trials if t.found is not None]

    def row(self, budget: float) -> dict[str, Any]:
        hits = self.detected()
        ttf = [t.found.first if t.found else budget for t in self.trials]
        shrink = [f.shrunk - f.first for f in hits]
        return {
            "mutant": self.mutant,
            "seed": self.seed_doc,
            "caught": len(hits),
            "trials": len(self.trials),
            "ttf_median_s": _median(ttf),
            "ttf_max_s": max(ttf) if ttf else None,
            "shrink_median_s": _median(shrink),
            "shrink_max_s": max(shrink) if shrink else None,
            "statements_median": _median([f.statements for f in hits]),
            "n_median": _median([f.n for f in hits]),
            "host_steps_median": _median([f.host_steps for f in hits]),
        }


def _median(xs: list[float] | list[int]) -> float | None:
    return float(statistics.median(xs)) if xs else None


class HuntInterrupted(Exception):
    """A signal stopped the hunt; `results` are the trials finished before it."""

    def __init__(self, results: list[MutantResult], signum: int) -> None:
        super().__init__(signum)
        self.results = results
        self.signum = signum


def hunt(target: str, mutants: list[str], docs: dict[str, str], trials: int, seconds: float,
         workers: int, seed: int, corpus: Path, out: TextIO | None = None,
         stopped: Callable[[], int | None] = lambda: None,
         reduce_seconds: float | None = None) -> list[MutantResult]:
    """`stopped()` is the number of a signal that came between two trials (None while
    none did): the hunt ends there as if the signal had come during a trial.
    `reduce_seconds` caps each caught trial's shrinking and reduction (fuzz's
    `--reduce-time`)."""
    out = sys.stderr if out is None else out
    results: list[MutantResult] = []
    for name in mutants:
        res = MutantResult(name, docs.get(name, ""))
        for k in range(trials):
            signum = stopped()
            if signum is not None:
                raise HuntInterrupted(results + ([res] if res.trials else []), signum)
            config = FuzzConfig(target=target, seconds=seconds, workers=workers,
                                seed=seed + 1000 * k, options={"mutants": [name]},
                                corpus=corpus, stop_on_first=True, command="hunt",
                                reduce_seconds=reduce_seconds)
            try:
                summary = fuzz(config, out=cast(TextIO, _Quiet(out)))
            except Interrupted as stop:
                raise HuntInterrupted(results + ([res] if res.trials else []),
                                      stop.exit_code - 128) from None
            found = summary.found[0] if summary.found else None
            problems = list(summary.errors)
            res.trials.append(Trial(config.seed, found, summary.kernels, summary.cases,
                                    problems))
            what = (f"caught at {found.first:.1f} s, reduced at {found.shrunk:.1f} s to "
                    f"{found.statements} statements (n = {found.n}"
                    f"{f', {found.host_steps} host steps' if found.host_steps else ''})"
                    f"{' (cut by --reduce-time)' if found.cut else ''}"
                    if found else "missed")
            if problems:
                what += "; problems: " + "; ".join(problems)
            out.write(f"hunt {name} trial {k + 1}/{trials}: {what}; {summary.cases} cases\n")
            out.flush()
        results.append(res)
    return results


class _Quiet:
    """Passes only the campaign's own problems through (not its progress lines)."""

    def __init__(self, out: TextIO) -> None:
        self.out = out

    def write(self, text: str) -> int:
        if text.startswith("error:") or "Traceback" in text:
            self.out.write(text)
        return len(text)

    def flush(self) -> None:
        self.out.flush()

    def isatty(self) -> bool:
        return False


def format_table(results: list[MutantResult], budget: float) -> str:
    head = ("| mutant | seed | caught | TTF median / max (s) | first failure -> reduced, "
            "median / max (s) | reduced size, median (statements, n, host steps) |")
    lines = [head, "| --- | --- | --- | --- | --- | --- |"]
    for res in results:
        r = res.row(budget)

        def fmt(x: float | None, digits: int = 1) -> str:
            if x is not None and digits == 0 and x != int(x):
                digits = 1  # a median of an even count of sizes: 8.5 is not 8
            return "-" if x is None else f"{x:.{digits}f}"

        lines.append(
            f"| `{r['mutant']}` | {r['seed']} | {r['caught']}/{r['trials']} | "
            f"{fmt(r['ttf_median_s'])} / {fmt(r['ttf_max_s'])} | "
            f"{fmt(r['shrink_median_s'])} / {fmt(r['shrink_max_s'])} | "
            f"{fmt(r['statements_median'], 0)}, {fmt(r['n_median'], 0)}, "
            f"{fmt(r['host_steps_median'], 0)} |")
    return "\n".join(lines)


def to_json(results: list[MutantResult], budget: float, settings: dict[str, Any]
            ) -> dict[str, Any]:
    return {
        "settings": settings,
        "mutants": [{**res.row(budget),
                     "runs": [{"seed": t.seed, "kernels": t.kernels, "cases": t.cases,
                               "found": asdict(t.found) if t.found else None,
                               "problems": t.problems}
                              for t in res.trials]}
                    for res in results],
    }


def write_json(path: str, obj: dict[str, Any]) -> None:
    from difftest.campaign.corpus import write_output

    write_output(path, json.dumps(obj, indent=1) + "\n", "--json")
