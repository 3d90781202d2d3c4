/*
 * The frame hook as a Vulkan layer (VK_LAYER_HITCHBENCH_frames): the
 * Vulkan loader loads this same object, found through the manifest
 * VkLayer_hitchbench.json (an implicit layer enabled by
 * HITCHBENCH_VULKAN=1), and puts it in every instance's and device's
 * chain. Each vkQueuePresentKHR is stamped into the frame file as a GL
 * present is (framehook-record.c: before the real call, on the same
 * clock and the same thread-local depth, so a present nesting across
 * APIs, as Zink's glXSwapBuffers over vkQueuePresentKHR, counts once), one
 * record per call however many swapchains it presents. Each swapchain
 * made or destroyed is an event in the file: its extent, present mode,
 * image counts and format, and the swapchain it replaced, so that a
 * resize or a mode change reads as what it is.
 *
 * The loader asks the layer for its functions through the two lookups
 * handed out by vkNegotiateLoaderLayerInterfaceVersion, the one name the
 * object exports for Vulkan (a preloaded hook must not stand in for the
 * loader's own vkCreateInstance). vkCreateInstance and vkCreateDevice
 * find the next element of the chain in the loader's link info, step the
 * link on for the next layer, call down, and keep what they need of the
 * next one's functions for the new object in a table keyed by its
 * dispatch key (the first pointer of every dispatchable handle, which a
 * device's queues share with it). The tables are written under a mutex
 * when an object is made or destroyed, and read without a lock: a slot's
 * key is published last (released), so a reader that finds the key sees
 * the functions. Slots come in chunks that are never freed: the first is
 * static, more are allocated only when an object is made, so a lookup
 * never meets freed memory and a present never allocates.
 *
 * Per present: the lookup (a few compares) and present_begin/present_end.
 * No system call, lock or allocation. Without a frame file (no
 * HITCHBENCH_FRAMES, or one the hook refused) the layer still chains
 * instances and devices but hands out the next one's present and
 * swapchain functions untouched: it is not in their way at all.
 */
#include "framehook.h"

#define VK_NO_PROTOTYPES
#include <vulkan/vulkan.h>
#include <vulkan/vk_layer.h>

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* The loader-layer interface this layer speaks: lookups handed out by the
 * negotiation, not exported. */
#define LAYER_INTERFACE_VERSION 2

#define CHUNK_SLOTS 16
/* A slot being filled by the thread making its object: no lookup matches
 * it, and no other maker takes it. */
#define KEY_RESERVED ((void *)1)

struct instance_fns {
	VkInstance instance;
	PFN_vkGetInstanceProcAddr gipa;
	PFN_vkDestroyInstance destroy;
};

struct device_fns {
	VkDevice device;
	PFN_vkGetDeviceProcAddr gdpa;
	PFN_vkDestroyDevice destroy;
	PFN_vkQueuePresentKHR queue_present;
	PFN_vkCreateSwapchainKHR create_swapchain;
	PFN_vkDestroySwapchainKHR destroy_swapchain;
	PFN_vkGetSwapchainImagesKHR get_swapchain_images;
};

struct slot {
	void *key;              /* dispatch key; NULL free, KEY_RESERVED being filled (atomic) */
	union {
		struct instance_fns inst;
		struct device_fns dev;
	} u;
};

struct chunk {
	struct slot slots[CHUNK_SLOTS];
	struct chunk *next;     /* atomic; never freed */
};

struct table {
	struct chunk first;
	pthread_mutex_t lock;
};

static struct table instances = { .lock = PTHREAD_MUTEX_INITIALIZER };
static struct table devices = { .lock = PTHREAD_MUTEX_INITIALIZER };

static inline void *dispatch_key(const void *handle)
{
	return *(void *const *)handle;
}

/* The slot of a dispatch key, or NULL: lock-free (the per-present path). */
static inline const struct slot *table_find(struct table *t, const void *key)
{
	for (struct chunk *c = &t->first; c; c = __atomic_load_n(&c->next, __ATOMIC_ACQUIRE))
		for (int i = 0; i < CHUNK_SLOTS; i++)
			if (__atomic_load_n(&c->slots[i].key, __ATOMIC_ACQUIRE) == key)
				return &c->slots[i];
	return NULL;
}

/* A free slot, marked reserved, for an object about to be made; NULL if
 * no memory for another chunk. */
static struct slot *table_reserve(struct table *t)
{
	struct chunk *c, *last = NULL;
	struct slot *s = NULL;

