/* SPDX-License-Identifier: GPL-2.0 */
#ifndef WBLAB_TESTDATA_H
#define WBLAB_TESTDATA_H

#include "util/strbuf.h"

/*
 * The suites' captured inputs, tests/data/ of the checkout: $WBLAB_HOME
 * (tests/run-unit.sh sets it), else the current directory. Paths are
 * printf formats relative to tests/data, e.g. "collect/%s/trace.gz".
 * A file that cannot be read fails the test that asked for it.
 */

/* The checkout, resolved on the first call. */
const char *testdata_home(void);
/* tests/data/PATH as an absolute path, to free(). */
char *testdata_path(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* sb becomes the contents of tests/data/PATH. */
void testdata_read(struct strbuf *sb, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* sb becomes tests/data/PATH decompressed (gzip -dc). */
void testdata_gunzip(struct strbuf *sb, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/*
 * Copy tests/data/FROM/NAME to DIR/NAME for each NAME of the NULL-ended
 * names: a cell directory made of captured files, for the collectors.
 */
void testdata_copy(const char *dir, const char *from, const char *const *names);

struct matrix_spec;
struct pool;
/* lab/matrices/NAME.yaml of the checkout into m: the jobs' thresholds. */
void testdata_matrix(struct matrix_spec *m, const char *name);
/*
 * The cells of the captured run tests/data/PATH added to p, their
 * kernels relabelled label when not NULL (a pool's side).
 */
void testdata_pool(struct pool *p, const char *label, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* What is written to stderr between the two calls ends up in sb. */
void stderr_begin(void);
void stderr_end(struct strbuf *sb);

#endif
