"""numba-simt's injectable bugs: one registry, consulted by the passes themselves.

Each mutant is a historical bug class (its `seed` label: docs/origins.md) or one from this
project's own history,
re-created as a small change inside the mechanism it names: a pass asks `mutants.on(NAME)`
at the one place where the real bug lived, of the `Mutants` value it was given (no global
switch: what a pass does is decided by its arguments). The compile cache is keyed on the
compiler's share. Machine mutants cannot be asked at run time from numba code, so they
travel as bits of the machine's `flags` argument (`machine_flags`); the machine is still
compiled once.

Mutants never corrupt outputs directly and stay memory-safe: they drop or misplace data
through the same checked paths correct code uses. `difftest hunt` measures how fast the
fuzzer finds each one; `corpus/` holds, for each, a case it flips (disagree with it on,
agree without), which is the proof that it is not equivalent.
"""

from __future__ import annotations

from dataclasses import dataclass
from collections.abc import Iterable


@dataclass(frozen=True)
class Mutant:
    name: str
    seed: str        # where the bug class comes from (docs/origins.md), or a commit
    mechanism: str   # the pass or part it changes
    description: str


_ALL = (
    Mutant("wwm-ignores-inactive", "002/003", "regalloc",
           "an all-lane write interferes only with values live in active lanes (parked "
           "values of inactive lanes are ignored)"),
    Mutant("wwm-then-else", "002", "liveness",
           "the then-end -> else-start physical edge is dropped: values the else-lanes "
           "wait with are not live while the then-arm runs"),
    Mutant("wwm-loop-exit", "003", "liveness",
           "values of lanes waiting at a loop's exit are not live while the loop still runs "
           "(Mesa's 2017 cross-channel corruption in non-uniform loops)"),
    Mutant("break-arm-read-ends-range", "003", "liveness",
           "a variable read in a loop only on arms that end in its `break` is live only up "
           "to that read: the arms are taken for the loop's exit blocks, outside it, so it "
           "is not kept over the back edge for lanes that break on a later trip"),
    Mutant("loop-read-ends-range", "003", "liveness",
           "a variable read in a loop body and dead after the loop is live only up to its "
           "last read in the code's order: a later definition in the body may take its "
           "register before the next trip reads it (an interval not stretched over its loop)"),
    Mutant("dead-loop-def-no-interference", "003", "regalloc",
           "a variable assigned in a loop and read neither in it nor after it is taken for "
           "dead code and left out of the interference graph, but its writes stay: they "
           "may land in a register a live value holds"),
    Mutant("wwm-loop-continue", "003", "liveness",
           "values of lanes waiting at a loop's continue point are not live while the rest "
           "of the body runs (003's corruption in non-uniform loops, by `continue`: it "
           "shows only for a value the loop's exit does not keep, one dead after the loop)"),
    Mutant("wwm-call-return", "003", "liveness",
           "values of lanes that returned from an inlined helper are not live while the rest "
           "of its body runs"),
    Mutant("whole-wave-read-not-live", "this project (reduce=tree's first version)",
           "liveness",
           "a value an all-lane instruction reads is live only per lane, so a masked write "
           "in another arm may take its register (the lane id the shuffle trees read)"),
    Mutant("uniform-writemask-all", "002", "regalloc",
           "a uniform value (constant, parameter) written to all lanes is allocated as if "
           "its write were masked (002's `b = 7`)"),
    Mutant("reload-under-mask", "NOTES: Mesa spills", "regalloc",
           "the reload before a partial def moves only active lanes while the spill after it "
           "moves all (Mesa's writemask-all unspills)"),
    Mutant("spill-under-mask", "NOTES: Mesa spills", "regalloc",
           "spills and reloads move only the active lanes (wrong for whole-wave values)"),
    Mutant("partial-def-no-reload", "NOTES: Mesa spills", "regalloc",
           "a masked def of a spilled value is not preceded by a reload, so the all-lane "
           "spill after it stores garbage for the inactive lanes"),
    Mutant("masked-def-no-keep", "c766407", "regalloc",
           "the temporary reloaded before a masked def does not keep its register until the "
           "def: another reload in between may take it"),
    Mutant("loop-var-before-check", "b9a1c42", "lower",
           "the loop variable is written before the range check, so after the loop it "
           "holds one past the last trip"),
    Mutant("join-restores-saved-exec", "003", "lower",
           "an if's join restores the exec mask saved at its head instead of OR-ing the "
           "survivors back (lanes that broke or returned come back)"),
    Mutant("break-mask-lost", "003", "lower",
           "a lane that breaks is parked at the continue point instead of the exit: it "
           "rejoins the next iteration"),
    Mutant("shuffle-reads-inactive", "NOTES: subgroups", "lower",
           "shuffle reads the source register itself, so an inactive source lane gives its "
           "stale value instead of 0"),
    Mutant("wave-sees-continued-lanes", "NOTES: subgroups", "lower",
           "a wave operation after a `continue` counts the lanes that took it, as if they "
           "had rejoined before the loop's continue target"),
    Mutant("wave-sees-broken-lanes", "NOTES: subgroups", "lower",
           "a wave operation after a `break` counts the lanes that took it this trip, as if "
           "they left the loop only at the end of the trip"),
    Mutant("wave-sees-returned-lanes", "NOTES: subgroups", "lower",
           "a wave operation after a helper's early `return` counts the lanes that "
           "returned, as if they had rejoined before the call's return point"),
    Mutant("stack-drops-inlined-frame", "001", "lower",
           "a fault inside an inlined helper reports the caller's frame as innermost (the "
           "stack no longer shows the lines through the helper)"),
    Mutant("div-floor", "NOTES: semantics", "machine",
           "the machine's // and % floor (Python, numba) instead of truncating (C, GPUs)"),
    # --- the deopt runtime (seeds 000 and 001)
    Mutant("save-area-per-wave", "000", "runtime",
           "the save area is sized for one wave (W frames), not for the K resident ones"),
    Mutant("never-ran-unmarked", "000", "machine",
           "a wave skipped after the deopt flag does not set its never-ran bit"),
    Mutant("deopt-last-infopoint-live", "001", "emit",
           "frames save the registers live at the last infopoint, not the union of those "
           "live at any"),
    Mutant("metadata-misses-spills", "001", "emit",
           "the deopt metadata omits values that live in spill slots"),
    Mutant("replay-stops-at-exception", "001", "runtime",
           "the host stops resuming deopted workitems at the first exception (the others "
           "are left half-done)"),
    Mutant("never-ran-rerun-completed", "000", "runtime",
           "a wave with a deopted lane is run again whole, its completed workitems too"),
    Mutant("resume-restarts-statement", "000", "trampoline",
           "the host restarts the deopting statement instead of resuming at the "
           "infopoint, so its earlier effects happen twice"),
    Mutant("speculate-before-convergent", "001", "speculate",
           "speculation assumes arms cold even where a wave operation follows (the host "
           "then runs it for one lane)"),
    Mutant("slot-index-not-atomic", "000", "machine",
           "the save area's slot index is bumped once per instruction, not per lane: two "
           "deopting lanes of one wave share a slot"),
    # --- the buffer pool (seed 004, NOTES: r600g's compute memory pool)
    Mutant("map-without-demote", "004", "pool",
           "a mapping points into the pool's storage instead of the item's own buffer, so "
           "it goes stale when the pool grows"),
    Mutant("grow-loses-item", "004", "pool",
           "growing the pool skips items already in it that are marked for promoting: "
           "their contents are lost"),
    Mutant("promote-before-unmap", "004", "pool",
           "a launch promotes an item mapped for writing, so writes through the mapping "
           "after it never reach the pool"),
    Mutant("fragmented-flag-stale", "004", "pool",
           "taking an item out of the pool does not set the fragmented flag, so the next "
           "promotion places an item over one still there"),
    Mutant("write-misses-read-copy", "004", "pool",
           "a host write goes straight into the pool (clover's direct transfers, patches "
           "10-11 of the series), so an open read mapping's own buffer keeps the old "
           "contents"),
    Mutant("map-after-unmap-stale", "wgpu-native#305", "pool",
           "what a write mapping wrote waits, unmapped, for the next launch; a new mapping "
           "made before it does not see it (a buffer of zeros)"),
    Mutant("free-wrong-item", "NOTES: r600g later bugs", "pool",
           "freeing an item unlinks its successor in the pool's list (the list bug that "
           "freed the wrong buffer)"),
    # --- pairs (issue: a step revealed only in one state of its buffer): a buffer only
    # created (lazy device allocation, NOTES: r600g's deferred promotion), and one the
    # pool moved since the last launch that bound it (a relocation not propagated)
    Mutant("launch-uploads-zeros", "004", "pool",
           "the first launch of a buffer only created allocates its device copy and "
           "uploads nothing: it starts as zeros, whatever the host wrote"),
    Mutant("write-unplaced-dropped", "004", "pool",
           "a host write to a buffer only created goes to its device copy, which does not "
           "exist yet: it is lost"),
    Mutant("read-unplaced-zeros", "004", "pool",
           "a host read of a buffer only created returns zeros, as a fresh device buffer "
           "would hold, not what the host wrote"),
    Mutant("map-unplaced-fresh", "004", "pool",
           "mapping a buffer only created gives a fresh zeroed staging buffer, so the "
           "mapping and everything after it lose its contents"),
    Mutant("free-unplaced-last", "004", "pool",
           "freeing a buffer only created looks it up in the pool's list by its base, -1, "
           "and unlinks the list's last item instead"),
    Mutant("write-stale-base", "004", "pool",
           "a host write goes to the base the buffer had at the last launch that bound it: "
           "after the pool moved it, into whatever lives there now"),
    Mutant("read-stale-base", "004", "pool",
           "a host read reads the base the buffer had at the last launch that bound it"),
    Mutant("map-stale-base", "004", "pool",
           "mapping a buffer copies it out of the pool from the base the last launch that "
           "bound it saw"),
    Mutant("free-stale-base", "004", "pool",
           "freeing a buffer scrubs the words at the base the last launch that bound it "
           "saw: after a move, another buffer's"),
    Mutant("refresh-stale-base", "004", "pool",
           "after a launch, a read mapping's copy is refreshed from the base its buffer had "
           "when last bound: once the pool moved it, from another buffer's words"),
    Mutant("unmap-stale-base", "004", "pool",
           "unmapping a read mapping writes its copy back at the base its buffer had when "
           "last bound (a no-op in place; after a move, over another buffer)"),
    # a buffer unmapped after writing, waiting for the next launch to take it in (its own
    # buffer is the truth until then: wgpu-native#305's family), and one mapped for
    # reading while a launch writes it
    Mutant("read-pending-zeros", "wgpu-native#305", "pool",
           "a host read of a buffer unmapped after writing, not yet taken into the pool by "
           "a launch, returns zeros, as if its contents were in flight"),
    Mutant("write-pending-dropped", "wgpu-native#305", "pool",
           "a host write to a buffer unmapped after writing, not yet in the pool, goes to "
           "the pool copy it has not got: it is lost"),
    Mutant("launch-pending-zeros", "wgpu-native#305", "pool",
           "a launch that binds a buffer unmapped after writing takes it, already marked "
           "for promoting, for one in the pool: its contents are never copied in"),
    Mutant("free-pending-last", "004", "pool",
           "freeing a buffer unmapped after writing, not yet back in the pool, looks it up "
           "in the pool's list by its base, -1, and unlinks the list's last item instead"),
    Mutant("read-copy-written-back", "004", "pool",
           "after a launch that binds a buffer mapped for reading, the mapping's copy is "
           "copied into the pool instead of from it: what the launch wrote is lost"),
    Mutant("unmap-read-keeps-copy", "004", "pool",
           "unmapping a read mapping keeps its copy, and the next mapping of the buffer "
           "reuses it as current: what launches wrote since is lost"),
    Mutant("unmap-write-releases-copy", "004", "pool",
           "unmapping a write mapping releases the buffer's own copy, as after a read "
           "mapping, though out of the pool it holds the only contents: they are lost"),
    Mutant("read-copy-not-refreshed", "004", "pool",
           "a launch that binds a buffer mapped for reading does not refresh the mapping's "
           "copy, so reading through it shows the contents before the launch"),
    Mutant("launch-stale-base", "004", "pool",
           "a launch gives a buffer the table row cached when a launch last bound it: once "
           "the pool moved it, the kernel reads and writes its old base"),
    Mutant("read-drops-read-copy", "004", "pool",
           "a host read of a buffer mapped for reading maps and unmaps it, and that unmap "
           "releases the copy the open mapping shows: launches no longer refresh it"),
    # a write mapping handed a staging buffer (NOTES: transfer maps) that reads or
    # writes back wrong
    Mutant("write-mapping-reads-zeros", "004", "pool",
           "a write mapping is a write-only staging area: reading through it gives 0 for "
           "every word not written through it (only written words are copied back)"),
    Mutant("write-mapping-not-flushed", "004", "pool",
           "a write mapping is a staging copy of the buffer that unmapping never copies "
           "back: writes through it are lost"),
    # a host step right after the launch that bound the buffer, not waiting for it (a
    # missing fence: the launch's writes land after the step)
    Mutant("launch-without-fence", "004", "pool",
           "a launch that binds a buffer the previous launch bound, with no host step on it "
           "between, does not wait for that launch: it reads the buffer without its writes"),
    Mutant("write-without-fence", "004", "pool",
           "a host write to a buffer the latest launch bound, first step on it since, does "
           "not wait for the launch: the launch's results land after it and overwrite it"),
    Mutant("read-without-fence", "004", "pool",
           "a host read of a buffer the latest launch bound, with no other step on it since, "
           "does not wait for the launch: it returns the contents before the launch"),
    Mutant("map-without-fence", "004", "pool",
           "mapping a buffer the latest launch bound, first step on it since, does not wait "
           "for the launch: the mapping and the buffer keep the contents before it"),
    Mutant("free-without-fence", "004", "pool",
           "freeing a buffer the latest launch bound, first step on it since, does not wait "
           "for the launch: its results land later, over what the pool moved into its words"),
    Mutant("stale-frame-reference", "000", "trampoline",
           "when an alloc() moves the pool, the references in saved frames not yet "
           "resumed are not relocated (seed 000's oops in saved registers left stale)"),
    # --- workgroups: barriers and workgroup memory (docs/origins.md, "Workgroups")
    Mutant("barrier-releases-early", "amd-llvm-project#152", "machine",
           "a barrier opens when all but one of the workgroup's waves wait there (a counting "
           "barrier's target off by one)"),
    Mutant("barrier-waits-for-ended-wave", "rocm-systems#10346", "machine",
           "a wave that ended, or whose lanes all returned, faulted or deopted, is not "
           "counted as arrived: the rest of its workgroup waits for it forever"),
    Mutant("workgroup-memory-one-instance", "rocm-systems#5747", "machine",
           "every resident workgroup gets the first slot's workgroup arrays (the "
           "workgroup's base offset left out of the address)"),
    Mutant("workgroup-zeroing-unsynchronized", "wgpu#4591", "machine",
           "each wave zeroes its workgroup's arrays as it starts, with no barrier after: "
           "writes another wave made first are wiped"),
    Mutant("scratch-per-workgroup", "gem5#1947", "machine",
           "the waves of a workgroup share their spill slots (the wave's own scratch "
           "offset left out): waves that interleave clobber each other's spills"),
    Mutant("barrier-sunk-out-of-loop", "NOTES: convergent", "lower",
           "a barrier inside a loop is emitted once, after the outermost loop, as a pass "
           "that does not know it is convergent may move it"),
    Mutant("store-past-barrier", "llvm-project#154970", "lower",
           "a store right before a barrier is scheduled after it (the barrier taken for an "
           "instruction without memory effects)"),
    Mutant("workgroup-bounds-whole-region", "wgpu-py#724", "runtime",
           "a workgroup array is bounds-checked against the group's whole workgroup memory "
           "from its start: an index past its end reaches the next array instead of "
           "faulting"),
    # --- f32 (docs/origins.md)
    Mutant("f32-contract-mul-add", "MultiFloats.jl#23", "lower",
           "a * b + c is contracted into one fused multiply-add (one rounding instead of "
           "two), as a compiler does under -ffp-contract=fast"),
    Mutant("f32-denormals-flushed", "offload-test-suite#563", "machine",
           "f32 arithmetic flushes subnormal operands and results to zero (FTZ/DAZ), as a "
           "device whose float mode was set for speed"),
    Mutant("f32-min-propagates-nan", "numba-cuda-mlir#229", "machine",
           "min and max (and their wave forms) return NaN when an operand is NaN instead "
           "of the number (IEEE 754-2019's minimum taken for its minimumNumber)"),
    Mutant("f32-to-int-saturates", "rust-cuda#287", "machine",
           "i32(x) / i64(x) clamp NaN and out-of-range values (as PTX's cvt.rzi.sat) "
           "instead of faulting"),
    # --- integer types and the integer functions (docs/origins.md, "Integer types")
    Mutant("zext-as-sext", "docs/findings.md: lavapipe-sext-compare", "lower",
           "a conversion that widens an unsigned value extends its sign bit (a zero "
           "extension done as a sign extension)"),
    Mutant("sext-as-zext", "docs/findings.md: nvidia-sext-shift", "lower",
           "a conversion that widens a signed value fills with zeros (a sign extension "
           "done as a zero extension)"),
    Mutant("unsigned-compare-signed", "CLsmith/YARPGen", "lower",
           "a comparison of unsigned values is the signed one of their width"),
    Mutant("loop-bound-signed", "CLsmith/YARPGen", "lower",
           "a `for` loop over u64 bounds tests its counter against the stop as signed: "
           "from below 2^63 to above it, no trip; from above it to a small stop, on until "
           "the trip budget"),
    Mutant("unsigned-div-signed", "CLsmith/YARPGen", "lower",
           "`//` and `%` of unsigned values are the signed ones of their width"),
    Mutant("shr-arithmetic-unsigned", "CLsmith/YARPGen", "lower",
           "`>>` of an unsigned value shifts its sign bit in (arithmetic for logical)"),
    Mutant("host-write-unwrapped", "CLsmith/YARPGen", "pool",
           "a host write into a buffer of a narrower or unsigned element type stores the "
           "host's 64-bit values as they are (the copy sized by the host's data, not the "
           "buffer's elements): a value past the element's range is kept whole"),
    Mutant("narrow-add-unwrapped", "CLsmith/YARPGen", "lower",
           "`+` and `-` of an 8- or 16-bit type are not wrapped back to its width (the "
           "promoted sum kept)"),
    Mutant("clz-ctz-zero", "llvm.ctlz/cttz zero_undef", "machine",
           "clz(0) and ctz(0) give the width minus one (as a count-leading-zeros "
           "instruction that leaves 0 undefined, lowered without its check)"),
    Mutant("popcount-low-word", "GLSL bitCount of 64 bits", "machine",
           "popcount of a 64-bit value counts its low 32 bits only"),
    Mutant("mul-hi-signed", "CUDA __mulhi for __umulhi", "lower",
           "mul_hi of unsigned values takes the high half of their signed product"),
    Mutant("private-index-first-lane", "llvm-project#83597", "lower",
           "a private array read with one index for the whole wave (its first active "
           "lane's), as if the index were uniform"),
    Mutant("private-array-uniform", "llvm-project#217029", "lower",
           "a private array kept once per wave: a store writes the first active lane's "
           "value at its index into every lane's copy"),
    # --- the subgroup vocabulary (docs/origins.md)
    Mutant("shuffle-relative-keeps-own", "CUDA __shfl_down_sync", "machine",
           "shuffle_xor/up/down whose source lane is outside the wave give the lane its "
           "own value instead of 0 (CUDA's own rule for its shuffles, carried into a "
           "language that defines 0)"),
    Mutant("ballot-exclusive-includes-lane", "Nabla#46", "lower",
           "ballot_exclusive_bit_count counts the lane's own bit too (the inclusive count)"),
    Mutant("ballot-functions-low-word", "quadrants#676", "machine",
           "the ballot functions (counts, finds, inverse_ballot) of a 64-lane ballot read "
           "its low 32 bits only: ballot_find_msb and the counts miss lanes 32-63"),
    Mutant("cluster-whole-wave", "issue #54", "lower",
           "a clustered reduction reduces the whole wave: the cluster size is dropped on "
           "the way to the shuffle-xor butterfly"),
    Mutant("cluster-step-past", "issue #54", "lower",
           "a clustered reduction's butterfly takes one shuffle-xor step too many, of the "
           "cluster's own size: each cluster is combined with its neighbour"),
    Mutant("wave-and-identity-zero", "issue #54", "lower",
           "wave_and's inactive lanes are given 0, the identity of `or` and of a sum, not "
           "all ones: a wave_and with an inactive lane in its cluster is 0"),
    Mutant("quad-lanes-across-quads", "issue #54", "lower",
           "quad_broadcast(x, i) reads lane i of the wave, not lane i of the lane's quad "
           "(a quad's lanes numbered across quads)"),
    Mutant("all-equal-lane0", "issue #54", "lower",
           "wave_all_equal compares each lane's value with lane 0's, not the lowest active "
           "lane's (readfirstlane taken for a read of lane 0)"),
    Mutant("switch-falls-through", "issue #54", "lower",
           "a `match` lowered as a switch whose cases lack their `break`: a case's lanes "
           "run the next case's arm too (C's fall-through)"),
    Mutant("switch-reconverges-early", "issue #54", "lower",
           "a `match` rejoins the lanes it started with right after it: lanes that "
           "returned from their helper, broke out of or continued the loop inside a case "
           "run on (SPV_KHR_maximal_reconvergence: they rejoin where they went)"),
    Mutant("atomic-optimizer-counts-wave", "issue #54", "machine",
           "an add of one value by every active lane to one location, combined into one "
           "update, adds the value times the wave's lanes, not the active ones (LLVM "
           "AMDGPU's atomic optimizer counting the exec mask wrongly)"),
    Mutant("atomic-optimizer-first-old", "issue #54", "machine",
           "a combined add gives every lane the old value the first lane got, without its "
           "prefix sum of the lanes below it"),
    Mutant("atomic-old-sign-extended", "wasmtime#9990", "machine",
           "an atomic on an unsigned narrow buffer (u8, u16, u32) hands back its old value "
           "sign-extended from the buffer's width, not zero-extended (the extension kind "
           "of a signed load taken for an unsigned atomic's result)"),
    # --- f64 (docs/origins.md, "64-bit floats")
    Mutant("f64-rounded-through-f32", "brian2genn#18", "machine",
           "f64 + - * and fma round their result to f32 on the way (a lowering that keeps "
           "doubles in single-precision registers, or a device without Float64 emulating "
           "it)"),
    Mutant("f64-spill-low-word", "llvm-project#204825", "regalloc",
           "an f64 register is spilled with a 32-bit store: its high word is lost (the low "
           "one sign-extended back on reload)"),
    Mutant("f32-spill-converts", "llvm-project#204825", "regalloc",
           "an f32 register is spilled with a float-to-integer conversion and reloaded "
           "with the conversion back (the wrong move for the register's class): its "
           "fraction is lost"),
)

