// SPDX-License-Identifier: GPL-2.0
/*
 * Matrix specs and their expansion: the shipped matrices load and expand
 * to the cells the issue names; bad input names file:line: field; the
 * order interleaves A and B and a seed reproduces it.
 */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <unistd.h>

#include "artifact/cache.h"
#include "cell/cell.h"
#include "matrix/engine.h"
#include "matrix/matrix.h"
#include "matrix/progress.h"
#include "spec/hosts.h"
#include "results/metric.h"
#include "results/reader.h"
#include "spec/matrix.h"
#include "util/fs.h"
#include "util/json.h"
#include "util/log.h"
#include "virt/virt.h"

#include "testdata.h"

static char tmpdir[] = "/tmp/wblab-test-matrix-XXXXXX";

static char *load_errors(const char *text, struct matrix_spec *m)
{
	char *path = xasprintf("%s/m.yaml", tmpdir);
	struct strbuf err = STRBUF_INIT;

	ck_assert_int_eq(write_string_atomic(path, text), 0);
	matrix_spec_load(path, "m", m, &err);
	free(path);
	return strbuf_detach(&err, NULL);
}

#define ASSERT_ERR(text, expect)                                              \
	do {                                                                  \
		struct matrix_spec _m;                                        \
		char *_e = load_errors(text, &_m);                            \
		ck_assert_msg(strstr(_e, expect), "want '%s' in: %s", expect, \
			      _e);                                            \
		matrix_spec_free(&_m);                                        \
		free(_e);                                                     \
	} while (0)

START_TEST(shipped_seed_matrix)
{
	char *path = xasprintf("%s/lab/matrices/seed.yaml", wblab_home());
	struct strbuf err = STRBUF_INIT;
	struct matrix_spec m;
	struct matrix_plan p;

	ck_assert_msg(matrix_spec_load(path, "seed", &m, &err) == 0, "%s",
		      err.buf);
	ck_assert_int_eq(m.kernels.n, 2);
	ck_assert_str_eq(m.kernels.v[0], "6.1");
	ck_assert_str_eq(m.kernels.v[1], "6.1-direct-writeback");
	ck_assert_int_eq(m.topologies.n, 5);
	ck_assert(spec_strlist_has(&m.topologies, "overlay-raid-iscsi-ext4"));
	ck_assert(spec_strlist_has(&m.topologies, "raid5-xfs"));
	ck_assert(spec_strlist_has(&m.workloads, "dirty-flood"));
	ck_assert_int_eq(m.reps, 5);
	ck_assert_int_eq(m.nr_sizes, 1);
	ck_assert_str_eq(m.image, "debian-12");
	ck_assert_ptr_nonnull(matrix_spec_threshold(&m, "reclaim-wr-direct"));
	ck_assert_str_eq(matrix_spec_threshold(&m, "reclaim-wr-direct")->bad,
			 "up");
	ck_assert_ptr_eq(matrix_spec_threshold(&m, "reclaim-wr-direct")->row,
			 metric_by_name("reclaim-wr-direct"));
	matrix_expand(&m, 42, 1, (int)m.reps, &p);
	ck_assert_int_eq(p.n, 100);
	/* Every specified name exists as a spec. */
	for (size_t i = 0; i < m.topologies.n; i++) {
		char *t = xasprintf("%s/topologies/%s.yaml", wblab_home(),
				    m.topologies.v[i]);

		ck_assert_msg(path_exists(t), "%s", t);
		free(t);
	}
	for (size_t i = 0; i < m.workloads.n; i++) {
		char *t = xasprintf("%s/workloads/%s.yaml", wblab_home(),
				    m.workloads.v[i]);

		ck_assert_msg(path_exists(t), "%s", t);
		free(t);
	}
	matrix_plan_free(&p);
	matrix_spec_free(&m);
	strbuf_release(&err);
	free(path);
}
END_TEST

START_TEST(shipped_smoke_matrix)
{
	struct matrix_spec m;
	struct matrix_plan p;
	char *path = xasprintf("%s/lab/matrices/smoke.yaml", wblab_home());

	ck_assert_int_eq(matrix_spec_load(path, "smoke", &m, NULL), 0);
	matrix_expand(&m, 7, 1, (int)m.reps, &p);
	ck_assert_int_eq(p.n, 6);
	for (size_t i = 0; i < p.n; i++) {
		ck_assert_str_eq(p.cells[i].kernel, "debian-6.1");
		ck_assert_str_eq(p.cells[i].topology, "xfs-disk");
		ck_assert_str_eq(p.cells[i].workload, "smoke");
	}
	matrix_plan_free(&p);
	matrix_spec_free(&m);
	free(path);
}
END_TEST

