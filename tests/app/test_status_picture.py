"""The terminal picture of a case's fates: waves separated, workgroups of several waves
marked, rows of whole groups."""

from __future__ import annotations

from difftest.app.report import status_picture
from difftest.core.case import Case
from difftest.core.ir import parse
from difftest.core.outcome import COMPLETED, FAULTED, NEVER_RAN, Outcome

KERNEL = "def kernel(out: Buffer[i32]):\n    out[gid()] = 1\n"


def picture(n: int, wave: int, group: int | None, status: list[str]) -> list[str]:
    case = Case(KERNEL, "kernel", n, wave, {"out": [0] * n}, parse(KERNEL))
    case.group = group
    return status_picture(case, Outcome({}, None, status)).splitlines()


def test_workgroups_of_several_waves_are_marked_and_rows_hold_whole_groups() -> None:
    status = [COMPLETED] * 5 + [FAULTED] + [COMPLETED] * 18 + [NEVER_RAN] * 24
    lines = picture(48, 4, 12, status)
    assert lines[0].endswith("(gid of each row's first; waves separated, workgroups of "
                             "12 by |):")
    # 64 a row at most, in whole groups of 12: 60 fit, so one row holds all 48
    assert lines[1] == "     0 .... .F.. .... | .... .... .... | ---- ---- ---- | ---- ---- ----"


def test_without_groups_the_picture_is_of_waves_alone() -> None:
    lines = picture(8, 4, None, [COMPLETED] * 7 + [FAULTED])
    assert lines[0].endswith("(gid of each row's first; waves separated):")
    assert lines[1] == "     0 .... ...F"
