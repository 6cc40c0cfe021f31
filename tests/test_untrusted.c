// SPDX-License-Identifier: GPL-2.0
/*
 * Results as untrusted input (docs/hardening.md, #20): cell.json stays
 * strict UTF-8 whatever bytes a guest sends, and wblab reparse treats a
 * results directory it is handed as hostile. Every hostile file is made
 * here, by the test.
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cell/cell.h"
#include "cell/results.h"
#include "collect/console.h"
#include "util/fs.h"
#include "util/json.h"
#include "util/log.h"
#include "util/run.h"
#include "util/strbuf.h"
#include "util/utf8.h"
#include "virt/guest.h"

static void put(const char *dir, const char *name, const char *data, size_t len)
{
	char *path = xasprintf("%s/%s", dir, name);

	ck_assert_int_eq(write_file_atomic(path, data, len, 0644), 0);
	free(path);
}

static void put_str(const char *dir, const char *name, const char *s)
{
	put(dir, name, s, strlen(s));
}

static const char *str(json_object *o, const char *path)
{
	const char *s = json_object_get_string(json_path(o, path));

	return s ? s : "";
}

/* The file is UTF-8 (checked here) that Python's json module reads. */
static void assert_strict_json(const char *path)
{
	const char *py[] = { "python3", "-c",
			     "import json, sys\n"
			     "json.load(open(sys.argv[1], encoding='utf-8'))",
			     path, NULL };
	const char *jq[] = { "jq", "-e", "type == \"object\"", path, NULL };
	struct strbuf sb = STRBUF_INIT, err = STRBUF_INIT;
	struct run_opts o = { .err = &err, .quiet = 1, .timeout = 60 };

	ck_assert_int_eq(strbuf_read_file(&sb, path), 0);
	ck_assert_msg(utf8_valid(sb.buf, sb.len), "%s is not UTF-8", path);
	ck_assert_msg(run_argv(py, &o) == 0, "python3 json: %s", err.buf);
	strbuf_reset(&err);
	ck_assert_msg(run_argv(jq, &o) == 0, "jq: %s", err.buf);
	strbuf_release(&err);
	strbuf_release(&sb);
}

/* ---- UTF-8 helpers (util/utf8.c) ---- */

START_TEST(utf8_helpers)
{
	static const struct {
		const char *s;
		bool ok;
	} v[] = {
		{ "plain", true },
		{ "caf\xc3\xa9", true },
		{ "\xe2\x82\xac \xf0\x9f\x92\xa9", true },
		{ "\xc3", false }, /* cut after the lead byte */
		{ "\xe2\x82", false },
		{ "\xc0\xaf", false }, /* overlong '/' */
		{ "\xe0\x80\xaf", false }, /* overlong, 3 bytes */
		{ "\xed\xa0\x80", false }, /* a UTF-16 surrogate */
		{ "\xf4\x90\x80\x80", false }, /* past U+10FFFF */
		{ "\xff", false },
		{ "\x80", false },
	};
	struct strbuf sb = STRBUF_INIT;
	/* 'a', then U+20AC (3 bytes) at 1..3, then 'b'. */
	const char *euro = "a\xe2\x82\xac"
			   "b";

	for (size_t i = 0; i < ARRAY_SIZE(v); i++)
		ck_assert_msg(utf8_valid(v[i].s, strlen(v[i].s)) == v[i].ok,
			      "case %zu", i);
	ck_assert_uint_eq(utf8_cut(euro, 5, 5), 5);
	ck_assert_uint_eq(utf8_cut(euro, 5, 4), 4);
	ck_assert_uint_eq(utf8_cut(euro, 5, 3), 1);
	ck_assert_uint_eq(utf8_cut(euro, 5, 2), 1);
	ck_assert_uint_eq(utf8_cut(euro, 5, 1), 1);
	ck_assert_uint_eq(utf8_cut(euro, 5, 0), 0);
	strbuf_add_utf8(&sb, "x\xc3y\xe2\x82z\xff\x80\x80w\xc3\xa9", 13);
	ck_assert_str_eq(sb.buf, "x\xef\xbf\xbdy\xef\xbf\xbdz\xef\xbf\xbdw"
				 "\xc3\xa9");
	strbuf_release(&sb);
}
END_TEST

