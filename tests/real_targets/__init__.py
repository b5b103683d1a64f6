"""Tests of the real targets (OpenCL, Vulkan) and third-party ones."""
