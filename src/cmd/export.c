// SPDX-License-Identifier: GPL-2.0
/*
 * wblab export --kcidb RUN... [-o FILE] [--origin NAME] [--baseline K]:
 * runs as KCIDB I/O v5.3 JSON (jobs/kcidb.h), for kcidb-submit.
 * Exit 0 written, 2 bad usage or unreadable runs, 3 cannot write.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cmd/cmds.h"
#include "jobs/kcidb.h"
#include "jobs/pool.h"
#include "util/fs.h"
#include "util/log.h"
#include "util/parse-options.h"

/* KCIDB's origin: [a-z0-9_]+ (the part of every id before ':'). */
static bool origin_ok(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') ||
		      *s == '_'))
			return false;
	return true;
}

int cmd_export(int argc, char **argv)
{
	const char *out = NULL, *origin = "wblab", *baseline = NULL;
	bool kcidb = false;
	const struct option opts[] = {
		OPT_BOOL(0, "kcidb", &kcidb, "KCIDB I/O JSON, schema v5.3"),
		OPT_STRING('o', "output", &out, "FILE",
			   "write here (default: standard output)"),
		OPT_STRING(0, "origin", &origin, "NAME",
			   "the CI system's name in every id ([a-z0-9_]+)"),
		OPT_STRING(0, "baseline", &baseline, "KERNEL",
			   "decide every other kernel against this one "
			   "(default: the first kernel the first run declares)"),
		OPT_END(),
	};
	const char *const usage[] = {
		"wblab export --kcidb RUN_DIR... [-o FILE] [--origin NAME] [--baseline KERNEL]",
		NULL
	};
	int n = parse_options(argc, argv, "wblab export", opts, usage, 0);
	struct pool p = POOL_INIT;
	json_object *doc = NULL;
	const char *s;
	int ret = 2;

	if (!kcidb)
		return usage_error("wblab export", "say the format: --kcidb");
	if (n < 1)
		return usage_error("wblab export", "no run directory given");
	if (!origin_ok(origin))
		return usage_error("wblab export",
				   "--origin '%s': only [a-z0-9_]", origin);
	for (int i = 0; i < n; i++)
		if (pool_load_run(&p, argv[i]))
			goto out;
	if (!p.n) {
		error("wblab export: no cell with a kernel result in the runs");
		goto out;
	}
	doc = kcidb_export(&p, origin, baseline);
	if (!doc)
		goto out;
	s = json_object_to_json_string_ext(
		doc, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE);
	ret = 0;
	if (!out) {
		printf("%s\n", s);
	} else if (write_file_atomic(out, s, strlen(s), 0644)) {
		error("cannot write %s: %s", out, open_regular_strerror(errno));
		ret = 3;
	}
out:
	json_object_put(doc);
	pool_free(&p);
	return ret;
}
