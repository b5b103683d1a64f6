"""pytest plugin (entry point `pytest11`): options, Hypothesis profiles, corpus collection.

Only hooks and options live here; everything heavy is imported inside the hooks, and only
when the feature is used, so a plain `pytest` run in another project pays nothing.

- `--difftest-target NAME` (repeatable): targets the corpus replays and fuzz properties
  run on (default: every registered target).
- `--difftest-profile ci|dev|fuzz`: the Hypothesis settings the `difftest_settings`
  fixture hands to fuzz properties (default: `ci` when $CI is set, else `dev`). The
  profiles are registered globally but never loaded globally: other projects' tests keep
  their own settings.
- ini `difftest_corpus` (paths): folders whose `*.json` files are collected as replay
  tests. Hypothesis's database is off under `ci`, so the corpus is the project's memory.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any
from collections.abc import Iterator

import pytest

OPTION_TARGET = "--difftest-target"
OPTION_PROFILE = "--difftest-profile"
INI_CORPUS = "difftest_corpus"
PROFILES = ("ci", "dev", "fuzz")


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("difftest", "difftest differential testing")
    group.addoption(OPTION_TARGET, action="append", default=None, metavar="NAME",
                    help="target for corpus replay and fuzz properties (repeatable; "
                    "default: every registered target)")
    group.addoption(OPTION_PROFILE, choices=PROFILES, default=None,
                    help="Hypothesis profile for fuzz properties (default: ci if $CI, else dev)")
    parser.addini(INI_CORPUS, type="paths", default=[],
                  help="corpus folders whose *.json files are replayed as tests")


def _register_profiles() -> None:
    from hypothesis import HealthCheck, settings

    quiet = [HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much]
    settings.register_profile("ci", max_examples=20, deadline=None, database=None,
                              print_blob=True, suppress_health_check=quiet)
    settings.register_profile("dev", max_examples=60, deadline=None,
                              suppress_health_check=quiet)
    settings.register_profile("fuzz", max_examples=5000, deadline=None,
                              suppress_health_check=quiet)


def pytest_configure(config: pytest.Config) -> None:
    if config.getoption(OPTION_TARGET):
        from difftest.campaign.registry import load_target

        for name in config.getoption(OPTION_TARGET):
            try:
                load_target(name)
            except Exception as e:  # noqa: BLE001 - reported as a usage error
                raise pytest.UsageError(f"{OPTION_TARGET}: {e}") from None


def profile_name(config: pytest.Config) -> str:
    chosen: str | None = config.getoption(OPTION_PROFILE)
    return chosen or ("ci" if os.environ.get("CI") else "dev")


def target_names(config: pytest.Config) -> list[str]:
    from difftest.campaign.registry import installed_target_names as registered

    chosen: list[str] | None = config.getoption(OPTION_TARGET)
    return list(chosen) if chosen else registered()


def known_findings(config: pytest.Config) -> list[Any]:
    """The real targets' known bugs recorded in the corpus folders (difftest.campaign.findings),
    read once per session."""
    key = "_difftest_known_findings"
    if not hasattr(config, key):
        from difftest.campaign.findings import known_findings as read

        setattr(config, key, read([Path(p) for p in config.getini(INI_CORPUS)]))
    found: list[Any] = getattr(config, key)
    return found


@pytest.fixture(scope="session")
def difftest_known_findings(request: pytest.FixtureRequest) -> list[Any]:
    """The known bugs of real targets in the corpus (fuzz properties accept a
    disagreement one of them explains, and nothing else)."""
    return known_findings(request.config)


@pytest.fixture(scope="session")
def difftest_settings(request: pytest.FixtureRequest) -> Any:
    """The Hypothesis settings of the chosen profile, for fuzz properties."""
    from hypothesis import settings

    _register_profiles()
    return settings.get_profile(profile_name(request.config))


@pytest.fixture(scope="session")
def difftest_targets(request: pytest.FixtureRequest) -> list[str]:
    """Names of the targets under test."""
    return target_names(request.config)


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    if file_path.suffix != ".json":
        return None
    roots = parent.config.getini(INI_CORPUS)
    if any(file_path.parent == Path(r) for r in roots):
        return CorpusFile.from_parent(parent, path=file_path)
    return None


class CorpusFile(pytest.File):
    def collect(self) -> Iterator[pytest.Item]:
        yield CorpusItem.from_parent(self, name="replay")


class CorpusItem(pytest.Item):
    """Replays one corpus file on every target under test."""

    def runtest(self) -> None:
        from difftest.campaign.corpus import entries
        from difftest.campaign.runner import replay

        entry = next(entries([self.path]))
        if entry.case is None:
            raise CorpusFailure(str(entry.error))
        results = replay(entry.case, entry.target, entry.mutants, entry.expected,
                         target_names(self.config), known_findings(self.config))
        bad = [r.describe() for r in results if not r.ok]
        if bad:
            raise CorpusFailure("\n".join(bad))
        if results and all(r.skipped for r in results):
            pytest.skip("; ".join(r.describe() for r in results))

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException],
                     style: Any = None) -> str:
        if isinstance(excinfo.value, CorpusFailure):
            return str(excinfo.value)
        return str(super().repr_failure(excinfo))

    def reportinfo(self) -> tuple[Path, int, str]:
        return self.path, 0, f"corpus replay: {self.path.name}"


class CorpusFailure(Exception):
    pass
