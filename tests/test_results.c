// SPDX-License-Identifier: GPL-2.0
/*
 * src/results: the metric registry on every cell.json captured in
 * tests/data (the report's A/B, A/A and deadlocked runs, the io cell, the
 * jobs' cells): no two rows carry the same quantity, every row is found in
 * a captured cell or says which workloads record it, and a name a user
 * mistypes gets the rows it was close to. The results reader on the
 * captured runs, and on runs made here to be refused.
 */
#include <check.h>
#include <ctype.h>
#include <fcntl.h>
#include <ftw.h>
#include <glob.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "jobs/pool.h"
#include "report/report.h"
#include "results/metric.h"
#include "results/outcome.h"
#include "results/reader.h"
#include "util/fs.h"
#include "util/json.h"
#include "util/log.h"
#include "util/strvec.h"

#include "testdata.h"

static struct strvec found = STRVEC_INIT;

static int collect(const char *path, const struct stat *st, int type,
		   struct FTW *ftw)
{
	const char *base = path + ftw->base;

	size_t len = strlen(base);

	/* cells/ID/cell.json, and jobs/'s cell-N.json */
	if (type == FTW_F && (!strcmp(base, "cell.json") ||
			      (!strncmp(base, "cell-", 5) && len > 5 &&
			       !strcmp(base + len - 5, ".json"))))
		strvec_push(&found, path);
	return 0;
}

/* Every captured cell.json, parsed; *n of them. */
static json_object **captured_cells(size_t *n)
{
	char *root = testdata_path(".");
	json_object **cells;

	strvec_clear(&found);
	ck_assert_int_eq(nftw(root, collect, 16, FTW_PHYS), 0);
	ck_assert_msg(found.nr >= 31, "only %zu cells under %s", found.nr,
		      root);
	cells = xzalloc(found.nr * sizeof(*cells));
	for (size_t i = 0; i < found.nr; i++) {
		cells[i] = json_object_from_file(found.v[i]);
		ck_assert_msg(cells[i], "%s: not JSON", found.v[i]);
	}
	*n = found.nr;
	free(root);
	return cells;
}

static void free_cells(json_object **cells, size_t n)
{
	for (size_t i = 0; i < n; i++)
		json_object_put(cells[i]);
	free(cells);
}

/*
 * Two rows are one quantity when they are equal in every cell that has
 * both and that value is not the same everywhere (two counters that are 0
 * in every captured cell say nothing about each other).
 */
static bool same_quantity(json_object **cells, size_t n, const struct metric *a,
			  const struct metric *b, size_t *both)
{
	double first = NAN;
	bool varies = false;

	*both = 0;
	for (size_t i = 0; i < n; i++) {
		double va = metric_value(cells[i], a) / a->scale;
		double vb = metric_value(cells[i], b) / b->scale;

		if (isnan(va) || isnan(vb))
			continue;
		if (va != vb)
			return false;
		if (!(*both)++)
			first = va;
		varies |= va != first;
	}
	return *both && varies;
}

START_TEST(test_no_two_rows_one_quantity)
{
	size_t n, both;
	json_object **cells = captured_cells(&n);

	for_each_metric(a) for (const struct metric *b = a + 1;
				b < metric_rows + metric_nr_rows; b++)
		ck_assert_msg(!same_quantity(cells, n, a, b, &both),
			      "%s and %s are equal in all %zu cells "
			      "that have both",
			      a->name, b->name, both);
	free_cells(cells, n);
}
END_TEST

/* The test above fails on the table before this registry: Direct wr pages
 * was reclaim-wr-direct in every captured cell (74: the 11 of
 * report/{ab,aa,deadlock} and jobs, 5 of them > 0, the 30 of
 * report/fsync, 10 of them > 0, the 10 of report/stack8k, 5 > 0, the
 * 12 of report/seeky and report/seeky-streams, 6 > 0, the 4 of
 * report/oom, 2 > 0, the 4 of report/oom-build2, 2 > 0, the 30 of
 * report/fsync-day2, 10 of them > 0, the 7 ok cells of
 * jobs/crash-rerun, all 0 (its 7 crashed cells have none), and the 18
 * ok cells of jobs/infra-7.2, all 0 (7.x has no ->writepage; its 30
 * infra-error cells have none), and the 12 of report/levers-ab, 6 > 0:
 * 138). */
