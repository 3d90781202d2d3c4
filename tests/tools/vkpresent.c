/*
 * vkpresent: a real Vulkan present loop, as fast as it can go, timed, so
 * bench-self can time the same loop bare, under the hitchbench layer and
 * under MangoHud's, and the layer's tests have swapchains to watch.
 *
 *   vkpresent [--frames N] [--warmup W] [--warmup-ms MS] [--tail-ms MS]
 *             [--size WxH] [--mode immediate|mailbox|fifo] [--recreate-every K]
 *
 * An Xlib window on $DISPLAY, a VK_KHR_xlib_surface, the first physical
 * device (lavapipe on Xvfb), a swapchain of --size (64x64) in --mode
 * (immediate; fifo when the surface lacks the mode asked for, said on
 * stderr). Each frame acquires an image, submits a command buffer that
 * clears it (recorded once per image) and presents it with
 * vkQueuePresentKHR. --recreate-every K recreates the swapchain after every
 * K presents, alternately at (W+16)x(H+16) and WxH, the window resized
 * first (not between the warm-up and the timed frames, nor after the last);
 * a swapchain that is out of date or suboptimal is recreated too.
 *
 * The warm-up is W frames (0), and goes on until --warmup-ms have passed
 * since the first frame; --tail-ms presents on for that long after the
 * timed frames, untimed. Both are for an observer that acts on a clock:
 * MangoHud starts its log a second after it loads and writes it only once
 * its log_duration is over, at a present.
 *
 * Prints one line on stdout:
 *   ns_per_frame=F cpu_ns_per_frame=C frames=N warmup=W presents=P mode=M extent=WxH swapchains=S
 * ns_per_frame is the time of the N timed frames divided by N (the queue
 * idle at both ends); cpu_ns_per_frame the presenting thread's own CPU
 * time over them (CLOCK_THREAD_CPUTIME_ID) divided by N: what a layer adds
 * to a present is spent there, and this thread does not wait on the
 * driver's render threads in its CPU time, so it varies less than the
 * wall time; the W warm-up frames before them (as many as there
 * were) are not timed. P = W + N + the tail's: the vkQueuePresentKHR calls
 * in all, what a layer must record. M is
 * the mode presented with, WxH the first swapchain's extent, S the
 * swapchains created (1 + recreations).
 *
 * Exit 2 on a bad option, 1 when a call fails (with the Vulkan error name).
 */
#include "base/exitcodes.h"
#include "formats/frames.h"
#include "base/timeutil.h"
#include "base/util.h"

#define VK_USE_PLATFORM_XLIB_KHR
#include <X11/Xlib.h>
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vulkan/vulkan.h>

#define IN_FLIGHT 2   /* frames submitted before the loop waits for one */
#define MAX_IMAGES 8  /* swapchain images this loop has room for */

struct vkp_opts {
	uint64_t frames;
	uint64_t warmup;
	uint64_t warmup_ms;       /* the warm-up lasts this long at least */
	uint64_t tail_ms;         /* untimed frames after the timed ones */
	uint64_t recreate_every;  /* 0: never */
	unsigned width, height;
	VkPresentModeKHR mode;
};

/* The loop's state. Per image: its command buffer, the semaphore its
 * present waits for and the fence of the frame that last drew it. */
struct vkp {
	Display *dpy;
	Window win;
	VkInstance inst;
	VkSurfaceKHR surface;
	VkPhysicalDevice phys;
	VkDevice dev;
	VkQueue queue;
	uint32_t queue_family;
	VkCommandPool pool;
	VkSurfaceFormatKHR format;
	VkPresentModeKHR mode;
	VkSwapchainKHR swapchain;
	VkExtent2D extent;
	uint32_t n_images;
	VkImage images[MAX_IMAGES];
	VkCommandBuffer cmds[MAX_IMAGES];
	VkSemaphore drawn[MAX_IMAGES];
	VkFence image_fence[MAX_IMAGES];
	VkSemaphore acquired[IN_FLIGHT];
	VkFence frame_fence[IN_FLIGHT];
	uint64_t swapchains;  /* created in all */
	uint64_t presents;    /* vkQueuePresentKHR calls */
};