REGISTRY: dict[str, Mutant] = {m.name: m for m in _ALL}
NAMES: tuple[str, ...] = tuple(m.name for m in _ALL)
#: machine mutants: their bit in run_launch's `flags`
MACHINE_FLAGS: dict[str, int] = {"div-floor": 1, "never-ran-unmarked": 2,
                                 "slot-index-not-atomic": 4, "barrier-releases-early": 8,
                                 "barrier-waits-for-ended-wave": 16,
                                 "workgroup-memory-one-instance": 32,
                                 "workgroup-zeroing-unsynchronized": 64,
                                 "scratch-per-workgroup": 128,
                                 "f32-denormals-flushed": 256, "f32-min-propagates-nan": 512,
                                 "f32-to-int-saturates": 1024, "clz-ctz-zero": 2048,
                                 "popcount-low-word": 4096, "f64-rounded-through-f32": 8192,
                                 "ballot-functions-low-word": 16384,
                                 "shuffle-relative-keeps-own": 32768,
                                 "atomic-optimizer-counts-wave": 65536,
                                 "atomic-optimizer-first-old": 131072,
                                 "atomic-old-sign-extended": 262144}

_COMPILER = ("lower", "liveness", "regalloc", "emit", "speculate")
_RUNTIME = ("runtime", "trampoline", "pool")


