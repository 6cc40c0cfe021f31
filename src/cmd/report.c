// SPDX-License-Identifier: GPL-2.0
/*
 * wblab report RUN_DIR... : compare the kernels of one or more runs (mail,
 * html or json), and wblab compare RUN_A RUN_B, its two-run shortcut.
 * The model and renderers are src/report; this file is options and I/O.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmds.h"
#include "report/report.h"
#include "spec/specs.h"
#include "util/fs.h"
#include "util/log.h"
#include "util/parse-options.h"
#include "util/run.h"

static const char *const formats[] = { "mail", "html", "json", NULL };

struct report_args {
	const char *baseline, *format, *output, *test;
	char *command; /* the command line as given, for the mail */
	struct strvec primary;
	double threshold;
	bool by_run, full;
};

/* --primary names rows of the registry; --threshold a positive %. */
static int check_args(const char *prefix, const struct report_args *a)
{
	struct strbuf err = STRBUF_INIT;

	for (size_t i = 0; i < a->primary.nr; i++)
		if (!metric_lookup(a->primary.v[i], &err)) {
			usage_error(prefix, "--primary: %s", err.buf);
			strbuf_release(&err);
			return -1;
		}
	if (!(a->threshold > 0 && a->threshold <= 1000)) {
		usage_error(prefix, "--threshold: %g is out of range (0, 1000]",
			    a->threshold);
		return -1;
	}
	return 0;
}

/*
 * compare: when a kernel ran in both runs, each run's cells of it are a
 * side of their own, "KERNEL@PID" (the run id's last part), so RUN_A is
 * compared with RUN_B.
 */
static void sides_by_run(struct report *r)
{
	bool shared = false;

	for (size_t i = 0; i < r->nr_cells; i++)
		for (size_t j = 0; j < r->nr_cells; j++)
			shared |= r->cells[i]->run != r->cells[j]->run &&
				  !strcmp(r->cells[i]->kernel,
					  r->cells[j]->kernel);
	if (!shared)
		return;
	for (size_t i = 0; i < r->nr_cells; i++) {
		struct rpt_cell *c = r->cells[i];
		const char *tail = strrchr(c->run->id, '-');
		char *side = xasprintf("%s@%s", c->kernel,
				       tail ? tail + 1 : c->run->id);

		free(c->side);
		c->side = side;
	}
}

/*
 * A workload's description up to its first full stop, on one line: the
 * mail's "Workload:" line.
 */
static char *describe_workload(const char *name)
{
	struct workload_spec w;
	struct strbuf sb = STRBUF_INIT;
	const char *p;

	if (workload_spec_find(name, &w))
		return NULL;
	for (p = w.description; p && *p; p++) {
		if (*p == '.' && (!p[1] || isspace((unsigned char)p[1]))) {
			strbuf_addch(&sb, '.');
			break;
		}
		if (!isspace((unsigned char)*p))
			strbuf_addch(&sb, *p);
		else if (sb.len && sb.buf[sb.len - 1] != ' ')
			strbuf_addch(&sb, ' ');
	}
	workload_spec_free(&w);
	return sb.len ? strbuf_detach(&sb, NULL) : NULL;
}

/* "wblab report ARGS...", before parse_options() moves them. */
static char *command_line(int argc, char **argv)
{
	struct strbuf sb = STRBUF_INIT;

	strbuf_addstr(&sb, "wblab ");
	argv_to_strbuf(&sb, (const char *const *)argv);
	(void)argc;
	return strbuf_detach(&sb, NULL);
}