static const char ab[] = "description: t\n"
			 "kernels: [a, b]\n"
			 "topologies: [t1, t2]\n"
			 "workloads: [w]\n"
			 "reps: 10\n";

/* Every block is one a and one b, adjacent: drift hits both alike. */
START_TEST(order_interleaves_and_reproduces)
{
	struct matrix_spec m;
	struct matrix_plan p, q, r;
	char *e = load_errors(ab, &m);
	int a_first = 0, same = 1;

	ck_assert_str_eq(e, "");
	free(e);
	matrix_expand(&m, 12345, 1, 10, &p);
	matrix_expand(&m, 12345, 1, 10, &q);
	matrix_expand(&m, 54321, 1, 10, &r);
	ck_assert_int_eq(p.n, 40);
	ck_assert_uint_eq(p.seed, 12345);
	for (size_t i = 0; i < p.n; i += 2) {
		const struct matrix_cell *x = &p.cells[i], *y = &p.cells[i + 1];

		ck_assert_int_eq(x->block, y->block);
		ck_assert_str_ne(x->kernel, y->kernel);
		ck_assert_str_eq(x->topology, y->topology);
		ck_assert_int_eq(x->rep, y->rep);
		a_first += !strcmp(x->kernel, "a");
	}
	/* Kernel order inside blocks is shuffled, not always a first. */
	ck_assert_int_gt(a_first, 0);
	ck_assert_int_lt(a_first, 20);
	for (size_t i = 0; i < p.n; i++) {
		ck_assert_str_eq(p.cells[i].id, q.cells[i].id);
		same &= !strcmp(p.cells[i].id, r.cells[i].id);
	}
	ck_assert_msg(!same, "another seed gives another order");
	/* Not in spec order either: rep 1 does not simply come first. */
	ck_assert(!(p.cells[0].rep == 1 && p.cells[2].rep == 1 &&
		    p.cells[4].rep == 2 && p.cells[6].rep == 2));
	/* Each cell exactly once. */
	for (size_t i = 0; i < p.n; i++)
		for (size_t j = i + 1; j < p.n; j++)
			ck_assert_str_ne(p.cells[i].id, p.cells[j].id);
	matrix_plan_free(&p);
	matrix_plan_free(&q);
	matrix_plan_free(&r);
	matrix_spec_free(&m);
}
END_TEST

START_TEST(sizes_and_added_reps)
{
	struct matrix_spec m;
	struct matrix_plan p;
	char *e = load_errors("description: t\nkernels: [a]\ntopologies: [t]\n"
			      "workloads: [w]\nguests:\n  - memory: 512\n"
			      "    vcpus: 1\n  - memory: 1024\n",
			      &m);

	ck_assert_str_eq(e, "");
	free(e);
	ck_assert_int_eq(m.nr_sizes, 2);
	ck_assert_int_eq(m.reps, 1);
	matrix_expand(&m, 1, 4, 6, &p);
	ck_assert_int_eq(p.n, 6);
	for (size_t i = 0; i < p.n; i++) {
		ck_assert(p.cells[i].rep >= 4 && p.cells[i].rep <= 6);
		ck_assert_msg(strstr(p.cells[i].id, "_512M-1cpu_") ||
				      strstr(p.cells[i].id, "_1024M-2cpu_"),
			      "%s", p.cells[i].id);
		ck_assert_int_eq(p.cells[i].vcpus,
				 p.cells[i].memory == 512 ? 1 : 2);
	}
	matrix_plan_free(&p);
	matrix_spec_free(&m);
}
END_TEST

