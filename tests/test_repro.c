// SPDX-License-Identifier: GPL-2.0
/*
 * Reproducer bundles without a guest: shell words that come back exactly
 * as they went in (through a real /bin/sh), a real plan rendered as a
 * script sh accepts, bad plan lines named, and the signature of the
 * captured swap-direct run (tests/data/report/deadlock): the deadlocked
 * reps 3 and 5 share it, the four healthy reps do not show it.
 */
#include <check.h>
#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cell/repro.h"
#include "cell/reprosh.h"
#include "results/cell.h"
#include "util/fs.h"
#include "util/json.h"
#include "util/log.h"
#include "util/run.h"

#include "testdata.h"

/* What sh makes of the words: each printed with a NUL after it. */
static void sh_words(const char *const *words, struct strbuf *out)
{
	struct strbuf script = STRBUF_INIT, err = STRBUF_INIT;
	const char *argv[] = { "/bin/sh", "-c", NULL, NULL };

	strbuf_addstr(&script, "printf '%s\\0'");
	for (; *words; words++) {
		strbuf_addch(&script, ' ');
		sh_quote(&script, *words);
	}
	argv[2] = script.buf;
	ck_assert_int_eq(run_capture(argv, out, &err), 0);
	strbuf_release(&script);
	strbuf_release(&err);
}

START_TEST(quote_round_trip)
{
	static const char *const words[] = {
		"plain",      "it's", "'",	   "''",    "$(touch /tmp/x)",
		"`id`",	      "a\nb", "\\",	   "\"q\"", "*",
		"; rm -rf /", "",     "tab\there", NULL,
	};
	struct strbuf out = STRBUF_INIT;
	const char *p;
	size_t i = 0;

	sh_words(words, &out);
	for (p = out.buf; p < out.buf + out.len; p += strlen(p) + 1)
		ck_assert_str_eq(p, words[i++]);
	ck_assert_uint_eq(i, 13);
	strbuf_release(&out);
}
END_TEST

START_TEST(plan_as_shell)
{
	struct strbuf plan = STRBUF_INIT, sh = STRBUF_INIT, err = STRBUF_INIT;
	struct strbuf out = STRBUF_INIT;
	const char *argv[] = { "/bin/sh", "-n", "-c", NULL, NULL };

	testdata_read(&plan, "cell-smoke/plan.txt");
	ck_assert_int_eq(
		repro_plan_sh(plan.buf, plan.len, "plan.txt", &sh, &err), 0);
	/* A device is resolved in the guest, the rest quoted as it was. */
	ck_assert_ptr_nonnull(strstr(
		sh.buf,
		"wb_run 'scratch:mkfs' '600' 'mkfs.xfs' '-f' \"$(wb_dev '@disk:wblab-disk0')\"\n"));
	ck_assert_ptr_nonnull(strstr(
		sh.buf,
		"wb_put '/tmp/wblab-job.fio' '[global]\ndirectory=${WBLAB_MOUNT}\n"));
	ck_assert_ptr_nonnull(
		strstr(sh.buf, "export WBLAB_MOUNT='/mnt/scratch'\n"));
	argv[3] = sh.buf;
	ck_assert_int_eq(run_capture(argv, &out, &err), 0);
	strbuf_release(&plan);
	strbuf_release(&sh);
	strbuf_release(&err);
	strbuf_release(&out);
}
END_TEST

/* The verbs the agent does itself are shell in the bundle: cat, grep, mkdir. */
START_TEST(plan_as_shell_agent_verbs)
{
	static const char plan[] =
		"phase\tcollect\n"
		"mkdir\t/sys/kernel/tracing/instances/wblab-stack\n"
		"capfile\ttrace_stats.txt\tset_event\t/sys/kernel/tracing/set_event\n"
		"caplines\ttrace_stats.txt\tper_cpu stats\t/sys/kernel/tracing/per_cpu/cpu*/stats\n";
	struct strbuf sh = STRBUF_INIT, err = STRBUF_INIT, out = STRBUF_INIT;
	const char *argv[] = { "/bin/sh", "-n", "-c", NULL, NULL };

	ck_assert_int_eq(repro_plan_sh(plan, sizeof(plan) - 1, "plan.txt", &sh,
				       &err),
			 0);
	ck_assert_ptr_nonnull(strstr(
		sh.buf,
		"wb_mkdir '/sys/kernel/tracing/instances/wblab-stack'\n"));
	ck_assert_ptr_nonnull(strstr(
		sh.buf,
		"wb_capfile 'trace_stats.txt' 'set_event' '/sys/kernel/tracing/set_event'\n"));
	ck_assert_ptr_nonnull(strstr(
		sh.buf,
		"wb_caplines 'trace_stats.txt' 'per_cpu stats' '/sys/kernel/tracing/per_cpu/cpu*/stats'\n"));
	argv[3] = sh.buf;
	ck_assert_int_eq(run_capture(argv, &out, &err), 0);
	strbuf_release(&sh);
	strbuf_release(&err);
	strbuf_release(&out);
}
END_TEST

