#!/bin/sh
# ptxas aborts on valid PTX: "(C7600) Register allocation failed with register count of
# '7'" (docs/findings.md, ptxas-register-allocation-abort). The kernel is difftest's CUDA
# translation of a reduced generated kernel, unchanged (NVRTC compiles it to PTX without
# an error). Needs a CUDA toolkit, 13.0 or 13.5 (no GPU).
set -u
here="$(cd "$(dirname "$0")" && pwd)"
tmp="$(mktemp -d)"
nvcc -arch=sm_90 -cubin -o "$tmp/k.cubin" "$here/ptxas_register_allocation_abort.cu"
echo "nvcc: exit status $? (255 after ptxas's C7600: the bug)"
nvcc -arch=sm_90 -cubin -Xptxas -O0 -o "$tmp/k.cubin" "$here/ptxas_register_allocation_abort.cu"
echo "nvcc -Xptxas -O0: exit status $? (0)"
rm -rf "$tmp"