	pthread_mutex_lock(&t->lock);
	for (c = &t->first; c && !s; last = c, c = c->next)
		for (int i = 0; i < CHUNK_SLOTS && !s; i++)
			if (c->slots[i].key == NULL)
				s = &c->slots[i];
	if (!s && (c = calloc(1, sizeof(*c))) != NULL) {
		s = &c->slots[0];
		__atomic_store_n(&last->next, c, __ATOMIC_RELEASE);
	}
	if (s)
		__atomic_store_n(&s->key, KEY_RESERVED, __ATOMIC_RELAXED);
	pthread_mutex_unlock(&t->lock);
	return s;
}

/* The object is made and its functions are in the slot: found from now. */
static void table_publish(struct table *t, struct slot *s, void *key)
{
	pthread_mutex_lock(&t->lock);
	__atomic_store_n(&s->key, key, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&t->lock);
}

static void table_release(struct table *t, const struct slot *s)
{
	pthread_mutex_lock(&t->lock);
	__atomic_store_n(&((struct slot *)s)->key, NULL, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&t->lock);
}

static const struct slot *device_of(const void *handle)
{
	return table_find(&devices, dispatch_key(handle));
}

/* A non-dispatchable handle's value: a pointer where the headers make it
 * one (64-bit machines), a uint64_t otherwise. */
#if VK_USE_64_BIT_PTR_DEFINES == 1
#define HANDLE_VALUE(h) ((uint64_t)(uintptr_t)(h))
#else
#define HANDLE_VALUE(h) ((uint64_t)(h))
#endif

/*
 * The loader's link info in a create info's chain (from its pNext): the
 * structure of the given type whose function is VK_LAYER_LINK_INFO (the
 * loader puts others of the same type there too). Both types open with
 * sType, pNext, function. NULL if none.
 */
static void *link_info(const void *chain, VkStructureType type)
{
	for (const VkBaseInStructure *p = chain; p; p = p->pNext)
		if (p->sType == type && ((const VkLayerInstanceCreateInfo *)p)->function == VK_LAYER_LINK_INFO)
			return (void *)p;
	return NULL;
}

static VKAPI_ATTR VkResult VKAPI_CALL layer_create_instance(const VkInstanceCreateInfo *ci,
							    const VkAllocationCallbacks *alloc,
							    VkInstance *out)
{
	VkLayerInstanceCreateInfo *link = link_info(ci->pNext, VK_STRUCTURE_TYPE_LOADER_INSTANCE_CREATE_INFO);
	PFN_vkGetInstanceProcAddr gipa;
	PFN_vkCreateInstance next_create;
	struct slot *s;
	VkResult r;

	if (!link || !link->u.pLayerInfo)
		return VK_ERROR_INITIALIZATION_FAILED;
	gipa = link->u.pLayerInfo->pfnNextGetInstanceProcAddr;
	next_create = (PFN_vkCreateInstance)gipa(VK_NULL_HANDLE, "vkCreateInstance");
	if (!next_create)
		return VK_ERROR_INITIALIZATION_FAILED;
	s = table_reserve(&instances);
	if (!s)
		return VK_ERROR_OUT_OF_HOST_MEMORY;
	/* the next layer finds its own link */
	link->u.pLayerInfo = link->u.pLayerInfo->pNext;
	r = next_create(ci, alloc, out);
	if (r != VK_SUCCESS) {
		table_release(&instances, s);
		return r;
	}
	s->u.inst.instance = *out;
	s->u.inst.gipa = gipa;
	s->u.inst.destroy = (PFN_vkDestroyInstance)gipa(*out, "vkDestroyInstance");
	table_publish(&instances, s, dispatch_key(*out));
	hook_count_vk_instance();
	return VK_SUCCESS;
}

static VKAPI_ATTR void VKAPI_CALL layer_destroy_instance(VkInstance instance,
							  const VkAllocationCallbacks *alloc)
{
	const struct slot *s;
	PFN_vkDestroyInstance destroy;

	if (instance == VK_NULL_HANDLE || !(s = table_find(&instances, dispatch_key(instance))))
		return;
	destroy = s->u.inst.destroy;
	table_release(&instances, s);
	if (destroy)
		destroy(instance, alloc);
}