static void bad_plan(const char *plan, const char *want)
{
	struct strbuf sh = STRBUF_INIT, err = STRBUF_INIT;

	ck_assert_int_eq(
		repro_plan_sh(plan, strlen(plan), "plan.txt", &sh, &err), -1);
	ck_assert_str_eq(err.buf, want);
	strbuf_release(&sh);
	strbuf_release(&err);
}

START_TEST(plan_bad_lines)
{
	bad_plan("phase\tsetup\nbogus\tx\n", "plan.txt:2: bogus: unknown verb");
	bad_plan("run\tl\tsoon\ttrue\n", "plan.txt:1: run: bad timeout");
	bad_plan("capfile\t../x\tl\t/etc/shadow\n",
		 "plan.txt:1: capfile: bad result name");
	bad_plan("env\tA B\tx\n", "plan.txt:1: env: not an environment name");
	bad_plan("get\t../x\t/etc/passwd\n",
		 "plan.txt:1: get: bad result name");
	bad_plan("phase\tnever\n", "plan.txt:1: phase: unknown phase");
	bad_plan("run\tl\t1\n", "plan.txt:1: run: too few fields");
}
END_TEST

/* A captured cell.json, decoded (results/cell.h). */
static struct cell_result *cell_at(char *p)
{
	json_object *o = json_object_from_file(p);
	struct cell_result *c;

	ck_assert_ptr_nonnull(o);
	c = cell_result_decode(o);
	json_object_put(o);
	free(p);
	return c;
}

static struct cell_result *deadlock_cell(int rep)
{
	return cell_at(testdata_path(
		"report/deadlock/cells/debian-6.12_swap-raid1-iscsi_swap-direct_%d/cell.json",
		rep));
}

START_TEST(signature_of_the_deadlock)
{
	struct cell_result *c3 = deadlock_cell(3);
	json_object *sig = repro_signature(c3);
	struct strbuf line = STRBUF_INIT;
	int hits = 0;

	repro_signature_line(sig, &line);
	ck_assert_str_eq(
		line.buf,
		"workload-failed; events: alloc_failure; tasks blocked in mempool_alloc_noprof");
	for (int rep = 1; rep <= 6; rep++) {
		struct cell_result *c = deadlock_cell(rep);
		struct strbuf why = STRBUF_INIT;
		bool hit = repro_signature_match(sig, c, &why);

		ck_assert_msg(hit == (rep == 3 || rep == 5), "rep %d: %s", rep,
			      why.buf);
		if (!hit)
			ck_assert_str_eq(why.buf,
					 "outcome ok, not workload-failed");
		hits += hit;
		strbuf_release(&why);
		cell_result_put(c);
	}
	ck_assert_int_eq(hits, 2);
	strbuf_release(&line);
	json_object_put(sig);
	cell_result_put(c3);
}
END_TEST

/*
 * The live deadlock with the watcher (tests/data/stall): a hung cell whose
 * stall event names the wait sites. The signature line names the stall
 * once (its title already says "stall in"), the cell matches its own
 * signature, and the deadlocked cell of the run before the watcher, whose
 * outcome differs, does not.
 */
/*
 * A debian-6.1 stall (the first stuck cell of the bitmap matrix, run
 * 20261205-122512-3250) and the stuck cell of its bundle's rerun (run
 * 20261205-141410-2dce, cell 3): the same stall in mempool_alloc, but the
 * task left blocked at the end differs. The stall is the signature; the
 * end's blocked tasks are not part of it when a stall names the sites.
 */
