// SPDX-License-Identifier: GPL-2.0
/*
 * src/report on runs captured from this lab (tests/data/report/README.md):
 * an A/A run pair of debian-6.1 (no row may be starred when its cells are
 * split into two sides) and the 6.1 / 6.1-direct-writeback A/B run (the
 * known answer: direct reclaim writes file folios only with the revert,
 * which must be starred). Every mail line fits 80 columns, the HTML
 * parses with xmllint --html and holds no unescaped input.
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cmds.h"
#include "collect/ops.h"
#include "report/mail-int.h"
#include "report/report.h"
#include "util/fs.h"
#include "util/gnuplot.h"
#include "util/json.h"
#include "util/log.h"
#include "util/run.h"

#include "util/str.h"
#include "testdata.h"

#define AA1 "report/aa/20261203-141600-381e"
#define AA2 "report/aa/20261203-141602-388e"

static void load(struct report *r, const char *rel)
{
	struct strbuf err = STRBUF_INIT;
	char *dir = testdata_path("%s", rel);

	ck_assert_msg(!report_load_run(r, dir, &err), "%s", err.buf);
	free(dir);
	strbuf_release(&err);
}

static void load_abs(struct report *r, const char *dir)
{
	struct strbuf err = STRBUF_INIT;

	ck_assert_msg(!report_load_run(r, dir, &err), "%s", err.buf);
	strbuf_release(&err);
}

static void build(struct report *r)
{
	struct strbuf err = STRBUF_INIT;

	ck_assert_msg(!report_build(r, &err), "%s", err.buf);
	strbuf_release(&err);
}

/* The outcome or event row of kind in g (every test's row exists). */
static const struct rpt_outcome_row *outcome_row(const struct rpt_group *g,
						 const char *kind)
{
	for (size_t i = 0; i < g->nr_outcomes; i++)
		if (!strcmp(g->outcomes[i].kind, kind))
			return &g->outcomes[i];
	ck_abort_msg("no outcome row %s", kind);
	return NULL;
}

static size_t metric(const char *name)
{
	for (size_t m = 0; m < metric_nr_rows; m++)
		if (!strcmp(metric_rows[m].name, name))
			return m;
	ck_abort_msg("no row %s", name);
	return 0;
}

/* Every line at most 80 columns, printable ASCII only. */
static void assert_mail_clean(const struct strbuf *mail)
{
	size_t col = 0, line = 1;

	for (size_t i = 0; i < mail->len; i++) {
		unsigned char c = mail->buf[i];

		if (c == '\n') {
			col = 0;
			line++;
			continue;
		}
		ck_assert_msg(c >= 0x20 && c < 0x7f,
			      "mail line %zu: byte 0x%02x", line, c);
		ck_assert_msg(++col <= 80,
			      "mail line %zu over 80 columns: %.100s", line,
			      mail->buf + i - 80);
	}
}

/* Starred figures in a mail report: a digit, then "%*". */
static int count_stars(const struct strbuf *mail)
{
	int n = 0;

	for (const char *p = mail->buf; (p = strstr(p, "%*")); p++)
		n += p > mail->buf && p[-1] >= '0' && p[-1] <= '9';
	return n;
}

/* The A/A cells, odd reps against even reps, as `wblab aa` splits them. */
static void aa_sides(struct report *r)
{
	for (size_t i = 0; i < r->nr_cells; i++) {
		free(r->cells[i]->side);
		r->cells[i]->side =
			xstrdup(r->cells[i]->rep % 2 ? "odd" : "even");
	}
}

START_TEST(test_aa_not_starred)
{
	struct report r;
	struct strbuf mail = STRBUF_INIT;
	const struct rpt_group *g;
	const struct rpt_outcome_row *bf;

	report_init(&r, NULL);
	load(&r, AA1);
	load(&r, AA2);
	ck_assert_uint_eq(r.nr_cells, 12);
	aa_sides(&r);
	build(&r);
	ck_assert_uint_eq(r.nr_groups, 1);
	g = &r.groups[0];
	ck_assert_uint_eq(g->nr_sides, 2);
	ck_assert_str_eq(g->sides[0].name, "odd");
	ck_assert_uint_eq(g->sides[0].n, 6);
	ck_assert_uint_eq(g->sides[1].n, 6);
	ck_assert_uint_gt(g->tested, 10);
	ck_assert_uint_eq(g->starred, 0);
	/* The boot-failed cell (rep 3 of the second run) is a kernel
	 * outcome, counted in the outcomes, not in the metrics. */
	bf = outcome_row(g, "boot-failed");
	ck_assert_uint_eq(bf->fail[0], 1);
	ck_assert_uint_eq(bf->fail[1], 0);
	ck_assert_double_eq_tol(bf->p[1], 1, 1e-12);
	ck_assert_uint_eq(g->sides[0].desc[metric("fio-write")].n, 5);
	ck_assert_uint_eq(g->sides[1].desc[metric("fio-write")].n, 6);
	report_mail(&r, &mail);
	assert_mail_clean(&mail);
	ck_assert_ptr_nonnull(strstr(mail.buf, "0 of "));
	ck_assert_int_eq(count_stars(&mail), 0);
	strbuf_release(&mail);
	report_release(&r);
}
END_TEST

START_TEST(test_three_sides_fit)
{
	static const char *const names[] = { "a-kernel-with-a-long-name-0",
					     "a-kernel-with-a-long-name-1",
					     "a-kernel-with-a-long-name-2" };
	struct report r;
	struct strbuf mail = STRBUF_INIT;

	/* Three sides with names longer than a column: blocks, no overflow. */
	report_init(&r, NULL);
	load(&r, AA1);
	load(&r, AA2);
	for (size_t i = 0; i < r.nr_cells; i++) {
		free(r.cells[i]->side);
		r.cells[i]->side = xstrdup(names[i % 3]);
	}
	build(&r);
	ck_assert_uint_eq(r.groups[0].nr_sides, 3);
	report_mail(&r, &mail);
	assert_mail_clean(&mail);
	ck_assert_ptr_nonnull(strstr(mail.buf, "a-kernel-with-a-long-na~"));
	strbuf_release(&mail);
	report_release(&r);
}
END_TEST

START_TEST(test_aa_figures)
{
	struct report r;
	const struct rpt_side *s;
	size_t m = metric("fio-write");
	double bw[6];
	size_t n = 0;

	/*
	 * The first run's fio write bandwidths, read with
	 *   jq '.metrics.fio[0].write.bw_kib_s' cells/ * /cell.json
	 * and their harmonic mean in MiB/s computed by hand from them.
	 */
	report_init(&r, NULL);
	load(&r, AA1);
	build(&r);
	s = &r.groups[0].sides[0];
	ck_assert_str_eq(s->name, "debian-6.1");
	ck_assert_uint_eq(s->desc[m].n, 6);
	for (size_t i = 0; i < s->n; i++)
		bw[n++] = s->cells[i]->val[m] * 1024;
	ck_assert_double_eq_tol(bw[0], 24120, 1e-9);
	{
		double inv = 0;

		for (size_t i = 0; i < n; i++)
			inv += 1 / (bw[i] / 1024);
		ck_assert_double_eq_tol(s->desc[m].hmean, n / inv, 1e-9);
	}
	report_release(&r);
}
END_TEST

