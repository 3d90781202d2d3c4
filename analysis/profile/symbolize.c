/*
 * The symbolizer (symbolize.h): one libdwfl session per file (a file's
 * symbols looked up at its own link-time addresses), kept for the files a
 * profile touches.
 */
#include "profile/symbolize.h"
#include "base/util.h"

#include <dlfcn.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct symfile {
	char *path;
	uint8_t build_id[HB_PROFREC_MAX_BUILD_ID];
	uint8_t build_id_len;
	char *base;             /* its file name */
	Dwfl *dwfl;
	Dwfl_Module *mod;
	GElf_Addr bias;
	Elf *elf;
	char *why_not;          /* why it names nothing, or NULL */
};

struct symbolizer {
	struct symfile *file;
	size_t n;
	char **strings;         /* names handed out */
	size_t n_strings;
};

static char *debuginfo_path;

static const Dwfl_Callbacks callbacks = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.section_address = dwfl_offline_section_address,
	.debuginfo_path = &debuginfo_path,
};

struct symbolizer *symbolizer_new(void)
{
	return zalloc(sizeof(struct symbolizer));
}

void symbolizer_free(struct symbolizer *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->n; i++) {
		if (s->file[i].dwfl)
			dwfl_end(s->file[i].dwfl);
		free(s->file[i].path);
		free(s->file[i].base);
		free(s->file[i].why_not);
	}
	for (size_t i = 0; i < s->n_strings; i++)
		free(s->strings[i]);
	free(s->strings);
	free(s->file);
	free(s);
}

static const char *keep(struct symbolizer *s, char *str)
{
	s->strings = xrealloc(s->strings, (s->n_strings + 1) * sizeof(*s->strings));
	s->strings[s->n_strings++] = str;
	return str;
}

static void open_file(struct symfile *f)
{
	const unsigned char *bits;
	GElf_Addr vaddr;
	int len;

	if (f->path[0] != '/') {
		f->why_not = xstrdup("not a file");
		return;
	}
	f->dwfl = dwfl_begin(&callbacks);
	if (!f->dwfl) {
		f->why_not = xasprintf("libdwfl: %s", dwfl_errmsg(-1));
		return;
	}
	dwfl_report_begin(f->dwfl);
	f->mod = dwfl_report_offline(f->dwfl, f->base, f->path, -1);
	dwfl_report_end(f->dwfl, NULL, NULL);
	if (!f->mod) {
		f->why_not = xasprintf("cannot read it (%s)", dwfl_errmsg(-1));
		return;
	}
	len = dwfl_module_build_id(f->mod, &bits, &vaddr);
	if (f->build_id_len && len > 0 &&
	    ((size_t)len != f->build_id_len || memcmp(bits, f->build_id, (size_t)len) != 0)) {
		f->why_not = xstrdup("its build id is not the one the recorder saw (replaced since the run)");
		f->mod = NULL;
		return;
	}
	f->elf = dwfl_module_getelf(f->mod, &f->bias);
	if (!f->elf) {
		f->why_not = xasprintf("no ELF (%s)", dwfl_errmsg(-1));
		f->mod = NULL;
	}
}

static struct symfile *file_of(struct symbolizer *s, const struct prof_map *m)
{
	struct symfile *f;
	const char *slash;

	for (size_t i = 0; i < s->n; i++)
		if (strcmp(s->file[i].path, m->path) == 0 && s->file[i].build_id_len == m->build_id_len &&
		    memcmp(s->file[i].build_id, m->build_id, m->build_id_len) == 0)
			return &s->file[i];
	s->file = xrealloc(s->file, (s->n + 1) * sizeof(*s->file));
	f = &s->file[s->n++];
	memset(f, 0, sizeof(*f));
	f->path = xstrdup(m->path);
	memcpy(f->build_id, m->build_id, m->build_id_len);
	f->build_id_len = m->build_id_len;
	slash = strrchr(m->path, '/');
	f->base = xstrdup(slash && slash[1] ? slash + 1 : m->path);
	open_file(f);
	return f;
}

/* The file offset off as an address of the loaded module, or 0. */
static GElf_Addr module_addr(const struct symfile *f, uint64_t off)
{
	size_t n;

	if (elf_getphdrnum(f->elf, &n) < 0)
		return 0;
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;

		if (gelf_getphdr(f->elf, (int)i, &ph) && ph.p_type == PT_LOAD && off >= ph.p_offset &&
		    off < ph.p_offset + ph.p_filesz)
			return off - ph.p_offset + ph.p_vaddr + f->bias;
	}
	return 0;
}

/* C++ names made readable by the C++ runtime's own demangler, looked up
 * at run time (libstdc++'s __cxa_demangle): the program links no C++,
 * and where the runtime is missing names stay as the file has them. */
typedef char *(*demangle_fn)(const char *, char *, size_t *, int *);

static demangle_fn demangler(void)
{
	static demangle_fn fn;
	static bool tried;

	if (!tried) {
		void *lib = dlopen("libstdc++.so.6", RTLD_LAZY | RTLD_LOCAL);

		tried = true;
		if (lib)
			*(void **)&fn = dlsym(lib, "__cxa_demangle");
	}
	return fn;
}

static char *readable(const char *name)
{
	demangle_fn fn = str_startswith(name, "_Z") ? demangler() : NULL;
	int status = -1;
	char *d = fn ? fn(name, NULL, NULL, &status) : NULL;

	if (d && status == 0)
		return d;
	free(d);
	return xstrdup(name);
}

void symbolizer_name(struct symbolizer *s, const struct profrec *rec, int32_t pid, uint64_t addr, bool ret,
		     struct sym_frame *out)
{
	const struct prof_map *m = profrec_map(rec, pid, addr);
	struct symfile *f;
	GElf_Addr a;

	memset(out, 0, sizeof(*out));
	if (!m) {
		out->library = "[unknown]";
		out->unknown = true;
		out->offset = addr;
		return;
	}
	if (strcmp(m->path, "//anon") == 0 || str_startswith(m->path, "[anon") ||
	    str_startswith(m->path, "/memfd:") || str_startswith(m->path, "//")) {
		out->library = "[jit]";
		out->jit = true;
		out->offset = addr - m->start;
		return;
	}
	out->offset = addr - m->start + m->pgoff;
	f = file_of(s, m);
	out->library = f->base;
	if (!f->mod)
		return;
	a = module_addr(f, out->offset - (ret ? 1 : 0));
	if (a) {
		GElf_Sym sym;
		GElf_Off off;
		const char *name = dwfl_module_addrinfo(f->mod, a, &off, &sym, NULL, NULL, NULL);

		/* the nearest symbol below is only the function when the
		 * address falls inside it */
		if (name && (sym.st_size ? off < sym.st_size : off < 64))
			out->function = keep(s, readable(name));
	}
}

void symbolizer_notes(const struct symbolizer *s, struct strbuf *out)
{
	for (size_t i = 0; i < s->n; i++)
		if (s->file[i].why_not)
			strbuf_addf(out, "%s: %s\n", s->file[i].path, s->file[i].why_not);
}
