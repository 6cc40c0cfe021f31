// SPDX-License-Identifier: GPL-2.0
/*
 * wblab: an automated regression lab for Linux writeback and memory reclaim.
 * Subcommands are dispatched from a table, like git.c and perf.c.
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "cmd/cmds.h"
#include "util/build.h"
#include "util/log.h"

struct cmd_struct {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *help;
};

static const struct cmd_struct commands[] = {
	{ "run", cmd_run,
	  "boot cells: kernel x topology x workload, collect results" },
	{ "matrix", cmd_matrix,
	  "run a matrix of cells in parallel slots, resumable" },
	{ "cell-run", cmd_cell_run,
	  "(internal) run one cell from a matrix job file" },
	{ "doctor", cmd_doctor,
	  "check the host can run cells (libvirt, QEMU, KVM probe)" },
	{ "image", cmd_image, "build or list guest root images" },
	{ "kernel", cmd_kernel,
	  "list, show, fetch or build candidate kernels" },
	{ "parse-console", cmd_parse_console,
	  "find kernel events in console logs" },
	{ "show", cmd_show, "key figures of a run's cells, per kernel" },
	{ "metrics", cmd_metrics,
	  "the metrics every command and spec names: path, unit, test" },
	{ "reparse", cmd_reparse,
	  "re-derive a run's cell.json files from their cells' files" },
	{ "report", cmd_report,
	  "compare kernels: mail, html or json report of runs" },
	{ "compare", cmd_compare, "the report of two runs, A against B" },
	{ "aa", cmd_aa, "A/A self-check: one kernel as two sides" },
	{ "noise", cmd_noise,
	  "spread per row and the smallest change n cells could show" },
	{ "validate", cmd_validate,
	  "pre-merge: does a patch or series regress? (exit 0/1/2/3)" },
	{ "decide", cmd_decide,
	  "the jobs' same/different/unknown on any runs (exit 0/1/2)" },
	{ "export", cmd_export,
	  "runs as KCIDB I/O JSON (v5.3) for KernelCI's tools" },
	{ "bisect", cmd_bisect,
	  "find the commit that changed a metric or an event rate" },
	{ "bisect-step", cmd_bisect_step,
	  "one step for git bisect run (exit 0 good, 1 bad, 125 skip)" },
	{ "nightly", cmd_nightly,
	  "follow trees: build heads, run, compare, bisect, mail" },
	{ "history", cmd_history, "the nights: a table, and plots in HTML" },
	{ "repro", cmd_repro,
	  "a reproducer bundle of one cell: kernel, plan as shell, XML, QEMU" },
};

static void usage(FILE *f)
{
	fprintf(f, "usage: wblab <command> [<args>]\n\ncommands:\n");
	for (size_t i = 0; i < ARRAY_SIZE(commands); i++)
		fprintf(f, "  %-15s %s\n", commands[i].name, commands[i].help);
	fprintf(f,
		"\n'wblab help <command>' or 'wblab <command> --help' describes a command.\n");
}

/* Edits (insert, delete, substitute, swap two neighbours) from a to b. */
static size_t edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), d[32][32];

	if (la >= 32 || lb >= 32)
		return 32;
	for (size_t i = 0; i <= la; i++)
		for (size_t j = 0; j <= lb; j++) {
			size_t best;

			if (!i || !j) {
				d[i][j] = i + j;
				continue;
			}
			best = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);
			if (d[i - 1][j] + 1 < best)
				best = d[i - 1][j] + 1;
			if (d[i][j - 1] + 1 < best)
				best = d[i][j - 1] + 1;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] &&
			    a[i - 2] == b[j - 1] && d[i - 2][j - 2] + 1 < best)
				best = d[i - 2][j - 2] + 1;
			d[i][j] = best;
		}
	return d[la][lb];
}

/*
 * git's "The most similar command is": the commands within two edits of
 * what was typed, or that it is a prefix of, so a typo costs one look
 * instead of reading the whole table.
 */
static void did_you_mean(const char *typed)
{
	bool any = false;

	for (size_t i = 0; i < ARRAY_SIZE(commands); i++) {
		const char *name = commands[i].name;

		if (edit_distance(typed, name) > (strlen(typed) > 3 ? 2 : 1) &&
		    strncmp(typed, name, strlen(typed)))
			continue;
		fprintf(stderr, "%s '%s'", any ? "," : "\ndid you mean", name);
		any = true;
	}
	if (any)
		fputs("?\n", stderr);
}

int main(int argc, char **argv)
{
	static char help_opt[] = "--help";
	char *help_argv[] = { NULL, NULL, help_opt, NULL };

	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "help") && argc > 2) {
		/* wblab help CMD is wblab CMD --help, word for word. */
		help_argv[0] = argv[0];
		help_argv[1] = argv[2];
		argc = 3;
		argv = help_argv;
	} else if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "help")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "--version")) {
		printf("wblab %s (%s)\n", WBLAB_VERSION, wblab_build);
		return 0;
	}
	for (size_t i = 0; i < ARRAY_SIZE(commands); i++)
		if (!strcmp(argv[1], commands[i].name))
			return commands[i].fn(argc - 1, argv + 1);
	fprintf(stderr, "wblab: '%s' is not a wblab command", argv[1]);
	did_you_mean(argv[1]);
	fputc('\n', stderr);
	usage(stderr);
	return 2;
}