START_TEST(bad_matrices)
{
	ASSERT_ERR("kernels: [a]\ntopologies: [t]\nworkloads: [w]\n",
		   "m.yaml:1: description: required field is missing");
	ASSERT_ERR("description: t\nkernels: [a]\ntopologies: [t]\n",
		   "workloads: required field is missing");
	ASSERT_ERR(
		"description: t\nkernels: [a, a]\ntopologies: [t]\nworkloads: [w]\n",
		"m.yaml:2: kernels: 'a' is listed twice");
	ASSERT_ERR(
		"description: t\nkernels: [../x]\ntopologies: [t]\nworkloads: [w]\n",
		"m.yaml:2: kernels: '../x' is not a name");
	ASSERT_ERR(
		"description: t\nkernels: [a]\ntopologies: [t]\nworkloads: [w]\nreps: 0\n",
		"m.yaml:5: reps: 0 is out of range [1, 1000]");
	ASSERT_ERR(
		"description: t\nkernels: [a]\ntopologies: [t]\nworkloads: [w]\nrepz: 3\n",
		"m.yaml:5: repz: unknown field");
	ASSERT_ERR(
		"description: t\nkernels: [a]\ntopologies: [t]\nworkloads: [w]\n"
		"guests:\n  - memory: 64\n",
		"m.yaml:6: guests[0].memory: 64 is out of range");
	ASSERT_ERR(
		"description: t\nkernels: [a]\ntopologies: [t]\nworkloads: [w]\n"
		"guests:\n  - cpus: 2\n",
		"m.yaml:6: guests[0].cpus: unknown field");
	ASSERT_ERR(
		"description: t\nkernels: [a]\ntopologies: [t]\nworkloads: [w]\n"
		"thresholds:\n  oom-kills:\n    change: lots\n",
		"m.yaml:7: thresholds.oom-kills.change: 'lots' is not a percentage");
	ASSERT_ERR(
		"description: t\nkernels: [a]\ntopologies: [t]\nworkloads: [w]\n"
		"thresholds:\n  oom-kills:\n    change: 5%\n    bad: sideways\n",
		"m.yaml:8: thresholds.oom-kills.bad: 'sideways' is not one of: up, down, any");
	/* Metric names are the registry's, checked when the spec is read. */
	ASSERT_ERR(
		"description: t\nkernels: [a]\ntopologies: [t]\nworkloads: [w]\n"
		"thresholds:\n  reclaim-wr-direct:\n    change: 5%\n"
		"  vmscan_write_file_direct:\n    change: 5%\n",
		"m.yaml:8: thresholds.vmscan_write_file_direct: unknown metric "
		"'vmscan_write_file_direct'; did you mean reclaim-wr-direct?");
	ASSERT_ERR(
		"description: t\nkernels: [a]\ntopologies: [t]\nworkloads: [w]\n"
		"thresholds:\n  Minor faults:\n    change: 5%\n"
		"  minor-faults:\n    change: 5%\n",
		"m.yaml:8: thresholds.minor-faults: Minor faults has a threshold "
		"already");
	ASSERT_ERR(
		"description: t\nkernels: [a, b]\ntopologies: [t]\nworkloads: [w, x, y]\n"
		"reps: 1000\nguests:\n  - memory: 512\n  - memory: 768\n",
		"reps: 12000 cells is more than 10000");
}
END_TEST

/* exclude: leaves out the cells every list of an entry matches. */
START_TEST(exclude_leaves_out_cells)
{
	struct matrix_spec m, c;
	struct matrix_plan p;
	char *e = load_errors(
		"description: t\nexclude:\n  - kernels: [b]\n    workloads: [x]\n"
		"  - topologies: [u]\n    workloads: [w]\n    kernels: [a]\n"
		"kernels: [a, b]\ntopologies: [t, u]\nworkloads: [w, x]\n"
		"reps: 3\n",
		&m);

	ck_assert_msg(!*e, "%s", e);
	ck_assert_uint_eq(m.nr_excludes, 2);
	/* The run's own copy (matrix_run) keeps them: it ran all 24 cells
	 * of a 12-cell matrix when it did not. */
	engine_copy_spec(&c, &m);
	ck_assert_uint_eq(c.nr_excludes, 2);
	matrix_expand(&c, 7, 1, (int)c.reps, &p);
	ck_assert_uint_eq(p.n, 5 * 3);
	matrix_plan_free(&p);
	matrix_spec_free(&c);
	matrix_expand(&m, 7, 1, (int)m.reps, &p);
	/* 2 x 2 x 2 = 8 a rep; b/x on t and u, a/u/w: 3 left out. */
	ck_assert_uint_eq(p.n, 5 * 3);
	for (size_t i = 0; i < p.n; i++) {
		ck_assert(strcmp(p.cells[i].kernel, "b") ||
			  strcmp(p.cells[i].workload, "x"));
		ck_assert(strcmp(p.cells[i].kernel, "a") ||
			  strcmp(p.cells[i].topology, "u") ||
			  strcmp(p.cells[i].workload, "w"));
	}
	matrix_plan_free(&p);
	matrix_spec_free(&m);
	free(e);
	ASSERT_ERR("description: t\nkernels: [a]\ntopologies: [t]\n"
		   "workloads: [w]\nexclude:\n  - kernels: [c]\n",
		   "m.yaml:6: exclude[0]: kernels: 'c' is not in the "
		   "matrix's kernels");
	ASSERT_ERR("description: t\nkernels: [a]\ntopologies: [t]\n"
		   "workloads: [w]\nexclude:\n  - {}\n",
		   "m.yaml:6: exclude[0]: names no kernels, topologies or "
		   "workloads");
	ASSERT_ERR("description: t\nkernels: [a]\ntopologies: [t]\n"
		   "workloads: [w]\nexclude:\n  - kernel: [a]\n",
		   "m.yaml:6: exclude[0].kernel: unknown field");
}
END_TEST