/* Copy a captured run into a temporary dir, so a test can alter it. */
static char *copy_run(const char *rel)
{
	char tmpl[] = "/tmp/wblab-test-report-XXXXXX";
	char *src = testdata_path("%s", rel), *dst;
	const char *argv[] = { "cp", "-r", src, NULL, NULL };

	ck_assert_ptr_nonnull(mkdtemp(tmpl));
	dst = xasprintf("%s/run", tmpl);
	argv[3] = dst;
	ck_assert_int_eq(run_argv(argv, &(struct run_opts){ .quiet = 1 }), 0);
	free(src);
	return dst;
}

static void rm_tree(const char *dir)
{
	char *parent = xstrdup(dir);
	const char *argv[] = { "rm", "-rf", parent, NULL };

	*strrchr(parent, '/') = 0;
	run_argv(argv, &(struct run_opts){ .quiet = 1 });
	free(parent);
}

static json_object *cell_json(const char *run, int idx, char **path)
{
	char *rp = xasprintf("%s/run.json", run);
	json_object *r = json_object_from_file(rp), *c;

	*path = xasprintf(
		"%s/%s/cell.json", run,
		json_object_get_string(json_path(
			json_object_array_get_idx(json_path(r, "cells"), idx),
			"dir")));
	c = json_object_from_file(*path);
	ck_assert_ptr_nonnull(c);
	json_object_put(r);
	free(rp);
	return c;
}

#define HOSTILE "<script>alert(1)</script>&amp;\"'\x1b\xff<b>"

START_TEST(test_hostile_input_escaped)
{
	char *run = copy_run(AA1), *path, *html_path;
	json_object *c = cell_json(run, 1, &path), *ev, *e;
	struct strbuf html = STRBUF_INIT, err = STRBUF_INIT;
	struct strbuf mail = STRBUF_INIT, lint = STRBUF_INIT;
	struct report_opts o = REPORT_OPTS_INIT;
	const char *argv[] = { "xmllint", "--html", "--noout", NULL, NULL };
	struct report r;

	/* Strings a spec, a console or a guest could put in cell.json. */
	json_object_object_add(json_path(c, "kernel"), "name",
			       json_object_new_string("k" HOSTILE));
	json_object_object_add(c, "outcome_reason",
			       json_object_new_string(HOSTILE));
	json_object_object_add(c, "outcome", json_object_new_string("crashed"));
	ev = json_object_new_array();
	e = json_object_new_object();
	json_object_object_add(e, "kind", json_object_new_string("oom"));
	json_object_object_add(e, "title", json_object_new_string(HOSTILE));
	json_object_object_add(e, "victim", json_object_new_string(HOSTILE));
	json_object_array_add(ev, e);
	json_object_object_add(c, "events", ev);
	json_object_object_add(json_path(c, "metrics.stack.tracer.chain.0"),
			       "location", json_object_new_string(HOSTILE));
	json_object_object_add(json_path(c, "metrics.stack.tracer"),
			       "max_bytes", json_object_new_int(99999));
	json_object_object_add(json_path(c, "metrics"), "stack_max_bytes",
			       json_object_new_int(99999));
	ck_assert_int_eq(json_object_to_file(path, c), 0);

	o.timeseries = true;
	report_init(&r, &o);
	ck_assert_int_eq(report_load_run(&r, run, &err), 0);
	build(&r);
	ck_assert_int_eq(report_html(&r, &html, &err), 0);
	ck_assert_ptr_null(strstr(html.buf, "<script"));
	ck_assert_ptr_null(strstr(html.buf, "<b>"));
	ck_assert_ptr_null(strchr(html.buf, '\x1b'));
	ck_assert_ptr_nonnull(strstr(html.buf, "&lt;script&gt;"));
	ck_assert_ptr_null(strstr(html.buf, "http://"));
	ck_assert_ptr_null(strstr(html.buf, "https://"));
	html_path = xasprintf("%s/report.html", run);
	ck_assert_int_eq(write_string_atomic(html_path, html.buf), 0);
	argv[3] = html_path;
	ck_assert_int_eq(run_argv(argv, &(struct run_opts){ .out = &lint,
							    .err = &lint }),
			 0);
	ck_assert_msg(lint.len == 0, "xmllint: %s", lint.buf);
	report_mail(&r, &mail);
	assert_mail_clean(&mail);
	ck_assert_ptr_nonnull(strstr(mail.buf, "<script>")); /* as text */

	report_release(&r);
	json_object_put(c);
	rm_tree(run);
	free(html_path);
	free(path);
	free(run);
	strbuf_release(&html);
	strbuf_release(&mail);
	strbuf_release(&lint);
	strbuf_release(&err);
}
END_TEST

START_TEST(test_infra_error_apart)
{
	char *run = copy_run(AA1), *path;
	json_object *c = cell_json(run, 0, &path);
	struct strbuf mail = STRBUF_INIT;
	struct report r;

	json_object_object_add(c, "outcome",
			       json_object_new_string("infra-error"));
	json_object_object_add(c, "outcome_reason",
			       json_object_new_string("libvirt went away"));
	ck_assert_int_eq(json_object_to_file(path, c), 0);
	report_init(&r, NULL);
	load_abs(&r, run);
	build(&r);
	ck_assert_uint_eq(r.nr_infra, 1);
	ck_assert_uint_eq(r.groups[0].sides[0].n, 5);
	ck_assert_uint_eq(r.groups[0].sides[0].desc[metric("fio-write")].n, 5);
	report_mail(&r, &mail);
	ck_assert_ptr_nonnull(strstr(mail.buf, "1 infra-error cells"));
	ck_assert_ptr_nonnull(strstr(mail.buf, "libvirt went away"));
	report_release(&r);
	json_object_put(c);
	rm_tree(run);
	free(path);
	free(run);
	strbuf_release(&mail);
}
END_TEST

/*
 * The mail's Host line reads run.json's host through the typed run
 * (results/cell.h struct run_host): a fact recorded as null or of another
 * type is left out (a null one crashed the mail before: its string was
 * NULL), the others as recorded.
 */
