/*
 * A profile as a tree of call paths (what a flame graph draws): every
 * sample's stack, root first, adds its weight to each node along its path,
 * and to the last node's self. Two sides (A and B) share one tree, so a
 * differential picture compares the same paths. Names are "LIB`FUNCTION"
 * ("kernel`do_syscall_64", "swrast_dri.so+0x1c2f30", "[jit]"), each with a
 * category (analysis/profile/profrules.h) the pictures colour by.
 */
#ifndef HB_PROFTREE_H
#define HB_PROFTREE_H

#include <stddef.h>
#include <stdint.h>

#define PROF_SIDES 2

struct prof_node {
	uint32_t name;                  /* index into the tree's names */
	uint32_t parent;                /* node index; the root's is 0 */
	uint32_t first_child;           /* node index, 0: none */
	uint32_t next_sibling;          /* node index, 0: none */
	uint8_t category;               /* index into the tree's categories */
	uint64_t total[PROF_SIDES];     /* samples through this node */
	uint64_t self[PROF_SIDES];      /* samples ending here */
};

struct prof_tree {
	struct prof_node *node;         /* node 0 is the root ("all"), name 0 */
	size_t n_node, cap_node;
	char **name;                    /* interned */
	size_t n_name, cap_name;
	const char *const *category;    /* the categories' names (not owned) */
	size_t n_category;
	double sample_s[PROF_SIDES];    /* CPU seconds one sample stands for, per side */
	const char *side_name[PROF_SIDES];   /* "A", "B", or the runs' names (not owned) */
	void *index;                    /* the name index (private) */
};

void prof_tree_init(struct prof_tree *t, const char *const *category, size_t n_category);
void prof_tree_release(struct prof_tree *t);
/* The index of name (added once). */
uint32_t prof_tree_name(struct prof_tree *t, const char *name);
/* Adds count samples of side to the path names[0..n) (root first), each
 * frame's category in cats[]. */
void prof_tree_add(struct prof_tree *t, int side, const uint32_t *names, const uint8_t *cats, size_t n,
		   uint64_t count);
/* Children of a node, in the order they were first added. */
#define prof_tree_for_children(t, parent, c) \
	for (uint32_t c = (t)->node[parent].first_child; c; c = (t)->node[c].next_sibling)

#endif