#: each pair a campaign counts (generators/pairs.py, docs/semantics.md "Coverage of
#: pairs") and the mutant it proves matters: one that only a program holding the pair
#: reveals (`wave@KIND`: any wave operation under that divergence; docs/hunt.md has each
#: one's hunt figures)
PAIR_MUTANTS: dict[str, str] = {
    "host:launch@created": "launch-uploads-zeros",
    "host:launch@bound": "launch-without-fence",
    "host:launch@moved": "launch-stale-base",
    "host:launch@unmapped": "launch-pending-zeros",
    "host:launch@mapped_read": "read-copy-written-back",
    "host:write@created": "write-unplaced-dropped",
    "host:write@bound": "write-without-fence",
    "host:write@moved": "write-stale-base",
    "host:write@unmapped": "write-pending-dropped",
    "host:write@mapped_read": "write-misses-read-copy",
    "host:read@created": "read-unplaced-zeros",
    "host:read@bound": "read-without-fence",
    "host:read@moved": "read-stale-base",
    "host:read@unmapped": "read-pending-zeros",
    "host:read@mapped_read": "read-drops-read-copy",
    "host:map@created": "map-unplaced-fresh",
    "host:map@bound": "map-without-fence",
    "host:map@moved": "map-stale-base",
    "host:map@unmapped": "map-after-unmap-stale",
    "host:free@created": "free-unplaced-last",
    "host:free@bound": "free-without-fence",
    "host:free@moved": "free-stale-base",
    "host:free@unmapped": "free-pending-last",
    "host:map_read@mapped_read": "read-copy-not-refreshed",
    "host:map_read@mapped_write": "write-mapping-reads-zeros",
    "host:map_read@moved": "refresh-stale-base",
    "host:map_write@mapped_write": "write-mapping-not-flushed",
    "host:unmap@mapped_read": "unmap-read-keeps-copy",
    "host:unmap@mapped_write": "unmap-write-releases-copy",
    "host:unmap@moved": "unmap-stale-base",
    "live:after_loop": "wwm-loop-exit",
    "live:never": "dead-loop-def-no-interference",
    "live:before_break": "break-arm-read-ends-range",
    "live:across_continue": "wwm-loop-continue",
    "live:in_body": "loop-read-ends-range",
    "wave@break": "wave-sees-broken-lanes",
    "wave@continue": "wave-sees-continued-lanes",
    "wave@return": "wave-sees-returned-lanes",
}


