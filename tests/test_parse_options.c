// SPDX-License-Identifier: GPL-2.0
/*
 * util/parse-options and util/strvec: values checked by name with the
 * messages the subcommands promise, generated --help, and argv arrays
 * that grow without a capacity guess.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/run-options.h"
#include "testdata.h"
#include "util/log.h"
#include "util/parse-options.h"
#include "util/run.h"
#include "util/strbuf.h"
#include "util/strvec.h"

struct vals {
	int reps, timeout;
	long long memory;
	double ratio;
	const char *accel, *name;
	bool json;
	struct strvec kernels;
};

static const char *const accels[] = { "auto", "kvm", "tcg", NULL };
static const char *const usage[] = { "wblab t [options] ARG...", NULL };

/*
 * Parse a space-separated command line (argv[0] is "t") with the test
 * table; returns parse_options_noexit()'s value, stdout and stderr text.
 */
static void *kept[256];
static size_t nr_kept;

static void free_kept(void)
{
	while (nr_kept)
		free(kept[--nr_kept]);
}

static void keep(void *p)
{
	if (!nr_kept)
		atexit(free_kept);
	if (nr_kept < sizeof(kept) / sizeof(kept[0]))
		kept[nr_kept++] = p;
}

static int parse(const char *line, struct vals *v, char **out, char **err,
		 char ***rest)
{
	struct option opts[] = {
		OPT_GROUP("Test options"),
		OPT_INT('n', NULL, &v->reps, "N", 1, 1000, "repetitions"),
		OPT_SIZE('m', "memory", &v->memory, "MiB", 1 << 20, 128,
			 1 << 20, "memory"),
		OPT_DURATION(0, "timeout", &v->timeout, "S", 1, 86400,
			     "timeout"),
		OPT_DOUBLE(0, "ratio", &v->ratio, "X", "a ratio"),
		OPT_CHOICE(0, "accel", &v->accel, "HOW", accels, "accel"),
		OPT_STRING(0, "name", &v->name, "NAME", "a name"),
		OPT_BOOL(0, "json", &v->json, "json"),
		OPT_STRLIST('k', "kernel", &v->kernels, "K", "kernels"),
		OPT_END(),
	};
	char **argv = calloc(64, sizeof(*argv));
	char *save = NULL, *copy = strdup(line);
	size_t olen = 0, elen = 0;
	FILE *o, *e;
	int argc = 0, n;

	argv[argc++] = "t";
	for (char *tok = strtok_r(copy, " ", &save); tok;
	     tok = strtok_r(NULL, " ", &save))
		argv[argc++] = tok;
	*out = NULL;
	*err = NULL;
	o = open_memstream(out, &olen);
	e = open_memstream(err, &elen);
	n = parse_options_noexit(argc, argv, "wblab t", opts, usage, 0, o, e);
	fclose(o);
	fclose(e);
	/* rest points into argv and copy: kept until exit (LeakSanitizer). */
	keep(argv);
	keep(copy);
	*rest = argv;
	return n;
}

static void vals_init(struct vals *v)
{
	memset(v, 0, sizeof(*v));
	v->reps = 1;
	v->accel = "auto";
	strvec_init(&v->kernels);
}

#define EXPECT_ERROR(line, msg)                                              \
	do {                                                                 \
		struct vals _v;                                              \
		char *_o, *_e, **_r;                                         \
		vals_init(&_v);                                              \
		ck_assert_int_eq(parse(line, &_v, &_o, &_e, &_r),            \
				 PARSE_OPT_ERROR);                           \
		ck_assert_msg(strstr(_e, msg), "want '%s' in: %s", msg, _e); \
		ck_assert_msg(strstr(_e, "see 'wblab t --help'"), "%s", _e); \
		free(_o);                                                    \
		free(_e);                                                    \
		strvec_clear(&_v.kernels);                                   \
	} while (0)

