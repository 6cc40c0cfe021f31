// SPDX-License-Identifier: GPL-2.0
/*
 * tests/data helpers shared by the Check suites (testdata.h), linked into
 * every test binary by the Makefile.
 */
#include <check.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "jobs/pool.h"
#include "spec/matrix.h"
#include "testdata.h"
#include "util/fs.h"
#include "util/log.h"
#include "util/run.h"

static int saved_stderr = -1;
static FILE *stderr_file;

const char *testdata_home(void)
{
	static char home[PATH_MAX];
	const char *h = getenv("WBLAB_HOME");

	if (*home)
		return home;
	if (h && *h)
		snprintf(home, sizeof(home), "%s", h);
	else if (!realpath(".", home))
		snprintf(home, sizeof(home), ".");
	return home;
}

static char *vpath(const char *fmt, va_list ap)
{
	struct strbuf sb = STRBUF_INIT;

	strbuf_addf(&sb, "%s/tests/data/", testdata_home());
	strbuf_vaddf(&sb, fmt, ap);
	return strbuf_detach(&sb, NULL);
}

char *testdata_path(const char *fmt, ...)
{
	va_list ap;
	char *p;

	va_start(ap, fmt);
	p = vpath(fmt, ap);
	va_end(ap);
	return p;
}

void testdata_read(struct strbuf *sb, const char *fmt, ...)
{
	va_list ap;
	char *p;

	va_start(ap, fmt);
	p = vpath(fmt, ap);
	va_end(ap);
	strbuf_reset(sb);
	ck_assert_msg(!strbuf_read_file(sb, p), "cannot read %s", p);
	free(p);
}

void testdata_gunzip(struct strbuf *sb, const char *fmt, ...)
{
	const char *argv[] = { "gzip", "-dc", NULL, NULL };
	va_list ap;
	char *p;

	va_start(ap, fmt);
	p = vpath(fmt, ap);
	va_end(ap);
	argv[2] = p;
	strbuf_reset(sb);
	ck_assert_msg(!run_capture(argv, sb, NULL), "cannot gunzip %s", p);
	free(p);
}

void testdata_copy(const char *dir, const char *from, const char *const *names)
{
	for (size_t i = 0; names[i]; i++) {
		char *src = testdata_path("%s/%s", from, names[i]);
		char *dst = xasprintf("%s/%s", dir, names[i]);

		ck_assert_msg(!copy_file(src, dst, 0644),
			      "cannot copy %s to %s", src, dst);
		free(src);
		free(dst);
	}
}

void testdata_matrix(struct matrix_spec *m, const char *name)
{
	char *path =
		xasprintf("%s/lab/matrices/%s.yaml", testdata_home(), name);
	struct strbuf err = STRBUF_INIT;

	ck_assert_msg(!matrix_spec_load(path, name, m, &err), "%s: %s", path,
		      err.buf);
	strbuf_release(&err);
	free(path);
}

void testdata_pool(struct pool *p, const char *label, const char *fmt, ...)
{
	va_list ap;
	char *dir;

	va_start(ap, fmt);
	dir = vpath(fmt, ap);
	va_end(ap);
	ck_assert_msg(!pool_load_run(p, dir), "cannot load the run %s", dir);
	if (label)
		pool_relabel(p, dir, label);
	free(dir);
}

void stderr_begin(void)
{
	fflush(stderr);
	saved_stderr = dup(2);
	ck_assert_int_ge(saved_stderr, 0);
	stderr_file = tmpfile();
	ck_assert_ptr_nonnull(stderr_file);
	ck_assert_int_ge(dup2(fileno(stderr_file), 2), 0);
}

void stderr_end(struct strbuf *sb)
{
	fflush(stderr);
	dup2(saved_stderr, 2);
	close(saved_stderr);
	rewind(stderr_file);
	strbuf_reset(sb);
	ck_assert_int_ge(strbuf_read_fd(sb, fileno(stderr_file)), 0);
	fclose(stderr_file);
}
