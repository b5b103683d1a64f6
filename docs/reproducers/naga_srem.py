"""Standalone reproducer of naga-srem-negative (docs/findings.md): WGSL's `%` of i32
operands, one of them negative, on the default wgpu adapter. WGSL defines the result as
the truncated remainder (the dividend's sign); naga lowers `%` to SPIR-V `OpSRem`, which
Vulkan leaves undefined for negative operands. Needs numpy and wgpu (pip install numpy
wgpu) and a Vulkan driver; imports nothing from difftest."""

import numpy as np
import wgpu
from wgpu.utils.compute import compute_with_buffers

SHADER = """
@group(0) @binding(0) var<storage, read> a: array<i32>;
@group(0) @binding(1) var<storage, read> b: array<i32>;
@group(0) @binding(2) var<storage, read_write> r: array<i32>;
@compute @workgroup_size(1)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    r[id.x] = a[id.x] % b[id.x];
}
"""


def main() -> int:
    a = np.array([-1, -7, 7, -7, -988758536, 5, -8, 100], np.int32)
    b = np.array([8, 2, -2, -2, 3, -3, 3, -7], np.int32)
    out = compute_with_buffers({0: a, 1: b}, {2: a.nbytes}, SHADER, n=len(a))
    got = np.frombuffer(out[2], np.int32)
    print("adapter:", wgpu.utils.get_default_device().adapter.info["device"])
    wrong = 0
    for x, y, g in zip(a.tolist(), b.tolist(), got.tolist()):
        want = abs(x) % abs(y) * (1 if x >= 0 else -1)
        wrong += g != want
        print(f"{x} % {y}: expected {want}, got {g}" + ("" if g == want else "   <-- wrong"))
    print(f"{wrong} of {len(a)} wrong")
    return 1 if wrong else 0


if __name__ == "__main__":
    raise SystemExit(main())
