// SPDX-License-Identifier: GPL-2.0
/*
 * Results as untrusted input (docs/hardening.md, #20): cell.json stays
 * strict UTF-8 whatever bytes a guest sends, and wblab reparse treats a
 * results directory it is handed as hostile. Every hostile file is made
 * here, by the test.
 */
#include <check.h>
#include <errno.h>
#include <math.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cell/cell.h"
#include "cell/collectors.h"
#include "cell/reparse.h"
#include "cell/repro.h"
#include "cell/results.h"
#include "cmd/cmds.h"
#include "collect/console.h"
#include "collect/fio.h"
#include "jobs/pool.h"
#include "results/metric.h"
#include "results/reader.h"
#include "util/fs.h"
#include "util/json.h"
#include "util/log.h"
#include "util/run.h"
#include "util/strbuf.h"
#include "util/utf8.h"
#include "virt/guest.h"

#include "testdata.h"

#if defined(__SANITIZE_ADDRESS__)
#define ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define ASAN 1
#endif
#endif
#ifndef ASAN
#define ASAN 0
#endif

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
	struct cell_run_result r = { .outcome = OUTCOME_OK };
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

/* ---- wblab reparse on a results directory from elsewhere ---- */

/*
 * TMP/run/cells/c1: a real cell's files (tests/data/io/README.md) and a
 * run.json naming it, plus whatever the test plants. Returns TMP.
 */
static char *make_run(void)
{
	static const char *const files[] = { "cell.json",    "console.log",
					     "trace.gz",     "trace_stats.txt",
					     "fsdev.txt",    "vmstat.before",
					     "vmstat.after", NULL };
	char *tmp = xstrdup("/tmp/wblab-test-untrusted.XXXXXX");
	char *cell;

	ck_assert_ptr_nonnull(mkdtemp(tmp));
	cell = xasprintf("%s/run/cells/c1", tmp);
	ck_assert_int_eq(mkdir_p(cell, 0755), 0);
	testdata_copy(cell, "io/dirty-flood-ext4", files);
	free(cell);
	return tmp;
}

static char *at(const char *tmp, const char *rel)
{
	return xasprintf("%s/%s", tmp, rel);
}

static void put_run_json(const char *tmp, const char *dirs)
{
	char *run = at(tmp, "run");
	struct strbuf sb = STRBUF_INIT;

	strbuf_addf(&sb, "{\"run\": \"r\", \"cells\": [%s]}\n", dirs);
	put_str(run, "run.json", sb.buf);
	strbuf_release(&sb);
	free(run);
}

static int reparse_cmd(const char *tmp)
{
	char *run = at(tmp, "run");
	char *argv[] = { "reparse", run, NULL };
	int ret = cmd_reparse(2, argv);

	free(run);
	return ret;
}

static bool file_has(const char *path, const char *needle)
{
	struct strbuf sb = STRBUF_INIT;
	bool has;

	ck_assert_int_eq(strbuf_read_file(&sb, path), 0);
	has = memmem(sb.buf, sb.len, needle, strlen(needle)) != NULL;
	strbuf_release(&sb);
	return has;
}

START_TEST(reparse_follows_no_link)
{
	char *tmp = make_run();
	char *cell = at(tmp, "run/cells/c1"), *secret = at(tmp, "secret");
	char *strace = at(tmp, "secret-trace"), *p, *cj = at(cell, "cell.json");
	struct strbuf note = STRBUF_INIT, gz = STRBUF_INIT, orig = STRBUF_INIT;
	struct reparse_result r;
	json_object *o;

	/* Files outside the run that links in it point at. */
	put_str(tmp, "secret",
		"{\"jobs\": [{\"jobname\": \"SECRET\", \"error\": 0}]}\n");
	put_str(tmp, "secret-trace", "SECRET-TRACE\n");
	p = at(cell, "fio.json");
	ck_assert_int_eq(symlink(secret, p), 0);
	free(p);
	p = at(cell, "trace");
	ck_assert_int_eq(symlink(strace, p), 0);
	ck_assert_int_eq(cell_reparse(cell, &r, &note), 0);
	/* Nothing of the targets came in, and the links are noted. */
	ck_assert(!file_has(cj, "SECRET"));
	o = json_object_from_file(cj);
	ck_assert_ptr_nonnull(
		strstr(json_object_get_string(json_object_object_get(
			       json_path(o, "metrics.collector_errors"),
			       "file fio.json")),
		       "symbolic link"));
	/* The real trace.gz was read (and left as it was). */
	ck_assert_int_gt(json_object_get_int(json_path(
				 o, "metrics.trace.memcg_reclaim.count")),
			 0);
	/* gzip -f would have put the target in trace.gz, removing the link. */
	ck_assert(path_exists(p));
	testdata_gunzip(&orig, "io/dirty-flood-ext4/trace.gz");
	free(p);
	p = at(cell, "trace.gz");
	{
		const char *argv[] = { "gzip", "-dc", "--", p, NULL };

		ck_assert_int_eq(run_capture(argv, &gz, NULL), 0);
	}
	ck_assert_uint_eq(gz.len, orig.len);
	ck_assert(!memcmp(gz.buf, orig.buf, gz.len));
	ck_assert(file_has(strace, "SECRET-TRACE"));
	json_object_put(o);
	strbuf_release(&note);
	strbuf_release(&gz);
	strbuf_release(&orig);
	rm_rf(tmp);
	free(p);
	free(cj);
	free(strace);
	free(secret);
	free(cell);
	free(tmp);
}
END_TEST