START_TEST(test_host_facts_typed)
{
	char *run = copy_run(AA1), *rp = xasprintf("%s/run.json", run);
	json_object *rj = json_object_from_file(rp), *h;
	struct strbuf mail = STRBUF_INIT;
	struct report r;

	ck_assert_ptr_nonnull(rj);
	h = json_path(rj, "host");
	json_object_object_add(h, "cpus", NULL);
	json_object_object_add(h, "cpu", json_object_new_int(7));
	json_object_object_add(h, "memory_mib", json_object_new_int(24105));
	ck_assert_int_eq(json_object_to_file(rp, rj), 0);
	report_init(&r, NULL);
	load_abs(&r, run);
	build(&r);
	report_mail(&r, &mail);
	ck_assert_msg(strstr(mail.buf, "\n  vm, 24105 MiB, host kernel "
				       "6.18.44-fc-v1147, QEMU 7.2.22, "
				       "libvirt 9.0.0, accel\n    tcg\n"),
		      "%s", mail.buf);
	report_release(&r);
	json_object_put(rj);
	rm_tree(run);
	free(rp);
	free(run);
	strbuf_release(&mail);
}
END_TEST

START_TEST(test_bad_run_dir)
{
	struct report r;
	struct strbuf err = STRBUF_INIT;

	report_init(&r, NULL);
	ck_assert_int_eq(report_load_run(&r, "/nonexistent/run", &err), -1);
	ck_assert_ptr_nonnull(strstr(err.buf, "/nonexistent/run/run.json"));
	strbuf_reset(&err);
	ck_assert_int_eq(report_build(&r, &err), -1);
	report_release(&r);
	strbuf_release(&err);
}
END_TEST

#define AB "report/ab"

/* The family of a starred row of side s, or NULL; at most one a family. */
static void assert_one_star_a_family(const struct rpt_group *g, size_t s)
{
	for (size_t m = 0; m < metric_nr_rows; m++)
		for (size_t o = m + 1; o < metric_nr_rows; o++)
			ck_assert_msg(!(g->cmp[s][m].star &&
					g->cmp[s][o].star &&
					!strcmp(metric_rows[m].family,
						metric_rows[o].family)),
				      "two stars in family %s",
				      metric_rows[m].family);
}

/*
 * debian-6.12, swap-direct on swap-raid1-iscsi, 6 cells (run
 * 20261204-144614-597d): reps 3 and 5 deadlocked (workload-failed), and
 * the SysRq-t dump at their end had tasks in D state. The report counts
 * the cells with a "blocked" event and names each task by where it
 * waits, a kworker by its work function.
 */
START_TEST(test_blocked_tasks_listed)
{
	struct strbuf mail = STRBUF_INIT;
	const struct rpt_group *g;
	const struct rpt_outcome_row *bl;
	struct report r;

	report_init(&r, NULL);
	load(&r, "report/deadlock");
	build(&r);
	g = &r.groups[0];
	bl = outcome_row(g, "blocked");
	ck_assert_uint_eq(bl->fail[0], 2);
	ck_assert_uint_eq(bl->runs[0], 6);
	report_mail(&r, &mail);
	assert_mail_clean(&mail);
	ck_assert_ptr_nonnull(strstr(mail.buf, "Blocked in the kernel at the "
					       "end of the workload"));
	ck_assert_ptr_nonnull(
		strstr(mail.buf, "refill_work in mempool_alloc_noprof (2)"));
	ck_assert_ptr_null(strstr(mail.buf, "0x0 in"));
	strbuf_release(&mail);
	report_release(&r);
}
END_TEST

/*
 * The lab's own 6.1 and 6.12 on swap over md RAID1/iSCSI (run
 * 20261206-072024-0ac6, 3 cells of each, tests/data/report/README.md):
 * 6.12's two stalls lasted until iSCSI's session recovery failed every
 * request, after which the watcher saw counters move; the mail says they
 * ended on I/O errors, not that they ended. 6.1's ran with the watcher
 * before it looked past dump 2: no "ended".
 */
START_TEST(test_stall_ended_on_io_errors_listed)
{
	struct strbuf mail = STRBUF_INIT;
	struct report r;

	report_init(&r, NULL);
	load(&r, "report/lab-stall");
	build(&r);
	report_mail(&r, &mail);
	assert_mail_clean(&mail);
	ck_assert_ptr_nonnull(
		strstr(mail.buf, "6.1: stall in mempool_alloc (1)\n"));
	ck_assert_ptr_nonnull(strstr(
		mail.buf,
		"mempool_alloc_noprof, throttle_direct_reclaim (1, 1\n      ended on I/O errors)"));
	ck_assert_ptr_null(strstr(mail.buf, " ended)"));
	strbuf_release(&mail);
	report_release(&r);
}
END_TEST

START_TEST(test_ab_known_answer)
{
	struct report_opts o = REPORT_OPTS_INIT;
	struct strbuf mail = STRBUF_INIT, html = STRBUF_INIT;
	struct strbuf err = STRBUF_INIT;
	const struct rpt_group *g;
	const struct rpt_outcome_row *pres;
	size_t wr = metric("reclaim-wr-direct");
	struct report r;

	/*
	 * 6.1 against 6.1-direct-writeback on ext4, dirty-flood (the known
	 * answer, tests/data/report/README.md): with the revert, memcg
	 * reclaim writes dirty file folios itself in every cell (967, 32,
	 * 538, 1322, 392 writepage calls); 6.1 never does (0 in all five).
	 */
	o.baseline = "6.1";
	o.timeseries = true;
	report_init(&r, &o);
	load(&r, AB);
	build(&r);
	ck_assert_uint_eq(r.nr_groups, 1);
	g = &r.groups[0];
	ck_assert_uint_eq(g->nr_sides, 2);
	ck_assert_str_eq(g->sides[0].name, "6.1");
	ck_assert_str_eq(g->sides[1].name, "6.1-direct-writeback");
	ck_assert_uint_eq(g->sides[0].desc[wr].n, 5);
	ck_assert_uint_eq(g->sides[1].desc[wr].n, 5);
	ck_assert_double_eq(g->sides[0].desc[wr].max, 0);
	ck_assert_double_eq_tol(g->sides[1].desc[wr].amean, 650.2, 1e-9);
	/*
	 * As a rate it is certain: 0:5 against 5:5 cells, Fisher's two-sided
	 * p = 2 / C(10,5) = 2/252 (the two most extreme tables), starred.
	 */
	pres = outcome_row(g, "reclaim-wr-direct > 0");
	ck_assert_uint_eq(pres->fail[0], 0);
	ck_assert_uint_eq(pres->fail[1], 5);
	ck_assert_double_eq_tol(pres->p[1], 2.0 / 252, 1e-12);
	/*
	 * As a mean on the raw scale it is noisy: Welch's t = 650.2 /
	 * (503.27 / sqrt(5)) = 2.889 on 4 degrees of freedom (by hand from
	 * the five values), p 0.045, which the family and BH adjustment at
	 * n = 5 did not star (the rule before 2026-12-04). The row's own
	 * test, Welch on log(1 + x) (a count piled at 0 that spreads with its
	 * mean), sees it: t = 9.14 on 4 df, p = 0.0008 (SciPy,
	 * tests/ref/stats_ref.py), and stars it.
	 */
	ck_assert(g->cmp[1][wr].welch.valid);
	ck_assert_double_eq_tol(g->cmp[1][wr].welch.stat, 2.889, 5e-4);
	ck_assert_double_eq_tol(g->cmp[1][wr].welch.df, 4, 1e-9);
	ck_assert_int_eq(g->cmp[1][wr].test, MTEST_LOG1P_WELCH);
	ck_assert_double_eq_tol(g->cmp[1][wr].t.stat, 9.137231, 1e-5);
	ck_assert_double_eq_tol(g->cmp[1][wr].t.p, 0.000796134, 1e-8);
	ck_assert(g->cmp[1][wr].star);
	assert_one_star_a_family(g, 1);
	report_mail(&r, &mail);
	assert_mail_clean(&mail);
	ck_assert_ptr_nonnull(strstr(mail.buf, "5:5 p=0.0079*"));
	ck_assert_ptr_nonnull(strstr(mail.buf, "mm: vmscan: let direct "
					       "reclaim write dirty file"));
	ck_assert_ptr_nonnull(strstr(mail.buf, "Differs between the kernels"));
	ck_assert_int_eq(report_html(&r, &html, &err), 0);
	ck_assert_ptr_nonnull(strstr(html.buf, "data:image/svg+xml;base64,"));
	strbuf_release(&mail);
	strbuf_release(&html);
	strbuf_release(&err);
	report_release(&r);
}
END_TEST

