"""Run a GLSL compute shader on a Vulkan device: glslangValidator compiles it to SPIR-V,
the `vulkan` (cffi) binding runs it. Standalone on purpose (it imports only numpy and
`vulkan`): `difftest export` copies this file beside a reproducer.

`run(glsl, bindings, groups)` binds each array as a storage buffer (binding i = array
i), dispatches `groups` = (x, y) workgroups and returns the arrays as the shader left
them. The device is the first one with a compute queue; VK_DRIVER_FILES (or
VK_ICD_FILENAMES) picks the driver, LP_NATIVE_VECTOR_WIDTH lavapipe's subgroup size.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import tempfile

import numpy as np
import vulkan as vk

GLSLANG = os.environ.get("GLSLANG_VALIDATOR", "glslangValidator")


class CompileError(Exception):
    """glslangValidator rejected the shader (its log is the message)."""


def compile_glsl(source: str) -> bytes:
    """SPIR-V for a compute shader, by glslangValidator (Vulkan 1.3 environment)."""
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, "kernel.comp")
        out = os.path.join(tmp, "kernel.spv")
        with open(src, "w") as f:
            f.write(source)
        proc = subprocess.run([GLSLANG, "-V", "--target-env", "vulkan1.3", "-S", "comp",
                               "-o", out, src], capture_output=True, text=True)
        if proc.returncode != 0:
            raise CompileError((proc.stdout + proc.stderr).strip())
        with open(out, "rb") as f:
            return f.read()


class Device:
    """One Vulkan instance, device and queue; pipelines cached by SPIR-V."""

    def __init__(self) -> None:
        app = vk.VkApplicationInfo(pApplicationName="difftest",
                                   apiVersion=vk.VK_MAKE_VERSION(1, 3, 0))
        self.instance = vk.vkCreateInstance(vk.VkInstanceCreateInfo(pApplicationInfo=app), None)
        chosen = None
        for phys in vk.vkEnumeratePhysicalDevices(self.instance):
            families = vk.vkGetPhysicalDeviceQueueFamilyProperties(phys)
            for i, fam in enumerate(families):
                if fam.queueFlags & vk.VK_QUEUE_COMPUTE_BIT:
                    chosen = (phys, i)
                    break
            if chosen:
                break
        if chosen is None:
            raise RuntimeError("no Vulkan device with a compute queue")
        self.physical, self.family = chosen
        props = vk.vkGetPhysicalDeviceProperties(self.physical)
        self.name = vk.ffi.string(props.deviceName).decode() if not isinstance(
            props.deviceName, str) else props.deviceName
        sub = vk.VkPhysicalDeviceSubgroupProperties()
        vk.vkGetPhysicalDeviceProperties2(self.physical, vk.VkPhysicalDeviceProperties2(pNext=sub))
        self.subgroup_size = sub.subgroupSize
        f12 = vk.VkPhysicalDeviceVulkan12Features(shaderBufferInt64Atomics=vk.VK_TRUE,
                                                  shaderSubgroupExtendedTypes=vk.VK_TRUE)
        features = vk.VkPhysicalDeviceFeatures2(
            pNext=f12, features=vk.VkPhysicalDeviceFeatures(shaderInt64=vk.VK_TRUE))
        queue = vk.VkDeviceQueueCreateInfo(queueFamilyIndex=self.family, queueCount=1,
                                           pQueuePriorities=[1.0])
        self.device = vk.vkCreateDevice(self.physical, vk.VkDeviceCreateInfo(
            pNext=features, pQueueCreateInfos=[queue]), None)
        self.queue = vk.vkGetDeviceQueue(self.device, self.family, 0)
        self.pool = vk.vkCreateCommandPool(self.device, vk.VkCommandPoolCreateInfo(
            queueFamilyIndex=self.family,
            flags=vk.VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT), None)
        mem = vk.vkGetPhysicalDeviceMemoryProperties(self.physical)
        want = vk.VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | vk.VK_MEMORY_PROPERTY_HOST_COHERENT_BIT
        self.memory_type = next(i for i in range(mem.memoryTypeCount)
                                if mem.memoryTypes[i].propertyFlags & want == want)
        self.pipelines: dict[str, tuple] = {}

    def pipeline(self, spirv: bytes, bindings: int) -> tuple:
        key = hashlib.sha256(spirv).hexdigest() + f"/{bindings}"
        if key in self.pipelines:
            return self.pipelines[key]
        d = self.device
        module = vk.vkCreateShaderModule(d, vk.VkShaderModuleCreateInfo(
            codeSize=len(spirv), pCode=spirv), None)
        layout_bindings = [vk.VkDescriptorSetLayoutBinding(
            binding=i, descriptorType=vk.VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, descriptorCount=1,
            stageFlags=vk.VK_SHADER_STAGE_COMPUTE_BIT) for i in range(bindings)]
        set_layout = vk.vkCreateDescriptorSetLayout(d, vk.VkDescriptorSetLayoutCreateInfo(
            pBindings=layout_bindings), None)
        layout = vk.vkCreatePipelineLayout(d, vk.VkPipelineLayoutCreateInfo(
            pSetLayouts=[set_layout]), None)
        stage = vk.VkPipelineShaderStageCreateInfo(stage=vk.VK_SHADER_STAGE_COMPUTE_BIT,
                                                   module=module, pName="main")
        pipe = vk.vkCreateComputePipelines(d, None, 1, [vk.VkComputePipelineCreateInfo(
            stage=stage, layout=layout)], None)[0]
        self.pipelines[key] = (module, set_layout, layout, pipe)
        return self.pipelines[key]

    def _buffer(self, data: np.ndarray) -> tuple:
        d = self.device
        size = max(16, data.nbytes)
        buf = vk.vkCreateBuffer(d, vk.VkBufferCreateInfo(
            size=size, usage=vk.VK_BUFFER_USAGE_STORAGE_BUFFER_BIT,
            sharingMode=vk.VK_SHARING_MODE_EXCLUSIVE), None)
        req = vk.vkGetBufferMemoryRequirements(d, buf)
        mem = vk.vkAllocateMemory(d, vk.VkMemoryAllocateInfo(
            allocationSize=req.size, memoryTypeIndex=self.memory_type), None)
        vk.vkBindBufferMemory(d, buf, mem, 0)
        view = vk.vkMapMemory(d, mem, 0, size, 0)
        view[:data.nbytes] = data.tobytes()
        vk.vkUnmapMemory(d, mem)
        return buf, mem, size

    def run(self, spirv: bytes, bindings: list[np.ndarray], groups: tuple[int, int]
            ) -> list[np.ndarray]:
        d = self.device
        module, set_layout, layout, pipe = self.pipeline(spirv, len(bindings))
        made = [self._buffer(np.ascontiguousarray(a)) for a in bindings]
        dpool = vk.vkCreateDescriptorPool(d, vk.VkDescriptorPoolCreateInfo(
            maxSets=1, pPoolSizes=[vk.VkDescriptorPoolSize(
                type=vk.VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, descriptorCount=len(bindings))]),
            None)
        dset = vk.vkAllocateDescriptorSets(d, vk.VkDescriptorSetAllocateInfo(
            descriptorPool=dpool, pSetLayouts=[set_layout]))[0]
        writes = [vk.VkWriteDescriptorSet(
            dstSet=dset, dstBinding=i, descriptorCount=1,
            descriptorType=vk.VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
            pBufferInfo=[vk.VkDescriptorBufferInfo(buffer=b, offset=0, range=size)])
            for i, (b, _, size) in enumerate(made)]
        vk.vkUpdateDescriptorSets(d, len(writes), writes, 0, None)
        cmd = vk.vkAllocateCommandBuffers(d, vk.VkCommandBufferAllocateInfo(
            commandPool=self.pool, level=vk.VK_COMMAND_BUFFER_LEVEL_PRIMARY,
            commandBufferCount=1))[0]
        vk.vkBeginCommandBuffer(cmd, vk.VkCommandBufferBeginInfo(
            flags=vk.VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT))
        vk.vkCmdBindPipeline(cmd, vk.VK_PIPELINE_BIND_POINT_COMPUTE, pipe)
        vk.vkCmdBindDescriptorSets(cmd, vk.VK_PIPELINE_BIND_POINT_COMPUTE, layout, 0, 1,
                                   [dset], 0, None)
        vk.vkCmdDispatch(cmd, groups[0], groups[1], 1)
        vk.vkEndCommandBuffer(cmd)
        fence = vk.vkCreateFence(d, vk.VkFenceCreateInfo(), None)
        vk.vkQueueSubmit(self.queue, 1, [vk.VkSubmitInfo(pCommandBuffers=[cmd])], fence)
        vk.vkWaitForFences(d, 1, [fence], vk.VK_TRUE, 60 * 10**9)
        out = []
        for a, (b, mem, size) in zip(bindings, made):
            view = vk.vkMapMemory(d, mem, 0, size, 0)
            out.append(np.frombuffer(bytes(view[:a.nbytes]), dtype=a.dtype).copy())
            vk.vkUnmapMemory(d, mem)
            vk.vkDestroyBuffer(d, b, None)
            vk.vkFreeMemory(d, mem, None)
        vk.vkDestroyFence(d, fence, None)
        vk.vkFreeCommandBuffers(d, self.pool, 1, [cmd])
        vk.vkDestroyDescriptorPool(d, dpool, None)
        return out


_DEVICE: Device | None = None
_SPIRV: dict[str, bytes] = {}


def device() -> Device:
    global _DEVICE
    if _DEVICE is None:
        _DEVICE = Device()
    return _DEVICE


def run(glsl: str, bindings: list[np.ndarray], groups: tuple[int, int]) -> list[np.ndarray]:
    key = hashlib.sha256(glsl.encode()).hexdigest()
    if key not in _SPIRV:
        _SPIRV[key] = compile_glsl(glsl)
    return device().run(_SPIRV[key], bindings, groups)


def handle(header: dict, arrays: list[np.ndarray], built=lambda: None
           ) -> tuple[dict, list[np.ndarray]]:
    """One request of the device-process protocol (targets/device/process.py); `built`
    is called once the pipeline is made."""
    if header.get("op") == "describe":
        dev = device()
        return {"device": f"{dev.name} (subgroup size {dev.subgroup_size})"}, []
    try:
        key = hashlib.sha256(header["source"].encode()).hexdigest()
        if key not in _SPIRV:
            _SPIRV[key] = compile_glsl(header["source"])
    except CompileError as e:
        return {"error": "build", "message": str(e)}, []
    device().pipeline(_SPIRV[key], len(arrays))
    built()
    return {}, run(header["source"], arrays, tuple(header["groups"]))
