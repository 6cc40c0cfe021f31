// SPDX-License-Identifier: GPL-2.0
/*
 * The shared helpers of src/util that parsers and writers call instead of
 * their own copies: checked numbers in guest text (num.h), prefixes
 * (str.h), the write loop (io.h), vectors of doubles and their
 * nearest-rank percentile (dvec.h), and the one JSON number precision
 * (json.h).
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>

#include "agent/capfile.h"
#include "testdata.h"
#include "util/dvec.h"
#include "util/fs.h"
#include "util/gz.h"
#include "util/io.h"
#include "util/json.h"
#include "util/run.h"
#include "util/log.h"
#include "util/num.h"
#include "util/str.h"

/* The directory part of path (a static copy). */
static const char *dirname_of(char *path)
{
	static char buf[4096];
	char *slash;

	snprintf(buf, sizeof(buf), "%s", path);
	slash = strrchr(buf, '/');
	*slash = '\0';
	return buf;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The lines of text sorted (caplines goes in glob order, find in its own). */
static char *sorted_lines(const char *text)
{
	static char *res[2];
	static int turn;
	char *copy = xstrdup(text), **v = NULL;
	size_t n = 0;
	struct strbuf sb = STRBUF_INIT;

	for (char *l = strtok(copy, "\n"); l; l = strtok(NULL, "\n")) {
		v = realloc(v, (n + 1) * sizeof(*v));
		v[n++] = l;
	}
	qsort(v, n, sizeof(*v), cmp_str);
	for (size_t i = 0; i < n; i++)
		strbuf_addf(&sb, "%s\n", v[i]);
	free(v);
	free(copy);
	turn ^= 1;
	free(res[turn]);
	res[turn] = strbuf_detach(&sb, NULL);
	return res[turn];
}

START_TEST(num_refuses_what_atoi_took)
{
	static const char *const bad[] = {
		"",	 "x",	"12x",	"1.5", "99999999999999999999",
		"-1",	 "\n7", "0x1f", "- 1", "--1",
		"1_000",
	};
	long long v = 42;
	const char *end;

	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		ck_assert_msg(num_ll(NULL, bad[i], 10, 0, 1LL << 53, &v, NULL),
			      "'%s' taken", bad[i]);
		ck_assert_int_eq(v, 42); /* untouched */
	}
	ck_assert_int_eq(num_ll(NULL, "  7 kB", 10, 0, 10, &v, &end), 0);
	ck_assert_int_eq(v, 7);
	ck_assert_str_eq(end, " kB");
	ck_assert_int_eq(num_ll(NULL, "12]", 10, 0, 100, &v, NULL), 0);
	ck_assert_int_eq(num_ll(NULL, "-3,", 10, -5, 5, &v, NULL), 0);
	ck_assert_int_eq(v, -3);
	ck_assert_int_ne(num_ll(NULL, "11", 10, 0, 10, &v, NULL), 0);
	ck_assert_int_eq(num_ll(NULL, "0x1f }", 0, 0, 100, &v, NULL), 0);
	ck_assert_int_eq(v, 31);
}
END_TEST

START_TEST(num_double_finite_decimals_only)
{
	static const char *const bad[] = { "nan",   "inf",   "-inf",
					   "1e400", "0x1p3", "1.5.",
					   "1e",    ".",     "-0x1" };
	double v = 42;

	for (size_t i = 0; i < ARRAY_SIZE(bad); i++)
		ck_assert_msg(num_double(NULL, bad[i], -1e18, 1e18, &v, NULL),
			      "'%s' taken", bad[i]);
	ck_assert_double_eq(v, 42);
	ck_assert_int_eq(num_double(NULL, "-.5]", -1, 1, &v, NULL), 0);
	ck_assert_double_eq(v, -0.5);
	ck_assert_int_eq(num_double(NULL, "[ 12.345678]", -1, 1, &v, NULL), -1);
	ck_assert_int_eq(num_double(NULL, "12.345678: x", 0, 1e9, &v, NULL), 0);
	ck_assert_double_eq_tol(v, 12.345678, 1e-12);
}
END_TEST

