/*
 * vkchain: the hitchbench Vulkan layer alone, between a stand-in loader
 * and a stand-in driver, both this program (no libvulkan, no GPU): it
 * dlopen()s the hook as the loader would, negotiates the loader-layer
 * interface, makes an instance and a device through the layer with link
 * infos whose next functions are its own stubs, makes swapchains, presents
 * as fast as it can, and destroys it all. For the layer's tests (t0120)
 * and as bench-self's "layer alone" arm, beside tests/tools/present.c.
 *
 *   vkchain [--layer PATH] [--frames N] [--warmup N] [--recreate K]
 *           [--swapchains M] [--nested] [--direct]
 *
 * --frames N timed presents (default 1000000) after --warmup N untimed
 * ones; each present presents the M swapchains (default 1) in one call.
 * --recreate K remakes every swapchain K times, evenly through the
 * presents, each from the one before (oldSwapchain) with another extent
 * and present mode, then destroys the old one. --nested: the stub
 * driver's vkQueuePresentKHR calls the layer's once more from inside (a
 * present nesting a present must be one frame). --direct calls the stub
 * driver without the layer: the loop's cost with nothing in the way.
 *
 * Prints one line on stdout:
 *   ns_per_frame=F frames=N warmup=W presents=P swapchains=M recreated=K
 *   allocs_in_loop=A intercepted=yes|no driver_presents=D nested_calls=C
 *   only_export=yes|no
 * ns_per_frame is the time of the N timed presents over N (the
 * recreations among them included). allocs_in_loop counts the malloc,
 * calloc and realloc calls made while presenting (this program stands in
 * for them). intercepted says whether the layer handed out its own
 * vkQueuePresentKHR (it does only while recording a frame file).
 * driver_presents counts the stub's presents, nested_calls the nested
 * ones. only_export says whether vkNegotiateLoaderLayerInterfaceVersion
 * is the only Vulkan name the object exports.
 *
 * The layer is PATH, or hitchbench-hook.so in the directory above this
 * program's (build/tests/vkchain, build/hitchbench-hook.so).
 */
#include "base/exitcodes.h"
#include "stubpath.h"
#include "base/timeutil.h"
#include "base/util.h"

#define VK_NO_PROTOTYPES
#include <vulkan/vulkan.h>
#include <vulkan/vk_layer.h>

#include <dlfcn.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_SWAPCHAINS 4
#define MAX_RECREATE 1000
#define STUB_SWAPCHAIN_SLOTS (MAX_SWAPCHAINS * (MAX_RECREATE + 1))

/* The allocator, counted while the loop runs: this program's definitions
 * come first for every object in the process, the layer's included. */
void *__libc_malloc(size_t size);
void *__libc_calloc(size_t n, size_t size);
void *__libc_realloc(void *p, size_t size);
static bool counting;
static unsigned long allocs;

void *malloc(size_t size)
{
	if (__atomic_load_n(&counting, __ATOMIC_RELAXED))
		__atomic_fetch_add(&allocs, 1, __ATOMIC_RELAXED);
	return __libc_malloc(size);
}

void *calloc(size_t n, size_t size)
{
	if (__atomic_load_n(&counting, __ATOMIC_RELAXED))
		__atomic_fetch_add(&allocs, 1, __ATOMIC_RELAXED);
	return __libc_calloc(n, size);
}

void *realloc(void *p, size_t size)
{
	if (__atomic_load_n(&counting, __ATOMIC_RELAXED))
		__atomic_fetch_add(&allocs, 1, __ATOMIC_RELAXED);
	return __libc_realloc(p, size);
}

/*
 * The stub driver's dispatchable objects: the first word is the dispatch
 * pointer, as the loader makes it. Each instance and device points into
 * itself (a key of its own); a physical device shares its instance's, a
 * queue its device's, as under the real loader.
 */
struct stub_instance {
	const void *dispatch;
	char table;
	struct { const void *dispatch; } gpu;
};

struct stub_device {
	const void *dispatch;
	char table;
	struct { const void *dispatch; } queue;
};