START_TEST(reparse_cell_dir_confined)
{
	char *tmp = make_run();
	char *x = at(tmp, "x"), *xc = at(tmp, "x/cell.json"), *link;
	static const char *const files[] = { "cell.json", "console.log", NULL };

	/* A cell-like directory outside the run, and a link to it inside. */
	ck_assert_int_eq(mkdir(x, 0755), 0);
	testdata_copy(x, "io/dirty-flood-ext4", files);
	link = at(tmp, "run/cells/c2");
	ck_assert_int_eq(symlink(x, link), 0);
	put_run_json(tmp, "{\"id\": \"up\", \"dir\": \"../x\"},"
			  "{\"id\": \"deep\", \"dir\": \"cells/../../x\"},"
			  "{\"id\": \"abs\", \"dir\": \"/tmp\"},"
			  "{\"id\": \"link\", \"dir\": \"cells/c2\"},"
			  "{\"id\": \"c1\", \"dir\": \"cells/c1\"}");
	/* Four refused (exit 1), the real cell reparsed. */
	ck_assert_int_eq(reparse_cmd(tmp), 1);
	ck_assert(!file_has(xc, "reparsed"));
	free(xc);
	xc = at(tmp, "run/cells/c1/cell.json");
	ck_assert(file_has(xc, "reparsed"));
	rm_rf(tmp);
	free(link);
	free(xc);
	free(x);
	free(tmp);
}
END_TEST

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* A console that is a FIFO, a link to /dev/zero, or far over the cap. */
START_TEST(reparse_console_no_hang)
{
	char *tmp = make_run();
	char *cell = at(tmp, "run/cells/c1"), *con = at(cell, "console.log");
	struct strbuf note = STRBUF_INIT;
	struct reparse_result r;
	double t0 = now();
	int fd;

	ck_assert_int_eq(unlink(con), 0);
	ck_assert_int_eq(mkfifo(con, 0644), 0);
	ck_assert_int_eq(cell_reparse(cell, &r, &note), -1);
	ck_assert_msg(strstr(note.buf, "not a regular file"), "%s", note.buf);
	strbuf_reset(&note);
	ck_assert_int_eq(unlink(con), 0);
	ck_assert_int_eq(symlink("/dev/zero", con), 0);
	ck_assert_int_eq(cell_reparse(cell, &r, &note), -1);
	ck_assert_msg(strstr(note.buf, "symbolic link"), "%s", note.buf);
	strbuf_reset(&note);
	/* 4 GiB of zeros (sparse): refused by its size, before any read. */
	ck_assert_int_eq(unlink(con), 0);
	fd = open(con, O_WRONLY | O_CREAT | O_EXCL, 0644);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(ftruncate(fd, 4LL << 30), 0);
	close(fd);
	ck_assert_int_eq(cell_reparse(cell, &r, &note), -1);
	ck_assert_msg(strstr(note.buf, "larger than its cap"), "%s", note.buf);
	ck_assert_msg(now() - t0 < 10, "took %.1f s", now() - t0);
	strbuf_release(&note);
	rm_rf(tmp);
	free(con);
	free(cell);
	free(tmp);
}
END_TEST

