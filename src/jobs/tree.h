/* SPDX-License-Identifier: GPL-2.0 */
#ifndef WBLAB_JOBS_TREE_H
#define WBLAB_JOBS_TREE_H

#include <stdbool.h>

#include "artifact/kbuild.h"
#include "artifact/kernel.h"
#include "util/hash.h"
#include "util/strvec.h"

/*
 * Kernels of a git tree, for validate and bisect: a commit (and patches
 * on top) becomes a kernel spec made in code, configured like a lab
 * kernel (--config-from, default 6.1: defconfig + kvm_guest.config +
 * wblab.config, localversion -wblab) and built in the tree's one reused
 * checkout and O= tree (build/<tree-name>/, kbuild-tree.c), with ccache.
 */
/*
 * How a tree's kernels are configured (--config-from, --config,
 * --config-fragment of run --tree, validate, bisect and nightly): like
 * the lab kernel from (its base, fragments and localversion); with
 * config, a user's .config replaces the base, the lab's fragments merged
 * over it; fragments, a user's, go after the lab's. Both are in the
 * kernel's cache key by their contents, and in its sealed kernel.json.
 */
struct tree_config {
	const char *from;
	const char *config; /* NULL: the lab kernel's base (defconfig) */
	struct strvec fragments; /* paths, in order */
};

/*
 * The user's files of cfg against the lab kernel's fragments, before
 * anything is built: a file that cannot be read, a .config without a
 * CONFIG_ line, or a user fragment's option the lab needs otherwise is
 * an error naming the option (file:line) and 2 (bad input). The lab's
 * changes to a user's .config are listed as info lines. 0 when fine.
 */
int tree_config_check(const struct tree_config *cfg);
/* The options that repeat cfg on a command line (--config-from ...). */
void tree_config_argv(const struct tree_config *cfg, struct strvec *argv);

struct tree_kernel {
	char name[80]; /* git-<commit12>[-p<patches8>]: the spec's name */
	char commit[41];
	char subject[256];
	bool cached; /* it was in the cache already: no build */
	double build_s;
	struct kernel_artifact art; /* when built */
	char image[HASH_HEX_LEN + 1]; /* SHA-256 of the bzImage */
	enum kbuild_fail fail; /* KBUILD_OK when built */
	char fail_patch[512];
	char fail_msg[4096];
	/* The spec made in code: the engine needs it (jobrun_add_kernel). */
	struct kernel_spec spec;
};

/* The commit a ref names in tree, and its subject. 0, or -1 with a message. */
int tree_resolve(const char *tree, const char *ref, char *commit, char *subject,
		 size_t subject_len);
/* The commits after good up to bad, oldest first (--ancestry-path). */
int tree_range(const char *tree, const char *good, const char *bad,
	       struct strvec *commits);
/*
 * Make the spec of commit (+ patches, paths, in order) into out->spec and
 * make sure it is built. 0 built or cached; -1 with out->fail saying why
 * (patch, config, compile, infra).
 */
int tree_kernel_ensure(const char *tree, const char *commit,
		       const char *const *patches, size_t nr_patches,
		       const struct tree_config *cfg, struct tree_kernel *out);
/* Whether commit's kernel (no patches) is in the cache already. */
int tree_kernel_cached(const char *tree, const char *commit,
		       const struct tree_config *cfg, struct tree_kernel *out,
		       bool *cached);
void tree_kernel_release(struct tree_kernel *k);

/*
 * Split an mbox (git format-patch, b4) into one file per message under
 * dir (git mailsplit), in order; paths go to out. -1 on failure.
 */
int tree_mbox_split(const char *mbox, const char *dir, struct strvec *out);
/* A patch file's subject ("[PATCH 2/3] mm: ..." without the tag), or its name. */
char *tree_patch_subject(const char *patch);

#endif
