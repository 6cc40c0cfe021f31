/* SPDX-License-Identifier: GPL-2.0 */
#ifndef WBLAB_KBUILD_INT_H
#define WBLAB_KBUILD_INT_H

/*
 * The kernel build's insides, shared by its files and nothing else:
 *   kbuild.c          kernel_ensure/kernel_build: resolve the spec, run the steps
 *   kbuild-source.c   pristine source trees (a package's tarball, git archive)
 *   kbuild-patch.c    patches: dry-run checks with file and hunk, applying
 *   kbuild-config.c   config fragments, make defconfig/merge/olddefconfig, verify
 *   kbuild-make.c     the build environment, make, progress while it runs
 *   kbuild-install.c  the source tree and its stamp, install into the cache
 *   kbuild-util.c     lab files, lock files, logged commands, why a build
 *                     failed, a patch's lines (a leaf: it calls no other
 *                     kbuild file)
 *   kbuild-tree.c     git sources built in place
 *   kbuild-modules.c  module variants of a prebuilt kernel
 */

#include <pthread.h>
#include <stdbool.h>
#include <sys/types.h>

#include "artifact/kbuild.h"
#include "artifact/kernel.h"
#include "spec/specs.h"
#include "util/strbuf.h"
#include "util/strvec.h"

/* What a spec builds, with its bases' parts folded in. */
struct kb_plan {
	char *source_package;
	/* The root spec's suite: and version: (NULL: the host's package). */
	char *source_suite;
	char *source_version;
	char *source_spec; /* the spec file naming them, for messages */
	char *source_git;
	char *source_ref;
	char *config_base;
	struct spec_strlist fragments; /* names, as in the specs */
	struct spec_strlist patches; /* names, in order */
	char *localversion;
};

struct kb {
	const struct kernel_spec *s;
	struct kb_plan plan;
	char *pristine;
	char *ident;
	char *bdir; /* build/<name> */
	char *srctree; /* build/<name>/linux */
	char *obj; /* build/<name>/linux/obj */
	char *log;
	char **patch_paths;
	struct strvec env; /* NAME=VALUE for every make (kb_env) */
	char *base_obj; /* the base's O= tree to start from, or NULL */
	char *base_hash;
	char *commit; /* git sources: the commit built */
	char *seed; /* git sources: a kernel whose O= tree a first build copies */
};

struct progress {
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool stop;
	const char *name;
	const char *log;
	double t0;
	off_t offset;
	int steps;
	char last[256];
};

/* kbuild-util.c */
void kb_fail_reset(void);
/* Record why the build failed (the first call of a build wins). */
void kb_fail(enum kbuild_fail kind, const char *patch, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
char *kb_fmt_secs(double secs);
int kb_run_logged(const char *const *argv, const char *dir, const char **env,
		  const char *log);
/*
 * The lines of a patch (a unified diff), walked in order: every line, and
 * for a file line ("--- " old side, "+++ " new side) its path as written
 * (a/, b/ or /dev/null kept) up to a tab or the line's end. The one
 * reader of a patch's file lines (module variants, the configure digest,
 * a failed hunk's header); quiet: what a path must be is the caller's
 * rule. Start with { .at = text }; false at the end.
 */
struct kb_diff_line {
	const char *at; /* where the walk goes on */
	const char *line; /* this line, len bytes (no '\n') */
	size_t len;
	int nr; /* its 1-based number */
	char side; /* '-', '+' on a file line, else 0 */
	const char *path; /* a file line's, path_len bytes */
	size_t path_len;
};
bool kb_diff_next(struct kb_diff_line *d);

/*
 * kbuild-headers.c: /usr/src/linux-headers-<release> at Debian version
 * ver, the host's when installed at ver, else unpacked under the cache
 * (never installed). To free; NULL with the error printed.
 */
char *kb_debian_headers(const char *release, const char *ver);

/* kbuild-patch.c */
void kb_patch_argv(struct strvec *argv, const char *srcdir, const char *patch,
		   bool dry);
int kb_patch_failed(const char *name, const char *patch, const char *msg);
int kb_check_patches(const char *name, const char *pristine, char **paths,
		     size_t n);

/* kbuild-config.c */
int kb_configure(struct kb *k);
/* What the .config is made of, for kernel.json (to free). */
char *kb_config_inputs(const struct kb *k);
/*
 * kbuild-reconfig.c: the digest (hex, HASH_HEX_LEN + 1) of what configuring
 * reads: base config, the fragments' texts, the Kconfig files (patches
 * touching them; a git tree's blobs) and the compiler. kb_config_reuse()
 * keeps O=/.config when the tree's stamp holds the same digest (and sets
 * its localversion); kb_config_record() stamps a configured tree.
 */
int kb_config_digest(const struct kb *k, const char *const *frags,
		     size_t nfrags, char *hex);
bool kb_config_reuse(const struct kb *k, const char *hex);
int kb_config_record(const struct kb *k, const char *hex);
int kb_patch_touches_kconfig(const char *patch);

/* kbuild-make.c */
void kb_env(struct kb *k);
int kb_make_kernel(struct kb *k);

/* kbuild-tree.c */
int kb_git_resolve(struct kb *k);
int kb_prepare_git_tree(struct kb *k);

/* kbuild-seed.c */
int kb_seed_git_tree(struct kb *k);
void kb_compile_errors(const char *log, char *out, size_t len);

/* kbuild-modules.c: base is s's base, a prebuilt (package:) kernel. */
int kb_build_modules(const struct kernel_spec *s,
		     const struct kernel_spec *base, const char *hash,
		     struct kernel_artifact *out);

/* kbuild-install.c */
int kb_prepare_tree(struct kb *k);
/*
 * Point the .cmd and .d files copied into obj from a tree at from at the
 * tree at to, keeping their mtimes; the count rewritten, or -1.
 */
int kb_fix_abs_paths(const char *obj, const char *from, const char *to);
/*
 * A tree stamp's "patch NAME SHA256" lines, in order: a build tree is
 * reused only when its stamp is the same.
 */
void kb_stamp_patches(struct kb *k, struct strbuf *sb);
int kb_install(struct kb *k, const char *hash, struct kernel_artifact *a);
bool kb_already_built(const struct kernel_spec *s, const char *hash,
		      struct kernel_artifact *out);

#endif
