/*
 * What a run ran on, for bench.txt: kernel, host, boot, CPU, memory, the
 * game's Debian package versions, the harness version. A number without
 * its conditions is worthless a week later.
 */
#ifndef HB_PROVENANCE_H
#define HB_PROVENANCE_H

#include "text/argv.h"
#include "text/kvfile.h"

struct game_user;

/*
 * The keys are listed in docs/formats.md. A file that is not there is
 * normal (another kernel, another architecture, a container): its key is
 * left out, except where a key says "none" by definition (cpu_governor
 * without cpufreq, swaps without swap, psi=no).
 */

/* Adds kernel_release, kernel_version, machine, host, what
 * provenance_machine() adds, boot_id, what provenance_kernel() adds, cpu_model, cpu_microcode, cpus, what
 * provenance_cpu() adds, mem_total_kb, mem_available_kb, swap_total_kb,
 * swap_free_kb, what provenance_memory() adds, harness_version, and in a
 * Slurm job (a lab job) slurm_job_id, slurm_restart_count, slurm_node and
 * kernel_wanted. Reads
 * proc/ and sys/ under the root. */
void provenance_system(struct kvfile *kf);

/* kernel_cmdline, cpu_vulnerability.NAME (one per file, sorted by name),
 * clocksource, delayacct, psi. */
void provenance_kernel(struct kvfile *kf);
/* The machine's identity beside its host name: machine_id (etc/machine-id)
 * and gpu ("VVVV:DDDD DRIVER" of each DRM card, "; " between, in card
 * order; no key on a machine without one). */
void provenance_machine(struct kvfile *kf);
/* cpu_online, cpu_governor. */
void provenance_cpu(struct kvfile *kf);
/* swappiness, swaps, thp_enabled, thp_defrag. */
void provenance_memory(struct kvfile *kf);
/* package.NAME, the key of a package: a Debian name is [a-z0-9+.-], and
 * a key has no '+', so each '+' is written "_2b" (no Debian name has a
 * '_'): "package.libstdc_2b_2b6" (docs/formats.md). key has room for size
 * bytes; a name too long is cut. Exported for the tests
 * (test-provenance.c). */
void package_key(const char *name, char *key, size_t size);
/* Adds package.NAME=VERSION (package_key) for each package ("not-installed"
 * when dpkg does not know it, "unknown" without dpkg-query). */
void provenance_packages(struct kvfile *kf, const struct argv_list *packages);

/*
 * The GL stack the game will get, asked of the X server it will use: runs
 * `GLXINFO -B` (glxinfo is the full path; mesa-utils) as user (NULL: as
 * ourselves) with envp (DISPLAY, XAUTHORITY, HOME... as the game gets
 * them, without the frame hook), killing it after timeout_s. Adds
 * gl_vendor, gl_renderer, gl_version, gl_core_version, gl_es_version,
 * mesa_version, gl_direct as glxinfo_parse() finds them. On failure adds
 * gl_probe=failed: WHY and returns -errno: that of the spawn, -ETIMEDOUT,
 * -EIO (glxinfo failed) or -ENODATA (no renderer in its output). Called by
 * the runner once the display is up and before the game starts; a failure
 * is recorded, not fatal.
 */
int provenance_gl(struct kvfile *kf, const char *glxinfo, char *const *envp,
		  const struct game_user *user, double timeout_s);

/* Parsers on buffers, for the functions above and the tests. */

/* Parses `glxinfo -B` output. Adds the gl_* keys and mesa_version found
 * and returns 0, or adds nothing and returns -ENODATA when there is no
 * "OpenGL renderer string:". */
int glxinfo_parse(const char *text, struct kvfile *kf);
/* /proc/cpuinfo text: the first "model name" (or "cpu" on powerpc);
 * the first "microcode" (x86 only). A new string or NULL. */
char *cpuinfo_model(const char *text);
char *cpuinfo_microcode(const char *text);
/* The "KEY:" line of /proc/meminfo text in kB ("MemTotal"); -1 if absent. */
long long meminfo_kb(const char *text, const char *key);
long long meminfo_total_kb(const char *text);
/* The devices of /proc/swaps text as "NAME TYPE SIZEkB prio N" joined by
 * "; ", or "none" with no device. A new string; NULL if the header line
 * is not there. */
char *swaps_describe(const char *text);
/* The [bracketed] choice of a sysfs multiple-choice file ("always
 * [madvise] never" -> "madvise"). A new string or NULL. */
char *sysfs_choice(const char *text);
/* The scaling governors of n CPUs (cpus[] ascending; governors[i] NULL
 * where CPU cpus[i] has no cpufreq): "performance" when all agree,
 * "powersave (cpu0-3), performance (cpu4-7)" when not, "none (no
 * cpufreq)" when none has one. A new string; NULL when n is 0. */
char *cpu_governors_describe(const int *cpus, const char *const *governors, size_t n);

#endif
