// SPDX-License-Identifier: GPL-2.0
/*
 * wblab validate (jobs/validate.h).
 *
 * Exit codes: 0 no regression (every row and event `same`, or different
 * in its good direction), 1 regression (a thresholded metric `different`
 * beyond its threshold in the bad direction, or a crash, OOM, overflow or
 * other event kind the patched kernel shows more often than the base by
 * one-sided Fisher), 2 a patch does not apply or the patched kernel does
 * not build, 3 the lab failed (base does not build, too few cells with a
 * kernel result, a round of more cells all infra-error while a row was
 * unknown, git, disk), 4 unknown: some row or event neither
 * different nor `same` at --max-reps (no regression found, none ruled
 * out). docs/jobs.md says what each verdict guarantees.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "jobs/decide.h"
#include "jobs/family.h"
#include "jobs/jobrun.h"
#include "jobs/lkmail.h"
#include "jobs/tree.h"
#include "jobs/validate.h"
#include "spec/matrix.h"
#include "stats/stats.h"
#include "util/fs.h"
#include "util/json.h"
#include "util/log.h"
#include "util/strvec.h"

struct vstate {
	struct validate_opts *o;
	struct matrix_spec m;
	struct tree_kernel base, patched;
	struct jobrun jr;
	char *run_dir;
	char *work; /* results/validate-<ts> */
	struct family fam; /* what the cells decide so far */
	struct dlooks looks;
	int reps;
	bool short_of_cells;
	bool lost; /* a round of cells all infra-error: the looks stopped */
	FILE *real_out; /* --mbox: the report goes to text, then here */
	char *text;
	size_t text_len;
};

static int fail_exit(struct vstate *s, const struct tree_kernel *k,
		     bool patched)
{
	FILE *f = s->o->out;

	if (!patched || k->fail == KBUILD_INFRA) {
		fprintf(f,
			"Verdict: INFRA: the %s kernel could not be built (%s): %s\n",
			patched ? "patched" : "base", kbuild_fail_name(k->fail),
			k->fail_msg);
		return VALIDATE_INFRA;
	}
	if (k->fail == KBUILD_PATCH) {
		size_t idx = 0;
		char *subj = tree_patch_subject(k->fail_patch);

		for (size_t i = 0; i < s->o->patches.nr; i++) {
			char *a = realpath(s->o->patches.v[i], NULL);

			if (a && !strcmp(a, k->fail_patch))
				idx = i + 1;
			free(a);
		}
		fprintf(f,
			"Verdict: DOES NOT APPLY: patch %zu/%zu \"%s\" (%s) does not apply to %.12s:\n%s\n",
			idx, s->o->patches.nr, subj, k->fail_patch,
			s->base.commit, k->fail_msg);
		free(subj);
	} else {
		fprintf(f,
			"Verdict: DOES NOT BUILD: %.12s + %zu patch%s fails to %s:\n%s\n",
			s->base.commit, s->o->patches.nr,
			s->o->patches.nr == 1 ? "" : "es",
			k->fail == KBUILD_CONFIG ? "configure" : "compile",
			k->fail_msg);
	}
	return VALIDATE_NO_APPLY;
}

static void print_header(struct vstate *s)
{
	FILE *f = s->o->out;

	fprintf(f, "wblab validate: %s\n", s->o->tree);
	fprintf(f, "base:    %.12s (\"%s\")\n", s->base.commit,
		s->base.subject);
	for (size_t i = 0; i < s->o->patches.nr; i++) {
		char *subj = tree_patch_subject(s->o->patches.v[i]);

		fprintf(f, "patch:   [%zu/%zu] %s\n", i + 1, s->o->patches.nr,
			subj);
		free(subj);
	}
	fprintf(f, "matrix:  %s (%zu topologies x %zu workloads), alpha %.2f\n",
		s->m.name, s->m.topologies.n, s->m.workloads.n, STATS_ALPHA);
	if (s->base.art.version)
		fprintf(f, "kernels: base %s (%s, image %.12s)", s->base.name,
			s->base.art.version, s->base.image);
	if (s->base.art.version && s->patched.art.version)
		fprintf(f, ", patched %s (%s, image %.12s)", s->patched.name,
			s->patched.art.version, s->patched.image);
	if (s->base.art.version)
		fputc('\n', f);
	fputc('\n', f);
}