/* The one gnuplot runner: SVG on a good script, a reason on a bad one. */
START_TEST(test_gnuplot_svg)
{
	struct strbuf script = STRBUF_INIT, svg = STRBUF_INIT,
		      err = STRBUF_INIT;

	strbuf_addstr(&script, "set terminal svg size 200,100\nset output\n"
			       "$d << EOD\n1 2\n2 3\nEOD\n"
			       "plot $d using 1:2 with lines\n");
	ck_assert_msg(!gnuplot_svg(&script, &svg, &err), "%s", err.buf);
	ck_assert_ptr_nonnull(strstr(svg.buf, "<svg"));
	ck_assert_ptr_nonnull(strstr(svg.buf, "</svg>"));
	strbuf_reset(&svg);
	strbuf_reset(&script);
	strbuf_addstr(&script, "set terminal svg\nset output\nplot $nosuch\n");
	ck_assert_int_eq(gnuplot_svg(&script, &svg, &err), -1);
	ck_assert_ptr_nonnull(strstr(err.buf, "gnuplot failed (exit "));
	strbuf_release(&script);
	strbuf_release(&svg);
	strbuf_release(&err);
}
END_TEST

/* The claim of a figure (its label) in a report, or NULL. */
static const struct rpt_claim *claim(const struct report *r, const char *fig)
{
	for (size_t i = 0; i < r->nr_claims; i++)
		if (!strcmp(r->claims[i].label, fig))
			return &r->claims[i];
	return NULL;
}

/*
 * The seed's claims on the 8 KiB pair (report/stack8k): the stock side is
 * the one without the revert, though the report's baseline (--baseline
 * here; by default the first kernel the run declares, 6.1-8k) is the
 * revert; a workload that asks no claim has none.
 * A stack row is each side's deepest cell, as a share of THREAD_SIZE.
 */
START_TEST(test_claims_pair_stock_revert)
{
	struct strbuf mail = STRBUF_INIT, html = STRBUF_INIT;
	struct strbuf err = STRBUF_INIT;
	const struct rpt_claim *ov, *depth, *task;
	json_object *j, *a, *o;
	struct report r;

	report_init(&r, NULL);
	r.o.baseline = "6.1-8k-direct-writeback";
	load(&r, "report/stack8k");
	build(&r);
	ck_assert_str_eq(r.groups[0].sides[0].name, "6.1-8k-direct-writeback");
	ck_assert_uint_eq(r.nr_claims, 3);
	for (size_t i = 0; i < r.nr_claims; i++) {
		const struct rpt_claim *c = &r.claims[i];

		ck_assert_str_eq(r.groups[c->group].sides[c->stock].name,
				 "6.1-8k");
		ck_assert_str_eq(r.groups[c->group].sides[c->side].name,
				 "6.1-8k-direct-writeback");
	}
	ov = claim(&r, "stack_overflow");
	depth = claim(&r, "reclaim-wr-stack");
	task = claim(&r, "stack-max");
	ck_assert_ptr_nonnull(ov);
	ck_assert_ptr_nonnull(depth);
	ck_assert_ptr_nonnull(task);
	/* No cell overflowed 8 KiB. */
	ck_assert(ov->event);
	ck_assert_double_eq(ov->va, 0);
	ck_assert_double_eq(ov->vb, 0);
	ck_assert_int_eq(ov->na, 5);
	ck_assert_int_eq(ov->nb, 5);
	/*
	 * Stock's reclaim wrote nothing, so only the revert has a depth:
	 * the mean its test compares, 3654.4 B, and beside it its deepest
	 * cell's 3856 B (reps 1 and 3; the others 3520), 47% of the
	 * 8192-byte stack, every probe event kept: what an overflow is
	 * about, said but not tested.
	 */
	ck_assert_int_eq(depth->na, 0);
	ck_assert_int_eq(depth->nb, 5);
	ck_assert(isnan(depth->va));
	ck_assert(isnan(depth->deep_a));
	ck_assert_double_eq_tol(depth->vb, 3654.4, 1e-9);
	ck_assert_double_eq(depth->deep_b, 3856);
	ck_assert_double_eq_tol(depth->share_b, 3856.0 / 8192, 1e-12);
	ck_assert(!depth->lossy_b);
	ck_assert_int_eq(depth->d.verdict, VERDICT_UNKNOWN);
	/*
	 * The stack tracer's deepest task: 2816-2936 B on stock, 3680-4016 B
	 * with the revert (the write path on the writer's own stack). All
	 * five above all five: the permutation test's two-sided p is
	 * 2 / C(10,5) = 2/252, of the means 2878.4 and 3814.4 B
	 * (tests/ref/means_ref.py), the deepest 2936 and 4016 B.
	 */
	ck_assert_double_eq_tol(task->va, 2878.4, 1e-9);
	ck_assert_double_eq_tol(task->vb, 3814.4, 1e-9);
	ck_assert_double_eq(task->deep_a, 2936);
	ck_assert_double_eq(task->deep_b, 4016);
	ck_assert_double_eq_tol(task->d.p, 2.0 / 252, 1e-9);
	ck_assert_int_eq(task->d.verdict, VERDICT_DIFFERENT);
	report_mail(&r, &mail);
	assert_mail_clean(&mail);
	ck_assert_ptr_nonnull(strstr(mail.buf, "stock 6.1-8k, revert"));
	ck_assert_ptr_nonnull(strstr(mail.buf, " 3856 B (47%)"));
	ck_assert_ptr_nonnull(strstr(mail.buf, "2936 B (36%)   4016 B (49%)"));
	j = report_json(&r);
	ck_assert(json_object_object_get_ex(j, "claims", &a));
	ck_assert_uint_eq(json_object_array_length(a), 3);
	o = json_object_array_get_idx(a, 1);
	ck_assert_str_eq(json_object_get_string(json_path(o, "stat")), "Amean");
	ck_assert_double_eq(
		json_object_get_double(json_path(o, "revert_deepest")), 3856);
	ck_assert_double_eq_tol(
		json_object_get_double(json_path(o, "revert_share")), 0.4707,
		1e-4);
	json_object_put(j);
	ck_assert_int_eq(report_html(&r, &html, &err), 0);
	ck_assert_ptr_nonnull(strstr(html.buf, "Claims of the seed"));
	report_release(&r);
	strbuf_release(&mail);
	strbuf_release(&html);
	strbuf_release(&err);

	/*
	 * Swap over md RAID1 over iSCSI on the same pair (report/swap8k):
	 * the reclaim-write probes lost events in both kernels' finished
	 * cells, so each deepest figure is a lower bound and says so.
	 */
	report_init(&r, NULL);
	load(&r, "report/swap8k");
	build(&r);
	depth = claim(&r, "reclaim-wr-stack");
	ck_assert_ptr_nonnull(depth);
	ck_assert(depth->lossy_a);
	ck_assert(depth->lossy_b);
	ck_assert_double_eq(depth->deep_a, 3464);
	ck_assert_double_eq(depth->deep_b, 3752);
	report_mail(&r, &mail);
	assert_mail_clean(&mail);
	ck_assert_ptr_nonnull(
		strstr(mail.buf, ">=3464 B (42%) >=3752 B (46%)"));
	report_release(&r);
	strbuf_release(&mail);

	/* dirty-flood asks no claim: no section. */
	report_init(&r, NULL);
	load(&r, "report/ab");
	build(&r);
	ck_assert_uint_eq(r.nr_claims, 0);
	report_mail(&r, &mail);
	ck_assert_ptr_null(strstr(mail.buf, "Claims of the seed"));
	report_release(&r);
	strbuf_release(&mail);
}
END_TEST

