// SPDX-License-Identifier: GPL-2.0
/*
 * wblab run --tree DIR [--ref REF]...: the kernels of a user's own git
 * tree, built with the lab's configuration (--config-from, as validate
 * and bisect do; or the user's --config with the lab's fragments over it,
 * and --config-fragment after them) and run like lab kernels. The first ref is the baseline
 * of the report. Without --ref, HEAD with the tree's uncommitted changes:
 * `git stash create` makes a commit of the working tree without touching
 * the tree, its index or its stash list (vng's --build does the same with
 * the files), and the kernel's description says so. With --ref, the
 * changes are not in any ref, and wblab says so instead of dropping them
 * silently.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/run-tree.h"
#include "jobs/tree.h"
#include "util/log.h"
#include "util/run.h"

/* A commit of the working tree's changes, or "" when it is clean. */
static int snapshot_commit(const char *tree, char *commit, size_t len)
{
	const char *argv[] = { "git", "-C", tree, "stash", "create", NULL };
	struct strbuf out = STRBUF_INIT, err = STRBUF_INIT;
	int ret = 0;

	if (run_capture(argv, &out, &err)) {
		strbuf_trim_trailing(&err);
		ret = error("--tree %s: not a git work tree (%s)", tree,
			    err.buf);
	} else {
		strbuf_trim_trailing(&out);
		snprintf(commit, len, "%s", out.buf);
	}
	strbuf_release(&out);
	strbuf_release(&err);
	return ret;
}

/* The refs to build: the given ones, or HEAD with its changes. */
static int refs_to_build(const struct run_tree *t, struct strvec *refs)
{
	char snap[64] = "";

	if (snapshot_commit(t->tree, snap, sizeof(snap)))
		return -1;
	if (t->refs.nr) {
		if (snap[0])
			warn("--tree %s has uncommitted changes; they are in none of the refs given (without --ref, HEAD is built with them)",
			     t->tree);
		strvec_pushv(refs, (const char *const *)t->refs.v);
		return 0;
	}
	if (snap[0])
		info("--tree %s: HEAD with its uncommitted changes, as commit %.12s (git stash create; the tree is untouched)",
		     t->tree, snap);
	strvec_push(refs, snap[0] ? snap : "HEAD");
	return 0;
}

/* Every ref names a commit of the tree: bad input, before any build. */
static int resolve_all(const struct run_tree *t, const struct strvec *refs)
{
	char commit[41], subject[256];

	for (size_t i = 0; i < refs->nr; i++)
		if (tree_resolve(t->tree, refs->v[i], commit, subject,
				 sizeof(subject)))
			return error("--tree %s: --ref %s names no commit",
				     t->tree, refs->v[i]);
	return 0;
}

int run_tree_build(struct run_tree *t, struct strvec *kernels)
{
	struct strvec refs = STRVEC_INIT;
	int ret = 2;

	if (tree_config_check(&t->cfg) || refs_to_build(t, &refs) ||
	    resolve_all(t, &refs))
		goto out;
	ret = 1;
	t->built = xzalloc(refs.nr * sizeof(*t->built));
	t->specs = xzalloc(refs.nr * sizeof(*t->specs));
	for (size_t i = 0; i < refs.nr; i++) {
		struct tree_kernel *k = &t->built[i];

		if (tree_kernel_ensure(t->tree, refs.v[i], NULL, 0, &t->cfg,
				       k)) {
			error("--tree %s --ref %s: %s%s%s", t->tree, refs.v[i],
			      k->fail_msg, k->fail_patch[0] ? " " : "",
			      k->fail_patch);
			goto out;
		}
		t->nr++;
		info("--ref %s: %s (%s), %s", refs.v[i], k->spec.name,
		     k->subject, k->cached ? "cached" : "built");
		kernel_spec_copy(&t->specs[i], &k->spec);
		strvec_push(kernels, k->spec.name);
	}
	ret = 0;
out:
	strvec_clear(&refs);
	return ret;
}

void run_tree_free(struct run_tree *t)
{
	for (size_t i = 0; i < t->nr; i++) {
		if (t->built) /* not for --kernel PATH's specs */
			tree_kernel_release(&t->built[i]);
		kernel_spec_free(&t->specs[i]);
	}
	free(t->built);
	free(t->specs);
	strvec_clear(&t->refs);
	strvec_clear(&t->cfg.fragments);
}
