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
 *
 * wblab run --tree DIR [--ref REF]... --topology T --workload W: the
 * kernels of a git tree of the user's (run-tree.c), built first.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmds.h"
#include "cmd/run-options.h"
#include "cmd/run-repro.h"
#include "cmd/run-tree.h"
#include "matrix/matrix.h"
#include "results/levers.h"
#include "util/fs.h"
#include "util/log.h"
#include "util/parse-options.h"
#include "virt/virt.h"

/*
 * The options: the engine's straight into o (its defaults are
 * MATRIX_OPTS_INIT's), the one-off matrix's beside them.
 */
struct run_args {
	struct matrix_opts o;
	struct strvec kernels; /* --kernel, in order */
	struct strvec levers; /* --levers, each a setting of its own */
	const char *topology, *workload, *image;
	const char *repro; /* a bundle's directory */
	struct run_tree tree; /* --tree, --ref, --config-from */
	int reps, vcpus;
	long long memory; /* MiB, 0: the workload's */
	bool json;
};

static const char *const run_usage[] = {
	"wblab run --kernel K [--kernel K2...] --topology T --workload W [options]",
	"wblab run --tree DIR [--ref REF]... --topology T --workload W [options]",
	"wblab run --repro DIR [-n N] [options]",
	NULL,
};

/* Each --levers a setting of the levers' table, none twice. */
static int check_levers(const struct strvec *sets)
{
	struct strbuf err = STRBUF_INIT;
	struct strvec seen = STRVEC_INIT;
	int ret = 0;

	for (size_t i = 0; i < sets->nr && !ret; i++) {
		struct levers lv;

		if (levers_parse(sets->v[i], &lv, &err)) {
			ret = usage_error("wblab run", "--levers '%s': %s",
					  sets->v[i], err.buf);
			break;
		}
		{
			char *t = levers_text(&lv);

			strvec_push(&seen, t);
			free(t);
		}
		for (size_t j = 0; j + 1 < seen.nr; j++)
			if (!strcmp(seen.v[j], seen.v[seen.nr - 1]))
				ret = usage_error("wblab run",
						  "--levers '%s' is given "
						  "twice (as %s)",
						  sets->v[i], seen.v[j]);
	}
	strvec_clear(&seen);
	strbuf_release(&err);
	return ret;
}

static int parse_args(int argc, char **argv, struct run_args *a)
{
	struct option opts[] = {
		OPT_GROUP("What to run"),
		OPT_STRLIST(
			'k', "kernel", &a->kernels, "K",
			"kernel spec (lab/kernels/K.yaml); give it again for A/B"),
		OPT_STRING('t', "topology", &a->topology, "T",
			   "storage topology (topologies/T.yaml)"),
		OPT_STRING('w', "workload", &a->workload, "W",
			   "workload (workloads/W.yaml)"),
		OPT_INT('n', NULL, &a->reps, "N", 1, 1000,
			"repetitions per kernel, interleaved across kernels"),
		OPT_STRING(0, "repro", &a->repro, "DIR",
			   "the cell of a reproducer bundle (wblab repro)"),
		OPT_GROUP("Your own kernel tree"),
		OPT_STRING(0, "tree", &a->tree.tree, "DIR",
			   "a kernel git tree: build its refs and run them"),
		OPT_STRLIST(
			0, "ref", &a->tree.refs, "REF",
			"a commit of --tree, the first the baseline; repeatable (default: HEAD with uncommitted changes)"),
		OPT__CONFIG_FROM(
			&a->tree.cfg,
			"configure --tree's kernels like this lab kernel"),
		OPT_GROUP("The guest"),
		OPT_SIZE(
			'm', "memory", &a->memory, "MiB", 1 << 20, 128, 1 << 20,
			"guest memory, MiB or with K/M/G; if not given the workload's, else 1024"),
		OPT_INT(0, "vcpus", &a->vcpus, "N", 1, 64, "guest vCPUs"),
		OPT_DURATION(0, "timeout", &a->o.timeout, "S", 1, 7 * 86400,
			     "workload wall clock; if not given the workload's"),
		OPT__BOOT_TIMEOUT(&a->o.boot_timeout,
				  "deadline for the agent's hello"),
		OPT_STRING(0, "image", &a->image, "NAME", "guest root image"),
		OPT__ACCEL(
			&a->o.accel, "HOW",
			"auto probes KVM and falls back to TCG; $WBLAB_ACCEL sets the default"),
		OPT__CMDLINE_EXTRA(&a->o.cmdline_extra),
		OPT_STRLIST(
			0, "levers", &a->levers, "SET",
			"noise levers NAME=VALUE[,...] (docs/report.md, Noise); "
			"give it again to run each setting, interleaved"),
		OPT_GROUP("Where"),
		OPT__RESULTS('r', &a->o.results, "results directory"),
		OPT__URI(&a->o.uri, "libvirt URI; $WBLAB_URI sets the default"),
		OPT__KEEP(&a->o.keep),
		OPT__RUN_JSON(&a->json),
		OPT_END(),
	};
	int n;

	*a = (struct run_args){ .o = MATRIX_OPTS_INIT,
				.image = SPEC_DEFAULT_IMAGE,
				.reps = 1,
				.vcpus = 2 };
	a->o.uri = virt_default_uri();
	a->o.command = "run";
	a->tree.cfg.from = SPEC_DEFAULT_CONFIG_FROM;
	strvec_init(&a->tree.cfg.fragments);
	strvec_init(&a->kernels);
	strvec_init(&a->levers);
	strvec_init(&a->tree.refs);
	n = run_accel_env("wblab run", &a->o.accel);
	if (n)
		return n;
	n = parse_options(argc, argv, "wblab run", opts, run_usage, 0);
	if (n)
		return usage_error("wblab run", "unexpected argument '%s'",
				   argv[0]);
	if (check_levers(&a->levers))
		return 2;
	if (a->repro && (a->kernels.nr || a->topology || a->workload))
		return usage_error(
			"wblab run",
			"--repro takes the kernel, topology and workload from the bundle");
	if (a->repro)
		return 0;
	if (a->tree.refs.nr && !a->tree.tree)
		return usage_error("wblab run", "--ref needs --tree");
	if ((a->tree.cfg.config || a->tree.cfg.fragments.nr) && !a->tree.tree)
		return usage_error(
			"wblab run",
			"--config and --config-fragment need --tree (a lab kernel's config is its spec's)");
	if (a->tree.tree && a->kernels.nr)
		return usage_error(
			"wblab run",
			"--tree's refs are the kernels: not with --kernel");
	if ((!a->kernels.nr && !a->tree.tree) || !a->topology || !a->workload)
		return usage_error(
			"wblab run",
			"--kernel (or --tree), --topology and --workload are required");
	return 0;
}