/* The modes --mode takes. */
static const struct { VkPresentModeKHR mode; const char *name; } modes[] = {
	{ VK_PRESENT_MODE_IMMEDIATE_KHR, "immediate" },
	{ VK_PRESENT_MODE_MAILBOX_KHR, "mailbox" },
	{ VK_PRESENT_MODE_FIFO_KHR, "fifo" },
};

/* A mode's name as the frame file's readers give it (common/formats/frames.c). */
static const char *mode_name(VkPresentModeKHR mode)
{
	static char buf[24];

	return hb_present_mode_name((uint32_t)mode, buf);
}

static const char *vk_result_name(VkResult r)
{
	switch (r) {
#define NAME(x) case x: return #x
	NAME(VK_SUCCESS);
	NAME(VK_NOT_READY);
	NAME(VK_TIMEOUT);
	NAME(VK_INCOMPLETE);
	NAME(VK_SUBOPTIMAL_KHR);
	NAME(VK_ERROR_OUT_OF_HOST_MEMORY);
	NAME(VK_ERROR_OUT_OF_DEVICE_MEMORY);
	NAME(VK_ERROR_INITIALIZATION_FAILED);
	NAME(VK_ERROR_DEVICE_LOST);
	NAME(VK_ERROR_LAYER_NOT_PRESENT);
	NAME(VK_ERROR_EXTENSION_NOT_PRESENT);
	NAME(VK_ERROR_FEATURE_NOT_PRESENT);
	NAME(VK_ERROR_INCOMPATIBLE_DRIVER);
	NAME(VK_ERROR_SURFACE_LOST_KHR);
	NAME(VK_ERROR_NATIVE_WINDOW_IN_USE_KHR);
	NAME(VK_ERROR_OUT_OF_DATE_KHR);
	NAME(VK_ERROR_UNKNOWN);
#undef NAME
	default:
		return "an unknown VkResult";
	}
}

/* True (and says so) when a call did not succeed. */
static bool vk_failed(VkResult r, const char *call)
{
	if (r == VK_SUCCESS)
		return false;
	fprintf(stderr, "vkpresent: %s failed: %s (%d)\n", call, vk_result_name(r), (int)r);
	return true;
}

static int parse_size(const char *s, unsigned *w, unsigned *h)
{
	unsigned long a, b;
	char *end;

	errno = 0;
	if (!isdigit((unsigned char)*s))
		return -EINVAL;
	a = strtoul(s, &end, 10);
	if (*end != 'x' || !isdigit((unsigned char)end[1]) || errno)
		return -EINVAL;
	b = strtoul(end + 1, &end, 10);
	if (*end || errno || a == 0 || b == 0 || a > 16384 || b > 16384)
		return -EINVAL;
	*w = (unsigned)a;
	*h = (unsigned)b;
	return 0;
}

static int open_window(struct vkp *v, const struct vkp_opts *o)
{
	XEvent ev;

	v->dpy = XOpenDisplay(NULL);
	if (!v->dpy) {
		fprintf(stderr, "vkpresent: cannot open display '%s'\n", XDisplayName(NULL));
		return -1;
	}
	v->win = XCreateSimpleWindow(v->dpy, DefaultRootWindow(v->dpy), 0, 0, o->width, o->height, 0, 0, 0);
	XStoreName(v->dpy, v->win, "hitchbench vkpresent");
	XSelectInput(v->dpy, v->win, StructureNotifyMask);
	XMapWindow(v->dpy, v->win);
	do
		XWindowEvent(v->dpy, v->win, StructureNotifyMask, &ev);
	while (ev.type != MapNotify);
	/* nothing more to read: resizes need no events queued behind them */
	XSelectInput(v->dpy, v->win, NoEventMask);
	return 0;
}

/* The instance, the surface, the first physical device and a queue of it
 * that can clear images and present to the surface. */
