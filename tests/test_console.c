// SPDX-License-Identifier: GPL-2.0
/*
 * Tests for the console-log parser (src/collect/console.c): accuracy on the
 * syzkaller corpus (WBLAB_CORPUS, default <repo>/../shared/corpus/console)
 * and focused tests on excerpts in tests/data/console/.
 */
#include <check.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "collect/console.h"
#include "util/log.h"
#include "util/strbuf.h"
#include "util/utf8.h"

static char repo_root[PATH_MAX];

static void find_root(void)
{
	const char *home = getenv("WBLAB_HOME");
	char path[PATH_MAX + 64];
	int i;

	if (home) {
		snprintf(repo_root, sizeof(repo_root), "%s", home);
		return;
	}
	if (!getcwd(repo_root, sizeof(repo_root)))
		strcpy(repo_root, ".");
	for (i = 0; i < 8; i++) {
		char *slash;

		snprintf(path, sizeof(path), "%s/src/collect/console.h",
			 repo_root);
		if (!access(path, R_OK))
			return;
		slash = strrchr(repo_root, '/');
		if (!slash || slash == repo_root)
			break;
		*slash = '\0';
	}
	if (!getcwd(repo_root, sizeof(repo_root)))
		strcpy(repo_root, ".");
}

static char *data_path(const char *name)
{
	return xasprintf("%s/tests/data/console/%s", repo_root, name);
}

static char *corpus_dir(void)
{
	const char *c = getenv("WBLAB_CORPUS");

	if (c)
		return xstrdup(c);
	return xasprintf("%s/../shared/corpus/console", repo_root);
}

static void parse_buf(const char *buf, size_t len, size_t chunk,
		      struct console_report *r)
{
	struct console_parser *p = console_parser_new();
	size_t off;

	console_report_init(r);
	if (!chunk)
		chunk = len ? len : 1;
	for (off = 0; off < len; off += chunk)
		console_parser_feed(p, buf + off,
				    len - off < chunk ? len - off : chunk);
	console_parser_finish(p, r);
	console_parser_free(p);
}

static void parse_str(const char *s, struct console_report *r)
{
	parse_buf(s, strlen(s), 0, r);
}

static void parse_data(const char *name, struct console_report *r)
{
	char *path = data_path(name);

	console_report_init(r);
	ck_assert_msg(console_parse_file(path, r) == 0, "cannot read %s", path);
	free(path);
}

static char *report_json(const struct console_report *r)
{
	json_object *o = console_report_to_json(r, "x");
	char *s = xstrdup(
		json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));

	json_object_put(o);
	return s;
}

static const struct console_event *find_event(const struct console_report *r,
					      const char *kind)
{
	size_t i;

	for (i = 0; i < r->nr_events; i++)
		if (!strcmp(r->events[i].kind, kind))
			return &r->events[i];
	return NULL;
}

static const char *dstr(const struct console_event *e, const char *k)
{
	json_object *v;

	if (!e->detail || !json_object_object_get_ex(e->detail, k, &v))
		return NULL;
	return json_object_get_string(v);
}

static long long dint(const struct console_event *e, const char *k)
{
	json_object *v;

	if (!e->detail || !json_object_object_get_ex(e->detail, k, &v))
		return -1;
	return json_object_get_int64(v);
}

static bool dbool(const struct console_event *e, const char *k)
{
	json_object *v;

	ck_assert(e->detail && json_object_object_get_ex(e->detail, k, &v));
	return json_object_get_boolean(v);
}

static bool valid_utf8(const unsigned char *s)
{
	while (*s) {
		int n = *s < 0x80	? 1 :
			(*s >> 5) == 6	? 2 :
			(*s >> 4) == 14 ? 3 :
			(*s >> 3) == 30 ? 4 :
					  0;
		int i;

		if (!n)
			return false;
		for (i = 1; i < n; i++)
			if ((s[i] & 0xc0) != 0x80)
				return false;
		s += n;
	}
	return true;
}

/* ---- the corpus ---- */

static const char *const kinds[] = {
	"oom",	       "alloc_failure", "stack_overflow", "hung_task",
	"soft_lockup", "hard_lockup",	"rcu_stall",	  "oops",
	"panic",       "warning",	"sanitizer",	  "lockdep",
	"leak",	       "other",		"none",
};
#define NR_KINDS (sizeof(kinds) / sizeof(kinds[0]))

static int kind_idx(const char *k)
{
	size_t i;

	for (i = 0; i < NR_KINDS; i++)
		if (!strcmp(k, kinds[i]))
			return i;
	return -1;
}

