/*
 * hitchbench recipes: what a RECIPE argument can name, with the variants
 * each recipe offers (its [variant] sections) and how it runs.
 *
 *   dsda-doom  Freedoom 2 DEMO2 as a dsda-doom timedemo, looped, ...
 *     variants: software (default): dsda-doom's software renderer ...
 *               gl: dsda-doom's OpenGL renderer ...
 *     frames hook; warm-up 10 s, window 60 s, ends when the window is full
 *     packages: dsda-doom freedoom
 *     file: /.../recipes/dsda-doom.ini
 *
 * --names prints the names alone, one a line (for shell completion and
 * scripts). A recipe that does not load is said on stderr with its
 * file:line, the others are still listed, and the exit is 2.
 */
#include "cmd/cmd.h"
#include "base/exitcodes.h"
#include "recipe/recipe.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char recipes_usage[] =
	"usage: hitchbench recipes [--names] [RECIPE...]\n"
	"\n"
	"  lists the recipes 'hitchbench run RECIPE' can name (the recipe\n"
	"  directories in the order they are searched: the checkout's or the\n"
	"  installed recipes/, and ./recipes when installed), each with its\n"
	"  description, its variants (the default first), its frame source,\n"
	"  warm-up and window, the Debian packages it needs and its file;\n"
	"  RECIPE... lists only those (names or paths)\n"
	"\n"
	"  --names  the names alone, one a line\n"
	"\n"
	"  A recipe that does not load is said with its file:line (exit 2); the\n"
	"  others are listed all the same.\n";

static const char *end_words(const struct recipe *r)
{
	switch (r->end) {
	case END_WINDOW:
		return "ends when the window is full";
	case END_EXIT:
		return "ends when the game exits";
	case END_LINE:
		return "ends at a line of the game's output";
	}
	return "";
}

static void print_variants(const struct recipe *r)
{
	const char *def = r->default_variant ? r->default_variant : "base";
	bool first = true;

	if (!r->n_variants) {
		printf("  variants: base (default): the recipe alone\n");
		return;
	}
	/* the default first, then the others in the file's order */
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < r->n_variants; i++) {
			const struct recipe_variant *v = &r->variants[i];
			bool is_def = strcmp(v->name, def) == 0;

			if (is_def != (pass == 0))
				continue;
			printf("  %-10s%s%s%s%s\n", first ? "variants:" : "", v->name, is_def ? " (default)" : "",
			       v->description ? ": " : "", v->description ? v->description : "");
			first = false;
		}
}

static void print_recipe(const struct recipe *r)
{
	printf("%s  %s\n", r->name, r->description ? r->description : "(no description)");
	print_variants(r);
	printf("  frames %s; warm-up %g s, window %g s, %s\n", frame_source_name(r->frames), r->warmup_s,
	       r->window_s, end_words(r));
	if (r->packages.n) {
		char *p = argv_join(r->packages.v);

		printf("  packages: %s\n", p);
		free(p);
	}
	printf("  file: %s\n", r->path);
}

/* One recipe: listed, or said on stderr; HB_EXIT_OK or HB_EXIT_USAGE. */
static int list_one(const char *arg, struct context *ctx)
{
	char *path = recipe_resolve(arg, (const char *const *)ctx->recipe_dirs);
	struct strbuf err = STRBUF_INIT;
	struct recipe r;
	int ret = HB_EXIT_OK;

	recipe_init(&r);
	if (!path) {
		error_msg("no recipe '%s'; 'hitchbench recipes' lists them", arg);
		ret = HB_EXIT_USAGE;
	} else if (recipe_load(path, &r, &err) < 0) {
		fprintf(stderr, "%s\n", err.buf);
		ret = HB_EXIT_USAGE;
	} else {
		print_recipe(&r);
	}
	recipe_release(&r);
	strbuf_release(&err);
	free(path);
	return ret;
}

int cmd_recipes(int argc, char **argv, struct context *ctx)
{
	static const struct option opts[] = {
		{ "names", no_argument, NULL, 'n' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct argv_list names;
	bool names_only = false;
	int c, ret = HB_EXIT_OK;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'n':
			names_only = true;
			break;
		case 'h':
			fputs(recipes_usage, stdout);
			return HB_EXIT_OK;
		default:
			fputs(recipes_usage, stderr);
			return HB_EXIT_USAGE;
		}
	}
	argv_init(&names);
	for (int i = optind; i < argc; i++)
		argv_push(&names, argv[i]);
	if (optind == argc)
		recipe_names((const char *const *)ctx->recipe_dirs, &names);
	for (size_t i = 0; i < names.n; i++) {
		int r;

		if (names_only) {
			printf("%s\n", names.v[i]);
			continue;
		}
		if (i)
			putchar('\n');
		r = list_one(names.v[i], ctx);
		if (r != HB_EXIT_OK)
			ret = r;
	}
	argv_release(&names);
	return ret;
}
