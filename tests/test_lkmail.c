// SPDX-License-Identifier: GPL-2.0
/*
 * The jobs' mails (jobs/lkmail.h) on real data: the reply to a patch as
 * git format-patch wrote it (tests/data/mail/revert-v2.mbox: folded
 * Subject and Cc, a v1 in References), threaded and addressed as a
 * reply, every line within 80 columns, and read back by git mailinfo;
 * the real decisions of tests/data/report/fsync (lines of 150 columns)
 * fitted without losing a word.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "jobs/family.h"
#include "jobs/lkmail.h"
#include "jobs/pool.h"
#include "spec/matrix.h"
#include "testdata.h"
#include "util/fs.h"
#include "util/log.h"
#include "util/run.h"
#include "util/str.h"

static const char msgid[] =
	"<0889a155db936986c5d5347cbdfdf086e71ea655.1796421302.git.wblab@localhost>";

static void check_width(const char *text)
{
	for (const char *p = text; *p;) {
		const char *e = strchrnul(p, '\n');

		ck_assert_msg(e - p <= 80, "%d columns: %.*s", (int)(e - p),
			      (int)(e - p), p);
		p = *e ? e + 1 : e;
	}
}

START_TEST(reads_a_real_patch)
{
	char *path = testdata_path("mail/revert-v2.mbox");
	struct lkmail h;

	ck_assert_int_eq(lkmail_read_headers(path, &h), 0);
	ck_assert_str_eq(h.message_id, msgid);
	/* folded over two lines by format-patch */
	ck_assert_str_eq(
		h.subject,
		"[PATCH v2] mm: vmscan: let direct reclaim write dirty file folios again");
	ck_assert_str_eq(h.from, "wblab <wblab@localhost>");
	ck_assert_str_eq(h.to, "linux-mm@kvack.org");
	ck_assert_str_eq(
		h.cc,
		"Andrew Morton <akpm@linux-foundation.org>, Dave Chinner <david@fromorbit.com>, Mel Gorman <mgorman@techsingularity.net>, Johannes Weiner <hannes@cmpxchg.org>");
	ck_assert_str_eq(h.references,
			 "<20260101001100.1234-1-wblab@localhost>");
	lkmail_release(&h);
	free(path);
}
END_TEST

START_TEST(reply_threads)
{
	char *path = testdata_path("mail/revert-v2.mbox");
	char dir[] = "/tmp/wblab-test-lkmail.XXXXXX";
	struct lkmail h, r;
	struct strbuf msg = STRBUF_INIT, out = STRBUF_INIT, err = STRBUF_INIT;
	char *file, *mpath, *ppath;

	ck_assert_int_eq(lkmail_read_headers(path, &h), 0);
	lkmail_reply(&r, &h, "wblab <wblab@lab.example>");
	ck_assert_str_eq(
		r.subject,
		"Re: [PATCH v2] mm: vmscan: let direct reclaim write dirty file folios again");
	ck_assert_str_eq(r.in_reply_to, msgid);
	ck_assert_str_eq(r.to, "wblab <wblab@localhost>");
	ck_assert_ptr_nonnull(
		strstr(r.cc, "linux-mm@kvack.org, Andrew Morton"));
	lkmail_render(&r, "Hi wblab,\n\nVerdict: REGRESSION\n", 1796421302,
		      &msg);
	check_width(msg.buf);
	ck_assert_ptr_nonnull(strstr(
		msg.buf,
		"References: <20260101001100.1234-1-wblab@localhost>\n <0889a155db936986c5d5347cbdfdf086e71ea655.1796421302.git.wblab@localhost>\n"));
	ck_assert_ptr_nonnull(strstr(msg.buf, "\nIn-Reply-To: <0889a155"));
	ck_assert_ptr_nonnull(strstr(msg.buf, "\nDate: Fri, 04 Dec 2026 "));
	ck_assert_ptr_nonnull(
		strstr(msg.buf, "\n\nHi wblab,\n\nVerdict: REGRESSION\n"));
	/* A reply to a reply says Re: once. */
	lkmail_release(&h);
	h.subject = xstrdup(r.subject);
	h.message_id = xstrdup(msgid);
	lkmail_release(&r);
	lkmail_reply(&r, &h, "x");
	ck_assert_str_eq(
		r.subject,
		"Re: [PATCH v2] mm: vmscan: let direct reclaim write dirty file folios again");
	ck_assert_str_eq(r.references, msgid);

	/* git reads it back: the folded headers are headers */
	ck_assert_ptr_nonnull(mkdtemp(dir));
	file = xasprintf("%s/reply.mail", dir);
	mpath = xasprintf("%s/msg", dir);
	ppath = xasprintf("%s/patch", dir);
	ck_assert_int_eq(lkmail_deliver(file, &msg, NULL), 0);
	{
		const char *argv[] = { "git", "mailinfo", "-k",
				       mpath, ppath,	  NULL };
		struct run_opts ro = { .in_path = file,
				       .out = &out,
				       .err = &err };

		ck_assert_int_eq(run_argv(argv, &ro), 0);
	}
	ck_assert_msg(
		strstr(out.buf,
		       "Author: wblab\nEmail: wblab@lab.example\nSubject: Re: [PATCH v2] mm: vmscan: let direct reclaim write dirty file folios again\n"),
		"%s", out.buf);
	rm_rf(dir);
	free(file);
	free(mpath);
	free(ppath);
	lkmail_release(&h);
	lkmail_release(&r);
	strbuf_release(&msg);
	strbuf_release(&out);
	strbuf_release(&err);
	free(path);
}
END_TEST