static void print_confusion(unsigned int m[NR_KINDS][NR_KINDS])
{
	size_t i, j;

	printf("\nconfusion (rows: expected, columns: got)\n%-15s", "");
	for (j = 0; j < NR_KINDS; j++)
		printf(" %5.5s", kinds[j]);
	printf("\n");
	for (i = 0; i < NR_KINDS; i++) {
		printf("%-15s", kinds[i]);
		for (j = 0; j < NR_KINDS; j++) {
			if (m[i][j])
				printf(" %5u", m[i][j]);
			else
				printf(" %5s", ".");
		}
		printf("\n");
	}
}

START_TEST(test_corpus)
{
	static unsigned int m[NR_KINDS][NR_KINDS];
	char *dir = corpus_dir();
	char *tsv = xasprintf("%s/expected.tsv", dir);
	FILE *f = fopen(tsv, "r");
	char line[4096];
	unsigned int total = 0, ok = 0, none_with_events = 0;

	ck_assert_msg(f, "cannot open %s (set WBLAB_CORPUS)", tsv);
	memset(m, 0, sizeof(m));
	ck_assert(fgets(line, sizeof(line), f)); /* header */
	while (fgets(line, sizeof(line), f)) {
		char *file = strtok(line, "\t\n"), *kind = strtok(NULL, "\t\n");
		struct console_report r;
		char *path;
		int e, g;

		if (!file || !kind)
			continue;
		path = xasprintf("%s/%s", dir, file);
		console_report_init(&r);
		ck_assert_msg(console_parse_file(path, &r) == 0, "read %s",
			      path);
		e = kind_idx(kind);
		g = kind_idx(r.kind);
		ck_assert(e >= 0 && g >= 0);
		m[e][g]++;
		total++;
		if (e == g)
			ok++;
		else
			printf("mismatch %s: expected %s, got %s (%s)\n", file,
			       kind, r.kind,
			       r.nr_events ? r.events[0].title : "");
		if (!strcmp(kind, "none") && r.nr_events)
			none_with_events++;
		console_report_free(&r);
		free(path);
	}
	fclose(f);
	print_confusion(m);
	printf("accuracy: %u/%u = %.2f%%, none logs with events: %u\n", ok,
	       total, total ? 100.0 * ok / total : 0.0, none_with_events);
	ck_assert_uint_gt(total, 700);
	ck_assert_msg(ok * 100 >= total * 97, "accuracy %u/%u < 97%%", ok,
		      total);
	ck_assert_uint_le(none_with_events, 1);
	free(tsv);
	free(dir);
}
END_TEST

/* ---- OOM and allocation failures (real kernel output) ---- */

START_TEST(test_oom_global)
{
	struct console_report r;
	const struct console_event *e;

	parse_data("oom-global-334.log", &r);
	ck_assert_str_eq(r.kind, "oom");
	e = find_event(&r, "oom");
	ck_assert_ptr_nonnull(e);
	ck_assert_int_eq(e->line, 2);
	ck_assert_str_eq(dstr(e, "scope"), "global");
	ck_assert_str_eq(dstr(e, "invoker"), "syz-executor642");
	ck_assert_str_eq(dstr(e, "gfp_mask"), "0x6202c2");
	ck_assert_str_eq(dstr(e, "gfp_flags"), "GFP_HIGHUSER|__GFP_NOWARN");
	ck_assert_int_eq(dint(e, "order"), 0);
	ck_assert(!dbool(e, "panic"));
	ck_assert_str_eq(e->title, "OOM (global) invoked by syz-executor642");
	console_report_free(&r);
}
END_TEST

START_TEST(test_oom_memcg)
{
	struct console_report r;
	const struct console_event *e;

	parse_data("oom-memcg-wblab.log", &r);
	ck_assert_str_eq(r.kind, "oom");
	ck_assert_uint_eq(r.nr_events, 1);
	e = &r.events[0];
	ck_assert_str_eq(dstr(e, "scope"), "memcg");
	ck_assert_str_eq(dstr(e, "memcg"), "/wblab");
	ck_assert_str_eq(dstr(e, "victim"), "wblab-hog");
	ck_assert_int_eq(dint(e, "pid"), 95);
	ck_assert_int_eq(dint(e, "anon_rss_kb"), 130648);
	ck_assert_int_eq(dint(e, "file_rss_kb"), 4);
	ck_assert_int_eq(dint(e, "shmem_rss_kb"), 644);
	ck_assert_str_eq(dstr(e, "gfp_mask"), "0xcc0");
	ck_assert_str_eq(dstr(e, "gfp_flags"), "GFP_KERNEL");
	ck_assert_int_eq(dint(e, "order"), 0);
	ck_assert_str_eq(dstr(e, "invoker"), "wblab-hog");
	ck_assert(!dbool(e, "panic"));
	ck_assert_str_eq(e->title, "OOM (memcg /wblab) invoked by wblab-hog");
	console_report_free(&r);
}
END_TEST

