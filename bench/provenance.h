/*
 * What a run ran on, for bench.txt: kernel, host, boot, CPU, memory, the
 * game's Debian package versions, the harness version. A number without
 * its conditions is worthless a week later.
 */
#ifndef HB_PROVENANCE_H
#define HB_PROVENANCE_H

#include "argv.h"
#include "kvfile.h"

/* Adds kernel_release, kernel_version, machine, host, boot_id, cpu_model,
 * cpus, mem_total_kb, harness_version (reading proc/ under the root). */
void provenance_system(struct kvfile *kf);
/* Adds package.NAME=VERSION for each package ("not-installed" when dpkg
 * does not know it, "unknown" without dpkg-query). */
void provenance_packages(struct kvfile *kf, const struct argv_list *packages);
/* Parses /proc/cpuinfo text for the first "model name" (or "cpu" on
 * powerpc). Returns a new string or NULL. */
char *cpuinfo_model(const char *text);
/* The "MemTotal:" of /proc/meminfo text in kB; -1 if absent. */
long long meminfo_total_kb(const char *text);

#endif
