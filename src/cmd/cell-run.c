// SPDX-License-Identifier: GPL-2.0
/*
 * wblab cell-run JOB.json: the matrix engine's worker. One process per
 * cell, so cells run in parallel without sharing a libvirt event loop,
 * and a cell that wedges its process cannot take the run with it.
 */
#include <stdio.h>

#include "cell/job.h"
#include "cmd/cmds.h"
#include "util/log.h"
#include "util/parse-options.h"

static const char *const cell_run_usage[] = {
	"wblab cell-run JOB.json",
	"Run one cell from a job file the matrix engine wrote (DIR/<run>/jobs/).",
	NULL,
};

int cmd_cell_run(int argc, char **argv)
{
	static const struct option opts[] = { OPT_END() };
	struct strbuf err = STRBUF_INIT;
	struct cell_job j;
	int ret;

	argc = parse_options(argc, argv, "wblab cell-run", opts, cell_run_usage,
			     0);
	if (argc != 1)
		return usage_error("wblab cell-run", "one job file is needed");
	if (cell_job_read(argv[0], &j, &err)) {
		error("%s", err.buf);
		strbuf_release(&err);
		return 2;
	}
	ret = cell_job_run(&j) ? 1 : 0;
	cell_job_free(&j);
	return ret;
}