/*
 * The same OOM report as other tools keep it: the lab's own memcg OOM
 * (oom-memcg-wblab.log) with each line's "[   15.464623] " rewritten in
 * the prefixes of syslog (kern.log keeps the kernel's time after it),
 * journalctl's short-precise and short-iso-precise, and dmesg -T. Each
 * must parse to the report of the original: the invoker a bare comm.
 */
enum { FMT_SYSLOG, FMT_SHORT_PRECISE, FMT_ISO, FMT_DMESG_T, NR_FMT };

static void reformat(const struct strbuf *in, int fmt, struct strbuf *out)
{
	static const char *const days[] = { "Fri", "Sat" };
	const char *p = in->buf, *end = in->buf + in->len;

	strbuf_reset(out);
	while (p < end) {
		const char *nl = memchr(p, '\n', end - p);
		const char *le = nl ? nl : end;
		const char *rb = memchr(p, ']', le - p);
		const char *text = rb ? rb + 2 : p;
		double ts = strtod(p + 1, NULL);
		int sec = 52 + (int)ts, ms = (int)((ts - (int)ts) * 1e6);

		switch (fmt) {
		case FMT_SYSLOG:
			strbuf_addf(out, "Jun 18 07:44:%02d wblab kernel: ",
				    sec % 60);
			text = p; /* "[   15.464623] ..." stays */
			break;
		case FMT_SHORT_PRECISE:
			strbuf_addf(out,
				    "Jun  8 07:44:%02d.%06d wblab kernel: ",
				    sec % 60, ms);
			break;
		case FMT_ISO:
			strbuf_addf(
				out,
				"2026-06-18T07:44:%02d.%06d+00:00 wblab kernel: ",
				sec % 60, ms);
			break;
		default:
			strbuf_addf(out, "[%s Dec  4 17:00:%02d 2026] ",
				    days[sec / 60 % 2], sec % 60);
		}
		strbuf_add(out, text, le - text);
		strbuf_addch(out, '\n');
		p = le + 1;
	}
}

START_TEST(test_oom_log_prefixes)
{
	struct strbuf in = STRBUF_INIT, out = STRBUF_INIT;
	struct console_report want, got;
	char *path = data_path("oom-memcg-wblab.log");

	ck_assert_int_eq(strbuf_read_file(&in, path), 0);
	parse_buf(in.buf, in.len, 0, &want);
	ck_assert_str_eq(dstr(&want.events[0], "invoker"), "wblab-hog");
	for (int fmt = 0; fmt < NR_FMT; fmt++) {
		reformat(&in, fmt, &out);
		parse_buf(out.buf, out.len, 0, &got);
		ck_assert_str_eq(got.kind, "oom");
		ck_assert_uint_eq(got.nr_events, want.nr_events);
		for (size_t i = 0; i < want.nr_events; i++) {
			const struct console_event *a = &want.events[i];
			const struct console_event *b = &got.events[i];

			ck_assert_str_eq(b->kind, a->kind);
			ck_assert_msg(!strcmp(b->title, a->title),
				      "format %d: \"%s\", want \"%s\"", fmt,
				      b->title, a->title);
		}
		ck_assert_str_eq(dstr(&got.events[0], "invoker"), "wblab-hog");
		ck_assert_str_eq(dstr(&got.events[0], "victim"), "wblab-hog");
		ck_assert_str_eq(dstr(&got.events[0], "memcg"), "/wblab");
		console_report_free(&got);
	}
	console_report_free(&want);
	strbuf_release(&in);
	strbuf_release(&out);
	free(path);
}
END_TEST