START_TEST(test_duplicate_is_seen)
{
	const struct metric *wr = metric_by_name("reclaim-wr-direct");
	struct metric old = *wr;
	size_t n, both;
	json_object **cells = captured_cells(&n);

	old.name = "Direct wr pages";
	old.path = "metrics.vmscan_write_file_direct_pages";
	ck_assert(same_quantity(cells, n, wr, &old, &both));
	ck_assert_uint_eq(both, 138);
	free_cells(cells, n);
}
END_TEST

START_TEST(test_every_row_in_a_cell)
{
	size_t n;
	json_object **cells = captured_cells(&n);

	for_each_metric(m)
	{
		size_t have = 0;

		for (size_t i = 0; i < n; i++)
			have += !isnan(metric_value(cells[i], m));
		ck_assert_msg(have || m->only,
			      "%s (%s): in no captured cell, and no .only says "
			      "which workloads record it",
			      m->name, m->path);
		ck_assert_msg(!have || !m->only || strlen(m->only) > 10,
			      "%s: .only too short", m->name);
	}
	free_cells(cells, n);
}
END_TEST

/*
 * METRIC_X names the row called x (upper case, each run of other
 * characters '_'): METRIC(STACK_MAX) in C is the row "stack-max", and a
 * row renamed without its id (or the other way) fails here.
 */
START_TEST(test_ids_name_their_rows)
{
	ck_assert_uint_eq(metric_nr_rows, METRIC_NR_IDS);
	for (size_t i = 0; i < metric_nr_rows; i++) {
		const char *n = metric_rows[i].name;
		char want[64];
		size_t k = 0;

		ck_assert_ptr_nonnull(n);
		for (; *n && k + 1 < sizeof(want); n++) {
			if (isalnum((unsigned char)*n))
				want[k++] = toupper((unsigned char)*n);
			else if (k && want[k - 1] != '_')
				want[k++] = '_';
		}
		while (k && want[k - 1] == '_')
			k--;
		want[k] = 0;
		ck_assert_str_eq(metric_id_names[i], want);
	}
	ck_assert_str_eq(METRIC(RECLAIM_WR_DIRECT)->name, "reclaim-wr-direct");
	ck_assert_str_eq(METRIC(MINOR_FAULTS)->name, "Minor faults");
}
END_TEST

START_TEST(test_rows_well_formed)
{
	for_each_metric(m)
	{
		ck_assert_msg(strlen(m->name) <= 18, "%s: name over 18",
			      m->name);
		ck_assert_msg(m->path && m->unit && m->family && m->help,
			      "%s: a field is missing", m->name);
		ck_assert_msg(m->scale > 0, "%s: scale", m->name);
		ck_assert_ptr_eq(metric_by_name(m->name), m);
		ck_assert_ptr_eq(metric_by_path(m->path), m);
		for (const struct metric *o = metric_rows; o < m; o++) {
			ck_assert_msg(strcasecmp(o->name, m->name), "%s twice",
				      m->name);
			ck_assert_msg(strcmp(o->path, m->path),
				      "%s and %s read %s", o->name, m->name,
				      m->path);
		}
		/* A rate is a fail:runs comparison, and only a rate is. */
		ck_assert((m->kind == MK_RATE) == (m->test == MTEST_FISHER));
	}
	ck_assert_ptr_eq(metric_by_path("metrics.ops.sector_writes"),
			 metric_by_name("Pgpgout"));
}
END_TEST

START_TEST(test_name_spellings)
{
	ck_assert_ptr_eq(metric_by_name("minor-faults"),
			 metric_by_name("Minor faults"));
	ck_assert_ptr_eq(metric_by_name("MINOR FAULTS"),
			 metric_by_name("Minor faults"));
	ck_assert_ptr_nonnull(metric_by_name("reclaim-wr-direct"));
	/* A path is not a name. */
	ck_assert_ptr_null(metric_by_name("vmscan_write_file_direct"));
	ck_assert_ptr_null(metric_by_name("minor_faults"));
	ck_assert_ptr_null(metric_by_name(""));
}
END_TEST

static void assert_lookup(const char *name, const char *msg)
{
	struct strbuf err = STRBUF_INIT;

	ck_assert_ptr_null(metric_lookup(name, &err));
	ck_assert_str_eq(err.buf, msg);
	strbuf_release(&err);
}

