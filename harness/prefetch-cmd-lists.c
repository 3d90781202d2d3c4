/*
 * hitchbench-prefetch list, show, forget and resident: the commands that
 * look at what prefetch keeps and does, for the tests and a curious
 * person. list, show and forget read the lists in the lists' directory
 * (common/prefetch/prefetch-list.c parses them); resident says how much of a file
 * is in memory (common/prefetch/prefetch-ranges.c).
 */
#include "base/message.h"
#include "prefetch-internal.h"
#include "base/exitcodes.h"
#include "prefetch/prefetch.h"
#include "base/util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int cmd_list(int argc, char **argv)
{
	DIR *d;
	struct dirent *e;

	if (argc > 1 && argv[1][0] != '-') {
		usage(stderr);
		return HB_EXIT_USAGE;
	}
	d = opendir(list_dir());
	if (!d) {
		if (errno == ENOENT)
			return 0;
		error_msg("cannot open '%s': %s", list_dir(), strerror(errno));
		return HB_EXIT_FAILURE;
	}
	while ((e = readdir(d)) != NULL) {
		size_t len = strlen(e->d_name);
		char *path;
		struct pf_list l;
		struct stat st;
		int err_line = 0;

		if (len < 6 || strcmp(e->d_name + len - 5, ".list") != 0)
			continue;
		path = xasprintf("%s/%s", list_dir(), e->d_name);
		if (pf_list_read(path, &l, &err_line) == 0) {
			bool cur = stat(l.exe, &st) == 0 &&
				   pf_list_current(&l, (uint64_t)st.st_size, st.st_mtim.tv_sec);

			printf("%.*s\t%s\t%zu files\t%.1f MB\t%d sessions%s\n", (int)len - 5, e->d_name,
			       l.exe, l.n, pf_list_bytes(&l) / 1048576.0, l.sessions,
			       cur ? "" : "\tstale");
			pf_list_release(&l);
		} else {
			printf("%.*s\t?\tunreadable (line %d)\n", (int)len - 5, e->d_name, err_line);
		}
		free(path);
	}
	closedir(d);
	return 0;
}

static uint64_t file_bytes(const struct pf_file *f)
{
	uint64_t b = 0;

	for (size_t j = 0; j < f->n; j++)
		b += f->ranges[j].len;
	return b;
}

static int show_forget(int argc, char **argv, bool forget)
{
	char *path;
	int r, err_line = 0;

	if (argc != 2) {
		usage(stderr);
		return HB_EXIT_USAGE;
	}
	path = list_path_of(argv[1]);
	if (forget) {
		r = unlink(path) < 0 ? -errno : 0;
	} else {
		struct pf_list l;

		r = pf_list_read(path, &l, &err_line);
		if (r == 0) {
			printf("exe %s\nsessions %d\n", l.exe, l.sessions);
			for (size_t i = 0; i < l.n; i++)
				printf("%8.1f KiB %3zu ranges  first %d misses %d  %s\n",
				       file_bytes(&l.files[i]) / 1024.0,
				       l.files[i].n, l.files[i].first, l.files[i].misses,
				       l.files[i].path);
			pf_list_release(&l);
		}
	}
	if (r < 0) {
		error_msg("'%s': %s", path,
			r == -EINVAL ? "not a prefetch list" : strerror(-r));
		free(path);
		return HB_EXIT_FAILURE;
	}
	free(path);
	return 0;
}

int cmd_show(int argc, char **argv)
{
	return show_forget(argc, argv, false);
}

int cmd_forget(int argc, char **argv)
{
	return show_forget(argc, argv, true);
}

/* What the tests and a curious person check a fetch by. */
int cmd_resident(int argc, char **argv)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	bool drop = false;
	int rc = 0, i = 1;

	if (i < argc && strcmp(argv[i], "--drop") == 0) {
		drop = true;
		i++;
	}
	if (i >= argc) {
		usage(stderr);
		return HB_EXIT_USAGE;
	}
	for (; i < argc; i++) {
		int fd = open(argv[i], O_RDONLY | O_CLOEXEC);
		struct stat st;
		uint64_t pages = 0;
		int r;

		if (fd < 0 || fstat(fd, &st) < 0) {
			error_msg("cannot open '%s': %s", argv[i], strerror(errno));
			if (fd >= 0)
				close(fd);
			rc = HB_EXIT_FAILURE;
			continue;
		}
		if (drop) {
			/* dirty pages stay: written back first */
			fdatasync(fd);
			posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
		}
		r = pf_resident_pages(fd, (uint64_t)st.st_size, 0, (uint64_t)st.st_size, &pages);
		if (r < 0) {
			error_msg("'%s': %s", argv[i], strerror(-r));
			rc = HB_EXIT_FAILURE;
		} else {
			printf("%llu %llu %s\n", (unsigned long long)pages,
			       (unsigned long long)((st.st_size + page - 1) / page), argv[i]);
		}
		close(fd);
	}
	return rc;
}