START_TEST(test_oom_panic)
{
	struct console_report r;
	const struct console_event *e;

	parse_str("[    5.000000] Out of memory: Killed process 77 (hog) "
		  "total-vm:10kB, anon-rss:8kB, file-rss:1kB, shmem-rss:2kB, "
		  "UID:0 pgtables:4kB oom_score_adj:0\n"
		  "[    5.100000] Kernel panic - not syncing: System is "
		  "deadlocked on memory\n",
		  &r);
	ck_assert_str_eq(r.kind, "oom");
	ck_assert_uint_eq(r.nr_events, 1);
	e = &r.events[0];
	ck_assert_str_eq(dstr(e, "scope"), "global");
	ck_assert_str_eq(dstr(e, "victim"), "hog");
	ck_assert_int_eq(dint(e, "pid"), 77);
	ck_assert_int_eq(dint(e, "shmem_rss_kb"), 2);
	ck_assert(dbool(e, "panic"));
	console_report_free(&r);
}
END_TEST

START_TEST(test_alloc_failure)
{
	struct console_report r;
	const struct console_event *e;

	parse_data("page-alloc-failure-493.log", &r);
	e = find_event(&r, "alloc_failure");
	ck_assert_ptr_nonnull(e);
	ck_assert_int_eq(e->line, 1);
	ck_assert_int_eq(dint(e, "order"), 0);
	ck_assert_str_eq(dstr(e, "gfp_mask"), "0x484020");
	ck_assert_str_eq(dstr(e, "gfp_flags"), "GFP_ATOMIC|__GFP_COMP");
	ck_assert_str_eq(dstr(e, "invoker"), "rsyslogd");
	ck_assert_str_eq(r.kind, "alloc_failure");
	console_report_free(&r);

	parse_data("vmalloc-failure-198.log", &r);
	e = find_event(&r, "alloc_failure");
	ck_assert_ptr_nonnull(e);
	ck_assert_int_eq(e->line, 1);
	ck_assert_int_eq(dint(e, "size"), 8589934588LL);
	ck_assert_str_eq(dstr(e, "gfp_mask"), "0x14080c0");
	ck_assert_str_eq(dstr(e, "gfp_flags"), "GFP_KERNEL|__GFP_ZERO");
	/* the GPF interleaved with it is the serious event */
	ck_assert_str_eq(r.kind, "oops");
	console_report_free(&r);
}
END_TEST

START_TEST(test_stack_overflow)
{
	struct console_report r;
	const struct console_event *e;
	json_object *trace;

	parse_data("stack-guard-344.log", &r);
	ck_assert_str_eq(r.kind, "stack_overflow");
	ck_assert(console_kind_is_crash(r.kind));
	e = &r.events[0];
	ck_assert_str_eq(e->kind, "stack_overflow");
	ck_assert_str_eq(e->title,
			 "BUG: stack guard page was hit in __udp6_lib_lookup");
	ck_assert(json_object_object_get_ex(e->detail, "trace", &trace));
	ck_assert_int_gt(json_object_array_length(trace), 3);
	ck_assert_int_le(json_object_array_length(trace), CONSOLE_MAX_FRAMES);
	/* "kernel stack overflow (double-fault)" is the same event */
	ck_assert_ptr_null(find_event(&r, "oops"));
	console_report_free(&r);
}
END_TEST

/* ---- robustness ---- */

START_TEST(test_binary_junk)
{
	static const char log[] =
		"\xff\xfe\x00junk\x00\xc3\x28\n"
		"[   1.000000] general protection fault\xff\x00: 0000 [#1] SMP\n"
		"[   1.000001] RIP: 0010:f\xe9oo_bar+0x1/0x2\n"
		"[   1.000002] WARNING: CPU: 0 PID: 1 at fs/x.c:1 \xed\xa0\x80"
		"+0x1/0x2\n";
	struct console_report r;
	struct strbuf sb = STRBUF_INIT;
	json_object *parsed;
	char *js, *dir;
	char *path;

	parse_buf(log, sizeof(log) - 1, 0, &r);
	ck_assert_str_eq(r.kind, "oops");
	ck_assert_uint_eq(r.lines, 4);
	js = report_json(&r);
	ck_assert_msg(valid_utf8((unsigned char *)js), "invalid UTF-8: %s", js);
	parsed = json_tokener_parse(js);
	ck_assert_ptr_nonnull(parsed);
	json_object_put(parsed);
	free(js);
	console_report_free(&r);

	/* a corpus log with bytes that are not UTF-8 */
	dir = corpus_dir();
	path = xasprintf("%s/logs/620.log", dir);
	free(dir);
	ck_assert_int_eq(strbuf_read_file(&sb, path), 0);
	ck_assert_msg(!utf8_valid(sb.buf, sb.len),
		      "%s is valid UTF-8: nothing to test", path);
	strbuf_release(&sb);
	console_report_init(&r);
	ck_assert_msg(console_parse_file(path, &r) == 0,
		      "cannot read %s (set WBLAB_CORPUS)", path);
	js = report_json(&r);
	ck_assert(valid_utf8((unsigned char *)js));
	free(js);
	console_report_free(&r);
	free(path);
}
END_TEST