/* A failure names the file and line of the text it came from, once. */
START_TEST(num_errors_name_file_and_line)
{
	const char *a = "a 1\nb 2\n",
		   *b = "x 1\ny 2x\nz 99999999999999999999\n";
	struct numsrc ns = NUMSRC_INIT;
	long long v;

	numsrc_add(&ns, "vmstat.before", a, strlen(a));
	numsrc_add(&ns, "vmstat.after", b, strlen(b));
	ck_assert_int_eq(num_ll(&ns, a + 6, 10, 0, 9, &v, NULL), 0);
	ck_assert_int_eq(ns.nr_bad, 0);
	ck_assert_ptr_null(ns.first);
	ck_assert_int_eq(num_ll(&ns, strstr(b, "2x"), 10, 0, 9, &v, NULL), -1);
	ck_assert_int_eq(num_ll(&ns, strstr(b, "999"), 10, 0, 9, &v, NULL), -1);
	ck_assert_int_eq(ns.nr_bad, 2);
	ck_assert_str_eq(ns.first, "vmstat.after:2: '2x': not a number");
	ck_assert_str_eq(ns.first_file, "vmstat.after");
	numsrc_release(&ns);
	numsrc_add(&ns, "f", b, strlen(b));
	num_ll(&ns, strstr(b, "999"), 10, 0, 9, &v, NULL);
	ck_assert_str_eq(ns.first,
			 "f:3: '99999999999999999999': outside [0, 9]");
	numsrc_release(&ns);
}
END_TEST

/* Every value of a real /proc/vmstat reads, as strtoll read it. */
START_TEST(num_real_vmstat)
{
	struct strbuf sb = STRBUF_INIT;
	struct numsrc ns = NUMSRC_INIT;
	size_t lines = 0;

	testdata_read(&sb, "collect/mixed-reclaim/vmstat.after");
	numsrc_add(&ns, "vmstat.after", sb.buf, sb.len);
	for (char *l = sb.buf; *l; lines++) {
		char *sp = strchr(l, ' '), *nl = strchr(l, '\n');
		long long v;

		ck_assert_ptr_nonnull(sp);
		ck_assert_int_eq(
			num_ll(&ns, sp + 1, 10, 0, 1LL << 53, &v, NULL), 0);
		ck_assert_int_eq(v, strtoll(sp + 1, NULL, 10));
		l = nl ? nl + 1 : l + strlen(l);
	}
	ck_assert_int_gt(lines, 100);
	ck_assert_int_eq(ns.nr_bad, 0);
	numsrc_release(&ns);
	strbuf_release(&sb);
}
END_TEST

START_TEST(prefixes)
{
	const char *rest = NULL;
	size_t n = 0;

	ck_assert(skip_prefix("task:kswapd0", "task:", &rest));
	ck_assert_str_eq(rest, "kswapd0");
	ck_assert(!skip_prefix("tas", "task:", &rest));
	ck_assert_str_eq(rest, "kswapd0"); /* untouched */
	ck_assert(skip_prefix("x", "", &rest));
	ck_assert_str_eq(rest, "x");
	ck_assert(starts_with("schedule_timeout", "schedule"));
	ck_assert(!starts_with("sched", "schedule"));
	ck_assert(skip_prefix_mem("file 4096\nfile_dirty", 9, "file ", &rest,
				  &n));
	ck_assert_int_eq(n, 4);
	ck_assert(!skip_prefix_mem("file", 4, "file ", &rest, &n));
}
END_TEST

/*
 * 1 MiB through a non-blocking socket a slow reader drains: short
 * writes and EAGAIN on the way, every byte arrives in order.
 */