static void print_rows(struct vstate *s)
{
	FILE *f = s->o->out;

	family_print(f, &s->fam);
	fprintf(f,
		"\n  * a regression: different in the bad direction beyond the threshold,\n"
		"    or an event kind the base never showed at a higher rate (one-sided\n"
		"    Fisher). Levels: alpha %.2f spent over the looks at n = %d, %d, ... %d\n"
		"    (%s) and shared by Holm among the %zu rows; this look (n=%d)\n"
		"    had %.3g. same: TOST inside the threshold at that level.\n"
		"  n = cells with a kernel result per side (base/patched); %d infra-error\n"
		"  cells were left out. %zu of %zu rows same, %zu unknown.\n\n",
		s->looks.alpha, s->looks.first, s->looks.first + s->looks.step,
		s->looks.max, dboundary_name(s->looks.boundary), s->fam.n,
		s->fam.look, dlooks_level(&s->looks, s->fam.look),
		s->jr.pool.infra, family_same(&s->fam), s->fam.n,
		family_unknown(&s->fam));
}

int validate_looks(struct family *fam, struct pool *p, const char *base,
		   const char *patched, const struct matrix_threshold *t,
		   size_t nt, struct dlooks *looks, int *reps, int max_reps,
		   const struct validate_cells *src)
{
	dlooks_plan(looks, *reps, 2, max_reps);
	for (;;) {
		size_t had;

		family_release(fam);
		family_decide(fam, p, base, patched, t, nt, looks);
		if (src->look)
			src->look(src->ctx, fam, *reps);
		if (!family_unknown(fam) || *reps >= max_reps)
			return 0;
		info("validate: some decisions are unknown at n=%d per side: 2 more reps",
		     *reps);
		had = pool_fewest(p, base, patched);
		if (src->more(src->ctx, p, 2))
			return -1;
		if (pool_fewest(p, base, patched) <= had) {
			warn("validate: 2 more reps a side brought no cell with a kernel result (%d infra-error so far): the lab failed, no more rounds",
			     p->infra);
			return VALIDATE_LOOKS_LOST;
		}
		*reps += 2;
	}
}

int validate_exit(const struct family *fam, bool short_of_cells, bool lost)
{
	if (family_regressions(fam))
		return VALIDATE_REGRESSION;
	if (short_of_cells || (lost && family_unknown(fam)))
		return VALIDATE_INFRA;
	if (family_unknown(fam))
		return VALIDATE_UNKNOWN;
	return VALIDATE_OK;
}

/* The engine's cells: 2 more repetitions of the validate's run. */
static int more_reps(void *ctx, struct pool *p, int extra)
{
	struct vstate *s = ctx;

	return jobrun_more(&s->jr, s->run_dir, extra);
}

static int measure(struct vstate *s)
{
	const char *k[] = { s->base.name, s->patched.name };
	const struct validate_cells engine = { .more = more_reps, .ctx = s };
	int r;

	s->reps = s->m.reps < 3 ? 3 : (int)s->m.reps;
	if (s->reps > s->o->max_reps)
		s->reps = s->o->max_reps;
	if (jobrun_add_kernel(&s->jr, &s->base.spec) ||
	    jobrun_add_kernel(&s->jr, &s->patched.spec) ||
	    jobrun_kernels(&s->jr, k, 2, s->reps, &s->run_dir))
		return -1;
	r = validate_looks(&s->fam, &s->jr.pool, s->base.name, s->patched.name,
			   s->m.thresholds, s->m.nr_thresholds, &s->looks,
			   &s->reps, s->o->max_reps, &engine);
	if (r < 0)
		return -1;
	s->lost = r == VALIDATE_LOOKS_LOST;
	for (size_t g = 0; g < s->jr.pool.groups.nr; g++)
		if (pool_count(&s->jr.pool, s->base.name,
			       s->jr.pool.groups.v[g]) < STATS_MIN_N ||
		    pool_count(&s->jr.pool, s->patched.name,
			       s->jr.pool.groups.v[g]) < STATS_MIN_N)
			s->short_of_cells = true;
	if (!s->jr.pool.groups.nr)
		s->short_of_cells = true;
	return 0;
}

static int verdict(struct vstate *s)
{
	FILE *f = s->o->out;
	size_t regressions = family_regressions(&s->fam);
	size_t unknown = family_unknown(&s->fam);
	struct strbuf repro = STRBUF_INIT;
	int ret = validate_exit(&s->fam, s->short_of_cells, s->lost);

	pool_repro_line(&s->jr.pool, NULL, &repro);
	fputs(repro.buf, f);
	strbuf_release(&repro);

	if (ret == VALIDATE_REGRESSION) {
		fprintf(f, "Verdict: REGRESSION (%zu starred) in %s\n",
			regressions, s->run_dir);
		return ret;
	}
	if (ret == VALIDATE_INFRA && s->short_of_cells) {
		fprintf(f,
			"Verdict: INFRA: fewer than %d cells with a kernel result on a side (%d infra-error); see %s\n",
			STATS_MIN_N, s->jr.pool.infra, s->run_dir);
		return ret;
	}
	if (ret == VALIDATE_INFRA) {
		fprintf(f,
			"Verdict: INFRA: %zu row%s or event%s unknown at n=%d, and 2 more cells a side brought no cell with a kernel result (%d infra-error): the lab failed; no regression found, none ruled out; see %s\n",
			unknown, unknown == 1 ? "" : "s",
			unknown == 1 ? "" : "s", s->fam.look, s->jr.pool.infra,
			s->run_dir);
		return ret;
	}
	if (ret == VALIDATE_UNKNOWN) {
		fprintf(f,
			"Verdict: UNKNOWN: %zu row%s or event%s neither different nor same at n=%d (--max-reps %d): no regression found, none ruled out, in %s\n",
			unknown, unknown == 1 ? "" : "s",
			unknown == 1 ? "" : "s", s->fam.look, s->o->max_reps,
			s->run_dir);
		return ret;
	}
	fprintf(f, "Verdict: no regression in %s\n", s->run_dir);
	return ret;
}