/* Words in order, whatever the spaces and line breaks. */
static void words(const char *s, struct strbuf *out)
{
	for (const char *p = s; *p;) {
		size_t w;

		p += strspn(p, " \n");
		w = strcspn(p, " \n");
		if (w) {
			strbuf_add(out, p, w);
			strbuf_addch(out, ' ');
		}
		p += w;
	}
}

START_TEST(fits_real_decisions)
{
	struct matrix_spec m;
	struct pool p = POOL_INIT;
	struct family f = { 0 };
	struct dlooks l = DLOOKS_INIT;
	struct strbuf text = STRBUF_INIT, fit = STRBUF_INIT, a = STRBUF_INIT,
		      b = STRBUF_INIT;
	size_t longest = 0;
	char *buf = NULL;
	size_t len = 0;
	FILE *f_out;

	testdata_matrix(&m, "validate");
	testdata_pool(&p, NULL, "report/fsync/ab");
	family_decide(&f, &p, "6.1", "6.1-direct-writeback", m.thresholds,
		      m.nr_thresholds, &l);
	f_out = open_memstream(&buf, &len);
	family_print(f_out, &f);
	fclose(f_out);
	for (const char *q = buf; *q;) {
		const char *e = strchrnul(q, '\n');

		if ((size_t)(e - q) > longest)
			longest = e - q;
		q = *e ? e + 1 : e;
	}
	ck_assert_uint_gt(longest, 120);
	lkmail_fit(&fit, buf);
	check_width(fit.buf);
	words(buf, &a);
	words(fit.buf, &b);
	ck_assert_str_eq(a.buf, b.buf);
	/* the continuation is indented two past the line's own indent */
	ck_assert_ptr_nonnull(strstr(
		fit.buf,
		"\n  * different reclaim-wr-direct: 0 -> 295 pages, n 10/10 (log1p-welch\n    p=5.62e-09"));
	free(buf);
	family_release(&f);
	pool_free(&p);
	matrix_spec_free(&m);
	strbuf_release(&text);
	strbuf_release(&fit);
	strbuf_release(&a);
	strbuf_release(&b);
}
END_TEST

START_TEST(subject)
{
	char *s = lkmail_subject("mm",
				 "0889a155db936986c5d5347cbdfdf086e71ea655",
				 "reclaim-wr-direct", "0 -> 294.9 pages");

	ck_assert_str_eq(
		s,
		"[mm] 0889a155db: reclaim-wr-direct 0 -> 294.9 pages regression");
	free(s);
	s = lkmail_subject("mm", "0889a155db93", "crashed", "");
	ck_assert_str_eq(s, "[mm] 0889a155db: crashed regression");
	free(s);
}
END_TEST

/*
 * The bisection night 3 of tests/jobs/e2e-nightly.sh ran (its mail's
 * reproduce step): pasted into sh, the continued lines are one command.
 */
START_TEST(command_pastes)
{
	const char *argv[] = {
		"wblab",
		"bisect",
		"--tree",
		"/var/lib/wblab/jobs-test/linux",
		"--good",
		"4465b64a19f2f706b5b0628beceb238e836ce62d",
		"--bad",
		"27e7402e70d735592c8fbb459913e436fa9d5245",
		"--matrix",
		"/var/lib/wblab/scratch/night/snap/tests/jobs/dirty-ext4.yaml",
		"--event",
		"crashed:it's a title",
		"--results",
		"/var/lib/wblab/scratch/night/e2e-20261204-222044/db",
		NULL
	};
	struct strbuf cmd = STRBUF_INIT, out = STRBUF_INIT;

	lkmail_command(&cmd, argv);
	check_width(cmd.buf);
	ck_assert(starts_with(cmd.buf, "        wblab bisect --tree "));
	/* an option and its value stay on one line */
	ck_assert_ptr_nonnull(strstr(
		cmd.buf,
		" \\\n            --good 4465b64a19f2f706b5b0628beceb238e836ce62d \\\n"));
	/* sh reads it back as the same words */
	{
		char *s = xasprintf(
			"f() { for a; do printf '%%s\\n' \"$a\"; done; }; wblab() { f \"$@\"; }; %s",
			cmd.buf + 8);
		const char *sh[] = { "sh", "-c", s, NULL };

		ck_assert_int_eq(run_capture(sh, &out, NULL), 0);
		free(s);
	}
	{
		struct strbuf want = STRBUF_INIT;

		for (size_t i = 1; argv[i]; i++)
			strbuf_addf(&want, "%s\n", argv[i]);
		ck_assert_str_eq(out.buf, want.buf);
		strbuf_release(&want);
	}
	strbuf_release(&cmd);
	strbuf_release(&out);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("lkmail");
	TCase *tc = tcase_create("lkmail");
	SRunner *sr;
	int failed;

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, reads_a_real_patch);
	tcase_add_test(tc, reply_threads);
	tcase_add_test(tc, fits_real_decisions);
	tcase_add_test(tc, subject);
	tcase_add_test(tc, command_pastes);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
