/*
 * The Vulkan layer's manifest for one run (see vklayer.h): its text, where
 * the game's loader will look for it, and the file written there.
 */
#include "runner/vklayer.h"
#include "base/util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LIBRARY_PATH_MARK "@LIBRARY_PATH@"

/* s as a JSON string's content (the template has the quotes): quote,
 * backslash and control characters escaped; other bytes as they are (a
 * path is bytes, JSON wants UTF-8: the loader reads the bytes back as
 * they were). */
static void add_json_string_content(struct strbuf *sb, const char *s)
{
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			strbuf_addf(sb, "\\%c", c);
		else if (c < 0x20)
			strbuf_addf(sb, "\\u%04x", c);
		else
			strbuf_addch(sb, (char)c);
	}
}

char *vklayer_manifest(const char *library_path)
{
	const char *mark = strstr(vklayer_manifest_template, LIBRARY_PATH_MARK);
	struct strbuf sb = STRBUF_INIT;

	/* the template is the build's own (harness/VkLayer_hitchbench.json.in,
	 * compiled in): it has the mark, once */
	strbuf_add(&sb, vklayer_manifest_template, (size_t)(mark - vklayer_manifest_template));
	add_json_string_content(&sb, library_path);
	strbuf_addstr(&sb, mark + strlen(LIBRARY_PATH_MARK));
	return strbuf_detach(&sb);
}

const char *vklayer_env_data_home(const char *const *env)
{
	static const char name[] = "XDG_DATA_HOME=";
	const char *value = NULL;

	for (size_t i = 0; env && env[i]; i++)
		if (!strncmp(env[i], name, sizeof(name) - 1))
			value = env[i] + sizeof(name) - 1;
	return value;
}

char *vklayer_manifest_dir(const char *home, const char *data_home, int *err)
{
	/* an empty value is unset, to the spec and to the loader alike */
	if (data_home && *data_home && data_home[0] != '/') {
		*err = -EINVAL;
		return NULL;
	}
	if (data_home && *data_home)
		return xasprintf("%s/%s", data_home, VKLAYER_DATA_SUBDIR);
	return xasprintf("%s/%s/%s", home, VKLAYER_DEFAULT_DATA_HOME, VKLAYER_DATA_SUBDIR);
}

int vklayer_write_manifest(const char *dir, const char *library_path, char **path_out)
{
	char *path, *text;
	int r;

	if (library_path[0] != '/')
		return -EINVAL;
	r = mkdir_p(dir, 0755);
	if (r < 0)
		return r;
	path = xasprintf("%s/%s", dir, HB_VK_MANIFEST_NAME);
	text = vklayer_manifest(library_path);
	r = write_file_atomic(path, text, strlen(text), 0644);
	free(text);
	if (r == 0 && path_out)
		*path_out = path;
	else
		free(path);
	return r;
}

int vklayer_library_has_entry(const char *library_path)
{
	char *data = NULL;
	size_t len = 0;
	int r = read_file(library_path, &data, &len);

	if (r < 0)
		return r;
	/* the name with its terminating NUL, as the string table holds it */
	r = memmem(data, len, VKLAYER_ENTRY, sizeof(VKLAYER_ENTRY)) != NULL;
	free(data);
	return r;
}