/*
 * --kernel PATH (a spec outside the search path, docs/specs.md): loaded
 * here, handed to the engine as a kernel made in code and named by its
 * file, so cell ids hold a name, never a path.
 */
static int kernels_by_path(struct run_args *a)
{
	for (size_t i = 0; i < a->kernels.nr; i++) {
		struct kernel_spec *s;

		if (!strchr(a->kernels.v[i], '/'))
			continue;
		a->tree.specs =
			xrealloc(a->tree.specs,
				 (a->tree.nr + 1) * sizeof(*a->tree.specs));
		s = &a->tree.specs[a->tree.nr];
		if (kernel_spec_find(a->kernels.v[i], s))
			return -1;
		a->tree.nr++;
		free((char *)a->kernels.v[i]);
		a->kernels.v[i] = xstrdup(s->name);
	}
	return 0;
}

/* The options as a one-off matrix: kernels x 1 topology x 1 workload x n. */
static void build_matrix(const struct run_args *a, struct matrix_spec *m)
{
	matrix_spec_one(m, "run", a->topology, a->workload, a->reps, a->image,
			a->memory, a->vcpus);
	for (size_t i = 0; i < a->kernels.nr; i++)
		spec_strlist_add(&m->kernels, a->kernels.v[i]);
	for (size_t i = 0; i < a->levers.nr; i++)
		spec_strlist_add(&m->levers, a->levers.v[i]);
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
	strvec_push(&a->kernels, rs->kernel);
	a->topology = rs->topology;
	a->workload = rs->workload;
	a->image = rs->image;
	if (!a->memory)
		a->memory = rs->memory_mib;
	if (rs->vcpus)
		a->vcpus = rs->vcpus;
	if (!a->o.cmdline_extra)
		a->o.cmdline_extra = rs->cmdline_extra;
	if (!a->levers.nr && rs->levers)
		strvec_push(&a->levers, rs->levers);
	return 0;
}

int cmd_run(int argc, char **argv)
{
	struct run_args a;
	struct matrix_spec m;
	struct matrix_run r = { 0 };
	struct repro_spec rs = { 0 };
	int ret;

	ret = parse_args(argc, argv, &a);
	if (!ret && a.repro)
		ret = repro_args(&a, &rs);
	if (ret)
		goto out_args;
	if (a.tree.tree) {
		ret = run_tree_build(&a.tree, &a.kernels);
		if (ret)
			goto out_args;
	} else if (kernels_by_path(&a)) {
		ret = 2;
		goto out_args;
	}
	a.o.kernels = a.tree.specs;
	a.o.nr_kernels = a.tree.nr;
	build_matrix(&a, &m);
	ret = matrix_run(&m, &a.o, &r);
	if (ret != 2 && a.json && r.run_dir)
		matrix_print_run_json(r.run_dir);
	if (ret != 2 && a.repro && r.run_dir)
		run_repro_tally(r.run_dir, rs.signature);
	matrix_run_free(&r);
	matrix_spec_free(&m);
out_args:
	repro_spec_free(&rs);
	run_tree_free(&a.tree);
	strvec_clear(&a.kernels);
	strvec_clear(&a.levers);
	return ret;
}
