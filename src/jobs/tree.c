// SPDX-License-Identifier: GPL-2.0
/*
 * Kernels of a git tree at a commit (jobs/tree.h).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "jobs/tree.h"
#include "spec/specs.h"
#include "util/fs.h"
#include "util/log.h"
#include "util/mailhdr.h"
#include "util/run.h"
#include "util/str.h"
#include "util/strbuf.h"

static int git_out(const char *tree, const char *const *args,
		   struct strbuf *out)
{
	struct strvec argv = STRVEC_INIT;
	struct strbuf err = STRBUF_INIT;
	int ret;

	strvec_pushl(&argv, "git", "-C", tree, NULL);
	strvec_pushv(&argv, args);
	ret = run_capture(argv.v, out, &err);
	if (ret) {
		struct strbuf cmd = STRBUF_INIT;

		argv_to_strbuf(&cmd, argv.v);
		strbuf_trim_trailing(&err);
		error("%s: %s", cmd.buf, err.len ? err.buf : "failed");
		strbuf_release(&cmd);
	}
	strbuf_release(&err);
	strvec_clear(&argv);
	return ret ? -1 : 0;
}

int tree_resolve(const char *tree, const char *ref, char *commit, char *subject,
		 size_t subject_len)
{
	char *rev = xasprintf("%s^{commit}", ref);
	const char *rp[] = { "rev-parse",	 "--verify", "-q",
			     "--end-of-options", rev,	     NULL };
	const char *lg[] = { "log", "-1", "--format=%s", "--end-of-options",
			     rev,   NULL };
	struct strbuf out = STRBUF_INIT;
	int ret = -1;

	if (git_out(tree, rp, &out)) {
		error("%s: no commit '%s'", tree, ref);
		goto out;
	}
	strbuf_trim_trailing(&out);
	if (out.len != 40)
		goto out;
	memcpy(commit, out.buf, 41);
	strbuf_reset(&out);
	if (subject && !git_out(tree, lg, &out)) {
		strbuf_trim_trailing(&out);
		snprintf(subject, subject_len, "%s", out.buf);
	}
	ret = 0;
out:
	strbuf_release(&out);
	free(rev);
	return ret;
}

int tree_range(const char *tree, const char *good, const char *bad,
	       struct strvec *commits)
{
	char *range = xasprintf("%s..%s", good, bad);
	const char *rl[] = { "rev-list",	 "--reverse", "--ancestry-path",
			     "--end-of-options", range,	      NULL };
	struct strbuf out = STRBUF_INIT;
	char *save = NULL;
	int ret = -1;

	if (git_out(tree, rl, &out))
		goto out;
	for (char *l = strtok_r(out.buf, "\n", &save); l;
	     l = strtok_r(NULL, "\n", &save))
		strvec_push(commits, l);
	ret = 0;
out:
	strbuf_release(&out);
	free(range);
	return ret;
}

/* build/<tree-name>: one per repository, named after it. */
/*
 * The repository a tree belongs to: a worktree of it (git worktree add,
 * where `git bisect run` may run) shares its commits, so it shares its
 * build tree and the incremental builds too. The build tree is locked
 * (artifact/kbuild.c), so two worktrees never build in it at once.
 */
static void repository_of(const char *tree, char *real, size_t len)
{
	const char *argv[] = { "git",
			       "-C",
			       tree,
			       "rev-parse",
			       "--path-format=absolute",
			       "--git-common-dir",
			       NULL };
	struct strbuf out = STRBUF_INIT;
	const char *dotgit;

	if (!realpath(tree, real))
		snprintf(real, len, "%s", tree);
	if (run_capture(argv, &out, NULL) == 0) {
		strbuf_trim_trailing(&out);
		dotgit = strrchr(out.buf, '/');
		if (dotgit && !strcmp(dotgit, "/.git") && dotgit > out.buf) {
			out.buf[dotgit - out.buf] = 0;
			if (!realpath(out.buf, real))
				snprintf(real, len, "%s", out.buf);
		}
	}
	strbuf_release(&out);
}

static char *tree_name(const char *tree)
{
	char real[PATH_MAX], hex[HASH_HEX_LEN + 1];
	struct hasher *h = hasher_new();
	const char *base;
	char *name;

	repository_of(tree, real, sizeof(real));
	hasher_add_str(h, "tree", real);
	hasher_finish(h, hex);
	base = strrchr(real, '/');
	base = base && base[1] ? base + 1 : "tree";
	name = xasprintf("tree-%.24s-%.8s", base, hex);
	for (char *p = name; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		      (*p >= '0' && *p <= '9') || *p == '.' || *p == '-'))
			*p = '-';
	return name;
}

static char *patches_tag(const char *const *patches, size_t n)
{
	struct hasher *h = hasher_new();
	char hex[HASH_HEX_LEN + 1];

	for (size_t i = 0; i < n; i++)
		if (hasher_add_file(h, patches[i], patches[i]) < 0)
			hasher_add_str(h, "missing", patches[i]);
	hasher_finish(h, hex);
	return xasprintf("%.8s", hex);
}