/* Load, build and render; the output goes to -o FILE or stdout. */
static int render(const char *prefix, struct report_args *a, int nr_dirs,
		  char **dirs)
{
	struct report_opts o = REPORT_OPTS_INIT;
	struct strbuf out = STRBUF_INIT, err = STRBUF_INIT;
	struct report r;
	int ret = 2;

	for (int i = 0; rpt_test_names[i]; i++)
		if (!strcmp(a->test, rpt_test_names[i]))
			o.test = i;
	o.baseline = a->baseline;
	o.primary = &a->primary;
	o.threshold = a->threshold;
	o.full = a->full;
	o.command = a->command;
	o.describe_workload = describe_workload;
	o.timeseries = !strcmp(a->format, "html");
	report_init(&r, &o);
	for (int i = 0; i < nr_dirs; i++)
		if (report_load_run(&r, dirs[i], &err))
			goto fail;
	/* compare R R/ (or a link to R): a run compared with itself */
	if (a->by_run && r.nr_runs < 2) {
		strbuf_addf(
			&err,
			"%s and %s are the same run (%s): nothing to compare",
			dirs[0], dirs[1], r.runs[0]->real);
		goto fail;
	}
	for (size_t i = 0; i < r.warnings.nr; i++)
		warn("%s", r.warnings.v[i]);
	if (a->by_run)
		sides_by_run(&r);
	if (report_build(&r, &err))
		goto fail;
	if (!strcmp(a->format, "mail")) {
		report_mail(&r, &out);
	} else if (!strcmp(a->format, "json")) {
		json_object *j = report_json(&r);

		strbuf_addstr(&out,
			      json_object_to_json_string_ext(
				      j,
				      JSON_C_TO_STRING_PRETTY |
					      JSON_C_TO_STRING_NOSLASHESCAPE));
		strbuf_addch(&out, '\n');
		json_object_put(j);
	} else if (report_html(&r, &out, &err)) {
		ret = 1;
		goto fail;
	}
	if (a->output) {
		if (write_string_atomic(a->output, out.buf)) {
			error("%s: cannot write: %s", a->output,
			      open_regular_strerror(errno));
			ret = 1;
			goto out;
		}
	} else {
		fwrite(out.buf, 1, out.len, stdout);
	}
	ret = 0;
	goto out;
fail:
	error("%s: %s", prefix, err.buf);
out:
	report_release(&r);
	strbuf_release(&out);
	strbuf_release(&err);
	return ret;
}

#define REPORT_OPTIONS(a)                                                      \
	OPT_STRING(0, "baseline", &(a).baseline, "KERNEL",                     \
		   "compare against this kernel (default: the first seen)"),   \
		OPT_CHOICE(0, "format", &(a).format, "FMT", formats,           \
			   "mail (80-column text), html (one file) or json"),  \
		OPT_STRING('o', "output", &(a).output, "FILE",                 \
			   "write the report here (default: stdout)"),         \
		OPT_CHOICE(0, "test", &(a).test, "TEST", rpt_test_names,       \
			   "what earns a star in the metric table: fit (each " \
			   "row's own test), welch-bh, welch or bands"),       \
		OPT_STRLIST(0, "primary", &(a).primary, "ROW",                 \
			    "a row to answer in the Verdict block, besides "   \
			    "the workloads' primary: (repeatable)"),           \
		OPT_DOUBLE(0, "threshold", &(a).threshold, "PCT",              \
			   "the Verdict's `same`: a change within PCT %"),     \
		OPT_BOOL(0, "full", &(a).full,                                 \
			 "mail: every summary line (Min..Max, Stddev) and "    \
			 "each row's test and detectable change")

int cmd_report(int argc, char **argv)
{
	struct report_args a = { .format = "mail",
				 .test = "fit",
				 .primary = STRVEC_INIT,
				 .threshold = 10 };
	const struct option opts[] = { REPORT_OPTIONS(a), OPT_END() };
	const char *const usage[] = {
		"wblab report RUN_DIR... [--baseline KERNEL] "
		"[--format mail|html|json] [-o FILE]",
		NULL
	};
	char *cmd = command_line(argc, argv);
	int n = parse_options(argc, argv, "wblab report", opts, usage, 0);

	a.command = cmd;
	if (n < 1)
		n = usage_error("wblab report", "no run directory given");
	else if (check_args("wblab report", &a))
		n = 2;
	else
		n = render("wblab report", &a, n, argv);
	strvec_clear(&a.primary);
	free(cmd);
	return n;
}

int cmd_compare(int argc, char **argv)
{
	struct report_args a = { .format = "mail",
				 .test = "fit",
				 .primary = STRVEC_INIT,
				 .threshold = 10,
				 .by_run = true };
	const struct option opts[] = { REPORT_OPTIONS(a), OPT_END() };
	const char *const usage[] = {
		"wblab compare RUN_A RUN_B [--format mail|html|json] [-o FILE]",
		NULL
	};
	char *cmd = command_line(argc, argv);
	int n = parse_options(argc, argv, "wblab compare", opts, usage, 0);

	a.command = cmd;
	if (n != 2)
		n = usage_error("wblab compare",
				"two run directories are needed, %d given", n);
	else if (check_args("wblab compare", &a))
		n = 2;
	else
		n = render("wblab compare", &a, n, argv);
	strvec_clear(&a.primary);
	free(cmd);
	return n;
}