START_TEST(values_by_name)
{
	struct vals v;
	char *o, *e, **rest;
	int n;

	vals_init(&v);
	n = parse("-n 5 --memory 2G --timeout 5m --ratio 0.25 --accel tcg "
		  "--name x -k a --kernel=b --json one two",
		  &v, &o, &e, &rest);
	ck_assert_int_eq(n, 2);
	ck_assert_str_eq(rest[0], "one");
	ck_assert_str_eq(rest[1], "two");
	ck_assert_ptr_null(rest[2]);
	ck_assert_int_eq(v.reps, 5);
	ck_assert_int_eq(v.memory, 2048);
	ck_assert_int_eq(v.timeout, 300);
	ck_assert_double_eq(v.ratio, 0.25);
	ck_assert_str_eq(v.accel, "tcg");
	ck_assert_str_eq(v.name, "x");
	ck_assert(v.json);
	ck_assert_int_eq(v.kernels.nr, 2);
	ck_assert_str_eq(v.kernels.v[0], "a");
	ck_assert_str_eq(v.kernels.v[1], "b");
	ck_assert_str_eq(e, "");
	free(o);
	free(e);
	strvec_clear(&v.kernels);

	/* Plain numbers are in the option's unit; -n5 and --no-json work. */
	vals_init(&v);
	n = parse("-n5 --memory 512 --json --no-json -- -n", &v, &o, &e, &rest);
	ck_assert_int_eq(n, 1);
	ck_assert_str_eq(rest[0], "-n");
	ck_assert_int_eq(v.reps, 5);
	ck_assert_int_eq(v.memory, 512);
	ck_assert(!v.json);
	free(o);
	free(e);
}
END_TEST

START_TEST(bad_values_exit_2_naming_the_option)
{
	EXPECT_ERROR("--memory abc",
		     "wblab t: --memory: 'abc' is not a number");
	EXPECT_ERROR("-n 0", "wblab t: -n: 0 is out of range 1..1000");
	EXPECT_ERROR("-n 1001", "-n: 1001 is out of range 1..1000");
	EXPECT_ERROR("-n 3x", "-n: '3x' is not a number");
	EXPECT_ERROR("-n", "-n needs a value (N)");
	EXPECT_ERROR("--memory 64",
		     "--memory: 64 is out of range 128..1048576");
	EXPECT_ERROR("--memory 1Q", "--memory: '1Q' is not a number");
	EXPECT_ERROR("--timeout 5y", "--timeout: '5y' is not a duration");
	EXPECT_ERROR("--timeout 0", "--timeout: 0 is out of range 1..86400");
	EXPECT_ERROR("--ratio nan", "--ratio: 'nan' is not a number");
	EXPECT_ERROR("--accel foo",
		     "--accel: 'foo' is not one of auto, kvm, tcg");
	EXPECT_ERROR("--bogus", "unknown option '--bogus'");
	EXPECT_ERROR("-z", "unknown option '-z'");
	EXPECT_ERROR("--json=1", "--json takes no value");
}
END_TEST

START_TEST(help_is_generated_from_the_table)
{
	struct vals v;
	char *o, *e, **rest;

	vals_init(&v);
	ck_assert_int_eq(parse("--help", &v, &o, &e, &rest), PARSE_OPT_HELP);
	ck_assert_msg(strstr(o, "usage: wblab t [options] ARG...\n"), "%s", o);
	ck_assert_msg(strstr(o, "\nTest options\n"), "%s", o);
	ck_assert_msg(strstr(o, "-n N "), "%s", o);
	ck_assert_msg(strstr(o, "repetitions (1..1000, default 1)"), "%s", o);
	ck_assert_msg(strstr(o, "-m, --memory MiB"), "%s", o);
	ck_assert_msg(strstr(o, "accel (auto|kvm|tcg, default auto)"), "%s", o);
	ck_assert_msg(strstr(o, "kernels (repeatable)"), "%s", o);
	ck_assert_str_eq(e, "");
	free(o);
	free(e);
}
END_TEST

/*
 * Every command that runs cells through the engine takes --jobs with the
 * one range of cmd/run-options.h: the built ./wblab, asked for its help
 * after a --jobs (parsed first, so a value out of range is refused).
 */
