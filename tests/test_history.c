// SPDX-License-Identifier: GPL-2.0
/*
 * wblab history --changes on a results database made here from real
 * cells: each cell of tests/data/report/fsync is one night (its
 * reclaim-wr-direct the night's mean), 6.1's 20 cells then the
 * direct-writeback revert's 10, the change tests/ref/edivisive_ref.py
 * finds at the 21st value (p = 0 of 199 shuffles, 0 -> 294.9 pages).
 * A database written before nights had a host and accelerator is
 * migrated, and a series never mixes hosts or accelerators.
 */
#include <check.h>
#include <json-c/json.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "jobs/history.h"
#include "jobs/pool.h"
#include "results/metric.h"
#include "testdata.h"
#include "util/fs.h"
#include "util/log.h"

static char dir[] = "/tmp/wblab-test-history.XXXXXX";

/* The 30 nights' values: 6.1 (aa, ab) then 6.1-direct-writeback (ab). */
static size_t real_nights(double *x)
{
	static const char *const from[][2] = {
		{ "aa", "6.1" },
		{ "ab", "6.1" },
		{ "ab", "6.1-direct-writeback" },
	};
	const struct metric *m = metric_by_name("reclaim-wr-direct");
	size_t n = 0;

	for (size_t r = 0; r < 3; r++) {
		char *run = testdata_path("report/fsync/%s", from[r][0]);
		struct pool p = POOL_INIT;
		size_t k;
		double *v;

		ck_assert_int_eq(pool_load_run(&p, run), 0);
		v = pool_values(&p, from[r][1], NULL, m, &k);
		ck_assert_uint_eq(k, 10);
		memcpy(x + n, v, k * sizeof(*v));
		n += k;
		free(v);
		pool_free(&p);
		free(run);
	}
	return n;
}

/* The schema of nights before host and accel (as nightly wrote it). */
static const char old_schema[] =
	"CREATE TABLE nights(id INTEGER PRIMARY KEY, tree TEXT,"
	" commit_id TEXT, subject TEXT, kernel TEXT, started TEXT,"
	" run_dir TEXT, verdict TEXT);"
	"CREATE TABLE night_metrics(night INTEGER, grp TEXT,"
	" metric TEXT, n INTEGER, mean REAL, sd REAL);";

/* Tree t's nights of x; host/accel from the (mixed) index on when mix. */
static void add_nights(sqlite3 *db, const char *tree, const double *x, size_t n,
		       size_t mix)
{
	for (size_t i = 0; i < n; i++) {
		char c[16];
		long long id;

		snprintf(c, sizeof(c), "c%02zu", i);
		ck_assert_int_eq(history_add_night(db, tree, c, "s", "k", "t",
						   "r", "good", &id),
				 0);
		ck_assert_int_eq(history_night_host(db, id, "vm",
						    i >= mix ? "kvm" : "tcg"),
				 0);
		ck_assert_int_eq(history_add_metric(db, id, "ext4-disk/dd",
						    "reclaim-wr-direct", 1,
						    x[i], 0),
				 0);
	}
}

static char *changes(const struct history_opts *o)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	ck_assert_int_eq(history_print(o, f), 0);
	fclose(f);
	return buf;
}

START_TEST(history_changes_real)
{
	char *path, *msg = NULL, *out;
	struct history_opts o = { .results = dir, .changes = true };
	double x[30];
	sqlite3 *db;
	json_object *j, *c, *v;

	ck_assert_uint_eq(real_nights(x), 30);
	ck_assert_ptr_nonnull(mkdtemp(dir));
	path = xasprintf("%s/wblab.db", dir);
	ck_assert_int_eq(sqlite3_open(path, &db), SQLITE_OK);
	ck_assert_int_eq(sqlite3_exec(db, old_schema, NULL, NULL, &msg),
			 SQLITE_OK);
	ck_assert_int_eq(history_schema(db), 0);
	/* "one": every night on vm/tcg; "mixed": the revert's on vm/kvm */
	add_nights(db, "one", x, 30, 30);
	add_nights(db, "mixed", x, 30, 20);
	sqlite3_close(db);

	out = changes(&o);
	ck_assert_msg(strstr(out,
			     "one vm/tcg ext4-disk/dd reclaim-wr-direct"
			     " (30 nights)\n"
			     "  night 20 (c19) | night 21 (c20): 0 -> 294.9"
			     " pages, worse; p<0.005, 20 nights before, 10"
			     " after\n"),
		      "%s", out);
	/* 20 nights on TCG, 10 on KVM: two series, neither changes */
	ck_assert_msg(!strstr(out, "mixed"), "%s", out);
	free(out);

	o.json = true;
	o.tree = "one";
	out = changes(&o);
	j = json_tokener_parse(out);
	ck_assert_int_eq(json_object_array_length(j), 1);
	c = json_object_array_get_idx(j, 0);
	ck_assert(json_object_object_get_ex(c, "after", &v));
	ck_assert_int_eq(
		json_object_get_int(json_object_object_get(v, "night")), 21);
	ck_assert_int_eq(
		json_object_get_int(json_object_object_get(v, "nights")), 10);
	ck_assert_double_eq(
		json_object_get_double(json_object_object_get(c, "p")), 0);
	ck_assert_str_eq(
		json_object_get_string(json_object_object_get(c, "direction")),
		"worse");
	ck_assert(json_object_is_type(json_object_object_get(c, "change_pct"),
				      json_type_null));
	json_object_put(j);
	free(out);

	unlink(path);
	rmdir(dir);
	free(path);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("history");
	TCase *tc = tcase_create("history");
	SRunner *sr;
	int failed;

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, history_changes_real);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
