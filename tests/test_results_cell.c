// SPDX-License-Identifier: GPL-2.0
/*
 * The typed results model (results/cell.h) on captured runs: every field
 * a reader takes is the value cell.json and run.json hold (checked here
 * against the files by path), and a field that is missing or of another
 * type is absent by the one rule.
 */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "results/cell.h"
#include "results/reader.h"
#include "util/json.h"
#include "util/log.h"

#include "testdata.h"

static json_object *load(const char *fmt, const char *arg)
{
	struct strbuf sb = STRBUF_INIT;
	json_object *o;

	testdata_read(&sb, fmt, arg);
	o = json_tokener_parse(sb.buf);
	ck_assert_ptr_nonnull(o);
	strbuf_release(&sb);
	return o;
}

static void same_str(const char *got, json_object *j, const char *path)
{
	const char *want = json_object_get_string(json_path(j, path));

	ck_assert_ptr_nonnull(want);
	ck_assert_ptr_nonnull(got);
	ck_assert_str_eq(got, want);
}

START_TEST(test_cell_fields)
{
	json_object *j = load("report/ab/cells/%s/cell.json",
			      "6.1-direct-writeback_ext4-disk_dirty-flood_4");
	struct cell_result *c = cell_result_decode(j);

	same_str(c->id, j, "cell");
	same_str(c->run, j, "run");
	same_str(c->kernel.name, j, "kernel.name");
	same_str(c->kernel.hash, j, "kernel.hash");
	same_str(c->kernel.release, j, "kernel.guest_release");
	same_str(c->kernel.patches, j, "kernel.patches");
	same_str(c->topology, j, "topology.name");
	same_str(c->workload, j, "workload");
	same_str(c->accel, j, "accel");
	same_str(c->host, j, "host");
	same_str(c->reason, j, "outcome_reason");
	same_str(c->timings.started, j, "timings.started");
	ck_assert_int_eq(c->outcome, OUTCOME_OK);
	ck_assert(c->counts);
	ck_assert_int_eq(c->memory_mib, 512);
	ck_assert_int_eq(c->rep, 4);
	ck_assert_int_eq(c->attempt, 1);
	ck_assert_double_eq(c->timings.boot_s, json_object_get_double(json_path(
						       j, "timings.boot_s")));
	ck_assert_uint_eq(c->nr_events, json_len_at(j, "events"));
	/* every registry row, as metric_value() reads it */
	for_each_metric(m)
	{
		double want = metric_value(j, m);

		ck_assert(isnan(want) ? isnan(cell_metric(c, m)) :
					cell_metric(c, m) == want);
	}
	ck_assert_double_eq(cell_metric(c, metric_by_name("reclaim-wr-direct")),
			    1322);
	ck_assert(cell_result_get(c) == c);
	cell_result_put(c);
	cell_result_put(c);
	json_object_put(j);
}
END_TEST

/* The deadlocked swap cell: console events and the SysRq-t tasks. */
START_TEST(test_cell_events_blocked)
{
	json_object *j = load("report/deadlock/cells/%s/cell.json",
			      "debian-6.12_swap-raid1-iscsi_swap-direct_3");
	struct cell_result *c = cell_result_decode(j);

	ck_assert_int_eq(c->outcome, OUTCOME_WORKLOAD_FAILED);
	ck_assert_uint_eq(c->nr_events, 2);
	ck_assert_uint_eq(c->nr_blocked, 8);
	same_str(c->events[0].kind, j, "events.0.kind");
	same_str(c->events[0].title, j, "events.0.title");
	ck_assert_str_eq(c->blocked[0].comm, "kthreadd");
	ck_assert_str_eq(c->blocked[0].wait, "mempool_alloc_noprof");
	cell_result_put(c);
	json_object_put(j);
}
END_TEST

/* Missing or another type: NULL strings, 0 or NAN numbers, no count. */
START_TEST(test_cell_absent)
{
	json_object *j = json_tokener_parse(
		"{\"cell\": 5, \"outcome\": \"infra-error\", \"memory_mib\": "
		"\"512\", \"events\": {}, \"timings\": {\"total_s\": null},"
		"\"workload_primary\": [\"fio-write\", 3],"
		"\"metrics\": {\"stack\": {\"reclaim_write\": "
		"{\"complete\": false}}}}");
	struct cell_result *c = cell_result_decode(j);

	ck_assert_ptr_null(c->id);
	ck_assert_ptr_null(c->kernel.name);
	ck_assert_int_eq(c->memory_mib, 0);
	ck_assert_int_eq(c->outcome, OUTCOME_INFRA_ERROR);
	ck_assert(!c->counts);
	ck_assert_uint_eq(c->nr_events, 0);
	ck_assert(isnan(c->timings.total_s));
	ck_assert_uint_eq(c->primary.nr, 1);
	ck_assert(c->rw_lossy);
	ck_assert(isnan(cell_metric(c, metric_by_name("fio-write"))));
	cell_result_put(c);
	json_object_put(j);
	/* an outcome no table names still counts (results_cell_counts) */
	j = json_tokener_parse("{\"outcome\": \"later-name\"}");
	c = cell_result_decode(j);
	ck_assert_int_eq(c->outcome, -1);
	ck_assert(c->counts == results_cell_counts(j));
	cell_result_put(c);
	json_object_put(j);
}
END_TEST

START_TEST(test_run_fields)
{
	json_object *j = load("report/%s/run.json", "ab");
	struct run_result r;

	run_result_decode(j, &r);
	same_str(r.id, j, "run");
	same_str(r.hostinfo.hostname, j, "host.hostname");
	ck_assert_uint_eq(r.kernels.nr, 2);
	ck_assert_str_eq(r.kernels.v[0], "6.1");
	ck_assert_str_eq(r.kernels.v[1], "6.1-direct-writeback");
	ck_assert_uint_eq(r.nr_cells, json_len_at(j, "cells"));
	same_str(r.cells[0].dir, j, "cells.0.dir");
	same_str(r.cells[0].kernel, j, "cells.0.kernel");
	ck_assert_int_eq(r.cells[0].rep,
			 json_object_get_int(json_path(j, "cells.0.rep")));
	run_result_release(&r);
	json_object_put(j);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("results-cell");
	TCase *tc = tcase_create("model");

	tcase_add_test(tc, test_cell_fields);
	tcase_add_test(tc, test_cell_events_blocked);
	tcase_add_test(tc, test_cell_absent);
	tcase_add_test(tc, test_run_fields);
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
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