/* trace.gz of twice CELL_FILE_MAX zeros: stopped at the cap. */
START_TEST(reparse_gzip_bomb)
{
	char *tmp = make_run();
	char *cell = at(tmp, "run/cells/c1"), *zeros = at(tmp, "zeros");
	char *gz = at(cell, "trace.gz"), *cj = at(cell, "cell.json");
	const char *argv[] = { "gzip", "-c", "-n", "-1", "--", zeros, NULL };
	struct run_opts o = { .log_path = gz, .timeout = 300 };
	struct strbuf note = STRBUF_INIT;
	struct reparse_result r;
	struct rusage ru;
	json_object *c;
	int fd;

	fd = open(zeros, O_WRONLY | O_CREAT | O_EXCL, 0644);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(ftruncate(fd, 2LL * CELL_FILE_MAX), 0);
	close(fd);
	ck_assert_int_eq(unlink(gz), 0);
	ck_assert_int_eq(run_argv(argv, &o), 0);
	unlink(zeros);
	ck_assert_int_eq(cell_reparse(cell, &r, &note), 0);
	c = json_object_from_file(cj);
	ck_assert_ptr_nonnull(strstr(str(c, "metrics.collector_errors.trace"),
				     "more than the cap"));
	ck_assert_ptr_null(json_path(c, "metrics.trace"));
	/*
	 * At most the cap was held (the bomb is twice that): 261 MiB measured.
	 * AddressSanitizer's quarantine keeps every buffer a growing strbuf
	 * left behind (make check-asan: 810 MiB), so there the size is all.
	 */
	getrusage(RUSAGE_SELF, &ru);
	if (!ASAN)
		ck_assert_msg(ru.ru_maxrss <
				      (long)(CELL_FILE_MAX / 1024 * 3 / 2),
			      "max RSS %ld KiB", ru.ru_maxrss);
	json_object_put(c);
	strbuf_release(&note);
	rm_rf(tmp);
	free(cj);
	free(gz);
	free(zeros);
	free(cell);
	free(tmp);
}
END_TEST

/* Rows of timeseries.tsv left out are said, with where (#20). */
START_TEST(timeseries_malformed_noted)
{
	char dir[] = "/tmp/wblab-test-ts-XXXXXX";
	json_object *m, *errs;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	/* Lines 3 and 5 are bad; the last, without its newline, is torn. */
	put_str(dir, "timeseries.tsv",
		"t\tdirty_kb\n0\t10\n1\tx\n2\t30\n3\t\n4\t50\n5\t");
	m = results_metrics(dir);
	ck_assert_int_eq(
		json_object_get_int(json_path(m, "timeseries.samples")), 3);
	ck_assert_int_eq(
		json_object_get_int(json_path(m, "timeseries.malformed_rows")),
		2);
	errs = json_path(m, "collector_errors");
	ck_assert_str_eq(
		str(errs, "sampler"),
		"timeseries.tsv: 2 malformed row(s) left out, the first at line 3");
	json_object_put(m);
	rm_rf(dir);
}
END_TEST

/*
 * A cell.json from elsewhere with Infinity for a figure (json-c reads it;
 * wblab writes null): the HTML report is made, the value left out as a
 * missing one. Before, gnuplot stopped on "undefined variable: inf" and
 * the report failed (#47).
 */
START_TEST(report_infinity_left_out)
{
	char tmp[] = "/tmp/wblab-test-untrusted.XXXXXX";
	char *src = testdata_path("report/ab"), *run, *cell, *out, *dot;
	const char *cp[] = { "cp", "-r", src, NULL, NULL };
	const struct metric *m = metric_by_name("reclaim-wr-direct");
	char *argv[] = { "report", NULL, "--format", "html", "-o", NULL, NULL };
	struct strbuf html = STRBUF_INIT, err = STRBUF_INIT;
	json_object *c;

	ck_assert_ptr_nonnull(mkdtemp(tmp));
	cp[3] = run = xasprintf("%s/run", tmp);
	ck_assert_int_eq(run_argv(cp, &(struct run_opts){ .quiet = 1 }), 0);
	cell = xasprintf(
		"%s/cells/6.1-direct-writeback_ext4-disk_dirty-flood_1/cell.json",
		run);
	c = json_object_from_file(cell);
	ck_assert_ptr_nonnull(c);
	/* the row's value, at its path in cell.json, becomes Infinity */
	dot = xstrdup(m->path);
	*strrchr(dot, '.') = '\0';
	ck_assert_ptr_nonnull(json_path(c, dot));
	json_object_object_add(json_path(c, dot), strrchr(m->path, '.') + 1,
			       json_object_new_double(INFINITY));
	ck_assert_int_eq(json_object_to_file(cell, c), 0);
	ck_assert_int_eq(read_file_capped(&html, cell, 64 << 20), 0);
	ck_assert_ptr_nonnull(strstr(html.buf, "Infinity"));
	argv[1] = run;
	argv[5] = out = xasprintf("%s/report.html", tmp);
	stderr_begin();
	ck_assert_int_eq(cmd_report(6, argv), 0);
	stderr_end(&err);
	ck_assert_int_eq(read_file_capped(&html, out, 64 << 20), 0);
	ck_assert_ptr_nonnull(strstr(html.buf, "data:image/svg+xml;base64,"));
	json_object_put(c);
	rm_rf(tmp);
	strbuf_release(&html);
	strbuf_release(&err);
	free(dot);
	free(out);
	free(cell);
	free(run);
	free(src);
}
END_TEST

