/*
 * GRUB's menu as grub-mkconfig writes it into /boot/grub/grub.cfg, read
 * for one question (issue 21): which entry boots kernel release K, and
 * what grub-reboot must be given to boot it once ("Submenu>Entry", the
 * titles of the submenus it is in and its own, joined by '>').
 *
 * Enough of GRUB's script syntax to find the menu: words with '...' and
 * "..." quoting and backslash escapes, '#' comments, commands ended by a
 * newline or ';', blocks opened by a command ending in a bare '{' and
 * closed by '}' (menuentry, submenu, function). Variables are not
 * expanded: an entry's kernel is the image its linux (linux16, linuxefi)
 * command names, "/boot/vmlinuz-K" or "/vmlinuz-K" with a separate /boot.
 * Nothing here prints.
 */
#ifndef HB_GRUBCFG_H
#define HB_GRUBCFG_H

#include <stdbool.h>
#include <stddef.h>

#include "base/util.h"

struct grub_entry {
	char *title;    /* the menuentry's title */
	char *path;     /* what grub-reboot takes: "Title", or "Submenu>Title" */
	char *id;       /* its --id / $menuentry_id_option id, or NULL */
	char *image;    /* the linux command's image ("/boot/vmlinuz-6.1.0-18-amd64"), or NULL */
	char *release;  /* the kernel release the image's name gives, or NULL */
	bool recovery;  /* "recovery mode" in the title, or single/recovery on the command line */
	int line;       /* where the menuentry starts */
};

struct grub_menu {
	struct grub_entry *v;  /* in the file's order */
	size_t n, alloc;
};

void grub_menu_init(struct grub_menu *m);
void grub_menu_release(struct grub_menu *m);
/* Parses grub.cfg's text into m (entries appended). 0, or -EINVAL with
 * "LINE: what is wrong" in err (an unterminated quote, a '}' with no
 * block, a block left open at the end, a menuentry with two --id). */
int grub_menu_parse(const char *text, struct grub_menu *m, struct strbuf *err);
/* The entry to boot release: the first that boots its image and is not a
 * recovery entry (Debian's first entry, "Debian GNU/Linux", boots the
 * newest kernel; the submenu holds one normal and one recovery entry per
 * kernel). NULL when none does. */
const struct grub_entry *grub_menu_find(const struct grub_menu *m, const char *release);
/* Whether /etc/default/grub's text sets GRUB_DEFAULT=saved, which
 * grub-reboot needs (otherwise the next boot ignores it): 1 yes, 0 no
 * (another value, or none: GRUB's default is 0). */
int grub_default_is_saved(const char *text);

#endif
