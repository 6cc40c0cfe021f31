/* SPDX-License-Identifier: GPL-2.0 */
#ifndef WBLAB_KERNEL_H
#define WBLAB_KERNEL_H

#include <stdbool.h>

#include "artifact/debfetch.h"
#include "spec/specs.h"
#include "util/hash.h"

/*
 * A kernel ready to boot, prebuilt or built from source, recorded in
 * ROOT/kernels/<name>-<hash12>/kernel.json.
 */
struct kernel_artifact {
	char *name; /* spec name, e.g. debian-6.1 */
	char hash[HASH_HEX_LEN + 1]; /* cache key: everything that went in */
	char *dir; /* cache directory */
	char *version; /* uname -r in the guest */
	char *bzimage;
	char *config;
	char *modules_img; /* ext4 image of lib/modules (NULL if none) */
	char *modules_dir; /* DIR/modules/lib/modules/<version> (host side) */
	char *source; /* package name+version, or git tree+commit */
	char *patches; /* comma-separated, in order ("" if none) */
	char *origin; /* "prebuilt" or "built" */
	/*
	 * What the .config was made from, built kernels only: the base (a
	 * make target, or a user's .config with its SHA-256) and each
	 * fragment, in order, a user's with its SHA-256. Written to the
	 * sealed kernel.json (not read back; the cache key holds the same).
	 */
	char *config_inputs;
	/*
	 * THREAD_SIZE in bytes, from the kernel's System.map when it was
	 * built or fetched (util/kallsyms.h); 0 when unknown (an artifact
	 * cached before it was recorded).
	 */
	long thread_size;
	/*
	 * DIR/System.map, kept since 2026-12-05 (NULL in older entries): the
	 * host names the stack probes' symbols from it instead of reading
	 * /proc/kallsyms in the guest.
	 */
	char *system_map;
	/*
	 * The .debs a kernel of a pinned suite (spec suite:) came from, each
	 * with its SHA-256: written to kernel.json and seal.json when the
	 * entry is made (not read back: a->source names them too).
	 */
	struct deb_file *debs;
	int nr_debs;
};

/* Compute the cache key of a spec (reads patches and config fragments). */
int kernel_cache_key(const struct kernel_spec *s, char *hex);
/* The cache entry of spec s under key hash: ROOT/kernels/<name>-<hash12>. */
char *kernel_cache_dir(const struct kernel_spec *s, const char *hash);
/* The same for a kernel known by name only (a cell.json, a bundle). */
char *kernel_cache_dir_of(const char *name, const char *hash);
/* Load the cached artifact for spec s, if present; 0 found, 1 missing, -1 error. */
int kernel_lookup(const struct kernel_spec *s, struct kernel_artifact *out);
int kernel_fetch_prebuilt(const struct kernel_spec *s, const char *hash,
			  struct kernel_artifact *out);
/*
 * Finish a kernel directory staged in tmpdir: run depmod, make modules.img,
 * write kernel.json, rename into place. tmpdir holds bzImage, config and
 * modules/lib/modules/<version>/.
 */
int kernel_commit(const char *tmpdir, struct kernel_artifact *a);
/*
 * a->thread_size from the System.map at path (warns when it has none), and
 * a copy of it in tmpdir, the staged entry.
 */
void kernel_keep_system_map(struct kernel_artifact *a, const char *path,
			    const char *tmpdir);
int kernel_artifact_load(const char *dir, struct kernel_artifact *out);
void kernel_artifact_free(struct kernel_artifact *a);

#endif