/* The cell: 123 bytes of socket path before; must fit 108 now. */
START_TEST(long_cell_names_fit)
{
	const char *run = "20261203-143237-19a6";
	const char *id =
		"6.1-direct-writeback_overlay-raid-iscsi-ext4_mixed-reclaim-memcg_5";
	const char *other =
		"6.1-direct-writeback_overlay-raid-iscsi-ext4_mixed-reclaim-memcg_4";
	char *n, *n2, *sock, *shrt;

	setenv("WBLAB_RUNDIR", "/var/lib/wblab/run", 1);
	n = cell_domain_name(run, id);
	n2 = cell_domain_name(run, other);
	sock = xasprintf("%s/%s-target/agent.sock", run_root(), n);
	ck_assert_msg(strlen(sock) < 108, "%zu: %s", strlen(sock), sock);
	/* Still this run's, still readable, and distinct per cell. */
	ck_assert(!strncmp(n, "wblab-20261203-143237-19a6-6.1-direct", 37));
	ck_assert_str_ne(n, n2);
	/* A short id keeps its plain name. */
	shrt = cell_domain_name(run, "debian-6.1_none_noop_1");
	ck_assert_str_eq(shrt,
			 "wblab-20261203-143237-19a6-debian-6.1_none_noop_1");
	free(sock);
	free(n);
	free(n2);
	free(shrt);
	/* A deep run dir still gets a name that fits. */
	setenv("WBLAB_RUNDIR",
	       "/tmp/a/very/deep/run/directory/somewhere/below/the/tests/scratch/area",
	       1);
	n = cell_domain_name(run, id);
	sock = xasprintf("%s/%s-target/agent.sock", run_root(), n);
	ck_assert_msg(strlen(sock) < 108, "%zu: %s", strlen(sock), sock);
	free(sock);
	free(n);
	unsetenv("WBLAB_RUNDIR");
}
END_TEST

START_TEST(hosts_file)
{
	char *path = xasprintf("%s/h.yaml", tmpdir);
	struct strbuf err = STRBUF_INIT;
	struct hosts_spec h;

	write_string_atomic(path,
			    "hosts:\n"
			    "  - name: local\n"
			    "    uri: qemu:///system\n"
			    "    cpus: 2\n"
			    "    memory: 8G\n"
			    "  - name: second\n"
			    "    uri: qemu+tcp://127.0.0.1:16599/session\n"
			    "    pool: /var/lib/wblab/pool-second\n");
	ck_assert_msg(hosts_spec_load(path, &h, &err) == 0, "%s", err.buf);
	ck_assert_int_eq(h.n, 2);
	ck_assert_int_eq(h.hosts[0].cpus, 2);
	ck_assert_int_eq(h.hosts[0].memory, 8 << 10);
	ck_assert_str_eq(h.hosts[1].pool_path, "/var/lib/wblab/pool-second");
	/* A URI with a hostname is remote: streams and volumes only. */
	ck_assert(!h.hosts[0].remote);
	ck_assert(h.hosts[1].remote);
	hosts_spec_free(&h);
	ck_assert(hosts_uri_remote("qemu+ssh://box2/system"));
	ck_assert(!hosts_uri_remote("qemu:///system"));
	ck_assert(!hosts_uri_remote("qemu+unix:///system?socket=/x"));
	/* Remote, by flag or by hostname, needs a pool. */
	write_string_atomic(path, "hosts:\n"
				  "  - name: a\n"
				  "    uri: qemu:///system\n"
				  "    remote: true\n"
				  "  - name: b\n"
				  "    uri: qemu+tls://b.example/system\n");
	ck_assert_int_ne(hosts_spec_load(path, &h, &err), 0);
	ck_assert_msg(strstr(err.buf, "h.yaml:2: hosts[0]: a remote host"),
		      "%s", err.buf);
	ck_assert_msg(strstr(err.buf, "h.yaml:5: hosts[1]: a remote host"),
		      "%s", err.buf);
	hosts_spec_free(&h);
	strbuf_reset(&err);
	write_string_atomic(path, "hosts:\n"
				  "  - name: a\n"
				  "    uri: qemu:///system\n"
				  "  - name: a\n"
				  "    uri: qemu:///session\n"
				  "    pool: relative\n");
	ck_assert_int_ne(hosts_spec_load(path, &h, &err), 0);
	ck_assert_msg(strstr(err.buf,
			     "h.yaml:4: hosts[1]: host 'a' is listed twice"),
		      "%s", err.buf);
	ck_assert_msg(strstr(err.buf, "pool and run_dir must be absolute"),
		      "%s", err.buf);
	hosts_spec_free(&h);
	strbuf_release(&err);
	free(path);
}
END_TEST

/*
 * Host URIs (issue 47): the transports wblab supports, and no query
 * parameter that makes libvirt run a program (ext's and ssh's command=
 * ran X as root), from a hosts file (file:line), --uri or $WBLAB_URI (the
 * name given), or anything else that reaches virt_connect().
 */
