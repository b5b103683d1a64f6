"""Hypothesis strategies for kernels, inputs, launches, schedules and target options.

Import the submodules (this package imports nothing, so `import generators` stays free
of Hypothesis and NumPy; a re-export of `kernels()` would also collide with the
`generators.kernels` submodule of the same name):

- `generators.kernels`: `kernels(fault_rate=0.3, max_statements=14)` ->
  `GeneratedKernel` (source, entry, checked program, `BufferSpec`s, `ScalarSpec`s,
  swarm features, constructs);
- `generators.inputs`: `arguments(kernel, n)` -> the `Case.args` dict;
- `generators.launches`: `launches(max_n=3000)` -> (n, wave);
- `generators.schedules`: `schedules()`, `target_options()` -> open dicts;
- `generators.cases`: `cases(max_n, fault_rate)` -> `Case`;
  `kernel_cases(per_kernel=2, max_n, fault_rate)` -> (kernel, [Case, ...]);
- `generators.coverage`: `constructs(program)`, `fault_kinds(full_run)`,
  `ALL_CONSTRUCTS`, `FAULT_KINDS`;
- `generators.pairs`: `kernel_pairs(program)`, `host_pairs(case)`, `ALL_PAIRS`, and
  `BufferStates` (the host generator draws steps toward pairs with it);
- `generators.host`, `generators.workgroups`: host programs, workgroup kernels;
- `generators.ir`: `programs()`, arbitrary valid programs for syntax round trips;
- `generators.sampling`: `draw(strategy, count, seed)`, values outside a test.
"""
