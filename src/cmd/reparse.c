// SPDX-License-Identifier: GPL-2.0
/*
 * wblab reparse [--json] RUN_DIR: re-derive every cell.json of a run from the
 * files in its cells, with the code a live cell uses, so older runs gain
 * new metrics without booting anything. Outcomes are kept unless the
 * console parser's verdict changed, and then this says so (and run.json
 * and the SQLite index follow).
 */
#include <errno.h>
#include <json-c/json.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cell/reparse.h"
#include "cell/results.h"
#include "cmd/cmds.h"
#include "results/outcome.h"
#include "results/reader.h"
#include "util/fs.h"
#include "util/json.h"
#include "util/log.h"
#include "util/parse-options.h"
#include "util/str.h"

/* A time the index records: 0 when the cell has none. */
static double db_time(double s)
{
	return isnan(s) ? 0 : s;
}

/* The cell.json cell_reparse() just wrote, read back through the gate. */
static struct cell_result *read_back(const char *cell_dir)
{
	struct strbuf why = STRBUF_INIT;
	char *cp = xasprintf("%s/cell.json", cell_dir);
	json_object *o = results_read_json(cp, &why);
	struct cell_result *c = o ? cell_result_decode(o) : NULL;

	json_object_put(o);
	strbuf_release(&why);
	free(cp);
	return c;
}

/* The run's index row for a cell whose outcome changed. */
static void index_cell(const char *run_dir, const struct run_result *run,
		       const char *cell_dir)
{
	char *results = xasprintf("%s/..", run_dir);
	char *db_path = xasprintf("%s/wblab.db", results);
	struct cell_result *c = read_back(cell_dir);
	int fd = open_regular(db_path, 0);
	sqlite3 *db;

	if (fd >= 0)
		close(fd);
	if (c && fd >= 0 && (db = results_db_open(results))) {
		results_db_cell(db, str_or(run->id, ""), str_or(c->id, ""),
				str_or(c->kernel.name, ""),
				str_or(c->kernel.hash, ""),
				str_or(c->topology, ""),
				str_or(c->workload, ""), (int)c->rep,
				str_or(c->outcome_name, ""),
				str_or(c->timings.started, ""),
				db_time(c->timings.total_s),
				db_time(c->timings.boot_s));
		results_db_close(db);
	}
	cell_result_put(c);
	free(db_path);
	free(results);
}

static json_object *cell_json(const char *id, const struct reparse_result *r)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "id", json_object_new_string(id));
	json_object_object_add(o, "outcome_before",
			       json_object_new_string(r->old_outcome));
	json_object_object_add(o, "outcome",
			       json_object_new_string(r->outcome_changed ?
							      r->new_outcome :
							      r->old_outcome));
	json_object_object_add(o, "outcome_changed",
			       json_object_new_boolean(r->outcome_changed));
	json_object_object_add(o, "console_changed",
			       json_object_new_boolean(r->console_changed));
	json_object_object_add(o, "console_kind_changed",
			       json_object_new_boolean(r->kind_changed));
	return o;
}

static void say(const char *id, const struct reparse_result *r)
{
	if (r->outcome_changed)
		printf("%s: console verdict changed: outcome %s -> %s\n", id,
		       r->old_outcome, r->new_outcome);
	else if (r->console_changed)
		printf("%s: console verdict changed, outcome %s stays (%s)\n",
		       id, r->old_outcome,
		       !outcome_is(r->old_outcome, OUTCOME_INFRA_ERROR) ?
			       "decided again, the same" :
			       "a host fault is kept");
	else
		printf("%s: metrics re-derived, outcome %s kept%s\n", id,
		       r->old_outcome,
		       r->kind_changed ? " (console kind changed)" : "");
}

int cmd_reparse(int argc, char **argv)
{
	static const char *const usage[] = { "wblab reparse [--json] RUN_DIR",
					     NULL };
	bool json = false;
	struct option opts[] = {
		OPT_BOOL(0, "json", &json,
			 "print what became of each cell as JSON"),
		OPT_END(),
	};
	struct strbuf err = STRBUF_INIT;
	struct results_run run;
	json_object *out = NULL;
	int failed = 0, changed = 0;

	if (parse_options(argc, argv, "wblab reparse", opts, usage, 0) != 1)
		return usage_error("wblab reparse", "one RUN_DIR is needed");
	if (results_open_run(argv[0], &run, &err)) {
		error("%s", err.buf);
		strbuf_release(&err);
		return 2;
	}
	if (json)
		out = json_object_new_array();
	for (size_t i = 0; i < run.info.nr_cells; i++) {
		const struct run_entry *c = &run.info.cells[i];
		const char *id = str_or(c->id, "");
		struct strbuf note = STRBUF_INIT;
		char *dir =
			results_cell_dir(argv[0], str_or(c->dir, ""), &note);
		struct reparse_result r;

		if (!dir || cell_reparse(dir, &r, &note)) {
			error("%s: %s", id, note.buf);
			failed++;
		} else {
			if (out)
				json_object_array_add(out, cell_json(id, &r));
			else
				say(id, &r);
			if (r.outcome_changed &&
			    outcome_parse(r.new_outcome) >= 0) {
				results_run_set_outcome(
					&run, i, outcome_parse(r.new_outcome));
				index_cell(argv[0], &run.info, dir);
				changed++;
			}
		}
		strbuf_release(&note);
		free(dir);
	}
	if (changed && results_run_write(&run, &err)) {
		error("%s", err.buf);
		failed++;
	}
	if (out) {
		json_object *o = json_object_new_object();

		json_object_object_add(o, "cells", out);
		json_object_object_add(o, "changed",
				       json_object_new_int(changed));
		json_object_object_add(o, "failed",
				       json_object_new_int(failed));
		puts(json_object_to_json_string_ext(
			o, JSON_C_TO_STRING_PRETTY |
				   JSON_C_TO_STRING_NOSLASHESCAPE));
		json_object_put(o);
	} else {
		printf("%zu cell(s), %d outcome(s) changed, %d failed\n",
		       run.info.nr_cells, changed, failed);
	}
	results_close_run(&run);
	strbuf_release(&err);
	return failed ? 1 : 0;
}
