/* A Vulkan layer that hands every SPIR-V module an application creates to a filter
 * before the driver sees it: how the WGSL target puts SPIRV-Tools' optimizer between
 * wgpu's front end (naga, which never lets its module out) and the driver
 * (docs/semantics.md, "The SPIR-V optimizer"). The process that loads it sets the filter
 * through `difftest_layer_set_filter`; without one, modules pass unchanged. With
 * DIFFTEST_LAYER_MAXIMAL set, the layer also enables VK_KHR_shader_maximal_reconvergence
 * on each device it creates, so that a module the filter marks MaximallyReconvergesKHR is
 * valid there. Built by targets/device/spirv_layer.py. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <vulkan/vulkan.h>
#include <vulkan/vk_layer.h>

#define EXPORT __attribute__((visibility("default")))
#define MAXIMAL_EXTENSION "VK_KHR_shader_maximal_reconvergence"
#define MAXIMAL_FEATURES_STYPE ((VkStructureType)1000434000)

/* the filter: the module in; 0 and the module to use (owned by the filter, valid until
 * its next call), or non-zero to fail the creation */
typedef int (*difftest_filter)(const uint32_t *code, size_t bytes, const uint32_t **out,
                               size_t *out_bytes);

static difftest_filter filter;
static PFN_vkGetInstanceProcAddr next_instance_proc;
static PFN_vkGetDeviceProcAddr next_device_proc;
static PFN_vkCreateShaderModule next_create_shader_module;

EXPORT void difftest_layer_set_filter(difftest_filter f) { filter = f; }

static VkResult VKAPI_CALL create_shader_module(VkDevice device,
                                                const VkShaderModuleCreateInfo *info,
                                                const VkAllocationCallbacks *alloc,
                                                VkShaderModule *module) {
  if (!filter) return next_create_shader_module(device, info, alloc, module);
  const uint32_t *out = NULL;
  size_t out_bytes = 0;
  if (filter(info->pCode, info->codeSize, &out, &out_bytes) != 0 || !out)
    return VK_ERROR_INITIALIZATION_FAILED;
  VkShaderModuleCreateInfo changed = *info;
  changed.pCode = out;
  changed.codeSize = out_bytes;
  return next_create_shader_module(device, &changed, alloc, module);
}

static VkResult VKAPI_CALL create_instance(const VkInstanceCreateInfo *info,
                                           const VkAllocationCallbacks *alloc,
                                           VkInstance *instance) {
  VkLayerInstanceCreateInfo *link = (VkLayerInstanceCreateInfo *)info->pNext;
  while (link && !(link->sType == VK_STRUCTURE_TYPE_LOADER_INSTANCE_CREATE_INFO &&
                   link->function == VK_LAYER_LINK_INFO))
    link = (VkLayerInstanceCreateInfo *)link->pNext;
  if (!link) return VK_ERROR_INITIALIZATION_FAILED;
  next_instance_proc = link->u.pLayerInfo->pfnNextGetInstanceProcAddr;
  link->u.pLayerInfo = link->u.pLayerInfo->pNext;
  PFN_vkCreateInstance next =
      (PFN_vkCreateInstance)next_instance_proc(VK_NULL_HANDLE, "vkCreateInstance");
  return next(info, alloc, instance);
}

static VkResult VKAPI_CALL create_device(VkPhysicalDevice physical,
                                         const VkDeviceCreateInfo *info,
                                         const VkAllocationCallbacks *alloc,
                                         VkDevice *device) {
  VkLayerDeviceCreateInfo *link = (VkLayerDeviceCreateInfo *)info->pNext;
  while (link && !(link->sType == VK_STRUCTURE_TYPE_LOADER_DEVICE_CREATE_INFO &&
                   link->function == VK_LAYER_LINK_INFO))
    link = (VkLayerDeviceCreateInfo *)link->pNext;
  if (!link) return VK_ERROR_INITIALIZATION_FAILED;
  PFN_vkGetInstanceProcAddr instance_proc = link->u.pLayerInfo->pfnNextGetInstanceProcAddr;
  next_device_proc = link->u.pLayerInfo->pfnNextGetDeviceProcAddr;
  link->u.pLayerInfo = link->u.pLayerInfo->pNext;
  PFN_vkCreateDevice next = (PFN_vkCreateDevice)instance_proc(VK_NULL_HANDLE, "vkCreateDevice");
  VkDeviceCreateInfo changed = *info;
  const char **names = NULL;
  struct {
    VkStructureType sType;
    void *pNext;
    VkBool32 maximal;
  } features = {MAXIMAL_FEATURES_STYPE, (void *)info->pNext, VK_TRUE};
  const char *want = getenv("DIFFTEST_LAYER_MAXIMAL");
  if (want && *want) {
    names = malloc(sizeof(char *) * (info->enabledExtensionCount + 1));
    if (!names) return VK_ERROR_OUT_OF_HOST_MEMORY;
    for (uint32_t i = 0; i < info->enabledExtensionCount; i++)
      names[i] = info->ppEnabledExtensionNames[i];
    names[info->enabledExtensionCount] = MAXIMAL_EXTENSION;
    changed.enabledExtensionCount = info->enabledExtensionCount + 1;
    changed.ppEnabledExtensionNames = names;
    changed.pNext = &features;
  }
  VkResult result = next(physical, &changed, alloc, device);
  free(names);
  if (result == VK_SUCCESS)
    next_create_shader_module =
        (PFN_vkCreateShaderModule)next_device_proc(*device, "vkCreateShaderModule");
  return result;
}

EXPORT VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL vkGetDeviceProcAddr(VkDevice device,
                                                                   const char *name);

EXPORT VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL vkGetInstanceProcAddr(VkInstance instance,
                                                                     const char *name) {
  if (!strcmp(name, "vkGetInstanceProcAddr")) return (PFN_vkVoidFunction)vkGetInstanceProcAddr;
  if (!strcmp(name, "vkGetDeviceProcAddr")) return (PFN_vkVoidFunction)vkGetDeviceProcAddr;
  if (!strcmp(name, "vkCreateInstance")) return (PFN_vkVoidFunction)create_instance;
  if (!strcmp(name, "vkCreateDevice")) return (PFN_vkVoidFunction)create_device;
  if (!strcmp(name, "vkCreateShaderModule")) return (PFN_vkVoidFunction)create_shader_module;
  return next_instance_proc ? next_instance_proc(instance, name) : NULL;
}

EXPORT VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL vkGetDeviceProcAddr(VkDevice device,
                                                                   const char *name) {
  if (!strcmp(name, "vkGetDeviceProcAddr")) return (PFN_vkVoidFunction)vkGetDeviceProcAddr;
  if (!strcmp(name, "vkCreateShaderModule")) return (PFN_vkVoidFunction)create_shader_module;
  return next_device_proc ? next_device_proc(device, name) : NULL;
}