START_TEST(test_long_line)
{
	size_t big = 3 * CONSOLE_LINE_MAX + 100, n;
	char *buf = xmalloc(2 * big + 256);
	struct console_report r;

	/* an anchor far beyond the line buffer is not seen, the next is */
	memset(buf, 'A', big);
	n = big;
	n += sprintf(buf + n, " BUG: soft lockup - CPU#0 stuck\n");
	n += sprintf(buf + n, "[  1.0] BUG: soft lockup - CPU#1 stuck for 22s!"
			      " [x:1]\n");
	parse_buf(buf, n, 0, &r);
	ck_assert_uint_eq(r.nr_events, 1);
	ck_assert_int_eq(r.events[0].line, 2);
	ck_assert_str_eq(r.kind, "soft_lockup");
	ck_assert_uint_eq(r.lines, 2);
	ck_assert_uint_eq(r.bytes, n);
	console_report_free(&r);

	/* an anchor at the start of a huge line is seen */
	n = sprintf(buf, "kernel BUG at mm/x.c:1!");
	memset(buf + n, 'B', big);
	n += big;
	buf[n++] = '\n';
	parse_buf(buf, n, 7, &r);
	ck_assert_str_eq(r.kind, "oops");
	ck_assert_int_eq(r.events[0].line, 1);
	console_report_free(&r);
	free(buf);
}
END_TEST

static void check_chunking(const char *path)
{
	static const size_t chunks[] = { 1, 3, 64, 4093 };
	struct strbuf sb = STRBUF_INIT;
	struct console_report r;
	char *whole, *other;
	size_t i;

	ck_assert_int_ge(strbuf_read_file(&sb, path), 0);
	parse_buf(sb.buf, sb.len, 0, &r);
	whole = report_json(&r);
	console_report_free(&r);
	for (i = 0; i < sizeof(chunks) / sizeof(chunks[0]); i++) {
		parse_buf(sb.buf, sb.len, chunks[i], &r);
		other = report_json(&r);
		ck_assert_msg(!strcmp(whole, other), "%s: chunk %zu differs",
			      path, chunks[i]);
		free(other);
		console_report_free(&r);
	}
	free(whole);
	strbuf_release(&sb);
}

START_TEST(test_chunking)
{
	static const char *const data[] = {
		"oom-global-334.log",	      "oom-memcg-wblab.log",
		"page-alloc-failure-493.log", "stack-guard-344.log",
		"vmalloc-failure-198.log",
	};
	char *dir = corpus_dir();
	size_t i, checked = 0;

	for (i = 0; i < sizeof(data) / sizeof(data[0]); i++) {
		char *p = data_path(data[i]);

		check_chunking(p);
		free(p);
	}
	/* a sample of the corpus: every 25th log, plus the odd ones */
	for (i = 0; i < 1010; i += (i < 700 ? 25 : 1)) {
		char *p = xasprintf("%s/logs/%zu.log", dir, i);

		if (!access(p, R_OK) && (i < 700 || i % 7 == 0 || i == 1001)) {
			check_chunking(p);
			checked++;
		}
		free(p);
	}
	/* 747 logs numbered 0..1009 with gaps: the sample holds 40 */
	ck_assert_msg(checked >= 30, "%zu corpus logs in %s (set WBLAB_CORPUS)",
		      checked, dir);
	free(dir);
}
END_TEST