START_TEST(test_unknown_names)
{
	struct strbuf err = STRBUF_INIT;

	assert_lookup("vmscan_write_file_direct",
		      "unknown metric 'vmscan_write_file_direct'; did you mean "
		      "reclaim-wr-direct?");
	assert_lookup("metrics.fio.0.write.bw_kib_s",
		      "unknown metric 'metrics.fio.0.write.bw_kib_s'; did you "
		      "mean fio-write?");
	assert_lookup("stack_max_bytes", "unknown metric 'stack_max_bytes'; "
					 "did you mean stack-max?");
	assert_lookup("oom_kill",
		      "unknown metric 'oom_kill'; did you mean oom-kills?");
	assert_lookup("relcaim-wr-direct",
		      "unknown metric 'relcaim-wr-direct'; did you mean "
		      "reclaim-wr-direct?");
	assert_lookup("Reclaim write",
		      "unknown metric 'Reclaim write'; did you mean Reclaim "
		      "writes?");
	assert_lookup("zzz", "unknown metric 'zzz' (wblab metrics lists them)");
	ck_assert_ptr_eq(metric_lookup("fio-write", &err),
			 metric_by_name("fio-write"));
	ck_assert_uint_eq(err.len, 0);
	strbuf_release(&err);
}
END_TEST

START_TEST(test_value_scaled)
{
	struct strbuf sb = STRBUF_INIT;
	json_object *cell;

	testdata_read(&sb, "report/ab/cells/%s/cell.json",
		      "6.1-direct-writeback_ext4-disk_dirty-flood_4");
	cell = json_tokener_parse(sb.buf);
	ck_assert_ptr_nonnull(cell);
	ck_assert_double_eq(metric_value(cell, metric_by_name("reclaim-wr-"
							      "direct")),
			    1322);
	ck_assert_double_eq_tol(metric_value(cell, metric_by_name("fio-write")),
				json_object_get_double(json_path(
					cell, "metrics.fio.0.write.bw_kib_s")) /
					1024,
				1e-12);
	ck_assert(isnan(metric_value(cell, metric_by_name("fio-read"))));
	json_object_put(cell);
	strbuf_release(&sb);
}
END_TEST

/* What a walk over a run saw, cell by cell. */
struct seen {
	size_t n, read, counts, absent;
	struct strvec why;
};

static int note_cell(const struct results_run *run,
		     const struct results_cell *c, void *data)
{
	struct seen *s = data;

	s->n++;
	s->read += !!c->json;
	s->counts += c->counts;
	s->absent += c->absent;
	ck_assert(!c->json == !!c->why);
	ck_assert(!c->counts || c->json);
	if (c->why)
		strvec_push(&s->why, c->why);
	return 0;
}

static void walk(const char *dir, struct seen *s)
{
	struct strbuf err = STRBUF_INIT;
	struct results_run run;

	memset(s, 0, sizeof(*s));
	strvec_init(&s->why);
	ck_assert_msg(!results_open_run(dir, &run, &err), "%s", err.buf);
	ck_assert_int_eq(results_for_each_cell(&run, note_cell, s), 0);
	results_close_run(&run);
	strbuf_release(&err);
}

START_TEST(test_reader_real_runs)
{
	static const struct {
		const char *run;
		size_t n, counts;
	} runs[] = {
		{ "report/ab", 10, 10 },
		{ "report/deadlock", 6, 6 },
		{ "report/aa/20261203-141600-381e", 6, 6 },
		/* boot-failed is a kernel outcome: it counts */
		{ "report/aa/20261203-141602-388e", 6, 6 },
	};

	for (size_t i = 0; i < ARRAY_SIZE(runs); i++) {
		char *dir = testdata_path("%s", runs[i].run);
		struct seen s;

		walk(dir, &s);
		ck_assert_uint_eq(s.n, runs[i].n);
		ck_assert_uint_eq(s.read, runs[i].n);
		ck_assert_uint_eq(s.counts, runs[i].counts);
		strvec_clear(&s.why);
		free(dir);
	}
}
END_TEST

static char tmpdir[] = "/tmp/wblab-test-results-XXXXXX";

/* A run of the named cells ("DIR" entries), each cells/NAME made by hand. */
static char *make_run(const char *name, const char *const *dirs, size_t n)
{
	char *run = xasprintf("%s/%s", tmpdir, name), *path;
	json_object *o = json_object_new_object(), *cells;

	cells = json_object_new_array();
	for (size_t i = 0; i < n; i++) {
		json_object *e = json_object_new_object();

		json_put_str(e, "kernel", "k");
		json_put_str(e, "dir", dirs[i]);
		json_object_array_add(cells, e);
	}
	json_put_str(o, "run", name);
	json_object_object_add(o, "cells", cells);
	path = xasprintf("%s/cells", run);
	ck_assert_int_eq(mkdir_p(path, 0755), 0);
	free(path);
	path = xasprintf("%s/run.json", run);
	ck_assert_int_eq(json_write_atomic(path, o), 0);
	free(path);
	json_object_put(o);
	return run;
}