START_TEST(signature_of_a_stall_rerun)
{
	struct cell_result *cell =
		cell_at(testdata_path("stall/swap-direct-6.1-stall.cell.json"));
	struct cell_result *rerun = cell_at(
		testdata_path("stall/swap-direct-6.1-stall-rerun.cell.json"));
	struct strbuf line = STRBUF_INIT, why = STRBUF_INIT;
	json_object *sig;

	sig = repro_signature(cell);
	repro_signature_line(sig, &line);
	ck_assert_str_eq(line.buf,
			 "hung; events: stall; stall in mempool_alloc");
	ck_assert_msg(repro_signature_match(sig, rerun, &why), "%s", why.buf);
	strbuf_release(&why);
	strbuf_release(&line);
	json_object_put(sig);
	cell_result_put(rerun);
	cell_result_put(cell);
}
END_TEST

START_TEST(signature_of_a_stall)
{
	struct cell_result *hung =
		cell_at(testdata_path("stall/swap-direct-6.12-hung.cell.json"));
	struct cell_result *c3 = deadlock_cell(3);
	struct strbuf line = STRBUF_INIT, why = STRBUF_INIT;
	json_object *sig;

	sig = repro_signature(hung);
	repro_signature_line(sig, &line);
	ck_assert_str_eq(
		line.buf,
		"hung; events: alloc_failure, hung_task, stall; stall in "
		"__wait_for_common, rq_qos_wait, throttle_direct_reclaim");
	ck_assert(repro_signature_match(sig, hung, &why));
	ck_assert(!repro_signature_match(sig, c3, &why));
	ck_assert_str_eq(why.buf, "outcome workload-failed, not hung");
	strbuf_release(&why);
	strbuf_release(&line);
	json_object_put(sig);
	cell_result_put(c3);
	cell_result_put(hung);
}
END_TEST

/* ---- the bundle's scripts run on a hostile cell.json (issue 47) ---- */

/*
 * A kernel command line that runs commands if any script pastes it
 * unquoted: it starts with '-' (word() once wrote such words bare), holds
 * a command substitution, backquotes, quotes, a backslash and a newline.
 */
static const char hostile_cmdline[] =
	"-x $(touch M) `id>F` 'q' \"d\" \\ ;\ntouch N #";

static void put_file(const char *path, const char *s, int mode)
{
	ck_assert_int_eq(write_file_atomic(path, s, strlen(s), mode), 0);
}

/*
 * TMP/run: the captured deadlock run (tests/data/report/deadlock), its
 * cell 3 with the hostile command line and the smoke cell's real plan as
 * both guests' plans. Returns the bundle made of it, TMP/bundle.
 */
static char *hostile_bundle(const char *tmp)
{
	static const char cell[] = "debian-6.12_swap-raid1-iscsi_swap-direct_3";
	char *dir = xasprintf("%s/run/cells/%s", tmp, cell);
	char *run = xasprintf("%s/run/run.json", tmp);
	char *out = xasprintf("%s/bundle", tmp);
	char *path = xasprintf("%s/cell.json", dir);
	char *src = testdata_path("report/deadlock/cells/%s/cell.json", cell);
	json_object *o = json_object_from_file(src);
	struct strbuf sb = STRBUF_INIT, err = STRBUF_INIT;

	ck_assert_ptr_nonnull(o);
	free(src);
	ck_assert_int_eq(mkdir_p(dir, 0755), 0);
	testdata_read(&sb, "report/deadlock/run.json");
	put_file(run, sb.buf, 0644);
	json_object_object_add(json_path(o, "kernel"), "cmdline",
			       json_object_new_string(hostile_cmdline));
	/* A cell run with noise levers: the bundle reruns it so. */
	json_object_object_add(o, "levers", json_object_new_object());
	json_object_object_add(json_path(o, "levers"), "pin",
			       json_object_new_string("on"));
	ck_assert_int_eq(json_write_atomic(path, o), 0);
	testdata_read(&sb, "cell-smoke/plan.txt");
	free(path);
	path = xasprintf("%s/plan.txt", dir);
	put_file(path, sb.buf, 0644);
	free(path);
	path = xasprintf("%s/plan-target.txt", dir);
	put_file(path, sb.buf, 0644);
	ck_assert_msg(repro_bundle(dir, out, &err) == 0, "%s", err.buf);
	json_object_put(o);
	strbuf_release(&sb);
	strbuf_release(&err);
	free(path);
	free(run);
	free(dir);
	return out;
}

/*
 * TMP/bin: qemu-system-x86_64 writes its argv, each word with a NUL after
 * it, to TMP/bin/argv and exits; qemu-img does nothing. Earlier on PATH
 * than any real QEMU, so no guest ever starts.
 */
