"""The Vulkan targets: GLSL through glslangValidator and WGSL through wgpu (naga), on the
Vulkan device the user picks, lavapipe where there is no GPU (target.py)."""