/*
 * The demo's A/B mail (report/ab, n = 5 a kernel): at most 100 lines;
 * every main row of the tables has its n on both sides and the change
 * with half its 95% interval ("(-19% +-69)" for write-lat-p99: 160.27
 * against 134.48 ms, half 93.41 ms, tests/test_stats.c); and the
 * starred rows by direction, an improvement as plainly as a regression.
 */
START_TEST(test_mail_compact_column)
{
	struct strbuf mail = STRBUF_INIT;
	struct report r;
	size_t lines = 0, rows = 0;
	const char *p, *tables;

	report_init(&r, NULL);
	load(&r, "report/ab");
	build(&r);
	report_mail(&r, &mail);
	assert_mail_clean(&mail);
	for (p = mail.buf; (p = strchr(p, '\n')); p++)
		lines++;
	ck_assert_msg(lines <= 100, "the demo's mail has %zu lines", lines);
	ck_assert_ptr_nonnull(strstr(mail.buf,
				     "write-lat-p99 (ms)            134.48    "
				     "(n=5/5)    160.27 (-19% +-69)\n"));
	tables = strstr(mail.buf, "\nMetrics ");
	ck_assert_ptr_nonnull(tables);
	for (p = tables; (p = strchr(p, '\n')); p++) {
		const char *nl = strchr(p + 1, '\n');
		char *line;

		if (!nl || starts_with(p + 1, "0 in every cell"))
			break;
		if (!starts_with(p + 1, "Amean ") &&
		    !starts_with(p + 1, "Gmean "))
			continue;
		line = xstrndup(p + 1, nl - p - 1);
		ck_assert_msg(strstr(line, "(n=5/5)"), "%s", line);
		ck_assert_msg(strstr(line, " +-") || strstr(line, "from 0"),
			      "%s", line);
		free(line);
		rows++;
	}
	ck_assert_uint_ge(rows, 20);
	ck_assert_ptr_nonnull(
		strstr(mail.buf, "Better: Reclaim immediate, Slabs scanned; "
				 "worse: reclaim-wr-direct.\n"));
	/* --full says what each row shown means, the registry's line. */
	strbuf_reset(&mail);
	r.o.full = true;
	report_mail(&r, &mail);
	assert_mail_clean(&mail);
	ck_assert_ptr_nonnull(strstr(mail.buf, "  fio-write          MiB/s  "));
	ck_assert_ptr_nonnull(
		strstr(mail.buf, "\n    first fio job's write bandwidth\n"));
	report_release(&r);
	strbuf_release(&mail);
}
END_TEST

/* A workload description as long as the shipped ones (five lines). */
static char *long_description(const char *workload)
{
	return xasprintf(
		"%s: the hog touches 640 MiB in a 512 MiB guest with "
		"no memcg, so the guest's free memory runs out and the "
		"hog's page faults enter direct reclaim next to kswapd; "
		"both write anonymous folios to swap through "
		"swap_writepage() and the block stack below the "
		"topology's swap layer.",
		workload);
}

static size_t count_lines(const struct strbuf *sb)
{
	size_t n = 0;

	for (const char *p = sb->buf; (p = strchr(p, '\n')); p++)
		n++;
	return n;
}

/*
 * A report of two groups (report/lab-stall, the captured two-group run:
 * 164 lines before) fits the mail's 100 lines and 80 columns: the Ops rows
 * with no star, the chains' frames and the workloads' whole text are left
 * to --full, and the mail says so. --full still has every one of them.
 */
