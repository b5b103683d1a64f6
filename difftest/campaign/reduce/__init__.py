"""Test-case reduction at the level of the kernel language (as C-Reduce and spirv-reduce
do for theirs), after Hypothesis's generic shrinking.

`reduce_case(case, still_fails)` greedily applies passes, each yielding smaller candidate
cases, and keeps a candidate whenever `still_fails(candidate)` holds (the caller decides
what "fails" means: the same verdict rule, and for a mutant also agreement without it):

- delete statements (halves, then quarters, ... then one at a time, in every block);
- unwrap compound statements (an `if` into one of its arms, a loop into its body);
- drop helpers nobody calls, inline calls of straight-line helpers;
- propagate copies (a variable assigned once from an id, a constant, a parameter, another
  variable or a length is replaced by that value, and its assignment deleted);
- simplify expressions (a node into `0`, `1`, `False`, `True` or one of its operands);
- drop unused kernel parameters; lower the launch (n, then the wave size); simplify inputs
  (truncate buffers, zero them, scalars to 0 or 1); drop schedule keys and options.

Bugs of register allocation are fragile: deleting an unrelated statement changes the
allocation and the failure with it. So once the passes reach a fixed point, a polish pass
retries each statement's deletion under a few other option settings the target proposes
(`variants`, e.g. numba-simt's register budget and allocation order), keeping the first
that still fails.

Every candidate is printed and parsed again, so it is a valid, checked kernel whose text
and line numbers agree (exception stacks name those lines); invalid candidates (a name
used after its assignment was deleted, a type that no longer fits) are skipped without a
check. Reduction stops at a fixed point or at the time limit; the result is never larger
than the input by `size()`.

One module per kind of pass (as C-Reduce's are): `delete`, `compounds`, `helpers`,
`expressions`, `launch`; `candidates` holds what they share, `driver` the loop.
"""

from .candidates import Predicate, measure, size, statements
from .driver import ReduceStats, reduce_case

__all__ = ["Predicate", "ReduceStats", "measure", "reduce_case", "size", "statements"]
