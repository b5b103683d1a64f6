"""The Vulkan targets on Mesa's lavapipe: WGSL through wgpu (naga) and GLSL through
glslangValidator (target.py)."""
