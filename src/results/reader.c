// SPDX-License-Identifier: GPL-2.0
/*
 * The results reader (reader.h): run.json and its cells' cell.json, with
 * one set of path, type and size checks for every command.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "results/outcome.h"
#include "results/reader.h"
#include "util/fs.h"
#include "util/json.h"
#include "util/log.h"
#include "util/run.h"

json_object *results_read_json(const char *path, struct strbuf *why)
{
	struct strbuf sb = STRBUF_INIT;
	json_tokener *tok;
	json_object *o = NULL;
	enum json_tokener_error e;

	if (read_file_capped(&sb, path, RESULTS_JSON_MAX)) {
		strbuf_addf(why, "%s: cannot read: %s", path,
			    open_regular_strerror(errno));
		goto out;
	}
	if (json_text_ok(sb.buf, sb.len)) {
		strbuf_addf(
			why,
			"%s: more JSON values than a file of %zu bytes holds (a tree of %zu MiB): not read",
			path, sb.len, json_tree_cost(sb.buf, sb.len) >> 20);
		goto out;
	}
	tok = json_tokener_new();
	o = json_tokener_parse_ex(tok, sb.buf, sb.len);
	e = json_tokener_get_error(tok);
	if (e != json_tokener_success || !o ||
	    !json_object_is_type(o, json_type_object)) {
		size_t end = json_tokener_get_parse_end(tok), line = 1;

		for (size_t i = 0; i < end && i < sb.len; i++)
			line += sb.buf[i] == '\n';
		strbuf_addf(why, "%s:%zu: %s", path, line,
			    e != json_tokener_success ?
				    json_tokener_error_desc(e) :
				    "not a JSON object");
		json_object_put(o);
		o = NULL;
	}
	json_tokener_free(tok);
out:
	strbuf_release(&sb);
	return o;
}

int results_open_run(const char *dir, struct results_run *run,
		     struct strbuf *err)
{
	size_t len = strlen(dir);
	char *path;

	memset(run, 0, sizeof(*run));
	while (len > 1 && dir[len - 1] == '/')
		len--;
	run->dir = xstrndup(dir, len);
	run->real = realpath(run->dir, NULL);
	if (!run->real)
		run->real = xstrdup(run->dir);
	path = xasprintf("%s/run.json", run->dir);
	run->json = results_read_json(path, err);
	if (run->json) {
		run->cells = json_path(run->json, "cells");
		if (!run->cells ||
		    !json_object_is_type(run->cells, json_type_array))
			strbuf_addf(err,
				    "%s: field cells: missing or not an array",
				    path);
	}
	free(path);
	if (run->json && run->cells &&
	    json_object_is_type(run->cells, json_type_array)) {
		run_result_decode(run->json, &run->info);
		return 0;
	}
	results_close_run(run);
	return -1;
}

void results_close_run(struct results_run *run)
{
	run_result_release(&run->info);
	json_object_put(run->json);
	free(run->dir);
	free(run->real);
	memset(run, 0, sizeof(*run));
}

void results_run_set_outcome(struct results_run *run, size_t idx,
			     enum cell_outcome o)
{
	json_object *e = json_object_array_get_idx(run->cells, idx);

	if (!e || idx >= run->info.nr_cells)
		return;
	json_object_object_add(e, "outcome",
			       json_object_new_string(outcome_name(o)));
	free(run->info.cells[idx].outcome);
	run->info.cells[idx].outcome = xstrdup(outcome_name(o));
}

int results_run_write(const struct results_run *run, struct strbuf *err)
{
	char *path = xasprintf("%s/run.json", run->dir);
	int ret = json_write_atomic(path, run->json);

	if (ret)
		strbuf_addf(err, "%s: cannot write", path);
	free(path);
	return ret ? -1 : 0;
}

/* path exists and is a directory, not a link to one. */
static bool real_dir(const char *path)
{
	struct stat st;

	return !lstat(path, &st) && S_ISDIR(st.st_mode);
}

char *results_cell_dir(const char *run_dir, const char *rel, struct strbuf *why)
{
	static const char cells[] = "cells/";
	char *up, *dir = NULL;

	if (strncmp(rel, cells, sizeof(cells) - 1) ||
	    !is_one_component(rel + sizeof(cells) - 1)) {
		strbuf_addf(why, "dir \"%s\" is not cells/NAME", rel);
		return NULL;
	}
	up = xasprintf("%s/cells", run_dir);
	dir = xasprintf("%s/%s", run_dir, rel);
	if (!real_dir(up) || !real_dir(dir)) {
		strbuf_addf(why, "%s: not a directory (a link is not followed)",
			    dir);
		free(dir);
		dir = NULL;
	}
	free(up);
	return dir;
}