static int open_device(struct vkp *v)
{
	static const char *inst_ext[] = { VK_KHR_SURFACE_EXTENSION_NAME, VK_KHR_XLIB_SURFACE_EXTENSION_NAME };
	static const char *dev_ext[] = { VK_KHR_SWAPCHAIN_EXTENSION_NAME };
	VkApplicationInfo app = {
		.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO,
		.pApplicationName = "hitchbench vkpresent",
		.apiVersion = VK_API_VERSION_1_0,
	};
	VkInstanceCreateInfo ici = {
		.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO,
		.pApplicationInfo = &app,
		.enabledExtensionCount = 2,
		.ppEnabledExtensionNames = inst_ext,
	};
	VkXlibSurfaceCreateInfoKHR sci = {
		.sType = VK_STRUCTURE_TYPE_XLIB_SURFACE_CREATE_INFO_KHR,
		.dpy = v->dpy,
		.window = v->win,
	};
	VkQueueFamilyProperties qf[16];
	uint32_t n = 1, nq = 16;
	float prio = 1.0f;
	VkDeviceQueueCreateInfo qci = {
		.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
		.queueCount = 1,
		.pQueuePriorities = &prio,
	};
	VkDeviceCreateInfo dci = {
		.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO,
		.queueCreateInfoCount = 1,
		.pQueueCreateInfos = &qci,
		.enabledExtensionCount = 1,
		.ppEnabledExtensionNames = dev_ext,
	};
	VkCommandPoolCreateInfo pci = { .sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO };
	VkResult r;

	if (vk_failed(vkCreateInstance(&ici, NULL, &v->inst), "vkCreateInstance") ||
	    vk_failed(vkCreateXlibSurfaceKHR(v->inst, &sci, NULL, &v->surface), "vkCreateXlibSurfaceKHR"))
		return -1;
	r = vkEnumeratePhysicalDevices(v->inst, &n, &v->phys);
	if (r == VK_SUCCESS && n == 0) {
		fprintf(stderr, "vkpresent: no Vulkan physical device\n");
		return -1;
	}
	if (r != VK_INCOMPLETE && vk_failed(r, "vkEnumeratePhysicalDevices"))
		return -1;
	vkGetPhysicalDeviceQueueFamilyProperties(v->phys, &nq, qf);
	for (v->queue_family = 0; v->queue_family < nq; v->queue_family++) {
		VkBool32 ok = VK_FALSE;

		if (!(qf[v->queue_family].queueFlags & VK_QUEUE_GRAPHICS_BIT))
			continue;
		if (vk_failed(vkGetPhysicalDeviceSurfaceSupportKHR(v->phys, v->queue_family, v->surface, &ok),
			      "vkGetPhysicalDeviceSurfaceSupportKHR"))
			return -1;
		if (ok)
			break;
	}
	if (v->queue_family == nq) {
		fprintf(stderr, "vkpresent: the first physical device has no graphics queue that presents here\n");
		return -1;
	}
	qci.queueFamilyIndex = v->queue_family;
	pci.queueFamilyIndex = v->queue_family;
	if (vk_failed(vkCreateDevice(v->phys, &dci, NULL, &v->dev), "vkCreateDevice"))
		return -1;
	vkGetDeviceQueue(v->dev, v->queue_family, 0, &v->queue);
	return vk_failed(vkCreateCommandPool(v->dev, &pci, NULL, &v->pool), "vkCreateCommandPool") ? -1 : 0;
}

/* The surface's format (B8G8R8A8_UNORM where offered) and the mode asked
 * for, or FIFO, which every surface has. */
static int choose_format_and_mode(struct vkp *v, VkPresentModeKHR want)
{
	VkSurfaceFormatKHR formats[32];
	VkPresentModeKHR have[16];
	uint32_t nf = 32, nm = 16;
	VkResult r;

	r = vkGetPhysicalDeviceSurfaceFormatsKHR(v->phys, v->surface, &nf, formats);
	if (r != VK_INCOMPLETE && vk_failed(r, "vkGetPhysicalDeviceSurfaceFormatsKHR"))
		return -1;
	if (nf == 0) {
		fprintf(stderr, "vkpresent: the surface has no format\n");
		return -1;
	}
	v->format = formats[0];
	for (uint32_t i = 0; i < nf; i++)
		if (formats[i].format == VK_FORMAT_B8G8R8A8_UNORM)
			v->format = formats[i];
	r = vkGetPhysicalDeviceSurfacePresentModesKHR(v->phys, v->surface, &nm, have);
	if (r != VK_INCOMPLETE && vk_failed(r, "vkGetPhysicalDeviceSurfacePresentModesKHR"))
		return -1;
	v->mode = VK_PRESENT_MODE_FIFO_KHR;
	for (uint32_t i = 0; i < nm; i++)
		if (have[i] == want)
			v->mode = want;
	if (v->mode != want)
		fprintf(stderr, "vkpresent: the surface has no %s mode, presenting with %s\n", mode_name(want),
			mode_name(v->mode));
	return 0;
}