START_TEST(uri_runs_no_program)
{
	static const char *const good[] = {
		"qemu:///system",
		"qemu:///session",
		"qemu+ssh://wblab@box2/system?keyfile=/home/wblab/.ssh/id_ed25519",
		"qemu+tls://box3.lab.example/system",
		"qemu+tcp://127.0.0.1:16599/session",
		"qemu+libssh2://u@h/system?known_hosts=/root/kh&sshauth=privkey",
		"qemu+unix:///system?socket=/nonexistent",
		"test:///default",
	};
	static const char *const bad[][2] = {
		{ "qemu+ext:///system?command=/tmp/x", "not a transport" },
		{ "qemu+ssh://localhost/system?command=/tmp/x", "'command'" },
		{ "qemu+ssh://h/system?keyfile=/k;command=/tmp/x",
		  "'command'" },
		{ "qemu+ssh://h/system?keyfile=/k&netcat=/tmp/x", "'netcat'" },
		{ "qemu+ssh://h/system?socket=/x", "'socket'" },
		{ "qemu+ssh://h/system?comm%61nd=/tmp/x", "'comm%61nd'" },
		{ "qemu+tls://h/system?name=qemu+ext:///", "'name'" },
		{ "qemu+ssh://h/system?keyfile=$(x)", "not a libvirt URI" },
		{ "qemu:///system\n", "not a libvirt URI" },
		{ "qemu:///system#x", "not a libvirt URI" },
		{ "qemu+ssh://-oProxyCommand=x/system", "not a host name" },
		{ "qemu+ssh://u@-ox/system", "not a host name" },
		{ "qemu://h/system", "takes no host" },
		{ "qemu+ssh:///system", "needs a host" },
		{ "qemu:///other", "not /system or /session" },
		{ "lxc:///system", "not a transport" },
		{ "hail", "not a transport" },
		{ "", "not a libvirt URI" },
	};
	struct strbuf why = STRBUF_INIT;

	for (size_t i = 0; i < ARRAY_SIZE(good); i++)
		ck_assert_msg(!hosts_uri_check(good[i], &why), "%s: %s",
			      good[i], why.buf);
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		strbuf_reset(&why);
		ck_assert_msg(hosts_uri_check(bad[i][0], &why) == -1,
			      "%s accepted", bad[i][0]);
		ck_assert_msg(strstr(why.buf, bad[i][1]), "%s: %s", bad[i][0],
			      why.buf);
	}
	strbuf_release(&why);
}
END_TEST

/* A hosts file's URI is refused at its line; so are --uri and $WBLAB_URI. */
START_TEST(uri_refused_where_given)
{
	char *path = xasprintf("%s/h.yaml", tmpdir);
	struct strbuf err = STRBUF_INIT;
	struct matrix_run r = { .run_dir = NULL };
	struct engine e = { .r = &r };
	struct hosts_spec h;

	write_string_atomic(path,
			    "hosts:\n"
			    "  - name: a\n"
			    "    uri: qemu:///system\n"
			    "  - name: b\n"
			    "    uri: qemu+ssh://b/system?command=/tmp/x\n"
			    "    pool: /p\n");
	ck_assert_int_ne(hosts_spec_load(path, &h, &err), 0);
	ck_assert_msg(strstr(err.buf, "h.yaml:5: hosts[1]: uri: parameter "
				      "'command' is refused"),
		      "%s", err.buf);
	hosts_spec_free(&h);
	e.o.uri = "qemu+ext:///system?command=/tmp/x";
	stderr_begin();
	ck_assert_int_eq(load_hosts(&e), -1);
	stderr_end(&err);
	ck_assert_msg(strstr(err.buf,
			     "--uri qemu+ext:///system?command=/tmp/x:"),
		      "%s", err.buf);
	ck_assert_int_eq(setenv("WBLAB_URI", "qemu+ssh://h/system?netcat=x", 1),
			 0);
	e.o.uri = virt_default_uri();
	stderr_begin();
	ck_assert_int_eq(load_hosts(&e), -1);
	stderr_end(&err);
	unsetenv("WBLAB_URI");
	ck_assert_msg(strstr(err.buf,
			     "$WBLAB_URI qemu+ssh://h/system?netcat=x: "
			     "parameter 'netcat' is refused"),
		      "%s", err.buf);
	hosts_spec_free(&e.hs);
	strbuf_release(&err);
	free(path);
}
END_TEST

/*
 * What libvirt would run: ext's command= is a script that makes a marker.
 * virt_connect() refuses the URI before libvirt sees it.
 */