START_TEST(test_mail_two_groups_fit)
{
	struct strbuf mail = STRBUF_INIT;
	struct report r;
	size_t lines;

	report_init(&r, NULL);
	r.o.describe_workload = long_description;
	load(&r, "report/lab-stall");
	build(&r);
	ck_assert_uint_eq(r.nr_groups, 2);
	report_mail(&r, &mail);
	assert_mail_clean(&mail);
	lines = count_lines(&mail);
	ck_assert_msg(lines <= 100, "the two-group mail has %zu lines", lines);
	ck_assert_ptr_nonnull(strstr(mail.buf, "are in wblab report --full."));
	ck_assert_ptr_nonnull(
		strstr(mail.buf, "\n  levers (all groups): pin=off "));
	ck_assert_ptr_null(strstr(mail.buf, "\nLevers: "));
	ck_assert_ptr_nonnull(
		strstr(mail.buf,
		       "\nOps: 17 rows with no star: wblab report --full.\n"));
	ck_assert_ptr_null(strstr(mail.buf, "Minor faults"));
	ck_assert_ptr_nonnull(strstr(mail.buf, "4560 bytes (its frames:\n"));
	ck_assert_ptr_null(strstr(mail.buf, "pageout+0x"));
	/* The workload on one line, cut at a word and said to go on. */
	ck_assert_ptr_nonnull(strstr(
		mail.buf, "\nWorkload: swap-direct: the hog touches 640 MiB in "
			  "a 512 MiB guest with no ...\n"));
	strbuf_reset(&mail);
	r.o.full = true;
	report_mail(&r, &mail);
	assert_mail_clean(&mail);
	ck_assert_ptr_nonnull(strstr(mail.buf, "Gmean    Minor faults"));
	ck_assert_ptr_nonnull(strstr(mail.buf, "pageout+0xd1/0x250"));
	ck_assert_ptr_nonnull(strstr(mail.buf, "swap layer.\n"));
	ck_assert_ptr_nonnull(strstr(mail.buf, "\nLevers: pin=off "));
	report_release(&r);
	strbuf_release(&mail);
}
END_TEST

/*
 * Two groups with two kernels in each (report/levers-ab: the lever
 * settings pin=off and pin=on, 6.1 against its revert, n=3): the brief
 * layout of several groups, each group's Verdict finding the revert's
 * writes, no line over 80 columns. Its 152 lines are over the mail's 100
 * (issue 45): not checked here until the layout fits them.
 */
START_TEST(test_mail_two_by_two)
{
	struct strbuf mail = STRBUF_INIT;
	struct report r;

	report_init(&r, NULL);
	load(&r, "report/levers-ab");
	build(&r);
	ck_assert_uint_eq(r.nr_groups, 2);
	for (size_t g = 0; g < r.nr_groups; g++)
		ck_assert_uint_eq(r.groups[g].nr_sides, 2);
	ck_assert_str_eq(r.groups[1].levers_brief, "pin=on");
	report_mail(&r, &mail);
	assert_mail_clean(&mail);
	ck_assert_ptr_nonnull(strstr(mail.buf, "are in wblab report --full."));
	ck_assert_ptr_nonnull(strstr(
		mail.buf, "reclaim-wr-direct  different Gmean 0 -> 387 pages"));
	ck_assert_ptr_nonnull(strstr(
		mail.buf, "reclaim-wr-direct  different Gmean 0 -> 216 pages"));
	report_release(&r);
	strbuf_release(&mail);
}
END_TEST

/*
 * Claim (b) on seeky-random over the throttled disk (report/seeky: three
 * runs, n = 5 a kernel). Stock's memcg reclaim writes nothing, so the
 * seeks that answer the claim are stock's flusher's against the revert's
 * reclaim's, the writers that clean the same pages. Reference values:
 * tests/ref/claims_ref.py (SciPy).
 */
START_TEST(test_claims_seeky)
{
	static const char *const runs[] = {
		"report/seeky/20261204-231712-2441",
		"report/seeky/20261204-232601-2861",
		"report/seeky/20261205-004311-71d7",
	};
	struct strbuf mail = STRBUF_INIT, html = STRBUF_INIT;
	struct strbuf err = STRBUF_INIT;
	const struct rpt_claim *bw, *rf, *run, *rho;
	struct report r;

	report_init(&r, NULL);
	for (size_t i = 0; i < ARRAY_SIZE(runs); i++)
		load(&r, runs[i]);
	build(&r);
	ck_assert_uint_eq(r.nr_claims, 5);
	ck_assert_ptr_null(claim(&r, "Memcg seeks"));
	bw = claim(&r, "fio-write");
	rf = claim(&r, "Reclaim v flusher");
	run = claim(&r, "Run, reclaim v fl");
	rho = claim(&r, "Memcg offset rho");
	ck_assert_ptr_nonnull(bw);
	ck_assert_ptr_nonnull(rf);
	ck_assert_ptr_nonnull(run);
	ck_assert_ptr_nonnull(rho);
	/*
	 * 9.05 -> 8.00 MiB/s, the Gmean its log1p-welch test compares, p
	 * 0.00100107 (the harmonic mean was 9.046729 and 7.998257).
	 */
	ck_assert_int_eq(bw->na, 5);
	ck_assert_int_eq(bw->nb, 5);
	ck_assert_double_eq_tol(bw->va, 9.053886, 1e-6);
	ck_assert_double_eq_tol(bw->vb, 8.000770, 1e-6);
	ck_assert_double_eq_tol(bw->d.p, 0.00100107, 1e-8);
	ck_assert_int_eq(bw->d.verdict, VERDICT_DIFFERENT);
	/* Gaps over 1 MiB: 1.27% of the flusher's, 99.05% of reclaim's;
	 * all five above all five, p = 2 / C(10,5). */
	ck_assert_str_eq(rf->stock_figure, "Flusher seeks");
	ck_assert_str_eq(rf->figure, "Memcg seeks");
	ck_assert_int_eq(rf->na, 5);
	ck_assert_int_eq(rf->nb, 5);
	ck_assert_double_eq_tol(rf->va, 1.270760, 1e-6);
	ck_assert_double_eq_tol(rf->vb, 99.051, 1e-6);
	ck_assert_double_eq_tol(rf->d.p, 2.0 / 252, 1e-9);
	ck_assert_int_eq(rf->d.verdict, VERDICT_DIFFERENT);
	/* Runs of contiguous requests: the flusher's 4.83 KiB against
	 * reclaim's single pages (4 KiB in every cell), log1p-welch on
	 * log(1 + x / 4 KiB), p 3.54723e-10 (3.18685e-10 on log(1 + x)
	 * of the KiB figure, before the offset was one page). */
	ck_assert_str_eq(run->stock_figure, "Flusher run");
	ck_assert_str_eq(run->figure, "Memcg run");
	ck_assert_int_eq(run->na, 5);
	ck_assert_int_eq(run->nb, 5);
	ck_assert_double_eq_tol(run->va, 4.831399, 1e-6);
	ck_assert_double_eq_tol(run->vb, 4.0, 1e-9);
	ck_assert_double_eq_tol(run->d.p, 3.54723e-10, 1e-14);
	ck_assert_int_eq(run->d.verdict, VERDICT_DIFFERENT);
	/* The revert's order against file offset: no stock side. */
	ck_assert_int_eq(rho->na, 0);
	ck_assert_int_eq(rho->nb, 5);
	ck_assert(rho->vb < 0 && rho->vb > -0.2);
	report_mail(&r, &mail);
	assert_mail_clean(&mail);
	ck_assert_ptr_nonnull(strstr(mail.buf,
				     "Reclaim v flusher         1.27 %        "
				     "99.05 %   5/5   0.0079 different"));
	ck_assert_ptr_nonnull(strstr(mail.buf, "Reclaim v flusher: stock's "
					       "Flusher seeks against"));
	/* Only the claim the runs ask, in the mail and in the HTML. */
	ck_assert_ptr_null(strstr(mail.buf, "(a) writeback from direct"));
	ck_assert_int_eq(report_html(&r, &html, &err), 0);
	ck_assert_ptr_nonnull(strstr(html.buf, "<li>(b) reclaim writes"));
	ck_assert_ptr_null(strstr(html.buf, "<li>(a) writeback from direct"));
	ck_assert_ptr_null(strstr(html.buf, "<li>(c) forbidding"));
	report_release(&r);
	strbuf_release(&mail);
	strbuf_release(&html);
	strbuf_release(&err);
}
END_TEST

