/* SPDX-License-Identifier: GPL-2.0 */
#ifndef WBLAB_CMD_RUN_OPTIONS_H
#define WBLAB_CMD_RUN_OPTIONS_H

#include <stdlib.h>
#include <string.h>

#include "util/parse-options.h"

/*
 * The option entries wblab run and wblab matrix run share (after git's
 * OPT__VERBOSE and friends), and --jobs, which matrix run, validate,
 * bisect and nightly share: one name, value and range per setting, so
 * the commands cannot drift apart. Where their --help words differ,
 * the help (and the short name or value name) is the caller's.
 */

/* --accel values; run also checks $WBLAB_ACCEL against them. */
static const char *const run_accel_choices[] = { "auto", "kvm", "tcg", NULL };

/*
 * $WBLAB_ACCEL as the --accel default, checked like the option itself:
 * 0 with *accel set (unchanged when the variable is unset), or the
 * usage error's exit status.
 */
static inline int run_accel_env(const char *prefix, const char **accel)
{
	const char *env = getenv("WBLAB_ACCEL");

	if (!env)
		return 0;
	for (const char *const *c = run_accel_choices; *c; c++) {
		if (!strcmp(env, *c)) {
			*accel = *c;
			return 0;
		}
	}
	return usage_error(
		prefix, "WBLAB_ACCEL: '%s' is not one of auto, kvm, tcg", env);
}

#define OPT__ACCEL(v, a, h) \
	OPT_CHOICE(0, "accel", (v), (a), run_accel_choices, (h))
#define OPT__BOOT_TIMEOUT(v, h) \
	OPT_DURATION(0, "boot-timeout", (v), "S", 1, 86400, (h))
#define OPT__CMDLINE_EXTRA(v)                    \
	OPT_STRING(0, "cmdline-extra", (v), "S", \
		   "append S to the guest kernel command line")
/*
 * --jobs, a cap on cells at once over all hosts (0: what their cores and
 * memory allow), of every command that runs cells through the engine.
 */
#define JOBS_MAX 1024
#define OPT__JOBS(s, v)                                            \
	OPT_INT((s), "jobs", (v), "N", 0, JOBS_MAX,                \
		"cells at once at most (0: what the hosts' cores " \
		"and memory allow)")
/*
 * --max-reps of the jobs (validate, bisect, nightly). A job looks at n =
 * first, first + 2, ... cells a side (first: the matrix's reps, at least
 * 3) while a row is unknown, and its last look is the first at or past N
 * (dlooks_plan()). The default is itself a look, 9, so that a job with
 * the default runs to exactly the looks docs/jobs.md describes: 3, 5, 7,
 * 9 (it was 8, which a job passed, to 9, without saying so).
 */
#define MAX_REPS_DEFAULT 9
#define OPT__MAX_REPS(v)                                                      \
	OPT_INT(0, "max-reps", (v), "N", 3, 100,                              \
		"the last look: 2 more repetitions a side while unknown, up " \
		"to the first look at or past N (3, 5, 7, 9)")
/*
 * How a tree's kernels are configured (struct tree_config, jobs/tree.h):
 * run --tree, validate, bisect and nightly take the same three options.
 */
#define OPT__CONFIG_FROM(c, h)                                              \
	OPT_STRING(0, "config-from", &(c)->from, "KERNEL", (h)),            \
		OPT_STRING(0, "config", &(c)->config, "FILE",               \
			   "your .config as the base; the lab's fragments " \
			   "are merged over it"),                           \
		OPT_STRLIST(0, "config-fragment", &(c)->fragments, "FILE",  \
			    "a fragment merged after the lab's (KASAN, "    \
			    "lockdep)")
#define OPT__KEEP(v) \
	OPT_BOOL(0, "keep", (v), "keep each cell's overlay and disks")
#define OPT__RESULTS(s, v, h) OPT_STRING((s), "results", (v), "DIR", (h))
#define OPT__RUN_JSON(v) OPT_BOOL(0, "json", (v), "print run.json to stdout")
#define OPT__URI(v, h) OPT_STRING(0, "uri", (v), "URI", (h))

#endif