#if VK_USE_64_BIT_PTR_DEFINES == 1
#define TO_HANDLE(type, v) ((type)(uintptr_t)(v))
#define FROM_HANDLE(h) ((uint64_t)(uintptr_t)(h))
#else
#define TO_HANDLE(type, v) ((type)(v))
#define FROM_HANDLE(h) ((uint64_t)(h))
#endif
#define STUB_SWAPCHAIN_BASE 0x5c0000u
#define STUB_SURFACE_BASE 0x5f0000u

/* What the stub driver saw. */
static struct {
	unsigned long presents, nested_calls;
	unsigned swapchains_made, swapchains_destroyed;
	uint32_t images[STUB_SWAPCHAIN_SLOTS];
	PFN_vkQueuePresentKHR nest;     /* --nested: the layer's present, called from inside */
	bool in_nested;
	bool direct;
} drv;

static VKAPI_ATTR VkResult VKAPI_CALL stub_create_instance(const VkInstanceCreateInfo *ci,
							   const VkAllocationCallbacks *alloc, VkInstance *out)
{
	struct stub_instance *inst;

	/* the layer stepped the link on past itself: the chain ends here */
	for (const VkBaseInStructure *p = ci->pNext; p && !drv.direct; p = p->pNext) {
		const VkLayerInstanceCreateInfo *l = (const VkLayerInstanceCreateInfo *)p;

		if (p->sType == VK_STRUCTURE_TYPE_LOADER_INSTANCE_CREATE_INFO && l->function == VK_LAYER_LINK_INFO &&
		    l->u.pLayerInfo) {
			fprintf(stderr, "vkchain: the layer did not step the instance link on\n");
			return VK_ERROR_INITIALIZATION_FAILED;
		}
	}
	inst = calloc(1, sizeof(*inst));
	if (!inst)
		return VK_ERROR_OUT_OF_HOST_MEMORY;
	inst->dispatch = &inst->table;
	inst->gpu.dispatch = inst->dispatch;
	*out = (VkInstance)inst;
	return VK_SUCCESS;
}

static VKAPI_ATTR void VKAPI_CALL stub_destroy_instance(VkInstance instance, const VkAllocationCallbacks *alloc)
{
	free(instance);
}

static VKAPI_ATTR VkResult VKAPI_CALL stub_create_device(VkPhysicalDevice gpu, const VkDeviceCreateInfo *ci,
							 const VkAllocationCallbacks *alloc, VkDevice *out)
{
	struct stub_device *dev;

	for (const VkBaseInStructure *p = ci->pNext; p && !drv.direct; p = p->pNext) {
		const VkLayerDeviceCreateInfo *l = (const VkLayerDeviceCreateInfo *)p;

		if (p->sType == VK_STRUCTURE_TYPE_LOADER_DEVICE_CREATE_INFO && l->function == VK_LAYER_LINK_INFO &&
		    l->u.pLayerInfo) {
			fprintf(stderr, "vkchain: the layer did not step the device link on\n");
			return VK_ERROR_INITIALIZATION_FAILED;
		}
	}
	dev = calloc(1, sizeof(*dev));
	if (!dev)
		return VK_ERROR_OUT_OF_HOST_MEMORY;
	dev->dispatch = &dev->table;
	dev->queue.dispatch = dev->dispatch;
	*out = (VkDevice)dev;
	return VK_SUCCESS;
}

static VKAPI_ATTR void VKAPI_CALL stub_destroy_device(VkDevice device, const VkAllocationCallbacks *alloc)
{
	free(device);
}

static VKAPI_ATTR void VKAPI_CALL stub_get_device_queue(VkDevice device, uint32_t family, uint32_t index,
							VkQueue *out)
{
	*out = (VkQueue)&((struct stub_device *)device)->queue;
}

static VKAPI_ATTR VkResult VKAPI_CALL stub_create_swapchain(VkDevice device, const VkSwapchainCreateInfoKHR *ci,
							    const VkAllocationCallbacks *alloc,
							    VkSwapchainKHR *out)
{
	if (drv.swapchains_made >= STUB_SWAPCHAIN_SLOTS)
		return VK_ERROR_OUT_OF_HOST_MEMORY;
	/* one image more than asked for, as drivers often give */
	drv.images[drv.swapchains_made] = ci->minImageCount + 1;
	*out = TO_HANDLE(VkSwapchainKHR, STUB_SWAPCHAIN_BASE + drv.swapchains_made);
	drv.swapchains_made++;
	return VK_SUCCESS;
}