static VKAPI_ATTR VkResult VKAPI_CALL layer_create_device(VkPhysicalDevice gpu, const VkDeviceCreateInfo *ci,
							  const VkAllocationCallbacks *alloc, VkDevice *out)
{
	VkLayerDeviceCreateInfo *link = link_info(ci->pNext, VK_STRUCTURE_TYPE_LOADER_DEVICE_CREATE_INFO);
	const struct slot *inst = table_find(&instances, dispatch_key(gpu));
	PFN_vkGetInstanceProcAddr gipa;
	PFN_vkGetDeviceProcAddr gdpa;
	PFN_vkCreateDevice next_create;
	struct device_fns *d;
	struct slot *s;
	VkResult r;

	if (!link || !link->u.pLayerInfo)
		return VK_ERROR_INITIALIZATION_FAILED;
	gipa = link->u.pLayerInfo->pfnNextGetInstanceProcAddr;
	gdpa = link->u.pLayerInfo->pfnNextGetDeviceProcAddr;
	/* a physical device shares its instance's dispatch key */
	next_create = (PFN_vkCreateDevice)gipa(inst ? inst->u.inst.instance : VK_NULL_HANDLE, "vkCreateDevice");
	if (!next_create)
		return VK_ERROR_INITIALIZATION_FAILED;
	s = table_reserve(&devices);
	if (!s)
		return VK_ERROR_OUT_OF_HOST_MEMORY;
	link->u.pLayerInfo = link->u.pLayerInfo->pNext;
	r = next_create(gpu, ci, alloc, out);
	if (r != VK_SUCCESS) {
		table_release(&devices, s);
		return r;
	}
	d = &s->u.dev;
	d->device = *out;
	d->gdpa = gdpa;
	d->destroy = (PFN_vkDestroyDevice)gdpa(*out, "vkDestroyDevice");
	/* NULL where the device has no VK_KHR_swapchain */
	d->queue_present = (PFN_vkQueuePresentKHR)gdpa(*out, "vkQueuePresentKHR");
	d->create_swapchain = (PFN_vkCreateSwapchainKHR)gdpa(*out, "vkCreateSwapchainKHR");
	d->destroy_swapchain = (PFN_vkDestroySwapchainKHR)gdpa(*out, "vkDestroySwapchainKHR");
	d->get_swapchain_images = (PFN_vkGetSwapchainImagesKHR)gdpa(*out, "vkGetSwapchainImagesKHR");
	table_publish(&devices, s, dispatch_key(*out));
	return VK_SUCCESS;
}

static VKAPI_ATTR void VKAPI_CALL layer_destroy_device(VkDevice device, const VkAllocationCallbacks *alloc)
{
	const struct slot *s;
	PFN_vkDestroyDevice destroy;

	if (device == VK_NULL_HANDLE || !(s = device_of(device)))
		return;
	destroy = s->u.dev.destroy;
	table_release(&devices, s);
	if (destroy)
		destroy(device, alloc);
}

/* Handed out only for a device we made (device_of finds it) whose next
 * element has the function. */
static VKAPI_ATTR VkResult VKAPI_CALL layer_queue_present(VkQueue queue, const VkPresentInfoKHR *info)
{
	const struct slot *s = device_of(queue);
	struct present p;
	VkResult r;

	if (!s)
		return VK_ERROR_DEVICE_LOST;
	present_begin(&p, HB_SRC_VK_QUEUE_PRESENT);
	r = s->u.dev.queue_present(queue, info);
	present_end(&p);
	return r;
}

static VKAPI_ATTR VkResult VKAPI_CALL layer_create_swapchain(VkDevice device,
							     const VkSwapchainCreateInfoKHR *ci,
							     const VkAllocationCallbacks *alloc,
							     VkSwapchainKHR *out)
{
	const struct slot *s = device_of(device);
	const struct device_fns *d;
	struct hb_frame_event ev;
	uint32_t images = 0;
	VkResult r;

	if (!s)
		return VK_ERROR_INITIALIZATION_FAILED;
	d = &s->u.dev;
	r = d->create_swapchain(device, ci, alloc, out);
	if (r != VK_SUCCESS)
		return r;
	if (d->get_swapchain_images && d->get_swapchain_images(device, *out, &images, NULL) != VK_SUCCESS)
		images = 0;
	memset(&ev, 0, sizeof(ev));
	ev.kind = HB_EV_SWAPCHAIN_CREATE;
	ev.api = HB_API_VULKAN;
	ev.object = HANDLE_VALUE(*out);
	ev.old_object = HANDLE_VALUE(ci->oldSwapchain);
	ev.surface = HANDLE_VALUE(ci->surface);
	ev.width = ci->imageExtent.width;
	ev.height = ci->imageExtent.height;
	ev.present_mode = (uint32_t)ci->presentMode;
	ev.min_image_count = ci->minImageCount;
	ev.image_count = images;
	ev.format = (uint32_t)ci->imageFormat;
	hook_event_write(&ev);
	return VK_SUCCESS;
}