/* n bytes of JSON: an object with a list of empty objects, as text. */
static void json_bomb(struct strbuf *sb, size_t n)
{
	strbuf_addstr(sb, "{\"outcome\": \"ok\", \"cell\": \"c1\", \"x\": [{}");
	while (sb->len + 4 < n)
		strbuf_addstr(sb, ",{}");
	strbuf_addstr(sb, "]}");
}

static long max_rss_kib(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_maxrss;
}

/*
 * JSON bombs (#47): json-c spends about 800 bytes on an object, so a
 * 6 MiB cell.json of {} took 1.64 GB in export and show. Each reader
 * (the results reader, reparse's, a guest's fio.json, a bundle.json)
 * refuses a text whose tree would exceed 16 times its size, naming why,
 * and memory stays within a few times the text.
 */
START_TEST(json_bombs_bounded)
{
	char *tmp = make_run();
	char *run = at(tmp, "run"), *cell = at(tmp, "run/cells/c1");
	char *cj = at(cell, "cell.json"), *bundle = at(tmp, "bundle");
	char *bj = at(bundle, "bundle.json"), fio_err[256];
	struct strbuf bomb = STRBUF_INIT, err = STRBUF_INIT;
	struct pool p = POOL_INIT;
	struct reparse_result r;
	struct repro_spec rs;
	long rss0;

	put_run_json(tmp, "{\"id\": \"c1\", \"dir\": \"cells/c1\"}");
	json_bomb(&bomb, 6 << 20);
	ck_assert_int_eq(write_file_atomic(cj, bomb.buf, bomb.len, 0644), 0);
	ck_assert_int_eq(mkdir_p(bundle, 0755), 0);
	rss0 = max_rss_kib();
	/* export and decide's reader: the cell is left out, said */
	stderr_begin();
	ck_assert_int_eq(pool_load_run(&p, run), 0);
	stderr_end(&err);
	ck_assert_uint_eq(p.n, 0);
	ck_assert_msg(strstr(err.buf, "more JSON values than a file of"), "%s",
		      err.buf);
	/* show, report: the same reader */
	strbuf_reset(&err);
	ck_assert_ptr_null(results_read_json(cj, &err));
	ck_assert_msg(strstr(err.buf, "not read"), "%s", err.buf);
	/* reparse */
	strbuf_reset(&err);
	ck_assert_int_eq(cell_reparse(cell, &r, &err), -1);
	ck_assert_msg(strstr(err.buf, "more JSON values than a file of its"),
		      "%s", err.buf);
	/* a guest's fio.json */
	ck_assert_ptr_null(
		fio_summary(bomb.buf, bomb.len, fio_err, sizeof(fio_err)));
	ck_assert_str_eq(
		fio_err,
		"fio JSON holds more values than its size: not parsed");
	/* run --repro's bundle.json: 1 MiB at most, and no bomb either */
	strbuf_reset(&bomb);
	json_bomb(&bomb, (1 << 20) - 64);
	ck_assert_int_eq(write_file_atomic(bj, bomb.buf, bomb.len, 0644), 0);
	strbuf_reset(&err);
	ck_assert_int_eq(repro_load(bundle, &rs, &err), -1);
	ck_assert_msg(strstr(err.buf, "bundle.json: more JSON values"), "%s",
		      err.buf);
	if (!ASAN)
		ck_assert_msg(max_rss_kib() - rss0 < 64 << 10,
			      "max RSS grew by %ld KiB", max_rss_kib() - rss0);
	pool_free(&p);
	rm_rf(tmp);
	strbuf_release(&bomb);
	strbuf_release(&err);
	free(bj);
	free(bundle);
	free(cj);
	free(cell);
	free(run);
	free(tmp);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("untrusted");
	TCase *tc = tcase_create("untrusted");
	SRunner *sr;
	int failed;

	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, utf8_helpers);
	tcase_add_test(tc, cell_json_is_utf8);
	tcase_add_test(tc, reparse_follows_no_link);
	tcase_add_test(tc, reparse_cell_dir_confined);
	tcase_add_test(tc, reparse_console_no_hang);
	tcase_add_test(tc, reparse_gzip_bomb);
	tcase_add_test(tc, timeseries_malformed_noted);
	tcase_add_test(tc, report_infinity_left_out);
	tcase_add_test(tc, json_bombs_bounded);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