START_TEST(uri_command_never_runs)
{
	char *mark = xasprintf("%s/ran", tmpdir);
	char *cmd = xasprintf("%s/cmd.sh", tmpdir);
	char *script = xasprintf("#!/bin/sh\ntouch %s\n", mark);
	char *uri = xasprintf("qemu+ext:///system?command=%s", cmd);
	struct strbuf err = STRBUF_INIT;

	ck_assert_int_eq(write_file_atomic(cmd, script, strlen(script), 0755),
			 0);
	ck_assert_ptr_null(virt_connect(uri, &err));
	ck_assert_msg(!path_exists(mark), "libvirt ran %s", cmd);
	ck_assert_msg(strstr(err.buf, "refused"), "%s", err.buf);
	ck_assert_int_eq(virt_destroy_by_name(uri, "wblab-none"), -1);
	ck_assert_msg(!path_exists(mark), "libvirt ran %s", cmd);
	strbuf_release(&err);
	free(uri);
	free(script);
	free(cmd);
	free(mark);
}
END_TEST

/*
 * Run ids (#47): TIME-PID collided for runs started in one second (in
 * containers, pids repeat): three runs wrote into one directory. The id's
 * last part is random, and a run directory is made by mkdir(2), never
 * one that exists: 100 runs started at once get 100 directories.
 */
START_TEST(run_ids_unique)
{
	char *results = xasprintf("%s/ids", tmpdir), *dirs[100], id[64];
	struct strvec ids = STRVEC_INIT;
	bool differ = false;

	for (int i = 0; i < 100; i++) {
		ck_assert_int_eq(engine_new_run_dir(results, id, sizeof(id),
						    &dirs[i]),
				 0);
		ck_assert_int_eq(access(dirs[i], F_OK), 0);
		for (int j = 0; j < i; j++)
			ck_assert_str_ne(dirs[i], dirs[j]);
		strvec_push(&ids, id);
	}
	/* the ids themselves differ within a second and a process */
	for (size_t i = 1; i < ids.nr; i++)
		differ |= strcmp(ids.v[i], ids.v[0]) != 0;
	ck_assert(differ);
	for (int i = 0; i < 100; i++)
		free(dirs[i]);
	strvec_clear(&ids);
	rm_rf(results);
	free(results);
}
END_TEST

/*
 * A corrupt wblab.db in the results directory (#47): before, run printed
 * the error, went on, exited 0 and left the run out of the index. Now
 * the run stops before any artifact is made or host used, exit 1, the
 * file named. (Not run against the old engine: it would build them.)
 */
START_TEST(corrupt_db_stops_the_run)
{
	char *results = xasprintf("%s/corrupt", tmpdir);
	char *db = xasprintf("%s/wblab.db", results);
	struct matrix_opts o = MATRIX_OPTS_INIT;
	struct matrix_run r = { .run_dir = NULL };
	struct strbuf junk = STRBUF_INIT, err = STRBUF_INIT;
	struct matrix_spec m;

	ck_assert_int_eq(mkdir_p(results, 0755), 0);
	while (junk.len < 8192)
		strbuf_addstr(&junk, "not a database, whatever it says. ");
	ck_assert_int_eq(write_file_atomic(db, junk.buf, junk.len, 0644), 0);
	matrix_spec_one(&m, "run", "none", "noop", 1, "debian-12", 0, 2);
	spec_strlist_add(&m.kernels, "debian-6.1");
	o.results = results;
	o.uri = "test:///default";
	o.command = "run";
	stderr_begin();
	ck_assert_int_eq(matrix_run(&m, &o, &r), 1);
	stderr_end(&err);
	ck_assert_msg(strstr(err.buf, "/wblab.db: file is not a database") &&
			      strstr(err.buf, "nothing started"),
		      "%s", err.buf);
	ck_assert_msg(!strstr(err.buf, "kernel") && !strstr(err.buf, "image"),
		      "%s", err.buf);
	matrix_run_free(&r);
	matrix_spec_free(&m);
	rm_rf(results);
	strbuf_release(&junk);
	strbuf_release(&err);
	free(db);
	free(results);
}
END_TEST

/*
 * Run the engine on a matrix as far as its spec checks: a corrupt
 * wblab.db stops it right after them (exit 1, nothing built), so exit 2
 * means the specs were refused. Returns the exit code, stderr in *err.
 */
static int run_to_spec_checks(struct matrix_spec *m, struct strbuf *err)
{
	char *results = xasprintf("%s/specs", tmpdir);
	char *db = xasprintf("%s/wblab.db", results);
	struct matrix_opts o = MATRIX_OPTS_INIT;
	struct matrix_run r = { .run_dir = NULL };
	int rc;

	ck_assert_int_eq(mkdir_p(results, 0755), 0);
	ck_assert_int_eq(write_string_atomic(db, "not a database, at all. "
						 "not a database, at all. "),
			 0);
	o.results = results;
	o.uri = "test:///default";
	o.command = "run";
	stderr_begin();
	rc = matrix_run(m, &o, &r);
	stderr_end(err);
	matrix_run_free(&r);
	rm_rf(results);
	free(db);
	free(results);
	return rc;
}