static VKAPI_ATTR void VKAPI_CALL layer_destroy_swapchain(VkDevice device, VkSwapchainKHR swapchain,
							  const VkAllocationCallbacks *alloc)
{
	const struct slot *s = device_of(device);
	struct hb_frame_event ev;

	if (!s)
		return;
	s->u.dev.destroy_swapchain(device, swapchain, alloc);
	if (swapchain == VK_NULL_HANDLE)
		return;
	memset(&ev, 0, sizeof(ev));
	ev.kind = HB_EV_SWAPCHAIN_DESTROY;
	ev.api = HB_API_VULKAN;
	ev.object = HANDLE_VALUE(swapchain);
	hook_event_write(&ev);
}

static VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL layer_get_device_proc_addr(VkDevice device, const char *name);

/* Ours for what we intercept (the device commands only from
 * vkGetDeviceProcAddr, which is how the loader and every layer build a
 * device's dispatch), the next element's otherwise. */
static VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL layer_get_instance_proc_addr(VkInstance instance,
									      const char *name)
{
	const struct slot *s;

	if (!name)
		return NULL;
	if (strcmp(name, "vkGetInstanceProcAddr") == 0)
		return (PFN_vkVoidFunction)layer_get_instance_proc_addr;
	if (strcmp(name, "vkCreateInstance") == 0)
		return (PFN_vkVoidFunction)layer_create_instance;
	if (strcmp(name, "vkDestroyInstance") == 0)
		return (PFN_vkVoidFunction)layer_destroy_instance;
	if (strcmp(name, "vkCreateDevice") == 0)
		return (PFN_vkVoidFunction)layer_create_device;
	if (strcmp(name, "vkGetDeviceProcAddr") == 0)
		return (PFN_vkVoidFunction)layer_get_device_proc_addr;
	if (instance == VK_NULL_HANDLE || !(s = table_find(&instances, dispatch_key(instance))))
		return NULL;
	return s->u.inst.gipa(instance, name);
}

static VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL layer_get_device_proc_addr(VkDevice device, const char *name)
{
	const struct device_fns *d;
	const struct slot *s;

	if (!name || device == VK_NULL_HANDLE || !(s = device_of(device)))
		return NULL;
	d = &s->u.dev;
	if (strcmp(name, "vkGetDeviceProcAddr") == 0)
		return (PFN_vkVoidFunction)layer_get_device_proc_addr;
	if (strcmp(name, "vkDestroyDevice") == 0)
		return (PFN_vkVoidFunction)layer_destroy_device;
	if (hook_recording()) {
		if (strcmp(name, "vkQueuePresentKHR") == 0)
			return d->queue_present ? (PFN_vkVoidFunction)layer_queue_present : NULL;
		if (strcmp(name, "vkCreateSwapchainKHR") == 0)
			return d->create_swapchain ? (PFN_vkVoidFunction)layer_create_swapchain : NULL;
		if (strcmp(name, "vkDestroySwapchainKHR") == 0)
			return d->destroy_swapchain ? (PFN_vkVoidFunction)layer_destroy_swapchain : NULL;
	}
	return d->gdpa(device, name);
}

/*
 * The loader's first call: it says which interface it speaks, we answer
 * with ours and our lookups. A loader older than interface 2 would look
 * for exported vkGetInstanceProcAddr and vkGetDeviceProcAddr, which a
 * preloaded hook cannot export: refused.
 */
HOOK_EXPORT VKAPI_ATTR VkResult VKAPI_CALL
vkNegotiateLoaderLayerInterfaceVersion(VkNegotiateLayerInterface *v)
{
	if (!v || v->sType != LAYER_NEGOTIATE_INTERFACE_STRUCT ||
	    v->loaderLayerInterfaceVersion < LAYER_INTERFACE_VERSION)
		return VK_ERROR_INITIALIZATION_FAILED;
	v->loaderLayerInterfaceVersion = LAYER_INTERFACE_VERSION;
	v->pfnGetInstanceProcAddr = layer_get_instance_proc_addr;
	v->pfnGetDeviceProcAddr = layer_get_device_proc_addr;
	v->pfnGetPhysicalDeviceProcAddr = NULL;
	return VK_SUCCESS;
}