static VKAPI_ATTR void VKAPI_CALL stub_destroy_swapchain(VkDevice device, VkSwapchainKHR swapchain,
							 const VkAllocationCallbacks *alloc)
{
	if (swapchain != VK_NULL_HANDLE)
		drv.swapchains_destroyed++;
}

static VKAPI_ATTR VkResult VKAPI_CALL stub_get_swapchain_images(VkDevice device, VkSwapchainKHR swapchain,
								uint32_t *count, VkImage *images)
{
	uint64_t i = FROM_HANDLE(swapchain) - STUB_SWAPCHAIN_BASE;

	if (i >= drv.swapchains_made || images)
		return VK_ERROR_INITIALIZATION_FAILED; /* the layer asks for the count only */
	*count = drv.images[i];
	return VK_SUCCESS;
}

static VKAPI_ATTR VkResult VKAPI_CALL stub_queue_present(VkQueue queue, const VkPresentInfoKHR *info)
{
	drv.presents++;
	if (drv.nest && !drv.in_nested) {
		drv.in_nested = true;
		drv.nest(queue, info);
		drv.in_nested = false;
		drv.nested_calls++;
	}
	return VK_SUCCESS;
}

static VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL stub_get_device_proc_addr(VkDevice device, const char *name)
{
	static const struct { const char *name; PFN_vkVoidFunction fn; } fns[] = {
		{ "vkDestroyDevice", (PFN_vkVoidFunction)stub_destroy_device },
		{ "vkGetDeviceQueue", (PFN_vkVoidFunction)stub_get_device_queue },
		{ "vkCreateSwapchainKHR", (PFN_vkVoidFunction)stub_create_swapchain },
		{ "vkDestroySwapchainKHR", (PFN_vkVoidFunction)stub_destroy_swapchain },
		{ "vkGetSwapchainImagesKHR", (PFN_vkVoidFunction)stub_get_swapchain_images },
		{ "vkQueuePresentKHR", (PFN_vkVoidFunction)stub_queue_present },
		{ "vkGetDeviceProcAddr", (PFN_vkVoidFunction)stub_get_device_proc_addr },
	};

	for (size_t i = 0; i < sizeof(fns) / sizeof(fns[0]); i++)
		if (strcmp(name, fns[i].name) == 0)
			return fns[i].fn;
	return NULL;
}

static VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL stub_get_instance_proc_addr(VkInstance instance, const char *name)
{
	if (strcmp(name, "vkCreateInstance") == 0)
		return (PFN_vkVoidFunction)stub_create_instance;
	if (strcmp(name, "vkDestroyInstance") == 0)
		return (PFN_vkVoidFunction)stub_destroy_instance;
	if (strcmp(name, "vkCreateDevice") == 0)
		return (PFN_vkVoidFunction)stub_create_device;
	if (strcmp(name, "vkGetInstanceProcAddr") == 0)
		return (PFN_vkVoidFunction)stub_get_instance_proc_addr;
	return stub_get_device_proc_addr(VK_NULL_HANDLE, name);
}

/* The top of the chain, as the application sees it: the layer's
 * functions, or the stub's with --direct. */
struct chain {
	PFN_vkGetInstanceProcAddr gipa;
	PFN_vkGetDeviceProcAddr gdpa;
	bool only_export;
	VkInstance instance;
	VkDevice device;
	VkQueue queue;
	PFN_vkQueuePresentKHR present;
	PFN_vkCreateSwapchainKHR create_swapchain;
	PFN_vkDestroySwapchainKHR destroy_swapchain;
};

struct vkchain_opts {
	const char *layer;
	uint64_t frames, warmup;
	unsigned recreate, swapchains;
	bool nested, direct;
};

static int layer_path(char *buf, size_t size, const char *given)
{
	if (!given)
		return self_relative_path(buf, size, "../hitchbench-hook.so");
	if (strlen(given) >= size)
		return -ENAMETOOLONG;
	strcpy(buf, given);
	return 0;
}

/* The loader's first steps: open the layer, check what it exports,
 * negotiate interface 2. */