/* Each image's command buffer: to TRANSFER_DST, cleared, to PRESENT_SRC. */
static int record(struct vkp *v, uint32_t i)
{
	VkCommandBufferBeginInfo begin = { .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO };
	VkImageSubresourceRange range = { VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1 };
	VkClearColorValue color = { .float32 = {
		(float)(v->swapchains % 4) / 4.0f, (float)i / (float)v->n_images, 0.4f, 1.0f } };
	VkImageMemoryBarrier to_dst = {
		.sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER,
		.dstAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT,
		.oldLayout = VK_IMAGE_LAYOUT_UNDEFINED,
		.newLayout = VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
		.srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
		.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
		.image = v->images[i],
		.subresourceRange = range,
	};
	VkImageMemoryBarrier to_present = to_dst;
	VkCommandBuffer cmd = v->cmds[i];

	to_present.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
	to_present.dstAccessMask = 0;
	to_present.oldLayout = VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL;
	to_present.newLayout = VK_IMAGE_LAYOUT_PRESENT_SRC_KHR;
	if (vk_failed(vkBeginCommandBuffer(cmd, &begin), "vkBeginCommandBuffer"))
		return -1;
	vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 0, NULL, 0,
			     NULL, 1, &to_dst);
	vkCmdClearColorImage(cmd, v->images[i], VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, &color, 1, &range);
	vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, 0, 0,
			     NULL, 0, NULL, 1, &to_present);
	return vk_failed(vkEndCommandBuffer(cmd), "vkEndCommandBuffer") ? -1 : 0;
}

/* What belongs to the swapchain's images; the device must be idle. */
static void release_images(struct vkp *v)
{
	for (uint32_t i = 0; i < v->n_images; i++) {
		vkDestroySemaphore(v->dev, v->drawn[i], NULL);
		v->drawn[i] = VK_NULL_HANDLE;
		v->image_fence[i] = VK_NULL_HANDLE;
	}
	if (v->n_images)
		vkFreeCommandBuffers(v->dev, v->pool, v->n_images, v->cmds);
	v->n_images = 0;
}

/* A new swapchain of about width x height (the window resized to it first;
 * the surface's current extent wins where it has one), replacing the old. */