/* cells/NAME/cell.json of run with text. */
static void put_cell(const char *run, const char *name, const char *text)
{
	char *dir = xasprintf("%s/cells/%s", run, name);
	char *path = xasprintf("%s/cell.json", dir);

	ck_assert_int_eq(mkdir_p(dir, 0755), 0);
	ck_assert_int_eq(write_string_atomic(path, text), 0);
	free(path);
	free(dir);
}

static bool has_why(const struct seen *s, const char *want)
{
	for (size_t i = 0; i < s->why.nr; i++)
		if (strstr(s->why.v[i], want))
			return true;
	return false;
}

#define ASSERT_WHY(s, want) \
	ck_assert_msg(has_why(s, want), "no '%s' among the refusals", want)

/*
 * The report's loader and the jobs' pool read what the reader lets through
 * and nothing else (before the reader, each followed "../x" and links).
 */
static void assert_readers_agree(const char *run)
{
	struct report r;
	struct pool p = POOL_INIT;
	struct strbuf err = STRBUF_INIT;

	report_init(&r, NULL);
	ck_assert_msg(!report_load_run(&r, run, &err), "%s", err.buf);
	ck_assert_uint_eq(r.nr_cells, 2);
	ck_assert_uint_eq(r.warnings.nr, 9);
	ck_assert(r.cells[0]->counts && !r.cells[1]->counts);
	report_release(&r);
	ck_assert_int_eq(pool_load_run(&p, run), 0);
	ck_assert_uint_eq(p.n, 1);
	ck_assert_int_eq(p.infra, 1);
	pool_free(&p);
	strbuf_release(&err);
}

/*
 * A run.json that came from elsewhere: a cell dir "../x" or "cells/../x",
 * a cell.json that is a link (to a good cell's), a cells/NAME that is a
 * link, a cell.json over RESULTS_JSON_MAX (sparse: nothing is read), a
 * FIFO (the open must not hang), no outcome. Each is refused with why; the
 * good cell and the infra-error one are read, the cell that never
 * finished is absent, and only the good one counts.
 */
START_TEST(test_reader_refuses)
{
	static const char *const dirs[] = {
		"cells/good",  "../x",	     "cells/../x", "cells/link",
		"cells/ldir",  "cells/big",  "cells/fifo", "cells/none",
		"cells/infra", "cells/gone", ".",
	};
	char *run = make_run("r", dirs, ARRAY_SIZE(dirs)), *p, *q;
	struct seen s;
	int fd;

	put_cell(run, "good", "{\"outcome\": \"ok\"}");
	put_cell(tmpdir, "x", "{\"outcome\": \"ok\"}");
	p = xasprintf("%s/cells/link", run);
	ck_assert_int_eq(mkdir_p(p, 0755), 0);
	free(p);
	p = xasprintf("%s/cells/link/cell.json", run);
	q = xasprintf("%s/cells/good/cell.json", run);
	ck_assert_int_eq(symlink(q, p), 0);
	free(p);
	free(q);
	p = xasprintf("%s/cells/ldir", run);
	q = xasprintf("%s/cells/good", run);
	ck_assert_int_eq(symlink(q, p), 0);
	free(p);
	free(q);
	put_cell(run, "big", "{}");
	p = xasprintf("%s/cells/big/cell.json", run);
	fd = open(p, O_WRONLY);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(ftruncate(fd, (off_t)RESULTS_JSON_MAX + 1), 0);
	close(fd);
	free(p);
	p = xasprintf("%s/cells/fifo", run);
	ck_assert_int_eq(mkdir_p(p, 0755), 0);
	free(p);
	p = xasprintf("%s/cells/fifo/cell.json", run);
	ck_assert_int_eq(mkfifo(p, 0644), 0);
	free(p);
	put_cell(run, "none", "{\"cell\": \"none\"}");
	put_cell(run, "infra", "{\"outcome\": \"infra-error\"}");
	p = xasprintf("%s/cells/gone", run);
	ck_assert_int_eq(mkdir_p(p, 0755), 0);
	free(p);

	walk(run, &s);
	ck_assert_uint_eq(s.n, ARRAY_SIZE(dirs));
	ck_assert_uint_eq(s.read, 2);
	ck_assert_uint_eq(s.counts, 1);
	ck_assert_uint_eq(s.absent, 1);
	ASSERT_WHY(&s, "cells.1: dir \"../x\" is not cells/NAME");
	ASSERT_WHY(&s, "cells.2: dir \"cells/../x\" is not cells/NAME");
	ASSERT_WHY(&s, "link/cell.json: cannot read: a symbolic link");
	ASSERT_WHY(&s, "cells/ldir: not a directory (a link is not followed)");
	ASSERT_WHY(&s, "big/cell.json: cannot read: larger than its cap");
	ASSERT_WHY(&s, "fifo/cell.json: cannot read: not a regular file");
	ASSERT_WHY(&s, "none/cell.json: field outcome: missing");
	ASSERT_WHY(&s, "gone/cell.json: cannot read: No such file");
	ASSERT_WHY(&s, "cells.10: dir \".\" is not cells/NAME");
	strvec_clear(&s.why);
	assert_readers_agree(run);
	free(run);
}
END_TEST