@dataclass(frozen=True)
class Mutants:
    """The mutants switched on for one compilation or run: passed to each pass and runtime
    part that consults them (`on`), and part of the compile cache's key."""

    names: frozenset[str] = frozenset()

    @staticmethod
    def of(names: Iterable[str]) -> Mutants:
        chosen = frozenset(names)
        unknown = chosen - set(REGISTRY)
        assert not unknown, f"unknown mutants {sorted(unknown)}"
        return Mutants(chosen)

    def on(self, name: str) -> bool:
        """Whether mutant `name` is switched on."""
        assert name in REGISTRY, f"unknown mutant {name}"
        return name in self.names

    def compiler(self) -> Mutants:
        """The ones that change compiled code (the compile cache's key)."""
        return Mutants(frozenset(n for n in self.names if REGISTRY[n].mechanism in _COMPILER))

    def runtime(self) -> Mutants:
        """The run's own (runtime, trampoline, pool)."""
        return Mutants(frozenset(n for n in self.names if REGISTRY[n].mechanism in _RUNTIME))

    def machine_flags(self) -> int:
        """The machine's `flags` word: machine mutants cannot be asked from numba code."""
        flags = 0
        for name in self.names:
            flags |= MACHINE_FLAGS.get(name, 0)
        return flags


NONE = Mutants()