static int chain_open(struct chain *c, const char *given)
{
	static const char *const not_exported[] = { "vkGetInstanceProcAddr", "vkGetDeviceProcAddr",
						    "vkCreateInstance", "vkQueuePresentKHR" };
	PFN_vkNegotiateLoaderLayerInterfaceVersion negotiate;
	VkNegotiateLayerInterface ni;
	char path[PATH_MAX];
	void *h;
	int r = layer_path(path, sizeof(path), given);

	if (r < 0) {
		fprintf(stderr, "vkchain: cannot find the layer: %s\n", strerror(-r));
		return -1;
	}
	h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		fprintf(stderr, "vkchain: %s\n", dlerror());
		return -1;
	}
	negotiate = (PFN_vkNegotiateLoaderLayerInterfaceVersion)dlsym(h, "vkNegotiateLoaderLayerInterfaceVersion");
	if (!negotiate) {
		fprintf(stderr, "vkchain: '%s' exports no vkNegotiateLoaderLayerInterfaceVersion\n", path);
		return -1;
	}
	c->only_export = true;
	for (size_t i = 0; i < sizeof(not_exported) / sizeof(not_exported[0]); i++)
		if (dlsym(h, not_exported[i]))
			c->only_export = false;
	memset(&ni, 0, sizeof(ni));
	ni.sType = LAYER_NEGOTIATE_INTERFACE_STRUCT;
	ni.loaderLayerInterfaceVersion = CURRENT_LOADER_LAYER_INTERFACE_VERSION;
	if (negotiate(&ni) != VK_SUCCESS || ni.loaderLayerInterfaceVersion != 2 || !ni.pfnGetInstanceProcAddr ||
	    !ni.pfnGetDeviceProcAddr) {
		fprintf(stderr, "vkchain: the layer did not negotiate interface 2\n");
		return -1;
	}
	c->gipa = ni.pfnGetInstanceProcAddr;
	c->gdpa = ni.pfnGetDeviceProcAddr;
	return 0;
}

/* An instance and a device through the chain, with the loader's link
 * infos (a loader-data callback before each, as the loader puts one). */
static int chain_create(struct chain *c)
{
	VkLayerInstanceLink ilink = { NULL, stub_get_instance_proc_addr, NULL };
	VkLayerInstanceCreateInfo idata = { VK_STRUCTURE_TYPE_LOADER_INSTANCE_CREATE_INFO, NULL,
					    VK_LOADER_DATA_CALLBACK, { NULL } };
	VkLayerInstanceCreateInfo ili = { VK_STRUCTURE_TYPE_LOADER_INSTANCE_CREATE_INFO, &idata,
					  VK_LAYER_LINK_INFO, { &ilink } };
	VkInstanceCreateInfo ici = { .sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO, .pNext = &ili };
	VkLayerDeviceLink dlink = { NULL, stub_get_instance_proc_addr, stub_get_device_proc_addr };
	VkLayerDeviceCreateInfo ddata = { VK_STRUCTURE_TYPE_LOADER_DEVICE_CREATE_INFO, NULL,
					  VK_LOADER_DATA_CALLBACK, { NULL } };
	VkLayerDeviceCreateInfo dli = { VK_STRUCTURE_TYPE_LOADER_DEVICE_CREATE_INFO, &ddata,
					VK_LAYER_LINK_INFO, { &dlink } };
	VkDeviceCreateInfo dci = { .sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO, .pNext = &dli };
	PFN_vkCreateInstance create_instance = (PFN_vkCreateInstance)c->gipa(NULL, "vkCreateInstance");
	PFN_vkCreateDevice create_device;
	PFN_vkGetDeviceQueue get_queue;

	if (!create_instance || create_instance(&ici, NULL, &c->instance) != VK_SUCCESS) {
		fprintf(stderr, "vkchain: vkCreateInstance through the chain failed\n");
		return -1;
	}
	create_device = (PFN_vkCreateDevice)c->gipa(c->instance, "vkCreateDevice");
	if (!create_device ||
	    create_device((VkPhysicalDevice)&((struct stub_instance *)c->instance)->gpu, &dci, NULL, &c->device) !=
		    VK_SUCCESS) {
		fprintf(stderr, "vkchain: vkCreateDevice through the chain failed\n");
		return -1;
	}
	/* not the layer's: handed through to the driver */
	get_queue = (PFN_vkGetDeviceQueue)c->gdpa(c->device, "vkGetDeviceQueue");
	if (get_queue != stub_get_device_queue) {
		fprintf(stderr, "vkchain: vkGetDeviceQueue is not the driver's through the layer\n");
		return -1;
	}
	get_queue(c->device, 0, 0, &c->queue);
	c->present = (PFN_vkQueuePresentKHR)c->gdpa(c->device, "vkQueuePresentKHR");
	c->create_swapchain = (PFN_vkCreateSwapchainKHR)c->gdpa(c->device, "vkCreateSwapchainKHR");
	c->destroy_swapchain = (PFN_vkDestroySwapchainKHR)c->gdpa(c->device, "vkDestroySwapchainKHR");
	if (!c->present || !c->create_swapchain || !c->destroy_swapchain) {
		fprintf(stderr, "vkchain: the chain has no swapchain functions\n");
		return -1;
	}
	return 0;
}

