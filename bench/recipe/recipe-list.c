/*
 * The recipes a command can name: every DIR/NAME.ini of the recipe
 * directories that is a recipe (recipe.h, recipe_names).
 */
#include "recipe/recipe.h"
#include "recipe/recipe-internal.h"
#include "lab/lab.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool listed(const struct argv_list *out, const char *name)
{
	for (size_t i = 0; i < out->n; i++)
		if (strcmp(out->v[i], name) == 0)
			return true;
	return false;
}

/* A recipe file, not a matrix file (recipes/matrix.ini, which lives beside
 * the recipes and is not one) nor something unreadable. */
static bool is_recipe_file(const char *path)
{
	struct stat st;
	char *text = NULL;
	bool yes;

	if (stat(path, &st) < 0 || !S_ISREG(st.st_mode) || read_file(path, &text, NULL) < 0)
		return false;
	yes = !lab_matrix_is(text);
	free(text);
	return yes;
}

void recipe_names(const char *const *dirs, struct argv_list *out)
{
	for (size_t i = 0; dirs && dirs[i]; i++) {
		DIR *d = dirs[i][0] ? opendir(dirs[i]) : NULL;
		struct dirent *e;

		while (d && (e = readdir(d))) {
			size_t n = strlen(e->d_name);
			char *name, *path;

			if (n <= 4 || strcmp(e->d_name + n - 4, ".ini") != 0)
				continue;
			name = xstrndup(e->d_name, n - 4);
			path = xasprintf("%s/%s", dirs[i], e->d_name);
			if (recipe_valid_name(name) && !listed(out, name) && is_recipe_file(path))
				argv_push(out, name);
			free(path);
			free(name);
		}
		if (d)
			closedir(d);
	}
	if (out->n)
		qsort(out->v, out->n, sizeof(*out->v), name_cmp);
}
