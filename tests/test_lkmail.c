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
#include "jobs/validate.h"
#include "spec/matrix.h"
#include "testdata.h"
#include "util/fs.h"
#include "util/log.h"
#include "util/run.h"
#include "util/str.h"

static const char msgid[] =
	"<0889a155db936986c5d5347cbdfdf086e71ea655.1796421302.git.wblab@localhost>";

/*
 * Every line within 80 columns, but a header's single word: a Message-Id
 * is never folded inside its <...> (In-Reply-To would no longer match).
 */
static void check_width(const char *text)
{
	for (const char *p = text; *p;) {
		const char *e = strchrnul(p, '\n');
		const char *w = p + strcspn(p, " \n");

		w += strspn(w, " ");
		ck_assert_msg(
			e - p <= 80 || (*p != ' ' && w[-1] == ' ' &&
					strcspn(w, " \n") == (size_t)(e - w)),
			"%d columns: %.*s", (int)(e - p), (int)(e - p), p);
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
	char *file, *mpath, *ppath, *line;

	ck_assert_int_eq(lkmail_read_headers(path, &h), 0);
	lkmail_reply(&r, &h, "wblab <wblab@lab.example>");
	ck_assert_str_eq(
		r.subject,
		"Re: [PATCH v2] mm: vmscan: let direct reclaim write dirty file folios again");
	ck_assert_str_eq(r.in_reply_to, msgid);
	ck_assert_str_eq(r.to, "wblab <wblab@localhost>");
	ck_assert_ptr_nonnull(
		strstr(r.cc, "linux-mm@kvack.org, Andrew Morton"));
	ck_assert_int_eq(lkmail_render(&r, "Hi wblab,\n\nVerdict: REGRESSION\n",
				       1796421302, &msg),
			 0);
	check_width(msg.buf);
	/* one line, as the patch's Message-Id: the reply threads */
	line = xasprintf("\nIn-Reply-To: %s\n", msgid);
	ck_assert_ptr_nonnull(strstr(msg.buf, line));
	free(line);
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
		"\n  * different reclaim-wr-direct: Gmean 0 -> 231 pages, n 10/10 (log1p-welch\n    p=5.62e-09 < 0.0149"));
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

/* What git mailinfo makes of message msg: its Author/Email/Subject. */
static void mailinfo(const struct strbuf *msg, struct strbuf *out)
{
	char dir[] = "/tmp/wblab-test-lkmail.XXXXXX";
	char *file, *mpath, *ppath;
	struct strbuf err = STRBUF_INIT;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	file = xasprintf("%s/m.mail", dir);
	mpath = xasprintf("%s/msg", dir);
	ppath = xasprintf("%s/patch", dir);
	ck_assert_int_eq(lkmail_deliver(file, msg, NULL), 0);
	{
		const char *argv[] = { "git", "mailinfo", "-k",
				       mpath, ppath,	  NULL };
		struct run_opts ro = { .in_path = file,
				       .out = out,
				       .err = &err };

		ck_assert_int_eq(run_argv(argv, &ro), 0);
	}
	rm_rf(dir);
	free(file);
	free(mpath);
	free(ppath);
	strbuf_release(&err);
}

/*
 * Header values from command lines (issue 47): bisect's tree directory
 * named "linux\nBcc: ..." made "Subject: [linux" and a Bcc: header. The
 * writer refuses a CR or LF, writes nothing, and so does the render.
 */
START_TEST(header_refuses_line_breaks)
{
	static const char *const bad[] = { "[linux\nBcc: x@evil.example] a",
					   "a\rBcc: x@evil.example", "a\x01" };
	struct strbuf out = STRBUF_INIT, err = STRBUF_INIT;
	struct lkmail m = { 0 };

	stderr_begin();
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++)
		ck_assert_int_eq(lkmail_header(&out, "Subject", bad[i]), -1);
	ck_assert_uint_eq(out.len, 0);
	m.from = xstrdup("wblab <wblab@lab.example>");
	m.subject = lkmail_subject("linux\nBcc: x@evil.example", "0889a155db93",
				   "crashed", "");
	ck_assert_int_eq(lkmail_render(&m, "body\n", 1796421302, &out), -1);
	stderr_end(&err);
	ck_assert_ptr_null(strstr(out.buf, "Bcc"));
	ck_assert_msg(strstr(err.buf, "mail header Subject: '[linux") &&
			      strstr(err.buf, "holds a line break: refused"),
		      "%s", err.buf);
	lkmail_release(&m);
	strbuf_release(&out);
	strbuf_release(&err);
}
END_TEST

/*
 * 8-bit text is RFC 2047 encoded-words (each within 75 columns, the
 * header pure ASCII), an address is left alone, invalid UTF-8 becomes
 * U+FFFD, and git mailinfo decodes every header back to the UTF-8 given.
 */
