// SPDX-License-Identifier: GPL-2.0
/*
 * The leaf of the repro unit (repro-int.h): reading cell.json's fields,
 * a cell's files and writing the bundle's, and the signature a rerun is
 * checked against (repro.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cell/repro-int.h"
#include "cell/repro.h"
#include "results/outcome.h"
#include "util/fs.h"
#include "util/json.h"
#include "util/log.h"

/* The wait site most of the blocked tasks share (the first on a tie). */
static const char *common_wait(const struct cell_result *cell)
{
	const char *best = NULL;
	size_t best_n = 0, n = cell->nr_blocked;

	for (size_t i = 0; i < n; i++) {
		const char *w = cell->blocked[i].wait;
		size_t k = 0;

		for (size_t j = 0; w && j < n; j++) {
			const char *v = cell->blocked[j].wait;

			k += v && !strcmp(v, w);
		}
		if (k > best_n) {
			best = w;
			best_n = k;
		}
	}
	return best;
}

static bool has_event(const struct cell_result *cell, const char *kind,
		      const char *title)
{
	for (size_t i = 0; i < cell->nr_events; i++) {
		const char *k = cell->events[i].kind,
			   *t = cell->events[i].title;

		if (k && !strcmp(k, kind) &&
		    (!title || (t && !strcmp(t, title))))
			return true;
	}
	return false;
}

json_object *repro_signature(const struct cell_result *cell)
{
	json_object *sig = json_object_new_object(), *kinds;
	const char *outcome = cell->outcome_name;

	kinds = json_object_new_array();
	json_put_str(sig, "outcome", outcome ? outcome : "");
	for (size_t i = 0; i < cell->nr_events; i++) {
		const char *k = cell->events[i].kind;
		bool seen = false;

		for (size_t j = 0; k && j < json_object_array_length(kinds);
		     j++)
			seen |= !strcmp(
				json_object_get_string(
					json_object_array_get_idx(kinds, j)),
				k);
		if (k && !seen)
			json_object_array_add(kinds, json_object_new_string(k));
		if (k && !strcmp(k, "stall") && cell->events[i].title)
			json_put_str(sig, "stall", cell->events[i].title);
	}
	json_put(sig, "events", kinds);
	/*
	 * A stall's title already names where its tasks waited in both of
	 * the watcher's dumps. The blocked tasks at the end are whatever
	 * stood when the host's timer fired, after that: a debian-6.1 stall
	 * (run 20261205-122512-3250) ended with md0_raid1 in
	 * percpu_ref_switch_to_atomic_sync, and its rerun's stall in the
	 * same mempool_alloc did not count for lack of that one task.
	 */
	if (outcome && !outcome_is(outcome, OUTCOME_OK) &&
	    !json_object_object_get_ex(sig, "stall", NULL) && common_wait(cell))
		json_put_str(sig, "wait", common_wait(cell));
	return sig;
}

bool repro_signature_match(json_object *sig, const struct cell_result *cell,
			   struct strbuf *why)
{
	const char *want = json_str_at(sig, "outcome");
	const char *got = cell->outcome_name;
	json_object *kinds = json_array_at(sig, "events");
	const char *stall = json_str_at(sig, "stall");
	const char *wait = json_str_at(sig, "wait");

	if (!want || !got || strcmp(want, got)) {
		strbuf_addf(why, "outcome %s, not %s", got ? got : "(none)",
			    want ? want : "(none)");
		return false;
	}
	for (size_t i = 0; kinds && i < json_object_array_length(kinds); i++) {
		const char *k = json_object_get_string(
			json_object_array_get_idx(kinds, i));

		if (!has_event(cell, k, NULL)) {
			strbuf_addf(why, "no %s event", k);
			return false;
		}
	}
	/* The stall's title, "stall in SITE, ...", says what it is. */
	if (stall && !has_event(cell, "stall", stall)) {
		strbuf_addf(why, "no %s", stall);
		return false;
	}
	for (size_t i = 0; wait && i < cell->nr_blocked; i++) {
		const char *w = cell->blocked[i].wait;

		if (w && !strcmp(w, wait))
			return true;
	}
	if (wait) {
		strbuf_addf(why, "no task blocked in %s", wait);
		return false;
	}
	return true;
}

void repro_signature_line(json_object *sig, struct strbuf *out)
{
	json_object *kinds = json_array_at(sig, "events");
	const char *o = json_str_at(sig, "outcome");

	strbuf_addstr(out, o ? o : "(no outcome)");
	for (size_t i = 0; kinds && i < json_object_array_length(kinds); i++)
		strbuf_addf(out, "%s%s", i ? ", " : "; events: ",
			    json_object_get_string(
				    json_object_array_get_idx(kinds, i)));
	if (json_str_at(sig, "stall"))
		strbuf_addf(out, "; %s", json_str_at(sig, "stall"));
	if (json_str_at(sig, "wait"))
		strbuf_addf(out, "; tasks blocked in %s",
			    json_str_at(sig, "wait"));
}

/* A file of the cell (capped, regular, no link): 0, 1 absent, -1 refused. */
int repro_read_cell_file(const char *cell_dir, const char *name, size_t max,
			 struct strbuf *sb, struct strbuf *err)
{
	char *p = xasprintf("%s/%s", cell_dir, name);
	int ret = 0;

	if (read_file_capped(sb, p, max)) {
		ret = errno == ENOENT ? 1 : -1;
		if (ret < 0)
			strbuf_addf(err, "%s: %s", p,
				    open_regular_strerror(errno));
	}
	free(p);
	return ret;
}

int repro_write(const char *dir, const char *name, const struct strbuf *sb,
		int mode, struct strbuf *err)
{
	char *p = xasprintf("%s/%s", dir, name);
	int ret = write_file_atomic(p, sb->buf, sb->len, mode);

	if (ret)
		strbuf_addf(err, "cannot write %s: %s", p, strerror(errno));
	free(p);
	return ret;
}