/* run.json itself: a link is not followed, a syntax error names its line. */
START_TEST(test_reader_run_json)
{
	struct strbuf err = STRBUF_INIT;
	struct results_run run;
	char *good = make_run("good", NULL, 0);
	char *dir = xasprintf("%s/linked", tmpdir), *p, *q;

	ck_assert_int_eq(mkdir_p(dir, 0755), 0);
	p = xasprintf("%s/run.json", dir);
	q = xasprintf("%s/run.json", good);
	ck_assert_int_eq(symlink(q, p), 0);
	ck_assert_int_ne(results_open_run(dir, &run, &err), 0);
	ck_assert_msg(strstr(err.buf, "run.json: cannot read: a symbolic link"),
		      "%s", err.buf);
	strbuf_reset(&err);
	ck_assert_int_eq(unlink(p), 0);
	ck_assert_int_eq(write_string_atomic(p, "{\n\"cells\": [\n}\n"), 0);
	ck_assert_int_ne(results_open_run(dir, &run, &err), 0);
	ck_assert_msg(strstr(err.buf, "linked/run.json:3: "), "%s", err.buf);
	strbuf_reset(&err);
	ck_assert_int_eq(write_string_atomic(p, "{\"cells\": 3}"), 0);
	ck_assert_int_ne(results_open_run(dir, &run, &err), 0);
	ck_assert_msg(strstr(err.buf, "field cells: missing or not an array"),
		      "%s", err.buf);
	ck_assert_int_eq(results_open_run(good, &run, &err), 0);
	results_close_run(&run);
	strbuf_release(&err);
	free(p);
	free(q);
	free(dir);
	free(good);
}
END_TEST

/* docs/results.md holds `wblab metrics` as printed: every row, as now. */
START_TEST(test_docs_list_every_row)
{
	struct strbuf doc = STRBUF_INIT;
	char *path = xasprintf("%s/docs/results.md", testdata_home());

	ck_assert_msg(!strbuf_read_file(&doc, path), "cannot read %s", path);
	for_each_metric(m)
	{
		char *line = xasprintf(
			"\n| %s | `%s` | %s | %s | %s | %s | %s | %s |\n",
			m->name, m->path, m->unit,
			m->better == BETTER_HIGHER ? "higher" : "lower",
			metric_kind_name(m->kind), metric_test_name(m->test),
			metric_table_name(m->table), m->family);

		ck_assert_msg(strstr(doc.buf, line),
			      "docs/results.md lacks (wblab metrics): %s",
			      line + 1);
		free(line);
	}
	strbuf_release(&doc);
	free(path);
}
END_TEST

