/* SPDX-License-Identifier: GPL-2.0 */
#ifndef WBLAB_SPEC_NIGHTLY_H
#define WBLAB_SPEC_NIGHTLY_H

#include <stddef.h>

#include "spec/spec.h"
#include "util/strbuf.h"

/*
 * lab/nightly.yaml: which trees to follow, the matrix to run on their
 * heads, where results go and who gets the mail.
 *
 *   description: text
 *   matrix: validate             # lab/matrices name or a path (its thresholds)
 *   results: results             # the results directory (wblab.db inside)
 *   trees:
 *     - name: mm                 # [A-Za-z0-9._-]
 *       path: /src/linux         # a local git repository
 *       ref: HEAD                # what to follow (a branch, tag or commit)
 *       url: git://...           # optional: fetched into path first
 *   mail:
 *     to: linux-mm@kvack.org
 *     from: wblab <wblab@localhost>
 *     sendmail: [/usr/sbin/sendmail, -t]   # optional: pipe the mail here
 */
struct nightly_tree {
	char *name, *path, *ref, *url;
};

struct nightly_spec {
	char *path;
	char *description;
	char *matrix;
	char *results;
	struct nightly_tree *trees;
	size_t nr_trees;
	char *mail_to, *mail_from;
	struct spec_strlist sendmail;
};

int nightly_spec_load(const char *path, struct nightly_spec *out,
		      struct strbuf *err);
void nightly_spec_free(struct nightly_spec *s);

#endif
