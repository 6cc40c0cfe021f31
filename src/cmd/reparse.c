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

static const char *str(json_object *o, const char *path)
{
	const char *s = json_object_get_string(json_path(o, path));

	return s ? s : "";
}

/* The run's index row for a cell whose outcome changed. */
static void index_cell(const char *run_dir, json_object *run,
		       const char *cell_dir)
{
	char *results = xasprintf("%s/..", run_dir);
	char *db_path = xasprintf("%s/wblab.db", results);
	char *cp = xasprintf("%s/cell.json", cell_dir);
	json_object *c = json_from_file_capped(cp, RESULTS_JSON_MAX);
	int fd = open_regular(db_path, 0);
	sqlite3 *db;

	if (fd >= 0)
		close(fd);
	if (c && fd >= 0 && (db = results_db_open(results))) {
		results_db_cell(
			db, str(run, "run"), str(c, "cell"),
			str(c, "kernel.name"), str(c, "kernel.hash"),
			str(c, "topology.name"), str(c, "workload"),
			json_object_get_int(json_path(c, "rep")),
			str(c, "outcome"), str(c, "timings.started"),
			json_object_get_double(json_path(c, "timings.total_s")),
			json_object_get_double(json_path(c, "timings.boot_s")));
		results_db_close(db);
	}
	json_object_put(c);
	free(cp);
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
	json_object *run, *cells, *out = NULL;
	int failed = 0, changed = 0;
	char *path;

	if (parse_options(argc, argv, "wblab reparse", opts, usage, 0) != 1)
		return usage_error("wblab reparse", "one RUN_DIR is needed");
	path = xasprintf("%s/run.json", argv[0]);
	run = json_from_file_capped(path, RESULTS_JSON_MAX);
	if (!run) {
		error("%s: cannot read run.json: %s", path,
		      json_strerror(errno));
		free(path);
		return 2;
	}
	cells = json_path(run, "cells");
	if (!cells || !json_object_is_type(cells, json_type_array)) {
		error("%s: run.json has no cells array", path);
		free(path);
		json_object_put(run);
		return 2;
	}
	if (json)
		out = json_object_new_array();
	for (size_t i = 0; i < json_object_array_length(cells); i++) {
		json_object *c = json_object_array_get_idx(cells, i);
		struct strbuf note = STRBUF_INIT;
		char *dir = results_cell_dir(argv[0], str(c, "dir"), &note);
		struct reparse_result r;

		if (!dir || cell_reparse(dir, &r, &note)) {
			error("%s: %s", str(c, "id"), note.buf);
			failed++;
		} else {
			if (out)
				json_object_array_add(
					out, cell_json(str(c, "id"), &r));
			else
				say(str(c, "id"), &r);
			if (r.outcome_changed) {
				json_object_object_add(
					c, "outcome",
					json_object_new_string(r.new_outcome));
				index_cell(argv[0], run, dir);
				changed++;
			}
		}
		strbuf_release(&note);
		free(dir);
	}
	if (changed && json_write_atomic(path, run)) {
		error("%s: cannot write", path);
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
		       json_object_array_length(cells), changed, failed);
	}
	free(path);
	json_object_put(run);
	return failed ? 1 : 0;
}