START_TEST(write_in_full_nonblocking)
{
	size_t len = 1 << 20;
	char *buf = xmalloc(len);
	int sv[2], status;
	pid_t pid;

	for (size_t i = 0; i < len; i++)
		buf[i] = (char)(i * 7 + i / 251);
	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	pid = fork();
	if (!pid) {
		size_t got = 0;
		char in[4096];
		ssize_t n;

		close(sv[0]);
		while ((n = read(sv[1], in, sizeof(in))) > 0) {
			for (ssize_t i = 0; i < n; i++)
				if (in[i] != buf[got + i])
					_exit(2);
			got += n;
			usleep(100);
		}
		_exit(got == len ? 0 : 1);
	}
	close(sv[1]);
	fcntl(sv[0], F_SETFL, fcntl(sv[0], F_GETFL) | O_NONBLOCK);
	ck_assert_int_eq(write_in_full(sv[0], buf, len), (ssize_t)len);
	close(sv[0]);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFEXITED(status));
	ck_assert_int_eq(WEXITSTATUS(status), 0);
	free(buf);
}
END_TEST

START_TEST(write_in_full_reports_enospc)
{
	int fd = open("/dev/full", O_WRONLY);

	ck_assert_int_ge(fd, 0);
	errno = 0;
	ck_assert_int_eq(write_in_full(fd, "x", 1), -1);
	ck_assert_int_eq(errno, ENOSPC);
	close(fd);
}
END_TEST

/* R's quantile(type = 1): tests/ref/nearest-rank.R */
START_TEST(nearest_rank_as_r_type_1)
{
	static const double x[] = { 50, 15, 40, 20, 35 };
	static const double y[] = { 20, 3, 16, 6, 15, 7, 13, 8, 10, 8 };
	struct dvec d = DVEC_INIT;

	ck_assert(isnan(dvec_nearest_rank(&d, 0.5)));
	for (size_t i = 0; i < ARRAY_SIZE(x); i++)
		dvec_push(&d, x[i]);
	dvec_sort(&d);
	ck_assert_double_eq(dvec_nearest_rank(&d, 0.05), 15);
	ck_assert_double_eq(dvec_nearest_rank(&d, 0.30), 20);
	ck_assert_double_eq(dvec_nearest_rank(&d, 0.40), 20);
	ck_assert_double_eq(dvec_nearest_rank(&d, 0.50), 35);
	ck_assert_double_eq(dvec_nearest_rank(&d, 1.00), 50);
	ck_assert_double_eq(dvec_sum(&d), 160);
	dvec_clear(&d);
	ck_assert_int_eq(d.n, 0);
	for (size_t i = 0; i < ARRAY_SIZE(y); i++)
		dvec_push(&d, y[i]);
	dvec_sort(&d);
	ck_assert_double_eq(dvec_nearest_rank(&d, 0.25), 7);
	ck_assert_double_eq(dvec_nearest_rank(&d, 0.50), 8);
	ck_assert_double_eq(dvec_nearest_rank(&d, 0.75), 15);
	ck_assert_double_eq(dvec_nearest_rank(&d, 0.95), 20);
	dvec_clear(&d);
}
END_TEST

START_TEST(json_number_one_precision)
{
	json_object *o = json_object_new_object();

	/* three decimals from 1 up: what the 3-decimal roundings kept */
	ck_assert_double_eq(json_round(107.8649), 107.865);
	ck_assert_double_eq(json_round(-2.0004), -2.0);
	ck_assert_double_eq(json_round(1234567.891234), 1234567.891);
	/* four significant digits below 1: a stack fraction kept 4 decimals */
	ck_assert_double_eq(json_round(0.61623), 0.6162);
	ck_assert_double_eq(json_round(0.012345), 0.01235);
	ck_assert_double_eq(json_round(0.0), 0.0);
	ck_assert_double_eq(json_round(0.1 + 0.2), 0.3);
	ck_assert_ptr_null(json_number(NAN));
	ck_assert_ptr_null(json_number(INFINITY));
	json_put_num(o, "p95", NAN);
	json_put_num(o, "mean", 2.0 / 3);
	json_put_int(o, "count", 3);
	json_put_str(o, "why", NULL);
	json_put(o, "x", json_object_new_string("y"));
	ck_assert_str_eq(json_object_to_json_string_ext(o,
							JSON_C_TO_STRING_PLAIN),
			 "{\"p95\":null,\"mean\":0.6667,\"count\":3,"
			 "\"why\":null,\"x\":\"y\"}");
	json_object_put(o);
}
END_TEST