/*
 * A workload that needs a mount beside a topology without one is
 * refused only where a cell pairs them: exclude: applies first. Before,
 * reclaim-writes-7.2 (file workloads on the filesystems, swap ones on
 * swap-disk) was refused: "workload dirty-flood uses ${WBLAB_MOUNT} but
 * topology swap-disk has no mount".
 */
START_TEST(exclude_applies_before_mount_check)
{
	char *path = xasprintf("%s/lab/matrices/reclaim-writes-7.2.yaml",
			       wblab_home());
	struct strbuf err = STRBUF_INIT;
	struct matrix_spec m;

	ck_assert_int_eq(matrix_spec_load(path, "reclaim-writes-7.2", &m, NULL),
			 0);
	ck_assert(matrix_spec_pair_excluded(&m, "swap-disk", "dirty-flood"));
	ck_assert(!matrix_spec_pair_excluded(&m, "ext4-disk", "dirty-flood"));
	ck_assert(!matrix_spec_pair_excluded(&m, "swap-disk", "swap-memcg"));
	ck_assert_int_eq(run_to_spec_checks(&m, &err), 1);
	ck_assert_msg(!strstr(err.buf, "has no mount") &&
			      strstr(err.buf, "file is not a database"),
		      "%s", err.buf);
	matrix_spec_free(&m);

	/* The same pair with no exclude: is still refused, exit 2. */
	strbuf_reset(&err);
	matrix_spec_one(&m, "run", "swap-disk", "dirty-flood", 1, "debian-12",
			0, 2);
	spec_strlist_add(&m.kernels, "7.2");
	ck_assert_int_eq(run_to_spec_checks(&m, &err), 2);
	ck_assert_msg(strstr(err.buf, "workload dirty-flood uses "
				      "${WBLAB_MOUNT} but topology swap-disk "
				      "has no mount"),
		      "%s", err.buf);
	matrix_spec_free(&m);
	strbuf_release(&err);
	free(path);
}
END_TEST

/*
 * A run started on a full disk (a 1 MiB tmpfs) stops at once; it may
 * point to --resume only when its run.json was written (#20).
 */
START_TEST(full_disk_resume_hint)
{
	char mnt[] = "/tmp/wblab-test-full-XXXXXX";
	struct matrix_run r = { .run_dir = NULL };
	struct engine e = { .r = &r };
	struct strbuf err = STRBUF_INIT;
	char *rj;

	ck_assert_ptr_nonnull(mkdtemp(mnt));
	ck_assert_msg(!mount("tmpfs", mnt, "tmpfs", 0, "size=1m"),
		      "mount tmpfs: %s", strerror(errno));
	r.run_dir = mnt;
	rj = xasprintf("%s/run.json", mnt);
	stderr_begin();
	ck_assert(!results_disk_ok(&e));
	stderr_end(&err);
	ck_assert_msg(!strstr(err.buf, "--resume") &&
			      strstr(err.buf, "has no run.json"),
		      "%s", err.buf);
	ck_assert_int_eq(write_string_atomic(rj, "{}"), 0);
	r.stopped = false;
	stderr_begin();
	ck_assert(!results_disk_ok(&e));
	stderr_end(&err);
	ck_assert_msg(strstr(err.buf, "resume with: wblab matrix run --resume"),
		      "%s", err.buf);
	strbuf_release(&err);
	ck_assert_int_eq(umount(mnt), 0);
	rmdir(mnt);
	free(rj);
}
END_TEST

/* The engine takes RUN back and writes its spec and plan as recorded. */
static void round_trip(const char *run)
{
	static const char *const not_taken[] = { "keep", "max_retries",
						 "matrix_file" };
	char *path = xasprintf("%s/run.json", run);
	json_object *rec = json_object_from_file(path), *spec, *plan;
	struct matrix_run r = { .run_dir = NULL };
	struct engine e = { .r = &r };

	ck_assert_ptr_nonnull(rec);
	ck_assert_int_eq(engine_load_run(&e, run), 0);
	spec = engine_spec_json(&e);
	plan = engine_plan_json(&e);
	json_object_object_foreach(json_path(rec, "spec"), key, val)
	{
		bool skip = false;

		for (size_t i = 0; i < ARRAY_SIZE(not_taken); i++)
			skip |= !strcmp(key, not_taken[i]);
		if (!skip)
			ck_assert_msg(json_object_equal(val,
							json_path(spec, key)),
				      "%s: spec.%s: %s, read back %s", run, key,
				      json_object_to_json_string(val),
				      json_object_to_json_string(
					      json_path(spec, key)));
	}
	ck_assert_uint_eq(json_object_array_length(plan),
			  json_object_array_length(json_path(rec, "plan")));
	for (size_t i = 0; i < json_object_array_length(plan); i++) {
		json_object *c =
			json_object_array_get_idx(json_path(rec, "plan"), i);

		json_object *got = json_object_array_get_idx(plan, i);

		json_object_object_foreach(c, k2, v2)
			ck_assert_msg(json_object_equal(v2, json_path(got, k2)),
				      "%s: plan.%zu.%s", run, i, k2);
	}
	ck_assert_str_eq(r.run_id,
			 json_object_get_string(json_path(rec, "run")));
	json_object_put(spec);
	json_object_put(plan);
	json_object_put(rec);
	matrix_spec_free(&e.m);
	matrix_plan_free(&e.plan);
	results_close_run(e.record);
	free(e.record);
	free(e.results_owned);
	free(r.run_dir);
	free(path);
}

