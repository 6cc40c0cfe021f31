// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel build: git sources built in place, and why a build failed.
 *
 * A git source (source.git + ref) is not exported per commit: its
 * build/<name>/linux is a clone sharing the repository's objects (git clone
 * --shared --no-checkout), checked out at the spec's commit, with the O=
 * tree inside it. From one commit to the next, git rewrites only the files
 * that differ (each with a new mtime), so make rebuilds what they touch and
 * relinks: the incremental build a bisection needs. Every spec of one tree
 * that shares a name (wblab bisect and validate name theirs after the tree)
 * shares that O= tree; the cache key still tells their artifacts apart.
 *
 * The checkout is reset before each build (checkout -f, clean -fd, the O=
 * tree excluded through .git/info/exclude), so a previous build's patches
 * never leak into the next one, and the spec's patches are applied after
 * it, one by one: the first that does not apply is named with its hunks.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "artifact/cache.h"
#include "artifact/kbuild-int.h"
#include "util/fs.h"
#include "util/log.h"
#include "util/run.h"
#include "util/strvec.h"

/*
 * The compiler's complaint from the end of a failed build's log: the
 * "error:" lines (file:line: error: ...), at most a few, else the last
 * lines make printed.
 */
void kb_compile_errors(const char *log, char *out, size_t len)
{
	struct strbuf text = STRBUF_INIT, sb = STRBUF_INIT;
	char *save = NULL;
	int n = 0;

	if (strbuf_read_file(&text, log) < 0) {
		snprintf(out, len, "(no build log %s)", log);
		return;
	}
	for (char *l = strtok_r(text.buf, "\n", &save); l && n < 6;
	     l = strtok_r(NULL, "\n", &save)) {
		if (strstr(l, ": error: ") || strstr(l, ": fatal error: ") ||
		    strstr(l, "undefined reference to")) {
			strbuf_addf(&sb, "%s%.300s", n ? "\n" : "", l);
			n++;
		}
	}
	if (!n) {
		const char *p = text.buf + text.len;

		for (int lines = 0; p > text.buf && lines < 6; p--)
			if (p[-1] == '\n')
				lines++;
		strbuf_addstr(&sb, p);
	}
	snprintf(out, len, "%s", sb.buf);
	strbuf_release(&text);
	strbuf_release(&sb);
}

int kb_git_resolve(struct kb *k)
{
	char *rev = xasprintf("%s^{commit}",
			      k->plan.source_ref ? k->plan.source_ref : "HEAD");
	const char *rp[] = { "git",	  "-C",	      k->plan.source_git,
			     "rev-parse", "--verify", "--end-of-options",
			     rev,	  NULL };
	struct strbuf commit = STRBUF_INIT;
	int ret = -1;

	if (run_capture(rp, &commit, NULL)) {
		error("source.git: cannot resolve %s in %s", rev,
		      k->plan.source_git);
		kb_fail(KBUILD_INFRA, NULL, "cannot resolve %s in %s", rev,
			k->plan.source_git);
		goto out;
	}
	strbuf_trim_trailing(&commit);
	k->commit = strbuf_detach(&commit, NULL);
	k->ident = xasprintf("%s %s", k->plan.source_git, k->commit);
	ret = 0;
out:
	strbuf_release(&commit);
	free(rev);
	return ret;
}

static int git(struct kb *k, const char *const *args)
{
	struct strvec argv = STRVEC_INIT;
	int ret;

	strvec_pushl(&argv, "git", "-C", k->srctree, NULL);
	strvec_pushv(&argv, args);
	ret = kb_run_logged(argv.v, NULL, NULL, k->log);
	if (ret) {
		struct strbuf cmd = STRBUF_INIT;

		argv_to_strbuf(&cmd, argv.v);
		error("kernel %s: %s failed (%d), see %s", k->s->name, cmd.buf,
		      ret, k->log);
		kb_fail(KBUILD_INFRA, NULL, "%s failed", cmd.buf);
		strbuf_release(&cmd);
	}
	strvec_clear(&argv);
	return ret ? -1 : 0;
}