static void stub_qemu(const char *tmp)
{
	char *bin = xasprintf("%s/bin", tmp);
	char *qemu = xasprintf("%s/qemu-system-x86_64", bin);
	char *img = xasprintf("%s/qemu-img", bin);

	ck_assert_int_eq(mkdir_p(bin, 0755), 0);
	put_file(
		qemu,
		"#!/bin/sh\nfor a do printf '%s\\0' \"$a\"; done >\"${0%/*}/argv\"\n",
		0755);
	put_file(img, "#!/bin/sh\nexit 0\n", 0755);
	free(img);
	free(qemu);
	free(bin);
}

/* Run SCRIPT in the bundle with sh and the stubs; its exit status. */
static int run_script(const char *tmp, const char *bundle, const char *script)
{
	char *path = xasprintf("PATH=%s/bin:/usr/bin:/bin", tmp);
	const char *env[] = { path, "INITRD=initrd.img", "ROOT_IMAGE=root.img",
			      NULL };
	const char *argv[] = { "/bin/sh", script, NULL };
	struct strbuf out = STRBUF_INIT;
	struct run_opts o = { .dir = bundle,
			      .env = env,
			      .out = &out,
			      .err = &out,
			      .timeout = 30 };
	int rc = run_argv(argv, &o);

	ck_assert_msg(rc != 124, "%s timed out: %s", script, out.buf);
	strbuf_release(&out);
	free(path);
	return rc;
}

/* The stub's argv: -append's value came through as one intact word. */
static void assert_append_intact(const char *tmp, const char *script)
{
	char *path = xasprintf("%s/bin/argv", tmp);
	struct strbuf sb = STRBUF_INIT;
	const char *p, *end;
	bool seen = false;

	ck_assert_msg(read_file_capped(&sb, path, 1 << 20) == 0,
		      "%s: QEMU did not run", script);
	end = sb.buf + sb.len;
	for (p = sb.buf; p < end; p += strlen(p) + 1) {
		if (strcmp(p, "-append"))
			continue;
		p += strlen(p) + 1;
		ck_assert_msg(p < end, "%s: -append without a value", script);
		ck_assert_str_eq(p, hostile_cmdline);
		seen = true;
	}
	ck_assert_msg(seen, "%s: no -append", script);
	ck_assert_int_eq(unlink(path), 0);
	strbuf_release(&sb);
	free(path);
}

/* Nothing the command line names was created, here or in the bundle. */
static void assert_nothing_ran(const char *tmp, const char *bundle)
{
	static const char *const marks[] = { "M", "F", "N" };

	for (size_t i = 0; i < ARRAY_SIZE(marks); i++) {
		char *a = xasprintf("%s/%s", bundle, marks[i]);
		char *b = xasprintf("%s/%s", tmp, marks[i]);

		ck_assert_msg(!path_exists(a) && !path_exists(b),
			      "the cell's command line ran: %s exists",
			      marks[i]);
		free(a);
		free(b);
	}
}

START_TEST(bundle_scripts_quote_hostile_cell)
{
	char tmp[] = "/tmp/wblab-test-repro.XXXXXX";
	char *bundle;

	ck_assert_ptr_nonnull(mkdtemp(tmp));
	bundle = hostile_bundle(tmp);
	stub_qemu(tmp);
	ck_assert_int_eq(run_script(tmp, bundle, "./qemu.sh"), 0);
	assert_nothing_ran(tmp, bundle);
	assert_append_intact(tmp, "qemu.sh");
	ck_assert_int_eq(run_script(tmp, bundle, "./qemu-target.sh"), 0);
	assert_nothing_ran(tmp, bundle);
	assert_append_intact(tmp, "qemu-target.sh");
	/* It boots the target first; the stub stops at once: exit 2. */
	ck_assert_int_eq(run_script(tmp, bundle, "./run-by-hand.sh"), 2);
	assert_nothing_ran(tmp, bundle);
	assert_append_intact(tmp, "run-by-hand.sh");
	rm_rf(tmp);
	free(bundle);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("repro");
	TCase *tc = tcase_create("repro");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, quote_round_trip);
	tcase_add_test(tc, plan_as_shell);
	tcase_add_test(tc, plan_as_shell_agent_verbs);
	tcase_add_test(tc, plan_bad_lines);
	tcase_add_test(tc, signature_of_the_deadlock);
	tcase_add_test(tc, signature_of_a_stall);
	tcase_add_test(tc, signature_of_a_stall_rerun);
	tcase_add_test(tc, bundle_scripts_quote_hostile_cell);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
