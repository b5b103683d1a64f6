"""The deopt save area and the never-ran record, as the host sees them (seed 000).

The save area holds a frame for each lane that left the device; it is sized for the most
workitems that can be in flight at once -- K resident workgroup slots times G lanes (a
workgroup of one wave without workgroups: W) -- never for the whole range: once the deopt
flag is set no new workgroup starts, so every deopt of a launch comes from the at most K
workgroups resident at the first one. Never-ran tracking is one bit a
wave. Both sizes are independent of n except the bitmap's n / W / 8 bytes.

The `save-area-per-wave` mutant sizes the area for one wave (W frames).
"""

from __future__ import annotations

import numpy as np

from ..mutants import NONE, Mutants
from ..compiler.emit import Compiled
from ..device.machine import F_GID, DeoptArea

HEADER_BYTES = 3 * 8  # flag, next slot index, overflow


def capacity(slots: int, W: int, G: int, n_groups: int, mutants: Mutants = NONE) -> int:
    """Frames the save area holds: K resident workgroup slots x G lanes."""
    k = max(1, min(slots, n_groups))
    if mutants.on("save-area-per-wave"):
        return W  # the bug: as if only one wave could be resident
    return k * G


def make_area(compiled: Compiled, n: int, W: int, G: int, slots: int,
              mutants: Mutants = NONE) -> DeoptArea:
    n_groups = (n + G - 1) // G
    return DeoptArea.make(n, W, compiled.nmasks, compiled.union_regs, compiled.union_slots,
                          compiled.ip_info, capacity(slots, W, G, n_groups, mutants))


def frames(area: DeoptArea) -> np.ndarray:
    """The frames written by the last launch (rows of the save area)."""
    used = int(min(area.header[1], area.save.shape[0]))
    return area.save[:used]


def never_ran_waves(area: DeoptArea, waves: list[int]) -> list[int]:
    """The waves among `waves` whose never-ran bit is set, in their order."""
    w = np.asarray(waves, dtype=np.int64)
    return w[(area.never_ran[w >> 6] >> (w & 63)) & 1 != 0].tolist()


def save_area_bytes(area: DeoptArea) -> int:
    return int(area.save.nbytes) + HEADER_BYTES


def never_ran_bytes(area: DeoptArea) -> int:
    return int(area.never_ran.nbytes)


def deopted_gids(rows: np.ndarray) -> list[int]:
    return [int(r[F_GID]) for r in rows]