START_TEST(jobs_one_range_in_every_command)
{
	static const char *const cmds[][2] = {
		{ "matrix", "run" },
		{ "validate", NULL },
		{ "bisect", NULL },
		{ "nightly", NULL },
	};
	char *wblab = xasprintf("%s/wblab", testdata_home());
	char *max = xasprintf("%d", JOBS_MAX);
	char *over = xasprintf("%d", JOBS_MAX + 1);
	char *range = xasprintf("0..%d", JOBS_MAX);

	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		struct strbuf out = STRBUF_INIT, err = STRBUF_INIT;
		const char *argv[7];
		const char *name = cmds[i][0];
		int n = 0, v;

		argv[n++] = wblab;
		argv[n++] = cmds[i][0];
		if (cmds[i][1])
			argv[n++] = cmds[i][1];
		argv[n++] = "--jobs";
		v = n++;
		argv[n++] = "-h";
		argv[n] = NULL;
		argv[v] = max;
		ck_assert_msg(!run_capture(argv, &out, &err),
			      "%s --jobs %s: %s", name, max, err.buf);
		ck_assert_msg(strstr(out.buf, range), "%s --help: %s", name,
			      out.buf);
		strbuf_reset(&out);
		strbuf_reset(&err);
		argv[v] = over;
		ck_assert_int_eq(run_capture(argv, &out, &err), 2);
		ck_assert_msg(strstr(err.buf, "is out of range") &&
				      strstr(err.buf, range),
			      "%s --jobs %s: %s", name, over, err.buf);
		strbuf_release(&out);
		strbuf_release(&err);
	}
	free(wblab);
	free(max);
	free(over);
	free(range);
}
END_TEST

static int sub_seen;

static int sub_fn(int argc, char **argv)
{
	sub_seen = argc;
	return !strcmp(argv[0], "list") ? 0 : 7;
}

START_TEST(subcommands)
{
	static const struct subcommand subs[] = {
		{ "list", sub_fn },
		{ "show", sub_fn },
		{ NULL, NULL },
	};
	struct option opts[] = { OPT_END() };
	char *a1[] = { "kernel", "list", "--json", NULL };
	char *a2[] = { "kernel", "show", "x", "y", NULL };

	ck_assert_int_eq(
		parse_subcommand(3, a1, "wblab kernel", opts, usage, subs), 0);
	ck_assert_int_eq(sub_seen, 2);
	ck_assert_int_eq(
		parse_subcommand(4, a2, "wblab kernel", opts, usage, subs), 7);
	ck_assert_int_eq(sub_seen, 3);
}
END_TEST

START_TEST(parse_size_and_duration)
{
	long long n;
	int d;

	ck_assert_int_eq(parse_size("4K", 1, &n), 0);
	ck_assert_int_eq(n, 4096);
	ck_assert_int_eq(parse_size("1GiB", 1 << 20, &n), 0);
	ck_assert_int_eq(n, 1024);
	ck_assert_int_eq(parse_size("-1", 1, &n), -1);
	ck_assert_int_eq(parse_size("", 1, &n), -1);
	ck_assert_int_eq(parse_size("99999999999T", 1, &n), -1);
	ck_assert_int_eq(parse_duration("2h", &d), 0);
	ck_assert_int_eq(d, 7200);
	ck_assert_int_eq(parse_duration("90", &d), 0);
	ck_assert_int_eq(d, 90);
	ck_assert_int_eq(parse_duration("1m30", &d), -1);
}
END_TEST

START_TEST(strvec_grows_without_a_guess)
{
	struct strvec sv = STRVEC_INIT;
	const char **v;

	ck_assert_ptr_nonnull(sv.v);
	ck_assert_ptr_null(sv.v[0]);
	for (int i = 0; i < 1000; i++)
		strvec_pushf(&sv, "arg%d", i);
	ck_assert_int_eq(sv.nr, 1000);
	ck_assert_str_eq(sv.v[999], "arg999");
	ck_assert_ptr_null(sv.v[1000]);
	strvec_pop(&sv);
	ck_assert_int_eq(sv.nr, 999);
	ck_assert_ptr_null(sv.v[999]);
	strvec_pushl(&sv, "a", "b", NULL);
	strvec_pushv(&sv, (const char *const[]){ "c", NULL });
	ck_assert_int_eq(sv.nr, 1002);
	ck_assert_str_eq(sv.v[1001], "c");
	v = strvec_detach(&sv);
	ck_assert_int_eq(sv.nr, 0);
	ck_assert_ptr_nonnull(sv.v);
	ck_assert_str_eq(v[0], "arg0");
	for (size_t i = 0; v[i]; i++)
		free((char *)v[i]);
	free(v);
	strvec_clear(&sv);
	v = strvec_detach(&sv);
	ck_assert_ptr_null(v[0]);
	free(v);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("parse_options");
	TCase *tc = tcase_create("parse_options");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, values_by_name);
	tcase_add_test(tc, bad_values_exit_2_naming_the_option);
	tcase_add_test(tc, help_is_generated_from_the_table);
	tcase_add_test(tc, subcommands);
	tcase_add_test(tc, jobs_one_range_in_every_command);
	tcase_add_test(tc, parse_size_and_duration);
	tcase_add_test(tc, strvec_grows_without_a_guess);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
