"""The CUDA targets: the kernel as CUDA C++ with explicit warp member masks, built by
NVRTC on an NVIDIA GPU (`cuda`) or by g++ against a warp simulator on the CPU
(`cuda-sim`) (target.py; the translation is targets/translate/cuda.py)."""