START_TEST(header_encodes_8bit)
{
	static const char subject[] =
		"[mm] 0889a155db: Größe der Schreibvorgänge während der "
		"Rückgewinnung — reclaim-wr-direct 0 → 294.9 Seiten regression";
	struct strbuf msg = STRBUF_INIT, out = STRBUF_INIT;
	struct lkmail m = { 0 };
	const char *body;
	char *line;

	m.from = xstrdup("Jörg Müller <jm@lab.example>");
	m.subject = xstrdup(subject);
	ck_assert_int_eq(lkmail_render(&m, "body\n", 1796421302, &msg), 0);
	body = strstr(msg.buf, "\n\n");
	ck_assert_ptr_nonnull(body);
	for (const char *p = msg.buf; p < body; p++)
		ck_assert_msg((unsigned char)*p < 0x80, "8-bit header: %s",
			      msg.buf);
	ck_assert_ptr_nonnull(strstr(
		msg.buf,
		"From: =?UTF-8?Q?J=C3=B6rg_M=C3=BCller?= <jm@lab.example>\n"));
	for (const char *p = msg.buf; (p = strstr(p, "=?UTF-8?Q?")); p++)
		ck_assert_uint_le(strstr(p, "?=") + 2 - p, 75);
	check_width(msg.buf);
	mailinfo(&msg, &out);
	ck_assert_msg(strstr(out.buf, "Author: Jörg Müller\n"), "%s", out.buf);
	ck_assert_msg(strstr(out.buf, "Email: jm@lab.example\n"), "%s",
		      out.buf);
	line = xasprintf("Subject: %s\n", subject);
	ck_assert_msg(strstr(out.buf, line), "%s", out.buf);
	free(line);
	/* a cut mid-character (bisect cuts its label at 40 bytes) */
	strbuf_reset(&msg);
	ck_assert_int_eq(lkmail_header(&msg, "Subject", "[li\xc3] x"), 0);
	ck_assert_str_eq(msg.buf, "Subject: =?UTF-8?Q?=5Bli=EF=BF=BD=5D?= x\n");
	lkmail_release(&m);
	strbuf_release(&msg);
	strbuf_release(&out);
}
END_TEST

/*
 * A series bigger than 256 KiB (the lab's was 389 KB): its first
 * message's headers are read from its start, so it gets its reply.
 */
START_TEST(big_series_threads)
{
	char *path = testdata_path("mail/revert-v2.mbox");
	char dir[] = "/tmp/wblab-test-lkmail.XXXXXX";
	struct strbuf mbox = STRBUF_INIT, one = STRBUF_INIT;
	struct lkmail h;
	char *big;

	testdata_read(&one, "mail/revert-v2.mbox");
	while (mbox.len < 400 * 1024)
		strbuf_add(&mbox, one.buf, one.len);
	ck_assert_ptr_nonnull(mkdtemp(dir));
	big = xasprintf("%s/series.mbox", dir);
	ck_assert_int_eq(write_file_atomic(big, mbox.buf, mbox.len, 0644), 0);
	ck_assert_int_eq(lkmail_read_headers(big, &h), 0);
	ck_assert_str_eq(h.message_id, msgid);
	lkmail_release(&h);
	rm_rf(dir);
	free(big);
	free(path);
	strbuf_release(&mbox);
	strbuf_release(&one);
}
END_TEST

/*
 * An mbox whose first message has no Message-Id cannot be replied to:
 * validate says so before it starts (exit 2, no work directory), not
 * after the whole job with exit 0. The tree does not exist: nothing
 * could be built either way.
 */
START_TEST(validate_checks_mbox_first)
{
	char dir[] = "/tmp/wblab-test-lkmail.XXXXXX";
	struct validate_opts o = { .tree = "/nonexistent/linux",
				   .base = "v6.1",
				   .patches = STRVEC_INIT,
				   .matrix = "validate",
				   .max_reps = 3,
				   .mo = MATRIX_OPTS_INIT,
				   .out = stdout };
	struct strbuf err = STRBUF_INIT, one = STRBUF_INIT;
	char *mbox, *results;
	const char *noid;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	mbox = xasprintf("%s/no-id.mbox", dir);
	results = xasprintf("%s/results", dir);
	testdata_read(&one, "mail/revert-v2.mbox");
	noid = strstr(one.buf, "Message-Id:");
	ck_assert_ptr_nonnull(noid);
	memcpy((char *)noid, "X-Nothing:", 10);
	ck_assert_int_eq(write_file_atomic(mbox, one.buf, one.len, 0644), 0);
	ck_assert_int_eq(mkdir_p(results, 0755), 0);
	o.mbox = mbox;
	o.results = results;
	stderr_begin();
	ck_assert_int_eq(validate_run(&o), 2);
	stderr_end(&err);
	ck_assert_msg(strstr(err.buf, "no Message-Id: header"), "%s", err.buf);
	ck_assert_msg(rmdir(results) == 0, "validate started: %s", err.buf);
	rm_rf(dir);
	strvec_clear(&o.patches);
	free(mbox);
	free(results);
	strbuf_release(&err);
	strbuf_release(&one);
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
	tcase_add_test(tc, header_refuses_line_breaks);
	tcase_add_test(tc, header_encodes_8bit);
	tcase_add_test(tc, big_series_threads);
	tcase_add_test(tc, validate_checks_mbox_first);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
