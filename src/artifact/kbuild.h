/* SPDX-License-Identifier: GPL-2.0 */
#ifndef WBLAB_KBUILD_H
#define WBLAB_KBUILD_H

#include <stdbool.h>

#include "artifact/kernel.h"
#include "spec/specs.h"
#include "util/strbuf.h"
#include "util/strvec.h"

/*
 * Building kernels from source (src/artifact/kbuild*.c). It sits on top of
 * kernel.c (specs, cache keys, the cache itself): kernel.c never calls in
 * here.
 */

/*
 * Make sure the kernel is in the cache: fetch a prebuilt package, or build
 * from source (kernel_build()). Returns 0 and fills out.
 */
int kernel_ensure(const struct kernel_spec *s, struct kernel_artifact *out);
/* Build spec s (cache key hash) from source into the cache. */
int kernel_build(const struct kernel_spec *s, const char *hash,
		 struct kernel_artifact *out);

/*
 * Why the last kernel_build() or kernel_ensure() of this process failed:
 * the patch that does not apply (msg: its files and hunks), the config
 * check, the compiler (msg: its error lines), or anything else (the lab's
 * fault: disk, git, locks). wblab validate turns the first three into
 * "the patch does not apply or build" and the last into an infra failure.
 */
enum kbuild_fail {
	KBUILD_OK,
	KBUILD_PATCH,
	KBUILD_CONFIG,
	KBUILD_COMPILE,
	KBUILD_INFRA,
};

struct kbuild_failure {
	enum kbuild_fail kind;
	char patch[512]; /* KBUILD_PATCH: the patch's path */
	char msg[4096];
};

const struct kbuild_failure *kbuild_last_failure(void);
const char *kbuild_fail_name(enum kbuild_fail kind);

/* The pieces below are exposed for the tests. */

/*
 * Dry-run one patch (patch -p1 --dry-run --fuzz=0) in srcdir. Returns 0 if
 * it applies, 1 if it does not (msg then names each failed file and hunk,
 * with the hunk's @@ header from the patch), -1 if patch could not run.
 */
int kbuild_patch_check(const char *srcdir, const char *patch,
		       struct strbuf *msg);

/*
 * Compare what the config fragments ask for with a final .config. Each
 * fragment line "CONFIG_X=v" or "# CONFIG_X is not set" is a request; the
 * last request for a symbol wins. Lines of msg name every option that did
 * not end up as requested, with the fragment file:line. Returns the number
 * of such options (strict fragments only), or -1 if a file cannot be read.
 * Options of non-strict fragments (the kernel's own, e.g. kvm_guest.config,
 * which names symbols of other architectures) are reported in warn_msg.
 */
int kbuild_config_verify(const char *config, const char *const *fragments,
			 const bool *strict, int n, struct strbuf *msg,
			 struct strbuf *warn_msg);

/*
 * A user's fragments (run --config-fragment) against the lab's: each
 * option a user fragment sets to a value a lab fragment's request does
 * not accept ("# CONFIG_VIRTIO_BLK is not set" against wblab.config's
 * =y) is a line of msg naming both file:line. Returns their number, or
 * -1 if a file cannot be read (msg says which).
 */
int kbuild_config_conflicts(const char *const *lab, int nlab,
			    const char *const *user, int nuser,
			    struct strbuf *msg);
/*
 * A user's .config (run --config FILE) under the lab's fragments: each
 * option the fragments change is a line of msg ("CONFIG_X: not set in
 * FILE, y by lab/configs/wblab.config:12"). Returns their number, or -1
 * if a file cannot be read or config has no CONFIG_ line.
 */
int kbuild_config_overrides(const char *config, const char *const *lab,
			    int nlab, struct strbuf *msg);

/* The absolute path of a lab/<sub>/<name> file (name kept if absolute). */
char *kbuild_lab_file(const char *sub, const char *name);

/*
 * The unpacked, pristine source tree of a package (linux-source-6.1) in the
 * cache, unpacking the /usr/src tarball the first time. NULL on failure.
 * If ident is non-NULL it receives "package version".
 */
char *kbuild_package_source(const char *package, char **ident);
/*
 * The same for a source package pinned in another suite (the spec's
 * suite: and version:): fetched through the private apt (debfetch.h),
 * its tarball unpacked from the .deb. ident gets the .deb's SHA-256 too.
 * spec names the spec file in messages.
 */
char *kbuild_suite_source(const char *spec, const char *package,
			  const char *suite, const char *version, char **ident);

/*
 * The files a patch (text, read from name) changes, from its "+++ b/PATH"
 * lines, each once and in order, appended to files. Errors (a deleted
 * file, a path outside the tree, no file at all) name name:line; -1 then.
 */
int kbuild_patch_files(const char *text, const char *name,
		       struct strvec *files);
#endif