/* The lab kernel cfg->from, which must have a config of its own. */
static int config_like(const struct tree_config *cfg, struct kernel_spec *like)
{
	if (kernel_spec_find(cfg->from, like))
		return error("--config-from: no kernel '%s' in lab/kernels",
			     cfg->from);
	if (like->base || like->package) {
		kernel_spec_free(like);
		return error(
			"--config-from %s: a variant or prebuilt kernel has no config of its own",
			cfg->from);
	}
	return 0;
}

static char *abs_path(const char *path)
{
	char real[PATH_MAX];

	return xstrdup(realpath(path, real) ? real : path);
}

/* The spec: the tree at commit, configured as cfg says. */
static int make_spec(const char *tree, const struct tree_kernel *k,
		     const char *const *patches, size_t np,
		     const struct tree_config *cfg, struct kernel_spec *s)
{
	struct kernel_spec like;

	memset(s, 0, sizeof(*s));
	if (config_like(cfg, &like))
		return -1;
	s->name = xstrdup(k->name);
	s->source_git = abs_path(tree);
	s->path = xasprintf("%s (at %.12s)", s->source_git, k->commit);
	s->description = xasprintf("%s", k->subject);
	s->source_ref = xstrdup(k->commit);
	s->config_base = cfg->config ?
				 abs_path(cfg->config) :
				 xstrdup(like.config_base ? like.config_base :
							    "defconfig");
	for (size_t i = 0; i < like.fragments.n; i++)
		spec_strlist_add(&s->fragments, like.fragments.v[i]);
	for (size_t i = 0; i < cfg->fragments.nr; i++) {
		char *p = abs_path(cfg->fragments.v[i]);

		spec_strlist_add(&s->fragments, p);
		free(p);
	}
	for (size_t i = 0; i < np; i++) {
		char *p = abs_path(patches[i]);

		spec_strlist_add(&s->patches, p);
		free(p);
	}
	s->localversion = like.localversion ? xstrdup(like.localversion) : NULL;
	s->tree = tree_name(tree);
	/* The first build of the tree starts from cfg->from's objects. */
	s->seed = xstrdup(cfg->from);
	kernel_spec_free(&like);
	return 0;
}

/* A user's file: a regular file we can read, or an error naming the option. */
static int user_file(const char *opt, const char *path)
{
	struct stat st;

	if (stat(path, &st))
		return error("%s %s: %s", opt, path, strerror(errno));
	if (!S_ISREG(st.st_mode))
		return error("%s %s: not a regular file", opt, path);
	return 0;
}

/* msg cut after its first n lines, with how many more there were. */
static const char *first_lines(struct strbuf *msg, int n)
{
	const char *p = msg->buf;
	int more = 0;

	for (int i = 0; i < n && p; i++)
		if ((p = strchr(p, '\n')))
			p++;
	if (!p || !*p) {
		strbuf_trim_trailing(msg);
		return msg->buf;
	}
	for (const char *q = p; (q = strchr(q, '\n')); q++)
		more++;
	msg->len = (size_t)(p - msg->buf);
	msg->buf[msg->len] = '\0';
	strbuf_addf(msg, "... and %d more", more);
	return msg->buf;
}

int tree_config_check(const struct tree_config *cfg)
{
	struct kernel_spec like;
	struct strvec lab = STRVEC_INIT;
	struct strbuf msg = STRBUF_INIT;
	int ret = 2, n;

	if (config_like(cfg, &like))
		return 2;
	for (size_t i = 0; i < like.fragments.n; i++) {
		char *p = kbuild_lab_file("configs", like.fragments.v[i]);

		/* The kernel tree's own fragments (kvm_guest.config) are not the lab's. */
		if (path_exists(p))
			strvec_push(&lab, p);
		free(p);
	}
	if (cfg->config && user_file("--config", cfg->config))
		goto out;
	for (size_t i = 0; i < cfg->fragments.nr; i++)
		if (user_file("--config-fragment", cfg->fragments.v[i]))
			goto out;
	n = kbuild_config_conflicts((const char *const *)lab.v, (int)lab.nr,
				    (const char *const *)cfg->fragments.v,
				    (int)cfg->fragments.nr, &msg);
	if (n) {
		strbuf_trim_trailing(&msg);
		error("--config-fragment: %s%s",
		      n < 0 ? "" :
			      "an option the lab needs is set otherwise (the guest could not boot or run the lab):\n",
		      msg.buf);
		goto out;
	}
	if (cfg->config) {
		n = kbuild_config_overrides(cfg->config,
					    (const char *const *)lab.v,
					    (int)lab.nr, &msg);
		if (n < 0) {
			strbuf_trim_trailing(&msg);
			error("--config: %s", msg.buf);
			goto out;
		}
		if (n)
			info("--config %s: the lab's fragments change %d of its options:\n%s",
			     cfg->config, n, first_lines(&msg, 12));
	}
	ret = 0;
out:
	kernel_spec_free(&like);
	strvec_clear(&lab);
	strbuf_release(&msg);
	return ret;
}