/* The releases the lab's kernels report (tests/data cell.json files). */
/*
 * gz_compress_file() on a real trace (the stack collector's leaf trace of
 * a lab 6.1 revert cell, kept as gzip made it): what zlib reads back is
 * the original, the header is gzip -n's (no name, zero time stamp), the
 * source is gone; a link is refused at either end and nothing is lost.
 */
START_TEST(gz_compress_like_gzip_n)
{
	char dir[] = "/tmp/wblab-test-gz.XXXXXX";
	struct strbuf orig = STRBUF_INIT;
	char *src, *gz, *lnk, buf[1 << 16], hdr[10];
	gzFile in;
	size_t got = 0;
	int n, fd;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	src = testdata_path("stack/lab-6.1-dw-ext4-leaf/stack_leaf_trace.gz");
	in = gzopen(src, "rb");
	free(src);
	ck_assert_ptr_nonnull(in);
	while ((n = gzread(in, buf, sizeof(buf))) > 0)
		strbuf_add(&orig, buf, n);
	gzclose(in);
	ck_assert_uint_gt(orig.len, 100000);
	src = xasprintf("%s/trace", dir);
	gz = xasprintf("%s/trace.gz", dir);
	ck_assert_int_eq(write_file_atomic(src, orig.buf, orig.len, 0644), 0);
	ck_assert_int_eq(gz_compress_file(src), 0);
	ck_assert_int_ne(access(src, F_OK), 0);
	fd = open(gz, O_RDONLY);
	ck_assert_int_eq(read(fd, hdr, sizeof(hdr)), sizeof(hdr));
	close(fd);
	ck_assert(hdr[0] == '\x1f' && hdr[1] == '\x8b' && hdr[2] == 8);
	ck_assert_int_eq(hdr[3], 0); /* no FNAME: -n */
	ck_assert(!hdr[4] && !hdr[5] && !hdr[6] && !hdr[7]); /* mtime 0 */
	in = gzopen(gz, "rb");
	while ((n = gzread(in, buf, sizeof(buf))) > 0) {
		ck_assert(got + n <= orig.len &&
			  !memcmp(orig.buf + got, buf, n));
		got += n;
	}
	gzclose(in);
	ck_assert_uint_eq(got, orig.len);
	/* A link as the source, or a .gz already there: refused, kept. */
	lnk = xasprintf("%s/link", dir);
	ck_assert_int_eq(symlink(gz, lnk), 0);
	ck_assert_int_eq(gz_compress_file(lnk), -1);
	ck_assert_int_eq(errno, ELOOP);
	ck_assert_int_eq(write_file_atomic(src, "x", 1, 0644), 0);
	ck_assert_int_eq(gz_compress_file(src), -1);
	ck_assert_int_eq(errno, EEXIST);
	ck_assert_int_eq(access(src, F_OK), 0);
	free(lnk);
	free(src);
	free(gz);
	strbuf_release(&orig);
	rm_rf(dir);
}
END_TEST

START_TEST(kver_of_releases)
{
	ck_assert_int_eq(kver_parse("6.1.192-wblab"), KVER(6, 1));
	ck_assert_int_eq(kver_parse("6.1.192-wblab-dw"), 6001);
	ck_assert_int_eq(kver_parse("6.1.0-57-amd64"), 6001);
	ck_assert_int_eq(kver_parse("6.12.118+deb12-amd64"), KVER(6, 12));
	ck_assert_int_eq(kver_parse("6.10"), 6010);
	ck_assert_int_lt(kver_parse("6.9.0"), KVER(6, 10));
	ck_assert_int_eq(kver_parse(NULL), 0);
	ck_assert_int_eq(kver_parse(""), 0);
	ck_assert_int_eq(kver_parse("v6.1"), 0);
	ck_assert_int_eq(kver_parse("6"), 0);
	ck_assert_int_eq(kver_parse("6."), 0);
	ck_assert_int_eq(kver_parse("6.-1"), 0);
	ck_assert_int_eq(kver_parse("100.1"), 0);
	ck_assert_int_eq(kver_parse("6.1000"), 0);
	ck_assert_int_eq(kver_parse("99999999999999999999.1"), 0);
}
END_TEST