START_TEST(test_title_stability)
{
	static const char a[] =
		"[  100.123456][ T4321] general protection fault, probably for "
		"non-canonical address 0xdffffc0000000003: 0000 [#1] PREEMPT SMP\n"
		"[  100.123999][ T4321] CPU: 1 PID: 4321 Comm: syz.1.23 Not tainted\n"
		"[  100.124000][ T4321] RIP: 0010:xfs_vm_writepage.isra.0+0x1d/0x3f0\n"
		"[  100.124001][ T4321] Call Trace:\n"
		"[  100.124002][ T4321]  <TASK>\n"
		"[  100.124003][ T4321]  write_cache_pages+0x42/0x100\n"
		"[  100.124004][ T4321]  ? __x64_sys_write+0x1/0x2\n"
		"[  100.124005][ T4321]  do_writepages+0x9a/0x1a0\n"
		"[  100.124006][ T4321] WARNING: CPU: 1 PID: 4321 at mm/filemap.c:123 "
		"filemap_fdatawrite+0x12/0x40\n"
		"[  100.124007][ T4321] INFO: task kworker/u4:2:4321 blocked for "
		"more than 143 seconds.\n"
		"[  100.124008][ T4321] Kernel panic - not syncing: Fatal exception "
		"in interrupt 0x1234\n";
	static const char b[] =
		"[ 7.000001][ T99] general protection fault, probably for "
		"non-canonical address 0xdffffc0000000abc: 0000 [#3] PREEMPT SMP\n"
		"[ 7.000002][ T99] CPU: 0 PID: 99 Comm: syz.0.7 Not tainted\n"
		"[ 7.000003][ T99] RIP: 0010:xfs_vm_writepage.isra.5+0x2d/0x3f0\n"
		"[ 7.000004][ T99] Call Trace:\n"
		"[ 7.000005][ T99]  <TASK>\n"
		"[ 7.000006][ T99]  write_cache_pages+0x52/0x100\n"
		"[ 7.000007][ T99]  ? __x64_sys_write+0x1/0x2\n"
		"[ 7.000008][ T99]  do_writepages+0x1a/0x1a0\n"
		"[ 7.000009][ T99] WARNING: CPU: 0 PID: 99 at mm/filemap.c:125 "
		"filemap_fdatawrite+0x22/0x40\n"
		"[ 7.000010][ T99] INFO: task kworker/u8:0:99 blocked for "
		"more than 122 seconds.\n"
		"[ 7.000011][ T99] Kernel panic - not syncing: Fatal exception "
		"in interrupt 0xbeef\n";
	struct console_report ra, rb;
	size_t i;

	parse_str(a, &ra);
	parse_str(b, &rb);
	ck_assert_uint_eq(ra.nr_events, 4);
	ck_assert_uint_eq(rb.nr_events, ra.nr_events);
	for (i = 0; i < ra.nr_events; i++) {
		ck_assert_str_eq(ra.events[i].kind, rb.events[i].kind);
		ck_assert_str_eq(ra.events[i].title, rb.events[i].title);
		ck_assert(!strpbrk(ra.events[i].title, "0123456789") ||
			  strstr(ra.events[i].title, "NUM"));
	}
	ck_assert_str_eq(ra.events[0].title,
			 "general protection fault in xfs_vm_writepage");
	ck_assert_str_eq(ra.events[1].title, "WARNING in filemap_fdatawrite");
	ck_assert_str_eq(ra.kind, "oops");
	console_report_free(&ra);
	console_report_free(&rb);
}
END_TEST

START_TEST(test_none)
{
	struct console_report r;

	parse_str("", &r);
	ck_assert_str_eq(r.kind, "none");
	ck_assert_uint_eq(r.nr_events, 0);
	console_report_free(&r);
	parse_str(
		"[    0.000000] Linux version 6.1.0\n"
		"[    1.000000] ODEBUG: Out of memory. ODEBUG disabled\n"
		"[    2.000000] INFO: lockdep is turned off.\n"
		"[    3.000000] traps: a[1] general protection fault ip:1 sp:2"
		" error:0 in a[400000+1000]\n"
		"[    4.000000] XFS (sda): WARNING: Reset corrupted AGFL\n",
		&r);
	ck_assert_str_eq(r.kind, "none");
	ck_assert_uint_eq(r.nr_events, 0);
	console_report_free(&r);
}
END_TEST

static Suite *console_suite(void)
{
	Suite *s = suite_create("console");
	TCase *t = tcase_create("parser");

	tcase_set_timeout(t, 120);
	tcase_add_test(t, test_oom_global);
	tcase_add_test(t, test_oom_memcg);
	tcase_add_test(t, test_oom_log_prefixes);
	tcase_add_test(t, test_oom_panic);
	tcase_add_test(t, test_alloc_failure);
	tcase_add_test(t, test_stack_overflow);
	tcase_add_test(t, test_binary_junk);
	tcase_add_test(t, test_long_line);
	tcase_add_test(t, test_chunking);
	tcase_add_test(t, test_title_stability);
	tcase_add_test(t, test_none);
	tcase_add_test(t, test_corpus);
	suite_add_tcase(s, t);
	return s;
}

int main(void)
{
	SRunner *sr;
	int failed;

	find_root();
	sr = srunner_create(console_suite());
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
