// SPDX-License-Identifier: GPL-2.0
/*
 * src/results: the metric registry on every cell.json captured in
 * tests/data (the report's A/B, A/A and deadlocked runs, the io cell): no
 * two rows carry the same quantity, every row is found in a captured cell
 * or says which workloads record it, and a name a user mistypes gets the
 * rows it was close to.
 */
#include <check.h>
#include <ftw.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "results/metric.h"
#include "util/json.h"
#include "util/log.h"
#include "util/strvec.h"

#include "testdata.h"

static struct strvec found = STRVEC_INIT;

static int collect(const char *path, const struct stat *st, int type,
		   struct FTW *ftw)
{
	const char *base = path + ftw->base;

	if (type == FTW_F && !strcmp(base, "cell.json"))
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
	ck_assert_msg(found.nr >= 29, "only %zu cell.json under %s", found.nr,
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
 * was reclaim-wr-direct in every captured cell (11, 5 of them > 0). */
START_TEST(test_duplicate_is_seen)
{
	const struct metric *wr = metric_by_name("reclaim-wr-direct");
	struct metric old = *wr;
	size_t n, both;
	json_object **cells = captured_cells(&n);

	old.name = "Direct wr pages";
	old.path = "metrics.vmscan_write_file_direct_pages";
	ck_assert(same_quantity(cells, n, wr, &old, &both));
	ck_assert_uint_eq(both, 11);
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

static Suite *suite(void)
{
	Suite *s = suite_create("results");
	TCase *tc = tcase_create("registry");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_no_two_rows_one_quantity);
	tcase_add_test(tc, test_duplicate_is_seen);
	tcase_add_test(tc, test_every_row_in_a_cell);
	tcase_add_test(tc, test_rows_well_formed);
	tcase_add_test(tc, test_name_spellings);
	tcase_add_test(tc, test_unknown_names);
	tcase_add_test(tc, test_value_scaled);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	strvec_clear(&found);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
