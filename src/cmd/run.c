// SPDX-License-Identifier: GPL-2.0
/*
 * wblab run --kernel K [--kernel K2 ...] --topology T --workload W [-n N]
 *           [--results DIR] [--memory MiB] [--timeout S] [--json] ...
 * A one-off matrix (kernels x topology x workload x n) run by the matrix
 * engine (src/matrix/): the same order, slots, retries and records as
 * `wblab matrix run`.
 *
 * wblab run --repro DIR [-n N]: the cell of a reproducer bundle (wblab
 * repro) N times, and how many of them show its signature again.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmds.h"
#include "cmd/run-options.h"
#include "cmd/run-repro.h"
#include "matrix/matrix.h"
#include "util/fs.h"
#include "util/log.h"
#include "util/parse-options.h"
#include "virt/virt.h"

#define MAX_KERNELS 8

struct run_args {
	const char *kernels[MAX_KERNELS];
	int nr_kernels;
	const char *topology, *workload, *results, *image, *accel, *uri;
	const char *cmdline_extra;
	const char *repro; /* a bundle's directory */
	int reps, memory, vcpus, timeout, boot_timeout;
	bool json, keep;
	struct strvec kernel_names; /* --kernel, in order */
};

static const char *const run_usage[] = {
	"wblab run --kernel K [--kernel K2...] --topology T --workload W [options]",
	"wblab run --repro DIR [-n N] [options]",
	NULL,
};

static int parse_args(int argc, char **argv, struct run_args *a)
{
	long long memory = 0;
	struct option opts[] = {
		OPT_GROUP("What to run"),
		OPT_STRLIST(
			'k', "kernel", &a->kernel_names, "K",
			"kernel spec (lab/kernels/K.yaml); give it again for A/B"),
		OPT_STRING('t', "topology", &a->topology, "T",
			   "storage topology (topologies/T.yaml)"),
		OPT_STRING('w', "workload", &a->workload, "W",
			   "workload (workloads/W.yaml)"),
		OPT_INT('n', NULL, &a->reps, "N", 1, 1000,
			"repetitions per kernel, interleaved across kernels"),
		OPT_STRING(0, "repro", &a->repro, "DIR",
			   "the cell of a reproducer bundle (wblab repro)"),
		OPT_GROUP("The guest"),
		OPT_SIZE(
			'm', "memory", &memory, "MiB", 1 << 20, 128, 1 << 20,
			"guest memory, MiB or with K/M/G; if not given the workload's, else 1024"),
		OPT_INT(0, "vcpus", &a->vcpus, "N", 1, 64, "guest vCPUs"),
		OPT_DURATION(0, "timeout", &a->timeout, "S", 1, 7 * 86400,
			     "workload wall clock; if not given the workload's"),
		OPT__BOOT_TIMEOUT(&a->boot_timeout,
				  "deadline for the agent's hello"),
		OPT_STRING(0, "image", &a->image, "NAME", "guest root image"),
		OPT__ACCEL(
			&a->accel, "HOW",
			"auto probes KVM and falls back to TCG; $WBLAB_ACCEL sets the default"),
		OPT__CMDLINE_EXTRA(&a->cmdline_extra),
		OPT_GROUP("Where"),
		OPT__RESULTS('r', &a->results, "results directory"),
		OPT__URI(&a->uri, "libvirt URI; $WBLAB_URI sets the default"),
		OPT__KEEP(&a->keep),
		OPT__RUN_JSON(&a->json),
		OPT_END(),
	};
	int n;

	*a = (struct run_args){ .results = "results",
				.image = "debian-12",
				.accel = "auto",
				.uri = virt_default_uri(),
				.reps = 1,
				.vcpus = 2,
				.boot_timeout = 120 };
	strvec_init(&a->kernel_names);
	n = run_accel_env("wblab run", &a->accel);
	if (n)
		return n;
	n = parse_options(argc, argv, "wblab run", opts, run_usage, 0);
	if (n)
		return usage_error("wblab run", "unexpected argument '%s'",
				   argv[0]);
	if (a->repro && (a->kernel_names.nr || a->topology || a->workload))
		return usage_error(
			"wblab run",
			"--repro takes the kernel, topology and workload from the bundle");
	if (a->repro)
		return 0;
	if (!a->kernel_names.nr || !a->topology || !a->workload)
		return usage_error(
			"wblab run",
			"--kernel, --topology and --workload are required");
	if (a->kernel_names.nr > MAX_KERNELS)
		return usage_error("wblab run", "--kernel: at most %d kernels",
				   MAX_KERNELS);
	for (size_t i = 0; i < a->kernel_names.nr; i++)
		a->kernels[a->nr_kernels++] = a->kernel_names.v[i];
	a->memory = (int)memory;
	return 0;
}

/* The options as a one-off matrix: kernels x 1 topology x 1 workload x n. */
static void build_matrix(const struct run_args *a, struct matrix_spec *m)
{
	memset(m, 0, sizeof(*m));
	m->name = xstrdup("run");
	for (int i = 0; i < a->nr_kernels; i++)
		spec_strlist_add(&m->kernels, a->kernels[i]);
	spec_strlist_add(&m->topologies, a->topology);
	spec_strlist_add(&m->workloads, a->workload);
	m->reps = a->reps;
	m->image = xstrdup(a->image);
	matrix_spec_add_size(m, a->memory, a->vcpus);
}

/* The bundle's cell as the options; 2 with why when it is not this lab's. */
static int repro_args(struct run_args *a, struct repro_spec *rs)
{
	struct strbuf err = STRBUF_INIT;

	if (run_repro_load(a->repro, rs, &err)) {
		error("wblab run --repro: %s", err.buf);
		strbuf_release(&err);
		return 2;
	}
	a->kernels[a->nr_kernels++] = rs->kernel;
	a->topology = rs->topology;
	a->workload = rs->workload;
	a->image = rs->image;
	if (!a->memory)
		a->memory = rs->memory_mib;
	if (rs->vcpus)
		a->vcpus = rs->vcpus;
	if (!a->cmdline_extra)
		a->cmdline_extra = rs->cmdline_extra;
	return 0;
}

int cmd_run(int argc, char **argv)
{
	struct run_args a;
	struct matrix_spec m;
	struct matrix_opts o = MATRIX_OPTS_INIT;
	struct matrix_run r = { 0 };
	struct repro_spec rs = { 0 };
	int ret;

	ret = parse_args(argc, argv, &a);
	if (!ret && a.repro)
		ret = repro_args(&a, &rs);
	if (ret)
		goto out_args;
	build_matrix(&a, &m);
	o.results = a.results;
	o.uri = a.uri;
	o.accel = a.accel;
	o.boot_timeout = a.boot_timeout;
	o.timeout = a.timeout;
	o.keep = a.keep;
	o.cmdline_extra = a.cmdline_extra;
	o.command = "run";
	ret = matrix_run(&m, &o, &r);
	if (ret != 2 && a.json && r.run_dir)
		matrix_print_run_json(r.run_dir);
	if (ret != 2 && a.repro && r.run_dir)
		run_repro_tally(r.run_dir, rs.signature);
	matrix_run_free(&r);
	matrix_spec_free(&m);
out_args:
	repro_spec_free(&rs);
	strvec_clear(&a.kernel_names);
	return ret;
}
