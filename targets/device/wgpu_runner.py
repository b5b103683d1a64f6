"""Run a WGSL compute shader through wgpu (naga translates it to SPIR-V; a Vulkan
adapter runs it). Standalone on purpose (it imports only numpy and wgpu): `difftest
export` copies this file beside a reproducer.

`run(wgsl, bindings, groups)` binds each array as a storage buffer (binding i = array i;
binding 1 read-only, the others read-write), dispatches `groups` = (x, y) workgroups and
returns the arrays as the shader left them. The adapter: DIFFTEST_VK_DEVICE names it as
for the GLSL runner ("auto", the default: the first discrete, integrated or virtual GPU,
else the CPU; "gpu"; "cpu" or "lavapipe"; an index among the Vulkan adapters; or a piece
of the device's or driver's name). LP_NATIVE_VECTOR_WIDTH sets lavapipe's subgroup size
(128: 4 lanes, 256: 8, 512: 16).
"""

from __future__ import annotations

import hashlib
import os
import time

import numpy as np
import wgpu

FEATURES = ["subgroup", "shader-int64", "shader-int64-atomic-all-ops"]
READ_ONLY = (1,)
DEVICE_ENV = "DIFFTEST_VK_DEVICE"
_GPU_ORDER = ("DiscreteGPU", "IntegratedGPU", "VirtualGPU")


def choose(adapters: list, want: str):
    """The Vulkan adapter `want` names (see the module docstring)."""
    found = [a for a in adapters if a.info["backend_type"] == "Vulkan"]
    want = want.strip().lower() or "auto"
    if want in ("auto", "gpu"):
        for kind in _GPU_ORDER:
            for a in found:
                if a.info["adapter_type"] == kind:
                    return a
    if want in ("auto", "cpu", "lavapipe", "llvmpipe"):
        for a in found:
            if a.info["adapter_type"] == "CPU":
                return a
    elif want.isdigit() and int(want) < len(found):
        return found[int(want)]
    elif not want.isdigit() and want != "gpu":
        for a in found:
            if want in a.info["device"].lower() or want in a.info["description"].lower():
                return a
    seen = "; ".join(f"{i}: {a.info['device']} ({a.info['adapter_type']}, "
                     f"{a.info['description']})" for i, a in enumerate(found)) or "none"
    raise RuntimeError(f"no Vulkan adapter matches {want!r} (the adapters here: {seen})")


class Device:
    def __init__(self) -> None:
        self.adapter = choose(wgpu.gpu.enumerate_adapters_sync(),
                              os.environ.get(DEVICE_ENV, "auto"))
        missing = [f for f in FEATURES if f not in self.adapter.features]
        if missing:
            raise RuntimeError(f"the adapter {self.adapter.info['device']} lacks "
                               f"{', '.join(missing)}")
        self.device = self.adapter.request_device_sync(required_features=FEATURES)
        self.name = f"{self.adapter.info['device']} ({self.adapter.info['description']})"
        self.pipelines: dict[str, tuple] = {}
        self.front_end = 0.0  # seconds naga took over the last new module

    def pipeline(self, source: str, bindings: int, passes: tuple = ()) -> tuple:
        """The pipeline of `source`; `passes` (the SPIR-V filter's flags and mutants,
        which the filter layer must have been given) tell its modules apart."""
        key = hashlib.sha256(source.encode()).hexdigest() + f"/{bindings}/{passes}"
        if key in self.pipelines:
            return self.pipelines[key]
        d = self.device
        start = time.perf_counter()
        module = d.create_shader_module(code=source)  # naga: parse, validate
        self.front_end = time.perf_counter() - start
        layout = d.create_bind_group_layout(entries=[
            {"binding": i, "visibility": wgpu.ShaderStage.COMPUTE,
             "buffer": {"type": wgpu.BufferBindingType.read_only_storage if i in READ_ONLY
                        else wgpu.BufferBindingType.storage}}
            for i in range(bindings)])
        pipe = d.create_compute_pipeline(
            layout=d.create_pipeline_layout(bind_group_layouts=[layout]),
            compute={"module": module, "entry_point": "main"})
        self.pipelines[key] = (layout, pipe)
        return self.pipelines[key]

    def run(self, source: str, bindings: list[np.ndarray], groups: tuple[int, int],
            passes: tuple = ()) -> list[np.ndarray]:
        d = self.device
        layout, pipe = self.pipeline(source, len(bindings), passes)
        usage = wgpu.BufferUsage.STORAGE | wgpu.BufferUsage.COPY_SRC
        buffers = []
        for a in bindings:
            data = np.ascontiguousarray(a)
            if data.size == 0:
                data = np.zeros(1, dtype=a.dtype)  # no empty bindings
            buffers.append(d.create_buffer_with_data(data=data, usage=usage))
        group = d.create_bind_group(layout=layout, entries=[
            {"binding": i, "resource": {"buffer": b}} for i, b in enumerate(buffers)])
        encoder = d.create_command_encoder()
        cpass = encoder.begin_compute_pass()
        cpass.set_pipeline(pipe)
        cpass.set_bind_group(0, group)
        cpass.dispatch_workgroups(groups[0], groups[1], 1)
        cpass.end()
        d.queue.submit([encoder.finish()])
        out = []
        for a, b in zip(bindings, buffers):
            raw = d.queue.read_buffer(b)
            out.append(np.frombuffer(raw, dtype=a.dtype)[:a.size].copy())
            b.destroy()
        return out


_DEVICE: Device | None = None


def device() -> Device:
    global _DEVICE
    if _DEVICE is None:
        _DEVICE = Device()
    return _DEVICE


def run(wgsl: str, bindings: list[np.ndarray], groups: tuple[int, int]) -> list[np.ndarray]:
    return device().run(wgsl, bindings, groups)


def handle(header: dict, arrays: list[np.ndarray], built=lambda *_: None
           ) -> tuple[dict, list[np.ndarray]]:
    """One request of the device-process protocol (targets/device/process.py); `built`
    is called once the pipeline is made."""
    if header.get("op") == "describe":
        return {"device": device().name}, []
    dev = device()  # first: wgpu's own modules, made with the device, pass unchanged
    dev.front_end = 0.0
    passes = (tuple(header.get("spirv_opt", ())), tuple(header.get("spirv_mutants", ())))
    layer = _filter() if any(passes) else None
    try:
        if layer is not None:
            layer.set(*passes)
        dev.pipeline(header["source"], len(arrays), passes)
    except Exception as e:  # noqa: BLE001 - naga's or wgpu's rejection, reported as such
        if layer is None or layer.error is None:
            return {"error": "build", "message": str(e)}, []
    finally:
        if layer is not None:
            layer.set((), ())
    if layer is not None and layer.error is not None:
        _lose_device()  # a module the driver never got may have cost wgpu the device
        return {"error": layer.error[0], "message": layer.error[1]}, []
    built(device().front_end)
    return {}, device().run(header["source"], arrays, tuple(header["groups"]), passes)


_FILTER: list = []


def _lose_device() -> None:
    global _DEVICE
    _DEVICE = None


def _filter():
    """The SPIR-V filter layer's in-process end (spirv_layer.py), where the process was
    started with the layer: the optimizer between naga and the driver. Imported here
    only, so that a reproducer's copy of this file needs numpy and wgpu alone."""
    if not _FILTER:
        from targets.device.spirv_layer import Filter

        _FILTER.append(Filter())
    return _FILTER[0]