static int load_patches(struct vstate *s)
{
	struct validate_opts *o = s->o;

	if (o->mbox) {
		char *dir = xasprintf("%s/patches", s->work);
		int ret = tree_mbox_split(o->mbox, dir, &o->patches);

		free(dir);
		if (ret)
			return -1;
	}
	for (size_t i = 0; i < o->patches.nr; i++)
		if (access(o->patches.v[i], R_OK))
			return error("--patch %s: %s", o->patches.v[i],
				     strerror(errno));
	return 0;
}

static void free_state(struct vstate *s)
{
	matrix_spec_free(&s->m);
	tree_kernel_release(&s->base);
	tree_kernel_release(&s->patched);
	jobrun_free(&s->jr);
	family_release(&s->fam);
	free(s->run_dir);
	free(s->work);
}

static int build_base(struct vstate *s, int *ret)
{
	info("validate: building the base %s", s->o->base);
	if (!tree_kernel_ensure(s->o->tree, s->o->base, NULL, 0, &s->o->cfg,
				&s->base))
		return 0;
	print_header(s);
	*ret = fail_exit(s, &s->base, false);
	return -1;
}

static int build_patched(struct vstate *s, int *ret)
{
	struct validate_opts *o = s->o;

	info("validate: building %s + %zu patch%s", o->base, o->patches.nr,
	     o->patches.nr == 1 ? "" : "es");
	if (!tree_kernel_ensure(o->tree, o->base, o->patches.v, o->patches.nr,
				&o->cfg, &s->patched))
		return 0;
	/* The base's commit and subject, for the message, without a build. */
	if (!s->base.commit[0])
		tree_resolve(o->tree, o->base, s->base.commit, s->base.subject,
			     sizeof(s->base.subject));
	print_header(s);
	*ret = fail_exit(s, &s->patched, true);
	return -1;
}

/*
 * Both kernels share the tree's O= tree, so the second build is
 * incremental whichever comes first. A cached base goes first (free);
 * otherwise the patched kernel does, so a patch that does not apply, or
 * breaks the build, costs no base build at all.
 */
static int build_both(struct vstate *s, int *ret)
{
	struct tree_kernel probe;
	bool base_cached;

	if (tree_kernel_cached(s->o->tree, s->o->base, &s->o->cfg, &probe,
			       &base_cached))
		base_cached = false;
	if (base_cached)
		return build_base(s, ret) || build_patched(s, ret) ? -1 : 0;
	return build_patched(s, ret) || build_base(s, ret) ? -1 : 0;
}

static void print_built(struct vstate *s, const char *what,
			const struct tree_kernel *k)
{
	fprintf(s->o->out, "%s: %s %s (%s) image %.12s, %s in %.1f s\n", what,
		k->name, k->art.version, k->art.dir, k->image,
		k->cached ? "cached" : "built", k->build_s);
}

/* --build-only: the base, then the patched kernel if there are patches. */
static int build_only(struct vstate *s)
{
	int ret = VALIDATE_OK;

	if (build_base(s, &ret))
		return ret;
	print_built(s, "base", &s->base);
	if (!s->o->patches.nr)
		return VALIDATE_OK;
	if (build_patched(s, &ret))
		return ret;
	print_built(s, "patched", &s->patched);
	return VALIDATE_OK;
}

/* "Jan" of "Jan Kara <jack@suse.cz>" or "\"Kara, Jan\" <...>": a greeting's name. */
static char *first_name(const char *from)
{
	const char *p = from + strspn(from, " \"");
	size_t len = strcspn(p, " \"<,@");

	if (!len || *p == '<')
		return xstrdup("there");
	return xstrndup(p, len);
}

