// SPDX-License-Identifier: GPL-2.0
/*
 * wblab validate --tree DIR --base REF (--patch FILE... | --mbox FILE)
 *                [--matrix M] [--results DIR] [--max-reps N] [--boundary B]
 * Pre-merge validation of a patch or series (jobs/validate.c): exit 0 no
 * regression, 1 regression, 2 a patch does not apply or build (or bad
 * usage), 3 infrastructure failure, 4 unknown at --max-reps.
 */
#include <stdio.h>
#include <string.h>

#include "cmd/cmds.h"
#include "cmd/run-options.h"
#include "jobs/validate.h"
#include "util/log.h"
#include "util/parse-options.h"
#include "virt/virt.h"

int cmd_validate(int argc, char **argv)
{
	struct validate_opts o = { .matrix = "validate",
				   .results = "results",
				   .cfg = { .from = SPEC_DEFAULT_CONFIG_FROM,
					    .fragments = STRVEC_INIT },
				   .max_reps = MAX_REPS_DEFAULT,
				   .patches = STRVEC_INIT,
				   .mo = MATRIX_OPTS_INIT,
				   .out = stdout };
	const char *boundary = dboundary_name(VALIDATE_BOUNDARY);
	const struct option opts[] = {
		OPT_STRING(0, "tree", &o.tree, "DIR", "the git tree"),
		OPT_STRING(0, "base", &o.base, "REF", "the commit to patch"),
		OPT_STRLIST(0, "patch", &o.patches, "FILE",
			    "a patch (-p1); repeat for a series, in order"),
		OPT_STRING(0, "mbox", &o.mbox, "FILE",
			   "a series as git format-patch or b4 writes it"),
		OPT_STRING(
			0, "matrix", &o.matrix, "M",
			"lab/matrices/<M>.yaml or a path (its thresholds decide)"),
		OPT_STRING(0, "results", &o.results, "DIR",
			   "results directory"),
		OPT__MAX_REPS(&o.max_reps),
		OPT_CHOICE(0, "boundary", &boundary, "B", dboundary_names,
			   "how alpha is spent over the looks"),
		OPT__CONFIG_FROM(
			&o.cfg,
			"lab kernel whose config base and fragments to use"),
		OPT_STRING(
			0, "mail-from", &o.mail_from, "ADDR",
			"From: of the reply to the --mbox patch (wblab@HOST)"),
		OPT_BOOL(0, "build-only", &o.build_only,
			 "build the base (and the patched kernel) and stop"),
		OPT__JOBS(0, &o.mo.jobs),
		OPT_END(),
	};
	const char *const usage[] = {
		"wblab validate --tree DIR --base REF (--patch FILE... | --mbox FILE) [--matrix M] [--results DIR]",
		NULL
	};
	int n = parse_options(argc, argv, "wblab validate", opts, usage, 0);
	int ret;

	o.boundary = dboundary_parse(boundary);
	if (n)
		return usage_error("wblab validate", "unexpected argument '%s'",
				   argv[0]);
	if (!o.tree || !o.base)
		return usage_error("wblab validate",
				   "--tree and --base are needed");
	if (o.patches.nr && o.mbox)
		return usage_error(
			"wblab validate",
			"give --patch FILE... or --mbox FILE, not both");
	if (!o.build_only && !o.patches.nr && !o.mbox)
		return usage_error(
			"wblab validate",
			"give --patch FILE... or --mbox FILE (one of them)");
	if (tree_config_check(&o.cfg))
		return 2;
	virt_install_signal_handlers();
	ret = validate_run(&o);
	strvec_clear(&o.patches);
	strvec_clear(&o.cfg.fragments);
	return ret;
}