static void chain_destroy(struct chain *c)
{
	PFN_vkDestroyDevice destroy_device = (PFN_vkDestroyDevice)c->gdpa(c->device, "vkDestroyDevice");
	PFN_vkDestroyInstance destroy_instance = (PFN_vkDestroyInstance)c->gipa(c->instance, "vkDestroyInstance");

	destroy_device(c->device, NULL);
	destroy_instance(c->instance, NULL);
}

/* Swapchain i's generation g: another extent and mode each time (FIFO,
 * then MAILBOX and FIFO in turn), from the one it replaces. */
static int swapchain_make(struct chain *c, unsigned i, unsigned g, VkSwapchainKHR old, VkSwapchainKHR *out)
{
	VkSwapchainCreateInfoKHR ci = {
		.sType = VK_STRUCTURE_TYPE_SWAPCHAIN_CREATE_INFO_KHR,
		.surface = TO_HANDLE(VkSurfaceKHR, STUB_SURFACE_BASE + i),
		.minImageCount = 2 + g % 2,
		.imageFormat = VK_FORMAT_B8G8R8A8_UNORM,
		.imageExtent = { 640 + 16 * g, 480 + 8 * g },
		.imageArrayLayers = 1,
		.presentMode = g % 2 ? VK_PRESENT_MODE_MAILBOX_KHR : VK_PRESENT_MODE_FIFO_KHR,
		.oldSwapchain = old,
	};

	if (c->create_swapchain(c->device, &ci, NULL, out) != VK_SUCCESS) {
		fprintf(stderr, "vkchain: vkCreateSwapchainKHR failed\n");
		return -1;
	}
	if (old != VK_NULL_HANDLE)
		c->destroy_swapchain(c->device, old, NULL);
	return 0;
}

/* Presents warmup + frames times, remaking the swapchains o->recreate
 * times on the way; *ns: the timed presents. */
static int present_loop(struct chain *c, const struct vkchain_opts *o, uint64_t *ns)
{
	VkSwapchainKHR sc[MAX_SWAPCHAINS];
	uint32_t indices[MAX_SWAPCHAINS] = { 0 };
	VkPresentInfoKHR info = { .sType = VK_STRUCTURE_TYPE_PRESENT_INFO_KHR, .swapchainCount = o->swapchains,
				  .pSwapchains = sc, .pImageIndices = indices };
	uint64_t total = o->warmup + o->frames, t0 = 0, next_remake;
	unsigned gen = 0;

	for (unsigned i = 0; i < o->swapchains; i++)
		if (swapchain_make(c, i, 0, VK_NULL_HANDLE, &sc[i]) < 0)
			return -1;
	next_remake = o->recreate ? total / (o->recreate + 1) : UINT64_MAX;
	__atomic_store_n(&counting, true, __ATOMIC_RELAXED);
	for (uint64_t n = 0; n < total; n++) {
		if (n == o->warmup)
			t0 = mono_ns();
		while (n == next_remake) {
			gen++;
			for (unsigned i = 0; i < o->swapchains; i++)
				if (swapchain_make(c, i, gen, sc[i], &sc[i]) < 0)
					return -1;
			next_remake = gen < o->recreate ? total * (gen + 1) / (o->recreate + 1) : UINT64_MAX;
		}
		c->present(c->queue, &info);
	}
	*ns = mono_ns() - t0;
	__atomic_store_n(&counting, false, __ATOMIC_RELAXED);
	for (unsigned i = 0; i < o->swapchains; i++)
		c->destroy_swapchain(c->device, sc[i], NULL);
	return gen == o->recreate ? 0 : -1;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: vkchain [--layer PATH] [--frames N] [--warmup N] [--recreate K] [--swapchains M]\n"
		   "               [--nested] [--direct]\n");
}