/*
 * Claim (c) on real premature-OOM cells (report/oom: 6.1 and its revert,
 * two cells each, no kill in any): whether a cell killed is a rate of
 * cells, k/n with Fisher, as the outcome rows name it ("oom-premature >
 * 0"), beside the kills a cell; the claims section used to print the
 * rate rows as a mean count ("0.00 count").
 */
START_TEST(test_claims_oom_rates)
{
	struct strbuf mail = STRBUF_INIT;
	const struct rpt_claim *cells = NULL, *kills = NULL, *any = NULL;
	const struct rpt_claim *dirty = NULL;
	json_object *j, *a, *o, *k;
	struct report r;

	report_init(&r, NULL);
	load(&r, "report/oom");
	build(&r);
	ck_assert_uint_eq(r.nr_claims, 4);
	for (size_t i = 0; i < r.nr_claims; i++) {
		const struct rpt_claim *c = &r.claims[i];

		ck_assert_str_eq(r.groups[c->group].sides[c->stock].name,
				 "6.1");
		if (!strcmp(c->label, "oom-premature > 0"))
			cells = c;
		if (!strcmp(c->label, "oom-premature"))
			kills = c;
		if (!strcmp(c->label, "oom-kills > 0"))
			any = c;
		if (!strcmp(c->label, "oom-dirty-at-kill"))
			dirty = c;
	}
	ck_assert_ptr_nonnull(cells);
	ck_assert_ptr_nonnull(kills);
	ck_assert_ptr_nonnull(any);
	ck_assert_ptr_nonnull(dirty);
	ck_assert_str_eq(cells->figure, "oom-premature");
	ck_assert(cells->event && any->event);
	ck_assert(!kills->event && !dirty->event);
	ck_assert_double_eq(cells->va, 0);
	ck_assert_double_eq(cells->vb, 0);
	ck_assert_int_eq(cells->na, 2);
	ck_assert_int_eq(cells->nb, 2);
	ck_assert_int_eq(cells->d.test, MTEST_FISHER);
	ck_assert_double_eq(kills->va, 0);
	ck_assert_int_eq(kills->na, 2);
	/* No kill: no figure at a kill, n 0 a side. */
	ck_assert_int_eq(dirty->na, 0);
	ck_assert(isnan(dirty->va));
	report_mail(&r, &mail);
	assert_mail_clean(&mail);
	ck_assert_ptr_nonnull(strstr(mail.buf, "(c) oom-premature > 0 "));
	ck_assert_ptr_nonnull(strstr(mail.buf, "(c) oom-kills > 0 "));
	ck_assert_ptr_null(strstr(mail.buf, "oom-kills         0.00 count"));
	ck_assert_ptr_nonnull(strstr(mail.buf, " 0/2 "));
	j = report_json(&r);
	ck_assert(json_object_object_get_ex(j, "claims", &a));
	ck_assert_uint_eq(json_object_array_length(a), 4);
	o = json_object_array_get_idx(a, 0);
	ck_assert(json_object_object_get_ex(o, "figure", &k));
	ck_assert_str_eq(json_object_get_string(k), "oom-premature > 0");
	ck_assert(json_object_object_get_ex(o, "kind", &k));
	ck_assert_str_eq(json_object_get_string(k), "rate");
	json_object_put(j);
	report_release(&r);
	strbuf_release(&mail);
}
END_TEST

/*
 * One kernel name, two builds: the claims runs of 2026-12-05 00:43 and
 * 10:54 (the lab config changed between them) pooled into one side each
 * used to show the first cell's cache key only. Both pairs are named,
 * once each over rebuilds, in the mail, the HTML and the JSON.
 */
START_TEST(test_two_builds_said)
{
	struct strbuf mail = STRBUF_INIT, html = STRBUF_INIT, err = STRBUF_INIT;
	json_object *j, *a;
	struct report r;

	report_init(&r, NULL);
	load(&r, "report/oom");
	build(&r);
	ck_assert_uint_eq(r.mixed.nr, 0);
	load(&r, "report/oom-build2");
	build(&r);
	build(&r);
	ck_assert_uint_eq(r.mixed.nr, 2);
	ck_assert_ptr_nonnull(
		strstr(r.mixed.v[0],
		       "6.1-direct-writeback: kernel hash 3925e5c564b2"));
	ck_assert_ptr_nonnull(
		strstr(r.mixed.v[1], "6.1: kernel hash 4d25614212a5"));
	report_mail(&r, &mail);
	assert_mail_clean(&mail);
	ck_assert_ptr_nonnull(strstr(mail.buf, "Two builds under one name"));
	ck_assert_int_eq(report_html(&r, &html, &err), 0);
	ck_assert_ptr_nonnull(
		strstr(html.buf, "<h2>Two builds under one name</h2>"));
	j = report_json(&r);
	ck_assert(json_object_object_get_ex(j, "mixed_builds", &a));
	ck_assert_uint_eq(json_object_array_length(a), 2);
	json_object_put(j);
	report_release(&r);
	strbuf_release(&mail);
	strbuf_release(&html);
	strbuf_release(&err);
}
END_TEST

/*
 * A lead sentence longer than the line (the unequal-work note's) is
 * wrapped with the text: the old mail_wrap copied a negative length.
 */
START_TEST(test_wrap_long_first)
{
	struct strbuf mail = STRBUF_INIT;
	const char *first = "Unequal work: more than 1% of what these cells "
			    "wrote was still dirty or under writeback when the "
			    "workload ended (end-dirty): ";

	mail_wrap(&mail, first, 4,
		  "6.1-direct-writeback_ext4-disk_stack-reclaim-write_1, "
		  "6.1_ext4-disk_stack-reclaim-write_1");
	assert_mail_clean(&mail);
	ck_assert_ptr_nonnull(strstr(mail.buf, "workload ended"));
	ck_assert_ptr_nonnull(strstr(mail.buf, "6.1_ext4-disk_stack-reclaim-"
					       "write_1\n"));
	strbuf_release(&mail);
}
END_TEST