/*
 * The agent's caplines prints what find ... -exec grep -H . {} + printed
 * into a real cell's stack_trace_stats.txt: its per-CPU stats files laid
 * out again under a temporary tracefs, read back through the glob the plan
 * names. An empty line is left out, as grep . leaves it; a glob matching
 * nothing and a missing file are errors (exit 1), as cat's are.
 */
START_TEST(agent_caplines_as_grep)
{
	char dir[] = "/tmp/wblab-test-cap.XXXXXX";
	static const char tracefs[] = "/sys/kernel/tracing/";
	struct strbuf orig = STRBUF_INIT, want = STRBUF_INIT, got = STRBUF_INIT;
	char *pat, *out, *missing;
	int fd;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	testdata_read(&orig,
		      "stack/lab-6.1-dw-ext4-leaf/stack_trace_stats.txt");
	for (char *l = orig.buf, *nl; *l; l = nl + 1) {
		char *colon, *path;

		nl = strchr(l, '\n');
		*nl = '\0';
		if (!starts_with(l, tracefs))
			continue;
		colon = strchr(l, ':');
		*colon = '\0';
		path = xasprintf("%s/%s", dir, l + strlen(tracefs));
		ck_assert_int_eq(mkdir_p(dirname_of(path), 0755), 0);
		fd = open(path, O_WRONLY | O_CREAT | O_APPEND, 0644);
		dprintf(fd, "%s\n\n", colon + 1);
		close(fd);
		strbuf_addf(&want, "%s:%s\n", path, colon + 1);
		free(path);
	}
	ck_assert_uint_gt(want.len, 1000);
	out = xasprintf("%s/out", dir);
	fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	pat = xasprintf("%s/instances/*/per_cpu/cpu*/stats", dir);
	ck_assert_int_eq(cap_lines(fd, pat), 0);
	close(fd);
	ck_assert_int_eq(strbuf_read_file(&got, out), 0);
	ck_assert_str_eq(sorted_lines(got.buf), sorted_lines(want.buf));
	fd = open(out, O_WRONLY | O_TRUNC);
	missing = xasprintf("%s/none/*", dir);
	ck_assert_int_eq(cap_lines(fd, missing), 1);
	ck_assert_int_eq(cap_file(fd, missing), 1);
	close(fd);
	strbuf_reset(&got);
	ck_assert_int_eq(strbuf_read_file(&got, out), 0);
	ck_assert_ptr_nonnull(strstr(got.buf, ": No such file or directory\n"));
	ck_assert_int_eq(rm_rf(dir), 0);
	free(pat);
	free(out);
	free(missing);
	strbuf_release(&orig);
	strbuf_release(&want);
	strbuf_release(&got);
}
END_TEST

/* Made in dir by the test, never the host's /dev: the node type to test. */
static char *node_in(const char *dir, const char *name, mode_t type, int maj,
		     int min)
{
	char *p = xasprintf("%s/%s", dir, name);

	ck_assert_msg(mknod(p, type | 0666, makedev(maj, min)) == 0,
		      "mknod %s: %s (the test needs root, as CI runs it)", p,
		      strerror(errno));
	return p;
}

static mode_t type_of(const char *p)
{
	struct stat st;

	ck_assert_int_eq(lstat(p, &st), 0);
	return st.st_mode & S_IFMT;
}

/* Nothing named NAME.tmp.* is left in dir. */
static void no_temp_left(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;

	ck_assert_ptr_nonnull(d);
	while ((de = readdir(d)))
		ck_assert_msg(!strstr(de->d_name, ".tmp."), "%s left in %s",
			      de->d_name, dir);
	closedir(d);
}

