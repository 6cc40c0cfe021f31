// SPDX-License-Identifier: GPL-2.0
/*
 * wblab reparse's engine: one cell.json re-derived in place from its
 * cell's files (see reparse.h for what is kept and what is decided again).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cell/collectors.h"
#include "cell/outcome.h"
#include "cell/reparse.h"
#include "cell/results.h"
#include "collect/console.h"
#include "results/cell.h"
#include "results/outcome.h"
#include "util/fs.h"
#include "util/json.h"
#include "util/log.h"
#include "util/str.h"

/* The console facts of a cell.json's recorded events. */
static void old_console_facts(const struct cell_result *c, struct cell_facts *f)
{
	struct console_report con = { 0 };

	con.kind = str_or(c->console_kind, "");
	con.events = xzalloc((c->nr_events ? c->nr_events : 1) *
			     sizeof(*con.events));
	for (size_t i = 0; i < c->nr_events; i++) {
		con.events[i].kind = str_or(c->events[i].kind, "");
		con.events[i].title = (char *)str_or(c->events[i].title, "");
	}
	con.nr_events = c->nr_events;
	cell_facts_console(f, &con);
	free(con.events);
}

/* "no exit from the agent before the PHASE timeout" -> PHASE */
static void timeout_phase(const char *reason, char *buf, size_t len)
{
	static const char pre[] = "no exit from the agent before the ";
	const char *e;

	buf[0] = '\0';
	if (strncmp(reason, pre, sizeof(pre) - 1))
		return;
	reason += sizeof(pre) - 1;
	e = strstr(reason, " timeout");
	snprintf(buf, len, "%.*s", (int)(e ? e - reason : 0), reason);
}

/* What cell_outcome() was told, as far as cell.json recorded it. */
static void recorded_facts(const struct cell_result *c, struct cell_facts *f,
			   char *phase, size_t len)
{
	const char *reason = str_or(c->reason, "");

	f->hello =
		!outcome_is(str_or(c->outcome_name, ""), OUTCOME_BOOT_FAILED);
	f->boot_timeout = strstr(reason, "before the boot timeout") != NULL;
	timeout_phase(reason, phase, len);
	f->run_timeout = phase[0] != '\0';
	f->timeout_phase = phase;
	f->agent_status = str_or(c->agent.status, "");
	f->exited = f->agent_status[0] != '\0';
	f->fail_phase = str_or(c->agent.phase, "");
	f->fail_label = str_or(c->agent.label, "");
	f->fail_rc = str_or(c->agent.rc, "");
}

/* Errors only the live cell could see: keep them across a reparse. */
static void keep_live_errors(const struct cell_result *c, json_object *m)
{
	json_object *ne = json_path(m, "collector_errors");

	if (!ne)
		return;
	if (c->err_console)
		json_put_str(ne, "console", c->err_console);
	if (c->err_channel)
		json_put_str(ne, "channel", c->err_channel);
}

static void decide_again(json_object *cell, const struct cell_result *c,
			 struct console_report *con, struct reparse_result *r)
{
	struct cell_facts f = { 0 };
	struct strbuf reason = STRBUF_INIT;
	char phase[32];
	enum cell_outcome o;

	recorded_facts(c, &f, phase, sizeof(phase));
	cell_facts_console(&f, con);
	o = cell_outcome(&f, &reason);
	snprintf(r->new_outcome, sizeof(r->new_outcome), "%s", outcome_name(o));
	if (strcmp(r->new_outcome, r->old_outcome)) {
		r->outcome_changed = true;
		json_object_object_add(cell, "outcome",
				       json_object_new_string(r->new_outcome));
		json_object_object_add(cell, "outcome_reason",
				       json_object_new_string(reason.buf));
	}
	strbuf_release(&reason);
}

static json_object *reparsed_json(const struct reparse_result *r,
				  const char *old_kind)
{
	json_object *o = json_object_new_object();
	char now[32];

	now_iso8601(now, sizeof(now));
	json_object_object_add(o, "at", json_object_new_string(now));
	json_object_object_add(o, "console_verdict_changed",
			       json_object_new_boolean(r->console_changed));
	json_object_object_add(o, "console_kind_was",
			       json_object_new_string(old_kind));
	json_object_object_add(o, "outcome_was",
			       json_object_new_string(r->old_outcome));
	return o;
}

int cell_reparse(const char *dir, struct reparse_result *r, struct strbuf *note)
{
	char *path = xasprintf("%s/cell.json", dir);
	char *con_path = xasprintf("%s/console.log", dir);
	json_object *cell = json_from_file_capped(path, RESULTS_JSON_MAX);
	json_object *cj, *ev, *files, *m;
	struct cell_result *c = NULL;
	struct cell_facts was = { 0 }, now = { 0 };
	struct console_report con;
	char *old_kind = NULL;
	int ret = -1, fd = -1;

	memset(r, 0, sizeof(*r));
	console_report_init(&con);
	if (!cell) {
		strbuf_addf(note, "%s: cannot read cell.json: %s", path,
			    json_strerror(errno));
		goto out;
	}
	/* The streaming parser is bounded in memory; the size bounds time. */
	fd = open_regular(con_path, CELL_FILE_MAX);
	if (fd < 0 || console_parse_fd(fd, &con) < 0) {
		strbuf_addf(note, "%s: cannot read the console: %s", con_path,
			    open_regular_strerror(errno));
		goto out;
	}
	c = cell_result_decode(cell);
	snprintf(r->old_outcome, sizeof(r->old_outcome), "%s",
		 str_or(c->outcome_name, ""));
	snprintf(r->new_outcome, sizeof(r->new_outcome), "%s", r->old_outcome);
	old_kind = xstrdup(str_or(c->console_kind, ""));
	old_console_facts(c, &was);
	cell_facts_console(&now, &con);
	r->kind_changed = strcmp(old_kind, con.kind) != 0;
	r->console_changed = was.console_crash != now.console_crash ||
			     was.console_hang != now.console_hang;
	/* A host fault is not the console's to overrule. */
	if (r->console_changed &&
	    !outcome_is(r->old_outcome, OUTCOME_INFRA_ERROR))
		decide_again(cell, c, &con, r);

	m = results_metrics(dir);
	keep_live_errors(c, m);
	json_object_object_add(cell, "metrics", m);
	json_object_object_add(cell, "console_kind",
			       json_object_new_string(con.kind));
	cj = console_report_to_json(&con, "console.log");
	ev = cj ? json_path(cj, "events") : NULL;
	json_object_object_add(cell, "events",
			       ev ? json_object_get(ev) :
				    json_object_new_array());
	json_object_put(cj);
	files = json_object_new_array();
	results_list_files(dir, files);
	json_object_object_add(cell, "files", files);
	json_object_object_add(cell, "reparsed", reparsed_json(r, old_kind));
	json_make_strict(cell);
	ret = json_write_atomic(path, cell);
	if (ret)
		strbuf_addf(note, "%s: cannot write", path);
out:
	if (fd >= 0)
		close(fd);
	console_report_free(&con);
	cell_result_put(c);
	json_object_put(cell);
	free(old_kind);
	free(path);
	free(con_path);
	return ret;
}