/* The exact command that repeats this validation. */
static void command(const struct vstate *s, struct strbuf *out)
{
	const struct validate_opts *o = s->o;
	struct strvec a = STRVEC_INIT;
	char *mr = xasprintf("%d", o->max_reps);

	strvec_pushl(&a, "wblab", "validate", "--tree", o->tree, "--base",
		     s->base.commit[0] ? s->base.commit : o->base, "--mbox",
		     o->mbox, "--matrix", o->matrix, "--max-reps", mr,
		     "--boundary", dboundary_name(o->boundary), "--results",
		     o->results, NULL);
	tree_config_argv(&o->cfg, &a);
	lkmail_command(out, a.v);
	strvec_clear(&a);
	free(mr);
}

/*
 * The result as a reply to the mbox's first message (the cover letter or
 * the patch), threaded by its Message-Id, written to WORK/reply.mail.
 */
static int reply(struct vstate *s, const char *report)
{
	struct lkmail orig, r;
	struct strbuf body = STRBUF_INIT, msg = STRBUF_INIT;
	char host[128] = "localhost", *name, *from, *path;
	int ret = -1;

	if (lkmail_read_headers(s->o->mbox, &orig))
		return -1;
	gethostname(host, sizeof(host) - 1);
	from = s->o->mail_from ? xstrdup(s->o->mail_from) :
				 xasprintf("wblab <wblab@%s>", host);
	lkmail_reply(&r, &orig, from);
	name = first_name(orig.from ? orig.from : "");
	strbuf_addf(&body, "Hi %s,\n\nwblab tested this %s on top of:\n\n",
		    name, s->o->patches.nr > 1 ? "series" : "patch");
	strbuf_addf(&body, "commit: %s (\"%s\")\nin tree %s\n\n",
		    s->base.commit, s->base.subject, s->o->tree);
	strbuf_addstr(&body, report);
	strbuf_addstr(&body, "\nTo reproduce:\n\n");
	command(s, &body);
	path = xasprintf("%s/reply.mail", s->work);
	if (!lkmail_render(&r, body.buf, time(NULL), &msg) &&
	    !lkmail_deliver(path, &msg, NULL)) {
		fprintf(s->o->out,
			"reply: %s (git send-email %s, or sendmail -t -i < %s)\n",
			path, path, path);
		ret = 0;
	}
	free(path);
	free(name);
	free(from);
	lkmail_release(&orig);
	lkmail_release(&r);
	strbuf_release(&body);
	strbuf_release(&msg);
	return ret;
}

/* --mbox: its first message can be replied to, known before any build. */
static int mbox_threads(const struct validate_opts *o)
{
	struct lkmail h;

	if (!o->mbox || o->build_only)
		return 0;
	if (lkmail_read_headers(o->mbox, &h))
		return -1;
	lkmail_release(&h);
	return 0;
}

int validate_run(struct validate_opts *o)
{
	struct vstate s = { .o = o,
			    .jr.pool = POOL_INIT,
			    .looks = DLOOKS_INIT };
	int ret = VALIDATE_INFRA;

	s.looks.boundary = o->boundary;
	if (matrix_spec_find(o->matrix, &s.m) || mbox_threads(o)) {
		ret = 2;
		goto out;
	}
	if (mkdir_stamped(o->results, "validate", &s.work) < 0) {
		error("cannot make a directory under %s: %s", o->results,
		      strerror(errno));
		goto out;
	}
	if (load_patches(&s))
		goto out;
	if (o->mbox && !o->build_only) {
		/* the report is the reply's body as well */
		s.real_out = o->out;
		o->out = open_memstream(&s.text, &s.text_len);
		if (!o->out)
			o->out = s.real_out;
	}
	s.jr.tmpl = &s.m;
	s.jr.mo = o->mo;
	s.jr.mo.results = o->results;
	s.jr.mo.command = "validate";
	if (o->build_only) {
		ret = build_only(&s);
		goto out;
	}
	if (build_both(&s, &ret))
		goto out;
	print_header(&s);
	if (!strcmp(s.base.image, s.patched.image)) {
		fprintf(o->out,
			"Verdict: no regression: the patched kernel image is identical to the base's (the series changes nothing built)\n");
		ret = VALIDATE_OK;
		goto out;
	}
	if (measure(&s)) {
		fprintf(o->out, "Verdict: INFRA: the matrix did not run\n");
		goto out;
	}
	print_rows(&s);
	ret = verdict(&s);
out:
	if (s.real_out && o->out != s.real_out) {
		fclose(o->out);
		o->out = s.real_out;
		fputs(s.text ? s.text : "", o->out);
		/* a verdict without its reply is no finished job */
		if (reply(&s, s.text ? s.text : "") && ret == VALIDATE_OK)
			ret = VALIDATE_INFRA;
	}
	free(s.text);
	free_state(&s);
	return ret;
}