/*
 * -o over a device node broke the host: `wblab export --kcidb RUN -o
 * /dev/null` as root renamed a regular file over /dev/null. Every -o
 * writer and every copy goes through write_file_atomic()/copy_file():
 * they write into /dev/null-like nodes and FIFOs in place, never rename
 * over anything but a regular file, and refuse other devices,
 * directories and links to nothing.
 */
START_TEST(write_never_replaces_a_node)
{
	char tmpl[] = "/tmp/wblab-node-XXXXXX";
	char *dir = mkdtemp(tmpl), *null, *mem, *blk, *fifo, *sub, *dang;
	char *reg, *link, *src;
	struct strbuf got = STRBUF_INIT;
	int rfd;

	ck_assert_ptr_nonnull(dir);
	null = node_in(dir, "null", S_IFCHR, 1, 3);
	ck_assert_int_eq(write_string_atomic(null, "report\n"), 0);
	ck_assert_int_eq(type_of(null), S_IFCHR);
	src = xasprintf("%s/src", dir);
	ck_assert_int_eq(write_string_atomic(src, "kernel\n"), 0);
	ck_assert_int_eq(copy_file(src, null, 0644), 0);
	ck_assert_int_eq(type_of(null), S_IFCHR);

	/* /dev/mem and a disk: written through, they would do harm; refused. */
	mem = node_in(dir, "mem", S_IFCHR, 1, 1);
	blk = node_in(dir, "loop", S_IFBLK, 7, 0);
	ck_assert_int_eq(write_string_atomic(mem, "x"), -1);
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_str_eq(open_regular_strerror(errno), "not a regular file");
	ck_assert_int_eq(write_string_atomic(blk, "x"), -1);
	ck_assert_int_eq(copy_file(src, blk, 0644), -1);
	ck_assert_int_eq(type_of(mem), S_IFCHR);
	ck_assert_int_eq(type_of(blk), S_IFBLK);

	/* A FIFO: written in place when read, an error (not a hang) if not. */
	fifo = xasprintf("%s/fifo", dir);
	ck_assert_int_eq(mkfifo(fifo, 0600), 0);
	ck_assert_int_eq(write_string_atomic(fifo, "x"), -1);
	ck_assert_int_eq(errno, ENXIO);
	rfd = open(fifo, O_RDONLY | O_NONBLOCK);
	ck_assert_int_ge(rfd, 0);
	ck_assert_int_eq(write_string_atomic(fifo, "via fifo\n"), 0);
	ck_assert_int_eq(strbuf_read_fd(&got, rfd), 9);
	ck_assert_str_eq(got.buf, "via fifo\n");
	close(rfd);
	ck_assert_int_eq(type_of(fifo), S_IFIFO);

	/* A directory, and a link to nothing, are never replaced. */
	sub = xasprintf("%s/sub", dir);
	ck_assert_int_eq(mkdir(sub, 0755), 0);
	ck_assert_int_eq(write_string_atomic(sub, "x"), -1);
	ck_assert_int_eq(type_of(sub), S_IFDIR);
	dang = xasprintf("%s/dangling", dir);
	ck_assert_int_eq(symlink("nowhere", dang), 0);
	ck_assert_int_eq(write_string_atomic(dang, "x"), -1);
	ck_assert_int_eq(errno, ELOOP);
	ck_assert_int_eq(type_of(dang), S_IFLNK);

	/* A link to a regular file: the file is replaced, the link stays. */
	reg = xasprintf("%s/reg", dir);
	link = xasprintf("%s/link", dir);
	ck_assert_int_eq(write_string_atomic(reg, "old\n"), 0);
	ck_assert_int_eq(symlink("reg", link), 0);
	ck_assert_int_eq(write_string_atomic(link, "new\n"), 0);
	ck_assert_int_eq(type_of(link), S_IFLNK);
	strbuf_reset(&got);
	ck_assert_int_eq(strbuf_read_file(&got, reg), 0);
	ck_assert_str_eq(got.buf, "new\n");

	no_temp_left(dir);
	ck_assert_int_eq(rm_rf(dir), 0);
	free(null);
	free(mem);
	free(blk);
	free(fifo);
	free(sub);
	free(dang);
	free(reg);
	free(link);
	free(src);
	strbuf_release(&got);
}
END_TEST

