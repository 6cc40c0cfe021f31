// SPDX-License-Identifier: GPL-2.0
/*
 * wblab repro RUN_DIR/cells/CELL [-o DIR]: a reproducer bundle of one
 * cell (cell/repro.h). wblab run --repro DIR runs one (cmd/run.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cell/repro.h"
#include "cmd/cmds.h"
#include "util/log.h"
#include "util/parse-options.h"

int cmd_repro(int argc, char **argv)
{
	static const char *const usage[] = {
		"wblab repro RUN_DIR/cells/CELL [-o DIR]", NULL
	};
	const char *out = NULL;
	struct option opts[] = {
		OPT_STRING('o', "output", &out, "DIR",
			   "where the bundle goes (default: repro-CELL)"),
		OPT_END(),
	};
	struct strbuf err = STRBUF_INIT;
	char *def = NULL;
	int ret = 0;

	argc = parse_options(argc, argv, "wblab repro", opts, usage, 0);
	if (argc != 1)
		return usage_error("wblab repro",
				   "one RUN_DIR/cells/CELL is needed");
	if (!out) {
		const char *cell = argv[0] + strlen(argv[0]);

		while (cell > argv[0] && cell[-1] == '/')
			cell--;
		while (cell > argv[0] && cell[-1] != '/')
			cell--;
		def = xasprintf("repro-%.*s", (int)strcspn(cell, "/"), cell);
		out = def;
	}
	if (repro_bundle(argv[0], out, &err)) {
		error("wblab repro: %s", err.buf);
		ret = 2;
	} else {
		printf("%s\nrerun it: wblab run --repro %s -n 10\n", out, out);
	}
	strbuf_release(&err);
	free(def);
	return ret;
}