void tree_config_argv(const struct tree_config *cfg, struct strvec *argv)
{
	strvec_pushl(argv, "--config-from", cfg->from, NULL);
	if (cfg->config)
		strvec_pushl(argv, "--config", cfg->config, NULL);
	for (size_t i = 0; i < cfg->fragments.nr; i++)
		strvec_pushl(argv, "--config-fragment", cfg->fragments.v[i],
			     NULL);
}

/* Resolve and name commit + patches, and make its spec (out->spec). */
static int prepare(const char *tree, const char *commit,
		   const char *const *patches, size_t nr_patches,
		   const struct tree_config *cfg, struct tree_kernel *out)
{
	struct kernel_spec *s = &out->spec;

	memset(out, 0, sizeof(*out));
	out->fail = KBUILD_INFRA;
	if (tree_resolve(tree, commit, out->commit, out->subject,
			 sizeof(out->subject))) {
		snprintf(out->fail_msg, sizeof(out->fail_msg),
			 "no commit %s in %s", commit, tree);
		return -1;
	}
	if (nr_patches) {
		char *tag = patches_tag(patches, nr_patches);

		snprintf(out->name, sizeof(out->name), "git-%.12s-p%s",
			 out->commit, tag);
		free(tag);
	} else {
		snprintf(out->name, sizeof(out->name), "git-%.12s",
			 out->commit);
	}
	if (make_spec(tree, out, patches, nr_patches, cfg, s) ||
	    kernel_spec_check_name(s->name)) {
		snprintf(out->fail_msg, sizeof(out->fail_msg),
			 "cannot make the kernel spec");
		return -1;
	}
	out->fail = KBUILD_OK;
	return 0;
}

int tree_kernel_cached(const char *tree, const char *commit,
		       const struct tree_config *cfg, struct tree_kernel *out,
		       bool *cached)
{
	int ret = prepare(tree, commit, NULL, 0, cfg, out);

	*cached = !ret && kernel_lookup(&out->spec, &out->art) == 0;
	tree_kernel_release(out);
	return ret;
}

int tree_kernel_ensure(const char *tree, const char *commit,
		       const char *const *patches, size_t nr_patches,
		       const struct tree_config *cfg, struct tree_kernel *out)
{
	double t0 = now_mono();
	int ret = -1;

	if (prepare(tree, commit, patches, nr_patches, cfg, out))
		goto out;
	out->cached = kernel_lookup(&out->spec, &out->art) == 0;
	if (!out->cached && kernel_ensure(&out->spec, &out->art)) {
		const struct kbuild_failure *f = kbuild_last_failure();

		out->fail = f->kind == KBUILD_OK ? KBUILD_INFRA : f->kind;
		snprintf(out->fail_patch, sizeof(out->fail_patch), "%s",
			 f->patch);
		snprintf(out->fail_msg, sizeof(out->fail_msg), "%s", f->msg);
		goto out;
	}
	out->build_s = now_mono() - t0;
	if (hash_file_hex(out->art.bzimage, out->image) < 0) {
		error("cannot read %s", out->art.bzimage);
		out->fail = KBUILD_INFRA;
		snprintf(out->fail_msg, sizeof(out->fail_msg), "cannot read %s",
			 out->art.bzimage);
		goto out;
	}
	ret = 0;
out:
	return ret;
}

void tree_kernel_release(struct tree_kernel *k)
{
	kernel_artifact_free(&k->art);
	kernel_spec_free(&k->spec);
}

int tree_mbox_split(const char *mbox, const char *dir, struct strvec *out)
{
	char *odir = xasprintf("-o%s", dir);
	const char *ms[] = { "git", "mailsplit", "-b", odir, "--", mbox, NULL };
	struct strbuf n = STRBUF_INIT, err = STRBUF_INIT;
	int ret = -1, count;

	if (mkdir_p(dir, 0755) < 0) {
		error("cannot create %s: %s", dir, strerror(errno));
		goto out;
	}
	if (run_capture(ms, &n, &err)) {
		error("%s: not an mbox (git mailsplit: %s)", mbox, err.buf);
		goto out;
	}
	count = atoi(n.buf);
	if (count < 1) {
		error("%s: no messages", mbox);
		goto out;
	}
	for (int i = 1; i <= count; i++)
		strvec_pushf(out, "%s/%04d", dir, i);
	ret = 0;
out:
	strbuf_release(&n);
	strbuf_release(&err);
	free(odir);
	return ret;
}

char *tree_patch_subject(const char *patch)
{
	struct mail_headers h;
	const char *base = strrchr(patch, '/');
	char *subject = NULL;

	if (!mail_headers_read(patch, &h) && h.subject)
		subject = xstrdup(mail_subject_bare(h.subject));
	mail_headers_release(&h);
	return subject ? subject : xstrdup(base ? base + 1 : patch);
}
