/*
 * The Vulkan layer's manifest for one run. The frame hook the runner
 * preloads is also a Vulkan layer (harness/framehook-vk.c), but the Vulkan
 * loader finds a layer only through a manifest in its search path, and
 * Debian 12's loader (1.3.239) has no variable that adds a directory to
 * the implicit layers' path. So before the game's HOME is given to the
 * game user, the runner writes a manifest naming the hook it preloads
 * (an absolute path) where the loader looks: the game's XDG data home,
 * $XDG_DATA_HOME/vulkan/implicit_layer.d, which is HOME/.local/share/...
 * unless the recipe sets XDG_DATA_HOME. The layer is implicit and enabled
 * by HITCHBENCH_VULKAN=1, which the runner sets beside LD_PRELOAD: a
 * process without it (a prepare command, the GL probe) never loads it.
 * docs/formats.md says what bench.txt records (vulkan_layer).
 *
 * Library code: returns 0 or -errno, never prints.
 */
#ifndef HB_VKLAYER_H
#define HB_VKLAYER_H

#include <stdbool.h>

#include "text/argv.h"
#include "formats/frames.h"

/* The layer's names (HB_VK_*) are common/formats/frames.h's, shared with the
 * layer itself. */
/* The loader's entry into the layer, which the library must export. */
#define VKLAYER_ENTRY "vkNegotiateLoaderLayerInterfaceVersion"
/* Where in a data home the loader looks for implicit layers. */
#define VKLAYER_DATA_SUBDIR "vulkan/implicit_layer.d"
/* HOME's data home when XDG_DATA_HOME is not set. */
#define VKLAYER_DEFAULT_DATA_HOME ".local/share"

/* The manifest template, harness/VkLayer_hitchbench.json.in as built in
 * (build/gen/vkmanifest.c): the one source of the build tree's, the
 * installed and the runner's manifests; "@LIBRARY_PATH@" stands for the
 * layer library. */
extern const char vklayer_manifest_template[];

/* The manifest's JSON for the layer library at library_path (absolute),
 * ending in a newline: a new string. */
char *vklayer_manifest(const char *library_path);

/* The value of XDG_DATA_HOME the game gets from env (NAME=VALUE words, a
 * later NAME winning, as the game's environment is built), or NULL. */
const char *vklayer_env_data_home(const char *const *env);

/* The directory the manifest goes in: data_home/VKLAYER_DATA_SUBDIR when
 * data_home (the game's XDG_DATA_HOME) is given, else
 * home/.local/share/VKLAYER_DATA_SUBDIR. A new string, or NULL with
 * -EINVAL in *err when data_home is relative: the XDG base directory spec
 * calls such a value invalid, but the 1.3.239 loader reads it relative to
 * the game's working directory and then skips HOME/.local/share, so no
 * place would be sure to be searched. */
char *vklayer_manifest_dir(const char *home, const char *data_home, int *err);

/* Writes DIR/HB_VK_MANIFEST_NAME (mode 0644, through a rename) for the
 * library at library_path, making DIR and its parents (0755). The path
 * written, a new string, into *path_out when it is not NULL. 0 or
 * -errno; -EINVAL for a relative library_path (the loader would read it
 * relative to the manifest). */
int vklayer_write_manifest(const char *dir, const char *library_path, char **path_out);

/* Whether the library file names the layer's entry point (its dynamic
 * symbol table holds the string): a hook built before the layer does
 * not, and a manifest naming it would only make the loader complain.
 * 1 (yes), 0 (no), or -errno when it cannot be read. */
int vklayer_library_has_entry(const char *library_path);

#endif