static int make_swapchain(struct vkp *v, unsigned width, unsigned height)
{
	VkSurfaceCapabilitiesKHR caps;
	VkSwapchainCreateInfoKHR sci = {
		.sType = VK_STRUCTURE_TYPE_SWAPCHAIN_CREATE_INFO_KHR,
		.surface = v->surface,
		.imageFormat = v->format.format,
		.imageColorSpace = v->format.colorSpace,
		.imageArrayLayers = 1,
		.imageUsage = VK_IMAGE_USAGE_TRANSFER_DST_BIT,
		.imageSharingMode = VK_SHARING_MODE_EXCLUSIVE,
		.preTransform = VK_SURFACE_TRANSFORM_IDENTITY_BIT_KHR,
		.compositeAlpha = VK_COMPOSITE_ALPHA_OPAQUE_BIT_KHR,
		.presentMode = v->mode,
		.clipped = VK_TRUE,
		.oldSwapchain = v->swapchain,
	};
	VkCommandBufferAllocateInfo cai = {
		.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
		.commandPool = v->pool,
		.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
	};
	VkSemaphoreCreateInfo semi = { .sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO };
	VkSwapchainKHR old = v->swapchain;
	VkResult r;

	if (vk_failed(vkDeviceWaitIdle(v->dev), "vkDeviceWaitIdle"))
		return -1;
	release_images(v);
	if (v->extent.width != width || v->extent.height != height) {
		XResizeWindow(v->dpy, v->win, width, height);
		XSync(v->dpy, False);
	}
	if (vk_failed(vkGetPhysicalDeviceSurfaceCapabilitiesKHR(v->phys, v->surface, &caps),
		      "vkGetPhysicalDeviceSurfaceCapabilitiesKHR"))
		return -1;
	if (!(caps.supportedUsageFlags & VK_IMAGE_USAGE_TRANSFER_DST_BIT)) {
		fprintf(stderr, "vkpresent: the surface's images cannot be cleared (no TRANSFER_DST usage)\n");
		return -1;
	}
	if (caps.currentExtent.width != UINT32_MAX) {
		sci.imageExtent = caps.currentExtent;
	} else {
		sci.imageExtent.width = width;
		sci.imageExtent.height = height;
	}
	sci.minImageCount = caps.minImageCount + 1;
	if (caps.maxImageCount && sci.minImageCount > caps.maxImageCount)
		sci.minImageCount = caps.maxImageCount;
	if (vk_failed(vkCreateSwapchainKHR(v->dev, &sci, NULL, &v->swapchain), "vkCreateSwapchainKHR"))
		return -1;
	v->swapchains++;
	v->extent = sci.imageExtent;
	if (old)
		vkDestroySwapchainKHR(v->dev, old, NULL);
	r = vkGetSwapchainImagesKHR(v->dev, v->swapchain, &v->n_images, NULL);
	if (vk_failed(r, "vkGetSwapchainImagesKHR"))
		return -1;
	if (v->n_images > MAX_IMAGES) {
		fprintf(stderr, "vkpresent: the swapchain has %" PRIu32 " images, room for %d\n", v->n_images,
			MAX_IMAGES);
		v->n_images = 0;
		return -1;
	}
	cai.commandBufferCount = v->n_images;
	if (vk_failed(vkGetSwapchainImagesKHR(v->dev, v->swapchain, &v->n_images, v->images),
		      "vkGetSwapchainImagesKHR") ||
	    vk_failed(vkAllocateCommandBuffers(v->dev, &cai, v->cmds), "vkAllocateCommandBuffers")) {
		v->n_images = 0;
		return -1;
	}
	for (uint32_t i = 0; i < v->n_images; i++)
		if (vk_failed(vkCreateSemaphore(v->dev, &semi, NULL, &v->drawn[i]), "vkCreateSemaphore") ||
		    record(v, i) < 0)
			return -1;
	return 0;
}

static int make_frame_sync(struct vkp *v)
{
	VkSemaphoreCreateInfo semi = { .sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO };
	VkFenceCreateInfo fci = { .sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO, .flags = VK_FENCE_CREATE_SIGNALED_BIT };

	for (int i = 0; i < IN_FLIGHT; i++)
		if (vk_failed(vkCreateSemaphore(v->dev, &semi, NULL, &v->acquired[i]), "vkCreateSemaphore") ||
		    vk_failed(vkCreateFence(v->dev, &fci, NULL, &v->frame_fence[i]), "vkCreateFence"))
			return -1;
	return 0;
}

/* One frame: acquire, clear, present. *stale is set when the swapchain
 * must be recreated before the next one. */
static int frame(struct vkp *v, bool *stale)
{
	VkPipelineStageFlags wait_stage = VK_PIPELINE_STAGE_TRANSFER_BIT;
	unsigned slot = (unsigned)(v->presents % IN_FLIGHT);
	VkFence fence = v->frame_fence[slot];
	VkSubmitInfo submit = {
		.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO,
		.waitSemaphoreCount = 1,
		.pWaitSemaphores = &v->acquired[slot],
		.pWaitDstStageMask = &wait_stage,
		.commandBufferCount = 1,
	};
	VkPresentInfoKHR present = {
		.sType = VK_STRUCTURE_TYPE_PRESENT_INFO_KHR,
		.waitSemaphoreCount = 1,
		.swapchainCount = 1,
		.pSwapchains = &v->swapchain,
	};
	uint32_t img;
	VkResult r;

	if (vk_failed(vkWaitForFences(v->dev, 1, &fence, VK_TRUE, UINT64_MAX), "vkWaitForFences"))
		return -1;
	for (;;) {
		r = vkAcquireNextImageKHR(v->dev, v->swapchain, UINT64_MAX, v->acquired[slot], VK_NULL_HANDLE,
					  &img);
		if (r != VK_ERROR_OUT_OF_DATE_KHR)
			break;
		if (make_swapchain(v, v->extent.width, v->extent.height) < 0)
			return -1;
	}
	if (r == VK_SUBOPTIMAL_KHR)
		*stale = true;
	else if (vk_failed(r, "vkAcquireNextImageKHR"))
		return -1;
	/* the frame before that drew this image must be done with its commands */
	if (v->image_fence[img] &&
	    vk_failed(vkWaitForFences(v->dev, 1, &v->image_fence[img], VK_TRUE, UINT64_MAX), "vkWaitForFences"))
		return -1;
	v->image_fence[img] = fence;
	submit.pCommandBuffers = &v->cmds[img];
	submit.signalSemaphoreCount = 1;
	submit.pSignalSemaphores = &v->drawn[img];
	if (vk_failed(vkResetFences(v->dev, 1, &fence), "vkResetFences") ||
	    vk_failed(vkQueueSubmit(v->queue, 1, &submit, fence), "vkQueueSubmit"))
		return -1;
	present.pWaitSemaphores = &v->drawn[img];
	present.pImageIndices = &img;
	r = vkQueuePresentKHR(v->queue, &present);
	v->presents++;
	if (r == VK_ERROR_OUT_OF_DATE_KHR || r == VK_SUBOPTIMAL_KHR)
		*stale = true;
	else if (vk_failed(r, "vkQueuePresentKHR"))
		return -1;
	return 0;
}