/* build/<name>/linux as a clone sharing the repository's objects. */
static int ensure_clone(struct kb *k)
{
	char *dotgit = xasprintf("%s/.git", k->srctree);
	char *info_dir = xasprintf("%s/.git/info", k->srctree);
	char *exclude = xasprintf("%s/exclude", info_dir);
	int ret = -1;

	if (path_exists(dotgit)) {
		ret = 0;
		goto out;
	}
	rm_rf(k->srctree);
	{
		const char *cl[] = { "git",
				     "clone",
				     "-q",
				     "--shared",
				     "--no-checkout",
				     "--",
				     k->plan.source_git,
				     k->srctree,
				     NULL };

		info("kernel %s: cloning %s into %s (objects shared)",
		     k->s->name, k->plan.source_git, k->srctree);
		if (kb_run_logged(cl, NULL, NULL, k->log)) {
			error("kernel %s: git clone of %s failed, see %s",
			      k->s->name, k->plan.source_git, k->log);
			kb_fail(KBUILD_INFRA, NULL, "git clone of %s failed",
				k->plan.source_git);
			goto out;
		}
	}
	/* The O= tree is the build's, not the source's: clean keeps it. */
	if (mkdir_p(info_dir, 0755) < 0 ||
	    write_string_atomic(exclude, "/obj/\n")) {
		kb_fail(KBUILD_INFRA, NULL, "cannot write %s", exclude);
		goto out;
	}
	ret = 0;
out:
	free(dotgit);
	free(info_dir);
	free(exclude);
	return ret;
}

static char *git_stamp(struct kb *k)
{
	struct strbuf sb = STRBUF_INIT;

	strbuf_addf(&sb, "layout git 1\nsource %s\n", k->ident);
	kb_stamp_patches(k, &sb);
	return strbuf_detach(&sb, NULL);
}

static int apply_patches(struct kb *k)
{
	for (size_t i = 0; i < k->plan.patches.n; i++) {
		struct strbuf msg = STRBUF_INIT;
		struct strvec argv = STRVEC_INIT;
		int r = kbuild_patch_check(k->srctree, k->patch_paths[i], &msg);

		if (r) {
			kb_patch_failed(k->s->name, k->patch_paths[i], msg.buf);
			strbuf_release(&msg);
			return -1;
		}
		strbuf_release(&msg);
		kb_patch_argv(&argv, k->srctree, k->patch_paths[i], false);
		info("kernel %s: applying %s", k->s->name,
		     k->plan.patches.v[i]);
		r = kb_run_logged(argv.v, NULL, NULL, k->log);
		strvec_clear(&argv);
		if (r) {
			error("kernel %s: applying %s failed, see %s",
			      k->s->name, k->patch_paths[i], k->log);
			kb_fail(KBUILD_PATCH, k->patch_paths[i],
				"patch exited non-zero, see %s", k->log);
			return -1;
		}
	}
	return 0;
}

int kb_prepare_git_tree(struct kb *k)
{
	char *stamp = git_stamp(k);
	char *stamp_path = xasprintf("%s/tree.stamp", k->bdir);
	char *old = NULL;
	struct strbuf sb = STRBUF_INIT;
	const char *co[] = {
		"checkout", "-q", "-f", "--detach", k->commit, NULL
	};
	const char *clean[] = { "clean", "-q", "-f", "-d", NULL };
	double t0 = now_mono();
	int ret = -1;

	if (strbuf_read_file(&sb, stamp_path) >= 0)
		old = strbuf_detach(&sb, NULL);
	if (old && !strcmp(old, stamp) && path_exists(k->obj)) {
		info("kernel %s: the tree is at %.12s already", k->s->name,
		     k->commit);
		ret = 0;
		goto out;
	}
	unlink(stamp_path);
	if (ensure_clone(k) || git(k, co) || git(k, clean))
		goto out;
	{
		char *t = kb_fmt_secs(now_mono() - t0);

		info("kernel %s: checked out %.12s in %s", k->s->name,
		     k->commit, t);
		free(t);
	}
	if (apply_patches(k) || kb_seed_git_tree(k))
		goto out;
	if (write_string_atomic(stamp_path, stamp))
		goto out;
	ret = 0;
out:
	strbuf_release(&sb);
	free(stamp);
	free(stamp_path);
	free(old);
	return ret;
}