bool results_cell_counts(json_object *cell)
{
	json_object *o = json_path(cell, "outcome");

	return o && json_object_is_type(o, json_type_string) &&
	       !outcome_is(json_object_get_string(o), OUTCOME_INFRA_ERROR);
}

/* Fill c from run.json's entry idx: its dir checked, its cell.json read. */
static void read_cell(const struct results_run *run, size_t idx,
		      struct results_cell *c, struct strbuf *why)
{
	json_object *d, *o;
	struct stat st;
	char *path;

	memset(c, 0, sizeof(*c));
	c->idx = idx;
	c->entry = json_object_array_get_idx(run->cells, idx);
	c->info = &run->info.cells[idx];
	d = json_path(c->entry, "dir");
	if (d && json_object_is_type(d, json_type_string))
		c->rel = json_object_get_string(d);
	strbuf_addf(why, "%s/run.json: cells.%zu: ", run->dir, idx);
	if (!c->rel) {
		strbuf_addstr(why, "no dir");
		return;
	}
	c->dir = results_cell_dir(run->dir, c->rel, why);
	if (!c->dir)
		return;
	strbuf_reset(why);
	path = xasprintf("%s/cell.json", c->dir);
	c->json = results_read_json(path, why);
	c->absent = !c->json && lstat(path, &st) && errno == ENOENT;
	o = c->json ? json_path(c->json, "outcome") : NULL;
	if (c->json && (!o || !json_object_is_type(o, json_type_string))) {
		strbuf_addf(why, "%s: field outcome: missing or not a string",
			    path);
		json_object_put(c->json);
		c->json = NULL;
	}
	free(path);
	if (c->json)
		strbuf_reset(why);
	c->counts = c->json && results_cell_counts(c->json);
	c->res = c->json ? cell_result_decode(c->json) : NULL;
}

int results_for_each_cell(const struct results_run *run, results_cell_fn fn,
			  void *data)
{
	size_t n = json_object_array_length(run->cells);
	struct strbuf why = STRBUF_INIT;
	int ret = 0;

	for (size_t i = 0; i < n && !ret; i++) {
		struct results_cell c;

		read_cell(run, i, &c, &why);
		c.why = why.len ? why.buf : NULL;
		ret = fn(run, &c, data);
		json_object_put(c.json);
		cell_result_put(c.res);
		free(c.dir);
		strbuf_reset(&why);
	}
	strbuf_release(&why);
	return ret;
}

int results_outcome_severity(const char *outcome)
{
	/* 0: an infra-error or an unknown name. */
	static const int severity[NR_OUTCOMES] = {
		[OUTCOME_OK] = 1,	   [OUTCOME_WORKLOAD_FAILED] = 2,
		[OUTCOME_BOOT_FAILED] = 3, [OUTCOME_HUNG] = 4,
		[OUTCOME_CRASHED] = 5,
	};
	int o = outcome_parse(outcome);

	return o < 0 ? 0 : severity[o];
}

bool results_cell_worse(const struct cell_result *a,
			const struct cell_result *b)
{
	int sa, sb;

	if (!b)
		return true;
	sa = results_outcome_severity(a->outcome_name);
	sb = results_outcome_severity(b->outcome_name);
	return sa != sb ? sa > sb : a->nr_events > b->nr_events;
}

void results_repro_line(struct strbuf *out, const char *cell_dir, size_t width)
{
	static const char head[] = "reproduce with: wblab repro ";
	size_t n = strspn(cell_dir, "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
				    "abcdefghijklmnopqrstuvwxyz0123456789._/-");
	size_t col = sizeof(head) - 1;

	strbuf_addstr(out, head);
	if (!n || cell_dir[n]) {
		sh_quote(out, cell_dir);
		strbuf_addch(out, '\n');
		return;
	}
	/* Backslash-newline inside an unquoted word: sh joins the lines. */
	for (const char *c = cell_dir; *c; c++) {
		if (width > 1 && col == width - 1) {
			strbuf_addstr(out, "\\\n");
			col = 0;
		}
		strbuf_addch(out, *c);
		col++;
	}
	strbuf_addch(out, '\n');
}