static bool more_frames(const struct vkp *v, uint64_t until, uint64_t until_ns)
{
	return v->presents < until || (until_ns && mono_ns() < until_ns);
}

/* Frames until there were `until` presents and the clock passed until_ns
 * (0: no deadline). The swapchain is recreated when it went stale, and
 * after every o->recreate_every-th present but the phase's last. */
static int frames(struct vkp *v, const struct vkp_opts *o, uint64_t until, uint64_t until_ns)
{
	while (more_frames(v, until, until_ns)) {
		bool stale = false;

		if (frame(v, &stale) < 0)
			return -1;
		if (o->recreate_every && v->presents % o->recreate_every == 0 &&
		    more_frames(v, until, until_ns)) {
			bool bigger = v->presents / o->recreate_every % 2;

			if (make_swapchain(v, o->width + (bigger ? 16 : 0), o->height + (bigger ? 16 : 0)) < 0)
				return -1;
		} else if (stale && make_swapchain(v, v->extent.width, v->extent.height) < 0) {
			return -1;
		}
	}
	return 0;
}

static void close_all(struct vkp *v)
{
	if (v->dev) {
		vkDeviceWaitIdle(v->dev);
		release_images(v);
		for (int i = 0; i < IN_FLIGHT; i++) {
			vkDestroySemaphore(v->dev, v->acquired[i], NULL);
			vkDestroyFence(v->dev, v->frame_fence[i], NULL);
		}
		if (v->swapchain)
			vkDestroySwapchainKHR(v->dev, v->swapchain, NULL);
		vkDestroyCommandPool(v->dev, v->pool, NULL);
		vkDestroyDevice(v->dev, NULL);
	}
	if (v->surface)
		vkDestroySurfaceKHR(v->inst, v->surface, NULL);
	if (v->inst)
		vkDestroyInstance(v->inst, NULL);
	if (v->win)
		XDestroyWindow(v->dpy, v->win);
	if (v->dpy)
		XCloseDisplay(v->dpy);
}

static void usage(FILE *f)
{
	fprintf(f, "usage: vkpresent [--frames N] [--warmup W] [--warmup-ms MS] [--tail-ms MS] [--size WxH]\n"
		   "                 [--mode immediate|mailbox|fifo] [--recreate-every K]\n");
}

/* A number option's value into *v; min is its least value. */
static int opt_number(const char *name, const char *arg, uint64_t min, uint64_t *v)
{
	if (safe_atou64(arg, v) == 0 && *v >= min)
		return 0;
	fprintf(stderr, "vkpresent: --%s wants a %snumber, not '%s'\n", name, min ? "positive " : "", arg);
	return -1;
}