/* A child printing without end is killed at the cap, not read forever. */
START_TEST(test_run_capture_capped)
{
	const char *argv[] = { "yes", NULL };
	struct strbuf out = STRBUF_INIT;
	struct run_opts o = { .out = &out, .max_capture = 1 << 20 };

	ck_assert_int_eq(run_argv(argv, &o), 125);
	ck_assert_uint_gt(out.len, 1 << 20);
	ck_assert_uint_le(out.len, (1 << 20) + 65536);
	strbuf_release(&out);
}
END_TEST

/*
 * --baseline naming no kernel of the runs (issue 47): the error, exit 2,
 * and no crash freeing the groups build_group() stopped in (was SIGSEGV
 * in free_group(), exit 139).
 */
START_TEST(test_baseline_typo)
{
	char *ab = testdata_path(AB), *a1 = testdata_path(AA1),
	     *a2 = testdata_path(AA2);
	char *report[] = { "report", ab, "--baseline", "TYPO", NULL };
	char *compare[] = { "compare", a1, a2, "--baseline", "TYPO", NULL };
	struct strbuf err = STRBUF_INIT;

	stderr_begin();
	ck_assert_int_eq(cmd_report(4, report), 2);
	ck_assert_int_eq(cmd_compare(5, compare), 2);
	stderr_end(&err);
	ck_assert_msg(strstr(err.buf, "--baseline TYPO: no cells of it in"),
		      "%s", err.buf);
	strbuf_release(&err);
	free(ab);
	free(a1);
	free(a2);
}
END_TEST

/*
 * One run given three times, as R, R/ and a link to R (issue 47): its
 * cells count once, and each repeat is a warning naming the first.
 */
START_TEST(test_same_run_read_once)
{
	char *run = copy_run(AA1);
	char *slash = xasprintf("%s/", run);
	char *link = xasprintf("%s-link", run);
	struct report r;
	size_t once;

	ck_assert_int_eq(symlink(run, link), 0);
	report_init(&r, NULL);
	load_abs(&r, run);
	once = r.nr_cells;
	ck_assert_uint_gt(once, 0);
	load_abs(&r, slash);
	load_abs(&r, link);
	ck_assert_uint_eq(r.nr_cells, once);
	ck_assert_uint_eq(r.nr_runs, 1);
	ck_assert_uint_eq(r.warnings.nr, 2);
	ck_assert_msg(strstr(r.warnings.v[1], "-link: the same run as ") &&
			      strstr(r.warnings.v[1], "read once"),
		      "%s", r.warnings.v[1]);
	build(&r);
	report_release(&r);
	/* compare R R/: no comparison, exit 2 (was R against itself, 0) */
	{
		char *argv[] = { "compare", run, link, NULL };
		struct strbuf err = STRBUF_INIT;

		stderr_begin();
		ck_assert_int_eq(cmd_compare(3, argv), 2);
		stderr_end(&err);
		ck_assert_msg(strstr(err.buf, "are the same run (") &&
				      strstr(err.buf, "nothing to compare"),
			      "%s", err.buf);
		strbuf_release(&err);
	}
	rm_tree(run);
	free(link);
	free(slash);
	free(run);
}
END_TEST

/*
 * The HTML's time series and the cell's summary read timeseries.tsv
 * through one checked parser: a captured series with a malformed row (a
 * field that is no number: strtod() plotted its "12" before), a value
 * beyond 2^53 and a torn last line gives the plot the same samples the
 * summary counts, none of the bad rows.
 */
START_TEST(test_timeseries_one_parser)
{
	char tmpl[] = "/tmp/wblab-test-report-XXXXXX";
	struct strbuf ts = STRBUF_INIT, plot = STRBUF_INIT;
	char *path;
	json_object *sum;
	int points;

	testdata_read(&ts, AA1 "/cells/debian-6.1_ext4-disk_dirty-flood_1/"
			       "timeseries.tsv");
	strbuf_addstr(&ts, "99.5\t1\t12abc\t0\t3\t0\t0\t0\t0\t3\t6\t8\t0"
			   "\t0\t0\t0\t0\n"
			   "98.5\t1\t1e300\t0\t3\t0\t0\t0\t0\t3\t6\t8\t0"
			   "\t0\t0\t0\t0\n"
			   "97.5\t1\t13");
	ck_assert_ptr_nonnull(mkdtemp(tmpl));
	path = xasprintf("%s/timeseries.tsv", tmpl);
	ck_assert_int_eq(write_file_atomic(path, ts.buf, ts.len, 0644), 0);
	sum = timeseries_summary(ts.buf, ts.len);
	ck_assert_ptr_nonnull(sum);
	ck_assert_int_eq(json_int_at(sum, "malformed_rows", -1), 2);
	points = rpt_ts_column(&plot, tmpl, "dirty_kb");
	ck_assert_int_eq(points, json_int_at(sum, "samples", -1));
	ck_assert_int_eq(points, 18);
	ck_assert_msg(!strstr(plot.buf, "99.500") &&
			      !strstr(plot.buf, "98.500") &&
			      !strstr(plot.buf, "97.500"),
		      "%s", plot.buf);
	unlink(path);
	rmdir(tmpl);
	json_object_put(sum);
	free(path);
	strbuf_release(&ts);
	strbuf_release(&plot);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("report");
	TCase *tc = tcase_create("report");
	SRunner *sr;
	int failed;

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_aa_not_starred);
	tcase_add_test(tc, test_aa_figures);
	tcase_add_test(tc, test_three_sides_fit);
	tcase_add_test(tc, test_ab_known_answer);
	tcase_add_test(tc, test_blocked_tasks_listed);
	tcase_add_test(tc, test_stall_ended_on_io_errors_listed);
	tcase_add_test(tc, test_hostile_input_escaped);
	tcase_add_test(tc, test_infra_error_apart);
	tcase_add_test(tc, test_bad_run_dir);
	tcase_add_test(tc, test_gnuplot_svg);
	tcase_add_test(tc, test_run_capture_capped);
	tcase_add_test(tc, test_wrap_long_first);
	tcase_add_test(tc, test_claims_pair_stock_revert);
	tcase_add_test(tc, test_claims_seeky);
	tcase_add_test(tc, test_claims_oom_rates);
	tcase_add_test(tc, test_two_builds_said);
	tcase_add_test(tc, test_baseline_typo);
	tcase_add_test(tc, test_same_run_read_once);
	tcase_add_test(tc, test_mail_compact_column);
	tcase_add_test(tc, test_mail_two_groups_fit);
	tcase_add_test(tc, test_timeseries_one_parser);
	tcase_add_test(tc, test_host_facts_typed);
	tcase_add_test(tc, test_mail_two_by_two);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