/*
 * --resume takes the run's spec and plan back from run.json through the
 * typed record (results/cell.h struct run_spec): captured runs (one with
 * exclude:), and one given thresholds and levers, read back as written.
 */
START_TEST(record_round_trip)
{
	char *src = testdata_path("report/lab-stall/run.json");
	char *dir = xasprintf("%s/rt", tmpdir), *path;
	json_object *rec = json_object_from_file(src), *th, *t, *lv;

	char *lab = testdata_path("report/lab-stall");
	char *ab = testdata_path("report/fsync/ab");

	round_trip(lab);
	round_trip(ab);
	ck_assert_ptr_nonnull(rec);
	th = json_object_new_object();
	t = json_object_new_object();
	json_object_object_add(t, "change_pct", json_object_new_double(30));
	json_object_object_add(t, "bad", json_object_new_string("any"));
	json_object_object_add(th, "reclaim-wr-direct", t);
	json_object_object_add(json_path(rec, "spec"), "thresholds", th);
	lv = json_object_new_array();
	json_object_array_add(lv, json_object_new_string("default"));
	json_object_array_add(lv, json_object_new_string("drop-caches"));
	json_object_object_add(json_path(rec, "spec"), "levers", lv);
	ck_assert_int_eq(mkdir_p(dir, 0755), 0);
	path = xasprintf("%s/run.json", dir);
	ck_assert_int_eq(json_object_to_file(path, rec), 0);
	round_trip(dir);
	json_object_put(rec);
	free(path);
	free(dir);
	free(src);
	free(lab);
	free(ab);
}
END_TEST

/*
 * The counts every progress line and the summary print: an infra-error is
 * the host's and counted apart; "not ok" is kernel outcomes only (it used
 * to count infra-errors too), and a retry counts nothing yet.
 */
START_TEST(progress_counts_infra_apart)
{
	struct progress p;

	progress_init(&p, MATRIX_PROGRESS_QUIET, 4, 0);
	progress_end(&p, "local", 0, "c1", "infra-error", "host", 1, true);
	progress_end(&p, "local", 0, "c1", "ok", "", 1, false);
	progress_end(&p, "local", 0, "c2", "infra-error", "host", 1, false);
	progress_end(&p, "local", 0, "c3", "hung", "stall", 1, false);
	progress_end(&p, "local", 0, "c4", "ok", "", 1, false);
	ck_assert_uint_eq(p.done, 4);
	ck_assert_uint_eq(p.infra, 1);
	ck_assert_uint_eq(p.results, 3);
	ck_assert_uint_eq(p.failed, 1);
	progress_free(&p);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("matrix");
	TCase *tc = tcase_create("spec and expansion");
	SRunner *sr;
	int failed;

	if (!mkdtemp(tmpdir))
		return 1;
	tcase_add_test(tc, shipped_seed_matrix);
	tcase_add_test(tc, progress_counts_infra_apart);
	tcase_add_test(tc, shipped_smoke_matrix);
	tcase_add_test(tc, order_interleaves_and_reproduces);
	tcase_add_test(tc, sizes_and_added_reps);
	tcase_add_test(tc, bad_matrices);
	tcase_add_test(tc, exclude_leaves_out_cells);
	tcase_add_test(tc, long_cell_names_fit);
	tcase_add_test(tc, hosts_file);
	tcase_add_test(tc, uri_runs_no_program);
	tcase_add_test(tc, uri_refused_where_given);
	tcase_add_test(tc, uri_command_never_runs);
	tcase_add_test(tc, run_ids_unique);
	tcase_add_test(tc, corrupt_db_stops_the_run);
	tcase_add_test(tc, exclude_applies_before_mount_check);
	tcase_add_test(tc, full_disk_resume_hint);
	tcase_add_test(tc, record_round_trip);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	rm_rf(tmpdir);
	return failed ? 1 : 0;
}
