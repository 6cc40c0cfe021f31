// SPDX-License-Identifier: GPL-2.0
/*
 * The agent's sampler (wblab-agent sample, agent/hog.c) and the host's
 * reading of its timeseries.tsv: the workload memcg's memory.current and
 * memory.max, sampled beside /proc/meminfo and /proc/vmstat, in KiB, -1
 * when the memcg is absent or unlimited ("max"). The sampler here is the
 * shipped static binary, run on this host against a directory holding the
 * two files in the kernel's format (one number of bytes and a newline, or
 * "max"): the host has no cgroup v2 memcg of the guest's. The host side
 * is timeseries_summary() (collect/ops.c), as the cell's collector calls
 * it, and the HTML's time series plot.
 */
#include <check.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "collect/ops.h"
#include "util/fs.h"
#include "util/json.h"
#include "util/log.h"
#include "util/strbuf.h"

#include "testdata.h"

static char tmpdir[] = "/tmp/wblab-sampler-XXXXXX";

static void put(const char *name, const char *text)
{
	char *p = xasprintf("%s/memcg/%s", tmpdir, name);

	ck_assert_int_eq(write_string_atomic(p, text), 0);
	free(p);
}

/* Lines of path (samples + the header), 0 while it is not there. */
static int lines_of(const char *path)
{
	struct strbuf sb = STRBUF_INIT;
	int n = 0;

	if (strbuf_read_file(&sb, path) >= 0)
		for (size_t i = 0; i < sb.len; i++)
			n += sb.buf[i] == '\n';
	strbuf_release(&sb);
	return n;
}

/* Wait (at most 60 s, the host may be loaded) until path has n lines. */
static void wait_lines(const char *path, int n)
{
	struct timespec ts = { 0, 20 * 1000 * 1000 };

	for (int i = 0; i < 3000 && lines_of(path) < n; i++)
		nanosleep(&ts, NULL);
	ck_assert_int_ge(lines_of(path), n);
}

static pid_t start_sampler(const char *out, const char *memcg)
{
	char *agent = xasprintf("%s/build/wblab-agent", testdata_home());
	pid_t pid = fork();

	ck_assert_int_ge(pid, 0);
	if (!pid) {
		execl(agent, "wblab-agent", "sample", out, "20", memcg,
		      (char *)NULL);
		_exit(127);
	}
	free(agent);
	return pid;
}

static void stop(pid_t pid)
{
	int status;

	kill(pid, SIGTERM);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
}

static long long jint(json_object *o, const char *key)
{
	json_object *v;

	ck_assert_msg(json_object_object_get_ex(o, key, &v), "no %s", key);
	return json_object_get_int64(v);
}

/* 50 MiB, then 64 MiB under a 64 MiB limit: both reach the summary. */
START_TEST(memcg_usage_sampled)
{
	char *out = xasprintf("%s/ts.tsv", tmpdir);
	char *dir = xasprintf("%s/memcg", tmpdir);
	struct strbuf sb = STRBUF_INIT;
	json_object *o;
	pid_t pid;

	ck_assert_int_eq(mkdir_p(dir, 0755), 0);
	put("memory.current", "52428800\n");
	put("memory.max", "67108864\n");
	pid = start_sampler(out, dir);
	wait_lines(out, 3);
	put("memory.current", "67108864\n");
	wait_lines(out, lines_of(out) + 3);
	stop(pid);
	ck_assert_int_ge(strbuf_read_file(&sb, out), 0);
	ck_assert_ptr_nonnull(strstr(sb.buf, "\toom_kill\tmemcg_current_kb\t"
					     "memcg_max_kb\n"));
	o = timeseries_summary(sb.buf, sb.len);
	ck_assert_ptr_nonnull(o);
	ck_assert_int_eq(jint(o, "min_memcg_current_kb"), 51200);
	ck_assert_int_eq(jint(o, "max_memcg_current_kb"), 65536);
	ck_assert_int_eq(jint(o, "max_memcg_max_kb"), 65536);
	ck_assert_int_gt(jint(o, "min_free_kb"), 0);
	json_object_put(o);
	strbuf_release(&sb);
	free(out);
	free(dir);
}
END_TEST

/* No memcg (the workload has none), or no limit: -1, left out. */
START_TEST(no_memcg_left_out)
{
	char *out = xasprintf("%s/ts2.tsv", tmpdir);
	char *dir = xasprintf("%s/memcg", tmpdir);
	char *none = xasprintf("%s/no-such-memcg", tmpdir);
	struct strbuf sb = STRBUF_INIT;
	json_object *o, *v;
	pid_t pid;

	ck_assert_int_eq(mkdir_p(dir, 0755), 0);
	put("memory.current", "4096\n");
	put("memory.max", "max\n");
	pid = start_sampler(out, dir);
	wait_lines(out, 3);
	stop(pid);
	ck_assert_int_ge(strbuf_read_file(&sb, out), 0);
	o = timeseries_summary(sb.buf, sb.len);
	ck_assert_int_eq(jint(o, "max_memcg_current_kb"), 4);
	ck_assert(!json_object_object_get_ex(o, "max_memcg_max_kb", &v));
	json_object_put(o);
	strbuf_reset(&sb);
	unlink(out);
	pid = start_sampler(out, none);
	wait_lines(out, 3);
	stop(pid);
	ck_assert_int_ge(strbuf_read_file(&sb, out), 0);
	o = timeseries_summary(sb.buf, sb.len);
	ck_assert(!json_object_object_get_ex(o, "max_memcg_current_kb", &v));
	ck_assert_int_gt(jint(o, "samples"), 1);
	json_object_put(o);
	strbuf_release(&sb);
	free(out);
	free(dir);
	free(none);
}
END_TEST

/* A timeseries.tsv from before the memcg columns still reads as it did. */
START_TEST(old_files_unchanged)
{
	struct strbuf sb = STRBUF_INIT;
	json_object *o, *v;

	testdata_read(&sb, "collect/mixed-reclaim/timeseries.tsv");
	o = timeseries_summary(sb.buf, sb.len);
	ck_assert_int_eq(jint(o, "samples"), 103);
	ck_assert(!json_object_object_get_ex(o, "max_memcg_current_kb", &v));
	json_object_put(o);
	strbuf_release(&sb);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("sampler");
	TCase *tc = tcase_create("memcg");
	SRunner *sr;
	int failed;

	if (!mkdtemp(tmpdir))
		return 1;
	tcase_set_timeout(tc, 180);
	tcase_add_test(tc, memcg_usage_sampled);
	tcase_add_test(tc, no_memcg_left_out);
	tcase_add_test(tc, old_files_unchanged);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	if (rm_rf(tmpdir))
		failed++;
	return failed ? 1 : 0;
}