/* ---- cell.json from hostile guest files ---- */

#define A63 "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
#define R30 "rrrrrrrrrrrrrrrrrrrrrrrrrrrrrr"

static void hostile_cell_files(const char *dir, struct strbuf *body)
{
	struct strbuf sb = STRBUF_INIT;

	/* A fio job name whose 64th byte is half of an 'é'; one not UTF-8. */
	put_str(dir, "fio.json",
		"{\"jobs\": [{\"jobname\": \"" A63
		"\xc3\xa9tail\", \"error\": 0},"
		" {\"jobname\": \"lat\xe9n1\", \"error\": 0}]}\n");
	/* agent.log in Latin-1: its file name becomes a key. */
	put_str(dir, "agent.log",
		"[    1.000] get tr\xe9"
		"ce: capped at 10 bytes (the file is "
		"longer)\n");
	/* A writeback reason whose 32nd byte is half of an 'é'. */
	strbuf_addstr(&sb, "# tracer: nop\n");
	for (int i = 0; i < 3; i++)
		strbuf_addf(&sb,
			    "    kworker/u4:2-31      [001] ...1.    40.46%d: "
			    "writeback_start: bdi 254:0: sb_dev 0:0 "
			    "nr_pages=20411 sync_mode=0 kupdate=0 "
			    "range_cyclic=1 background=0 reason=" R30
			    "\xc3\xa9 cgroup_ino=1\n",
			    i);
	put(dir, "trace", sb.buf, sb.len);
	/* The agent's exit body: a phase cut at 256 bytes inside a '€'. */
	strbuf_addstr(body, "phase=");
	for (int i = 0; i < 255; i++)
		strbuf_addch(body, 'p');
	strbuf_addstr(body, "\xe2\x82\xac\nrc=1\n\ntail \xe2\x82");
	strbuf_release(&sb);
}

START_TEST(cell_json_is_utf8)
{
	char dir[] = "/tmp/wblab-test-utf8-XXXXXX";
	struct topology_spec t = { .name = "t" };
	struct workload_spec w = { .name = "w" };
	struct cell_spec c = { .run_id = "r",
			       .cell_id = "c",
			       .cell_dir = dir,
			       .wl = &w,
			       .topo = &t,
			       .accel = "tcg" };
	struct cell_result r = { .outcome = OUTCOME_OK };
	struct console_report con;
	struct guest g;
	json_object *o;
	char *path, p255[256];

	ck_assert_ptr_nonnull(mkdtemp(dir));
	guest_init(&g, "wblab-r-c", "/nonexistent", dir);
	g.hello = g.exited = true;
	strcpy(g.agent_status, "failed");
	hostile_cell_files(dir, &g.exit_body);
	console_report_init(&con);
	ck_assert_int_eq(results_write_cell(&c, &r, &g, &con, "now",
					    "console=ttyS0", NULL),
			 0);
	path = xasprintf("%s/cell.json", dir);
	assert_strict_json(path);
	o = json_object_from_file(path);
	ck_assert_ptr_nonnull(o);
	/* Cut on a character boundary: the half character is left out. */
	ck_assert_str_eq(str(o, "metrics.fio.0.job"), A63);
	memset(p255, 'p', 255);
	p255[255] = '\0';
	ck_assert_str_eq(str(o, "agent.phase"), p255);
	ck_assert_ptr_nonnull(
		json_path(o, "metrics.trace.writeback.by_reason." R30));
	/* Not UTF-8 at all: each bad sequence is one U+FFFD. */
	ck_assert_str_eq(str(o, "metrics.fio.1.job"), "lat\xef\xbf\xbdn1");
	ck_assert_str_eq(str(o, "agent.output_tail"), "tail \xef\xbf\xbd");
	ck_assert_ptr_nonnull(
		strstr(str(o, "metrics.collector_errors.file tr\xef\xbf\xbd"
			      "ce"),
		       "capped at"));
	json_object_put(o);
	free(path);
	console_report_free(&con);
	guest_release(&g);
	rm_rf(dir);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("untrusted");
	TCase *tc = tcase_create("untrusted");
	SRunner *sr;
	int failed;

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, utf8_helpers);
	tcase_add_test(tc, cell_json_is_utf8);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
