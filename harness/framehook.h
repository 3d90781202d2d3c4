/*
 * The frame hook's parts, between themselves (not installed, not seen by
 * anything but harness/framehook*.c). One shared object,
 * hitchbench-hook.so, is both the GL hook (preloaded) and the Vulkan layer
 * (loaded by the Vulkan loader), so that a present nesting across APIs
 * (Zink: glXSwapBuffers inside, vkQueuePresentKHR under it) shares one
 * thread-local depth and is counted once:
 *   framehook-record.c  the frame file, present_begin/present_end, the
 *                       SLOWDOWN spin, the cost sample, the constructor
 *   framehook-gl.c      the GLX, EGL and SDL interposers and the lookups
 *                       (dlsym, glXGetProcAddress, eglGetProcAddress)
 *   framehook-vk.c      the Vulkan layer
 * Built with -fvisibility=hidden: what is declared here is shared between
 * the parts and invisible outside; HOOK_EXPORT marks what the game or the
 * loader may see.
 */
#ifndef HB_FRAMEHOOK_H
#define HB_FRAMEHOOK_H

#include "formats/frames.h"

#include <stdbool.h>
#include <stdint.h>

#define HOOK_EXPORT __attribute__((visibility("default")))

/* One present in progress, between present_begin() and present_end(). */
struct present {
	bool recording;         /* the outermost present, and a file is mapped */
	bool sampled;           /* measure the hook's own cost on this one */
	uint64_t slot;
	uint64_t t_entry;       /* the record's time */
	uint64_t t_call;        /* just before the real call (sampled only) */
	uint64_t t_return;      /* just after it */
	uint64_t spin_ns;       /* SLOWDOWN's busy-wait before the real call */
};

/*
 * Around the real present call, in every interposer and in the layer's
 * vkQueuePresentKHR: begin stamps the record (only the outermost present
 * of a thread, and only with a frame file mapped) and spins for SLOWDOWN;
 * end completes it. source is an enum hb_present_source. No system call,
 * lock or allocation.
 */
void present_begin(struct present *p, uint16_t source);
void present_end(struct present *p);

/* Whether a frame file is mapped (fixed once the constructor has run). */
bool hook_recording(void);

/* A swapchain event into the file's events (pid and time filled here;
 * nothing without a file). Not for the per-present path. */
void hook_event_write(const struct hb_frame_event *ev);
/* One more VkInstance the layer is active in, in the header. */
void hook_count_vk_instance(void);

/* The constructor's part for the GL side: finds the real dlsym before the
 * game's main() (framehook-gl.c). */
void hook_gl_init(void);

#endif