/* The outcome names have one table, and severity follows the enum. */
START_TEST(test_outcome_names)
{
	static const char *const want[NR_OUTCOMES] = {
		"ok",	"workload-failed", "crashed",
		"hung", "boot-failed",	   "infra-error",
	};
	json_object *cell = json_object_new_object();

	for (int o = 0; o < NR_OUTCOMES; o++) {
		ck_assert_str_eq(outcome_name(o), want[o]);
		ck_assert_int_eq(outcome_parse(want[o]), o);
		ck_assert(outcome_is(want[o], o));
		ck_assert(!outcome_is(want[o], (o + 1) % NR_OUTCOMES));
	}
	ck_assert_int_eq(outcome_parse("OK"), -1);
	ck_assert_int_eq(outcome_parse(NULL), -1);
	ck_assert(!outcome_is(NULL, OUTCOME_OK));
	/* The worst cell: ok < workload-failed < boot-failed < hung < crashed. */
	ck_assert_int_eq(results_outcome_severity("ok"), 1);
	ck_assert_int_eq(results_outcome_severity("workload-failed"), 2);
	ck_assert_int_eq(results_outcome_severity("boot-failed"), 3);
	ck_assert_int_eq(results_outcome_severity("hung"), 4);
	ck_assert_int_eq(results_outcome_severity("crashed"), 5);
	ck_assert_int_eq(results_outcome_severity("infra-error"), 0);
	ck_assert_int_eq(results_outcome_severity("nope"), 0);
	ck_assert_int_eq(results_outcome_severity(NULL), 0);
	ck_assert(!results_cell_counts(cell));
	json_object_object_add(cell, "outcome",
			       json_object_new_string("infra-error"));
	ck_assert(!results_cell_counts(cell));
	json_object_object_add(cell, "outcome", json_object_new_string("hung"));
	ck_assert(results_cell_counts(cell));
	json_object_put(cell);
}
END_TEST

/*
 * Nobody compares an outcome with a literal name: they ask
 * results/outcome.h (outcome_is(), outcome_parse()), whose table is the
 * one place the names are spelled. A line of src/ with strcmp( and an
 * outcome's quoted name is a second owner.
 */
START_TEST(test_outcome_no_literal_compare)
{
	/*
	 * jobs/family.c:54 is left: another session had uncommitted edits
	 * to that file when the rest moved (issue 44). Remove it with it.
	 */
	static const char *const left[] = { "src/jobs/family.c" };
	char *pat = xasprintf("%s/src/*/*.c", testdata_home());
	struct strbuf found = STRBUF_INIT;
	glob_t g;

	ck_assert_int_eq(glob(pat, 0, NULL, &g), 0);
	ck_assert_uint_gt(g.gl_pathc, 100);
	for (size_t i = 0; i < g.gl_pathc; i++) {
		const char *rel = g.gl_pathv[i] + strlen(testdata_home()) + 1;
		struct strbuf text = STRBUF_INIT;
		char *save = NULL;
		int lineno = 0;
		bool skip = !strcmp(rel, "src/results/outcome.c");

		for (size_t k = 0; k < sizeof(left) / sizeof(left[0]); k++)
			skip |= !strcmp(rel, left[k]);
		if (skip)
			continue;
		ck_assert_int_eq(strbuf_read_file(&text, g.gl_pathv[i]), 0);
		for (char *l = text.buf; l; l = save) {
			save = strchr(l, '\n');
			if (save)
				*save++ = '\0';
			lineno++;
			if (!strstr(l, "strcmp("))
				continue;
			for (int o = 0; o < NR_OUTCOMES; o++) {
				char *q = xasprintf("\"%s\"", outcome_name(o));

				if (strstr(l, q))
					strbuf_addf(&found, "%s:%d: %s\n", rel,
						    lineno, l);
				free(q);
			}
		}
		strbuf_release(&text);
	}
	ck_assert_msg(!found.len, "outcome names compared as literals:\n%s",
		      found.buf);
	globfree(&g);
	strbuf_release(&found);
	free(pat);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("results");
	TCase *tc = tcase_create("registry");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_no_two_rows_one_quantity);
	tcase_add_test(tc, test_duplicate_is_seen);
	tcase_add_test(tc, test_every_row_in_a_cell);
	tcase_add_test(tc, test_rows_well_formed);
	tcase_add_test(tc, test_ids_name_their_rows);
	tcase_add_test(tc, test_name_spellings);
	tcase_add_test(tc, test_unknown_names);
	tcase_add_test(tc, test_value_scaled);
	tcase_add_test(tc, test_docs_list_every_row);
	tcase_add_test(tc, test_outcome_names);
	tcase_add_test(tc, test_outcome_no_literal_compare);
	suite_add_tcase(s, tc);
	tc = tcase_create("reader");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_reader_real_runs);
	tcase_add_test(tc, test_reader_refuses);
	tcase_add_test(tc, test_reader_run_json);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr;
	int failed;

	if (!mkdtemp(tmpdir))
		return EXIT_FAILURE;
	sr = srunner_create(suite());
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	strvec_clear(&found);
	rm_rf(tmpdir);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