/*
 * A SIGTERM or Ctrl-C that kills wblab while run_argv() runs a child
 * (a kernel build's make, in a process group of its own) kills the child
 * too, and wblab reaps it before it dies: the child never runs on in a
 * tree whose lock died with wblab. Before, wblab died and make ran on.
 */
START_TEST(run_child_dies_with_us)
{
	char dir[] = "/tmp/wblab-run-XXXXXX", path[64], buf[32] = "";
	pid_t tp, child = 0;
	int st;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/pid", dir);
	tp = fork();
	ck_assert_int_ge(tp, 0);
	if (!tp) {
		const char *argv[] = { "sh", "-c",
				       "echo $$ > \"$0.tmp\"; "
				       "mv \"$0.tmp\" \"$0\"; exec sleep 60",
				       path, NULL };

		/* wblab's dispositions while it builds, not Check's handlers */
		signal(SIGTERM, SIG_DFL);
		signal(SIGINT, SIG_DFL);
		_exit(run_argv(argv, NULL));
	}
	/* The child's pid, once the file is there (the event, not a delay). */
	for (int i = 0; i < 2000 && !child; i++) {
		FILE *f = fopen(path, "r");

		if (f) {
			if (fgets(buf, sizeof(buf), f))
				child = (pid_t)atoi(buf);
			fclose(f);
		}
		if (!child)
			usleep(10000);
	}
	ck_assert_int_gt(child, 0);
	ck_assert_int_eq(kill(tp, SIGTERM), 0);
	ck_assert_int_eq(waitpid(tp, &st, 0), tp);
	ck_assert(WIFSIGNALED(st) && WTERMSIG(st) == SIGTERM);
	/* Reaped by tp: gone, not a zombie of ours or a sleeper. */
	if (kill(child, 0) == 0) {
		kill(child, SIGKILL);
		ck_abort_msg("the child %d ran on after wblab died", child);
	}
	ck_assert_int_eq(errno, ESRCH);
	unlink(path);
	rmdir(dir);
}
END_TEST

/*
 * validate- and bisect- work directories were time and pid: two jobs of
 * one second in containers (pid 1 each) shared one. mkdir_stamped() makes
 * a new one every call, by mkdir(2), never an existing one.
 */
START_TEST(stamped_dirs_are_new)
{
	char tmpl[] = "/tmp/wblab-stamped-XXXXXX";
	char *root = mkdtemp(tmpl), *a, *b;
	struct stat st;

	ck_assert_ptr_nonnull(root);
	ck_assert_int_eq(mkdir_stamped(root, "validate", &a), 0);
	ck_assert_int_eq(mkdir_stamped(root, "validate", &b), 0);
	ck_assert_str_ne(a, b);
	ck_assert_int_eq(stat(a, &st), 0);
	ck_assert(S_ISDIR(st.st_mode));
	ck_assert_int_eq(strncmp(a + strlen(root), "/validate-2", 11), 0);
	ck_assert_int_eq(rm_rf(root), 0);
	free(a);
	free(b);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("util");
	TCase *tc = tcase_create("util");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, num_refuses_what_atoi_took);
	tcase_add_test(tc, gz_compress_like_gzip_n);
	tcase_add_test(tc, num_double_finite_decimals_only);
	tcase_add_test(tc, num_errors_name_file_and_line);
	tcase_add_test(tc, num_real_vmstat);
	tcase_add_test(tc, prefixes);
	tcase_add_test(tc, write_in_full_nonblocking);
	tcase_add_test(tc, write_in_full_reports_enospc);
	tcase_add_test(tc, nearest_rank_as_r_type_1);
	tcase_add_test(tc, json_number_one_precision);
	tcase_add_test(tc, kver_of_releases);
	tcase_add_test(tc, agent_caplines_as_grep);
	tcase_add_test(tc, write_never_replaces_a_node);
	tcase_add_test(tc, stamped_dirs_are_new);
	tcase_add_test(tc, run_child_dies_with_us);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
