/*
 * The call-path tree (proftree.h): nodes in one array, children as a
 * linked list (a node has few), names interned through a hash table.
 */
#include "profile/proftree.h"
#include "base/hash.h"
#include "base/util.h"

#include <stdlib.h>
#include <string.h>

struct name_index {
	uint32_t *slot;                 /* name index + 1; 0 empty */
	size_t cap;
};

void prof_tree_init(struct prof_tree *t, const char *const *category, size_t n_category)
{
	memset(t, 0, sizeof(*t));
	t->category = category;
	t->n_category = n_category;
	t->index = zalloc(sizeof(struct name_index));
	prof_tree_name(t, "all");
	t->cap_node = 64;
	t->node = zalloc(t->cap_node * sizeof(*t->node));
	t->n_node = 1;
}

void prof_tree_release(struct prof_tree *t)
{
	struct name_index *ix = t->index;

	for (size_t i = 0; i < t->n_name; i++)
		free(t->name[i]);
	free(t->name);
	free(t->node);
	if (ix)
		free(ix->slot);
	free(ix);
	memset(t, 0, sizeof(*t));
}

static size_t slot_of(const struct prof_tree *t, const struct name_index *ix, const char *name)
{
	size_t i = (size_t)fnv1a_32(name, strlen(name)) & (ix->cap - 1);

	while (ix->slot[i] && strcmp(t->name[ix->slot[i] - 1], name) != 0)
		i = (i + 1) & (ix->cap - 1);
	return i;
}

uint32_t prof_tree_name(struct prof_tree *t, const char *name)
{
	struct name_index *ix = t->index;
	size_t i;

	if ((t->n_name + 1) * 2 > ix->cap) {
		struct name_index grown = { .cap = ix->cap ? ix->cap * 2 : 256 };

		grown.slot = zalloc(grown.cap * sizeof(*grown.slot));
		for (size_t k = 0; k < t->n_name; k++)
			grown.slot[slot_of(t, &grown, t->name[k])] = (uint32_t)k + 1;
		free(ix->slot);
		*ix = grown;
	}
	i = slot_of(t, ix, name);
	if (ix->slot[i])
		return ix->slot[i] - 1;
	if (t->n_name == t->cap_name) {
		t->cap_name = t->cap_name ? t->cap_name * 2 : 256;
		t->name = xrealloc(t->name, t->cap_name * sizeof(*t->name));
	}
	t->name[t->n_name] = xstrdup(name);
	ix->slot[i] = (uint32_t)++t->n_name;
	return (uint32_t)(t->n_name - 1);
}

static uint32_t child(struct prof_tree *t, uint32_t parent, uint32_t name, uint8_t cat)
{
	uint32_t last = 0, c;

	for (c = t->node[parent].first_child; c; c = t->node[c].next_sibling) {
		if (t->node[c].name == name)
			return c;
		last = c;
	}
	if (t->n_node == t->cap_node) {
		t->cap_node *= 2;
		t->node = xrealloc(t->node, t->cap_node * sizeof(*t->node));
	}
	c = (uint32_t)t->n_node++;
	memset(&t->node[c], 0, sizeof(t->node[c]));
	t->node[c].name = name;
	t->node[c].parent = parent;
	t->node[c].category = cat;
	if (last)
		t->node[last].next_sibling = c;
	else
		t->node[parent].first_child = c;
	return c;
}

void prof_tree_add(struct prof_tree *t, int side, const uint32_t *names, const uint8_t *cats, size_t n,
		   uint64_t count)
{
	uint32_t at = 0;

	t->node[0].total[side] += count;
	for (size_t i = 0; i < n; i++) {
		at = child(t, at, names[i], cats[i]);
		t->node[at].total[side] += count;
	}
	t->node[at].self[side] += count;
}