/* 0: run; 1: --help was given; -1: a bad option (said on stderr). */
static int parse_options(int argc, char **argv, struct vkp_opts *o)
{
	static const struct option longopts[] = {
		{ "frames", required_argument, NULL, 'n' },
		{ "warmup", required_argument, NULL, 'w' },
		{ "warmup-ms", required_argument, NULL, 'W' },
		{ "tail-ms", required_argument, NULL, 'T' },
		{ "size", required_argument, NULL, 'S' },
		{ "mode", required_argument, NULL, 'm' },
		{ "recreate-every", required_argument, NULL, 'r' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	int c, r = 0, idx = 0;  /* getopt_long sets idx for the long options it knows */
	size_t i;

	while (r == 0 && (c = getopt_long(argc, argv, "", longopts, &idx)) != -1) {
		const char *name = longopts[idx].name;

		switch (c) {
		case 'n':
			r = opt_number(name, optarg, 1, &o->frames);
			break;
		case 'w':
			r = opt_number(name, optarg, 0, &o->warmup);
			break;
		case 'W':
			r = opt_number(name, optarg, 0, &o->warmup_ms);
			break;
		case 'T':
			r = opt_number(name, optarg, 0, &o->tail_ms);
			break;
		case 'r':
			r = opt_number(name, optarg, 1, &o->recreate_every);
			break;
		case 'S':
			r = parse_size(optarg, &o->width, &o->height);
			if (r < 0)
				fprintf(stderr, "vkpresent: --size wants WxH, not '%s'\n", optarg);
			break;
		case 'm':
			for (i = 0; i < ARRAY_SIZE(modes) && strcmp(optarg, modes[i].name) != 0; i++)
				;
			if (i < ARRAY_SIZE(modes)) {
				o->mode = modes[i].mode;
			} else {
				fprintf(stderr, "vkpresent: --mode wants immediate, mailbox or fifo, not '%s'\n",
					optarg);
				r = -1;
			}
			break;
		case 'h':
			usage(stdout);
			return 1;
		default:
			usage(stderr);
			return -1;
		}
	}
	if (r == 0 && optind != argc) {
		usage(stderr);
		r = -1;
	}
	return r < 0 ? -1 : 0;
}

int main(int argc, char **argv)
{
	struct vkp_opts o = { .frames = 1000, .width = 64, .height = 64, .mode = VK_PRESENT_MODE_IMMEDIATE_KHR };
	struct vkp v = { 0 };
	uint64_t t0, ns, cpu0, cpu, warmup, timed_presents;
	VkExtent2D first;
	int r = HB_EXIT_FAILURE;

	switch (parse_options(argc, argv, &o)) {
	case 1:
		return HB_EXIT_OK;
	case -1:
		return HB_EXIT_USAGE;
	}
	if (open_window(&v, &o) < 0 || open_device(&v) < 0 || choose_format_and_mode(&v, o.mode) < 0 ||
	    make_frame_sync(&v) < 0 || make_swapchain(&v, o.width, o.height) < 0)
		goto out;
	first = v.extent;
	t0 = mono_ns();
	if (frames(&v, &o, o.warmup, o.warmup_ms ? t0 + o.warmup_ms * 1000000 : 0) < 0 ||
	    vk_failed(vkDeviceWaitIdle(v.dev), "vkDeviceWaitIdle"))
		goto out;
	warmup = v.presents;
	timed_presents = v.presents + o.frames;
	t0 = mono_ns();
	cpu0 = thread_cpu_ns();
	if (frames(&v, &o, timed_presents, 0) < 0 || vk_failed(vkDeviceWaitIdle(v.dev), "vkDeviceWaitIdle"))
		goto out;
	ns = mono_ns() - t0;
	cpu = thread_cpu_ns() - cpu0;
	if (o.tail_ms && frames(&v, &o, 0, mono_ns() + o.tail_ms * 1000000) < 0)
		goto out;
	printf("ns_per_frame=%.1f cpu_ns_per_frame=%.1f frames=%" PRIu64 " warmup=%" PRIu64
	       " presents=%" PRIu64 " mode=%s extent=%" PRIu32 "x%" PRIu32 " swapchains=%" PRIu64 "\n",
	       (double)ns / (double)o.frames, (double)cpu / (double)o.frames, o.frames, warmup, v.presents, mode_name(v.mode), first.width,
	       first.height, v.swapchains);
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "vkpresent: cannot write the result: %s\n", strerror(errno));
		goto out;
	}
	r = HB_EXIT_OK;
out:
	close_all(&v);
	return r;
}