static int parse_count(const char *opt, const char *arg, uint64_t min, uint64_t max, uint64_t *out)
{
	if (safe_atou64(arg, out) < 0 || *out < min || *out > max) {
		fprintf(stderr, "vkchain: %s wants a number from %" PRIu64 " to %" PRIu64 ", not '%s'\n", opt, min,
			max, arg);
		return -1;
	}
	return 0;
}

static int parse_opts(int argc, char **argv, struct vkchain_opts *o)
{
	static const struct option longopts[] = {
		{ "layer", required_argument, NULL, 'l' },
		{ "frames", required_argument, NULL, 'n' },
		{ "warmup", required_argument, NULL, 'w' },
		{ "recreate", required_argument, NULL, 'r' },
		{ "swapchains", required_argument, NULL, 's' },
		{ "nested", no_argument, NULL, 'N' },
		{ "direct", no_argument, NULL, 'd' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	uint64_t v;
	int c;

	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (c) {
		case 'l':
			o->layer = optarg;
			break;
		case 'n':
			if (parse_count("--frames", optarg, 1, UINT64_MAX / 2, &o->frames) < 0)
				return HB_EXIT_USAGE;
			break;
		case 'w':
			if (parse_count("--warmup", optarg, 0, UINT64_MAX / 2, &o->warmup) < 0)
				return HB_EXIT_USAGE;
			break;
		case 'r':
			if (parse_count("--recreate", optarg, 0, MAX_RECREATE, &v) < 0)
				return HB_EXIT_USAGE;
			o->recreate = (unsigned)v;
			break;
		case 's':
			if (parse_count("--swapchains", optarg, 1, MAX_SWAPCHAINS, &v) < 0)
				return HB_EXIT_USAGE;
			o->swapchains = (unsigned)v;
			break;
		case 'N':
			o->nested = true;
			break;
		case 'd':
			o->direct = true;
			break;
		case 'h':
			usage(stdout);
			return HB_EXIT_OK;
		default:
			usage(stderr);
			return HB_EXIT_USAGE;
		}
	}
	if (optind != argc || (o->nested && o->direct)) {
		usage(stderr);
		return HB_EXIT_USAGE;
	}
	return -1;
}

int main(int argc, char **argv)
{
	struct vkchain_opts o = { NULL, 1000000, 0, 0, 1, false, false };
	struct chain c;
	uint64_t ns = 0;
	int r = parse_opts(argc, argv, &o);

	if (r >= 0)
		return r;
	memset(&c, 0, sizeof(c));
	drv.direct = o.direct;
	if (o.direct) {
		c.gipa = stub_get_instance_proc_addr;
		c.gdpa = stub_get_device_proc_addr;
		c.only_export = true;
	} else if (chain_open(&c, o.layer) < 0) {
		return HB_EXIT_FAILURE;
	}
	if (chain_create(&c) < 0)
		return HB_EXIT_FAILURE;
	if (o.nested)
		drv.nest = c.present;
	if (present_loop(&c, &o, &ns) < 0)
		return HB_EXIT_FAILURE;
	chain_destroy(&c);
	printf("ns_per_frame=%.1f frames=%" PRIu64 " warmup=%" PRIu64 " presents=%" PRIu64
	       " swapchains=%u recreated=%u allocs_in_loop=%lu intercepted=%s driver_presents=%lu"
	       " nested_calls=%lu only_export=%s\n",
	       (double)ns / (double)o.frames, o.frames, o.warmup, o.frames + o.warmup, o.swapchains, o.recreate,
	       allocs, c.present != stub_queue_present ? "yes" : "no", drv.presents, drv.nested_calls,
	       c.only_export ? "yes" : "no");
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "vkchain: cannot write the result: %s\n", strerror(errno));
		return HB_EXIT_FAILURE;
	}
	return HB_EXIT_OK;
}
