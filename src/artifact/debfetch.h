/* SPDX-License-Identifier: GPL-2.0 */
#ifndef WBLAB_DEBFETCH_H
#define WBLAB_DEBFETCH_H

#include <stdbool.h>

#include "util/hash.h"
#include "util/strvec.h"

/*
 * Packages of a Debian suite the host does not use (sid, experimental),
 * at an exact version, through wblab's own apt configuration under the
 * cache root: ROOT/apt/<suite>/ holds its apt.conf, sources.list, lists,
 * state and archive directories, so the host's sources, lists and dpkg
 * database are never read or changed and nothing is installed. The
 * signatures are checked against the Debian archive keyring. The .debs
 * land in ROOT/downloads/<suite>/ whole or not at all (downloaded into a
 * temporary directory beside it, checked against the index's SHA-256,
 * then renamed).
 *
 * The mirror is the host's Debian mirror (the first deb.debian.org-like
 * URI ending in /debian of /etc/apt/sources.list{,.d}), or
 * $WBLAB_APT_MIRROR.
 */

/* One fetched .deb. */
struct deb_file {
	char *package;
	char *version;
	char *suite;
	char *path; /* ROOT/downloads/<suite>/<file>.deb */
	char sha256[HASH_HEX_LEN + 1]; /* of the file, what sha256sum prints */
	long long size;
};

/*
 * Where the packages come from: a suite of the host's mirror (signed-by
 * the Debian archive keyring). A test sets mirror to its own file:
 * repository and trusted (apt's [trusted=yes]), which nothing else does.
 */
struct debfetch_source {
	const char *spec; /* the kernel spec's path, for messages (or NULL) */
	const char *suite;
	const char *mirror; /* NULL: $WBLAB_APT_MIRROR or the host's */
	bool trusted;
};

/* The exit status of `wblab kernel build` when a pinned version is gone. */
#define DEBFETCH_EXIT_GONE 3

/*
 * Fetch packages pkgs (n of them), each at version, into the cache, and
 * fill out[0..n-1] (free each with deb_file_free). Reuses a .deb already
 * there whose SHA-256 is the index's. The lists are refreshed when they
 * are missing or do not carry the version (sid moves). Returns 0, or -1
 * with the error printed; when the suite no longer carries the version
 * (after a refresh) the error names the versions it does carry and
 * debfetch_gone() is true; nothing is then written under downloads/.
 */
int debfetch_get(const struct debfetch_source *src, const char *version,
		 const char *const *pkgs, int n, struct deb_file *out);

/*
 * Only the check of debfetch_get(): does the suite carry every package at
 * version (the lists refreshed once if not)? 0, or -1 with the same
 * error, debfetch_gone() then set. Writes nothing but the suite's lists,
 * so a caller can ask before it makes anything in the cache.
 */
int debfetch_check(const struct debfetch_source *src, const char *version,
		   const char *const *pkgs, int n);

/*
 * The versions the suite carries of package (refreshing the lists first
 * when refresh is set, or when there are none), newest first, into vers.
 */
int debfetch_versions(const struct debfetch_source *src, const char *package,
		      bool refresh, struct strvec *vers);

/*
 * The packages package@version depends on at exactly that version (its
 * "NAME (= VERSION)" dependencies): the parts of one split build, e.g.
 * linux-image-7.2.13+deb14-amd64's linux-binary-, linux-modules- and
 * linux-base-. Appended to deps.
 */
int debfetch_exact_deps(const struct debfetch_source *src, const char *package,
			const char *version, struct strvec *deps);

/* Did the last failed debfetch_get() fail because the version is gone? */
bool debfetch_gone(void);

/* The suite's private apt directory, ROOT/apt/<suite> (to free). */
char *debfetch_dir(const char *suite);

void deb_file_free(struct deb_file *f);

#endif
