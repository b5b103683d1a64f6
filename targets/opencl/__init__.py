"""The `opencl` target plugin (needs the `[opencl]` extra): OpenCL C on PoCL's CPU
device. See target.py for what it runs and translate.py for how the kernel language's
semantics are written out in C."""
