// SPDX-License-Identifier: GPL-2.0
/*
 * The bisection's log (jobs/bisect-int.h): bisect.json, rewritten after
 * each step, holds the ends' run and every tested commit's run and
 * verdict; --resume loads it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jobs/bisect-int.h"
#include "util/json.h"
#include "util/log.h"

const char *const mark_names[] = { "untested", "good", "bad", "skip" };

bool bisect_event_mode(const struct bctx *b)
{
	return b->o->event != NULL;
}

const char *bisect_what(const struct bctx *b)
{
	if (bisect_event_mode(b))
		return b->o->event;
	return b->o->metric->name;
}

/* ---- the log ---- */

static json_object *step_json(const struct bstep *s)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "commit", json_object_new_string(s->commit));
	json_object_object_add(o, "subject",
			       json_object_new_string(s->subject));
	json_object_object_add(o, "kernel", json_object_new_string(s->kernel));
	json_object_object_add(o, "image", json_object_new_string(s->image));
	json_object_object_add(
		o, "run", json_object_new_string(s->run_dir ? s->run_dir : ""));
	json_object_object_add(o, "mark",
			       json_object_new_string(mark_names[s->mark]));
	json_object_object_add(o, "reason", json_object_new_string(s->reason));
	json_object_object_add(o, "figures",
			       json_object_new_string(s->figures));
	json_object_object_add(o, "built", json_object_new_boolean(s->built));
	json_object_object_add(o, "build_s",
			       json_object_new_double(s->build_s));
	json_object_object_add(o, "order", json_object_new_int(s->order));
	return o;
}

void bisect_save_log(struct bctx *b)
{
	json_object *o = json_object_new_object(), *steps;
	struct bisect_opts *p = b->o;

	json_object_object_add(o, "tree", json_object_new_string(p->tree));
	json_object_object_add(o, "matrix", json_object_new_string(p->matrix));
	json_object_object_add(o, "what",
			       json_object_new_string(bisect_what(b)));
	if (p->metric)
		json_object_object_add(o, "metric",
				       json_object_new_string(p->metric->name));
	if (p->event)
		json_object_object_add(o, "event",
				       json_object_new_string(p->event));
	json_object_object_add(o, "threshold",
			       json_object_new_double(b->threshold));
	json_object_object_add(
		o, "ends_run",
		json_object_new_string(b->ends_run ? b->ends_run : ""));
	json_object_object_add(o, "good", step_json(&b->good));
	json_object_object_add(o, "bad", step_json(&b->bad));
	steps = json_object_new_array();
	for (size_t i = 0; i < b->n; i++)
		if (b->c[i].order)
			json_object_array_add(steps, step_json(&b->c[i]));
	json_object_object_add(o, "steps", steps);
	json_object_object_add(o, "builds", json_object_new_int(b->builds));
	if (json_write_atomic(b->log, o))
		warn("cannot write the bisection log %s: %s", b->log,
		     strerror(errno));
	json_object_put(o);
}

static void step_from_json(json_object *j, struct bstep *s)
{
	json_object *v;
	const char *m;

#define S(f, key)                          \
	snprintf(s->f, sizeof(s->f), "%s", \
		 (v = json_path(j, key)) ? json_object_get_string(v) : "")
	S(subject, "subject");
	S(kernel, "kernel");
	S(image, "image");
	S(reason, "reason");
	S(figures, "figures");
#undef S
	v = json_path(j, "run");
	free(s->run_dir);
	s->run_dir = v && *json_object_get_string(v) ?
			     xstrdup(json_object_get_string(v)) :
			     NULL;
	v = json_path(j, "mark");
	m = v ? json_object_get_string(v) : "untested";
	for (int i = 0; i < 4; i++)
		if (!strcmp(m, mark_names[i]))
			s->mark = i;
	v = json_path(j, "order");
	s->order = v ? json_object_get_int(v) : 0;
	v = json_path(j, "built");
	s->built = v && json_object_get_boolean(v);
	v = json_path(j, "build_s");
	s->build_s = v ? json_object_get_double(v) : 0;
}

/* Load a log: the ends' run and every tested step (their runs into the pool). */
int bisect_load_log(struct bctx *b, const char *path)
{
	json_object *o = json_object_from_file(path), *steps, *v;
	int ret = -1;

	if (!o) {
		error("--resume %s: cannot read the log", path);
		return -1;
	}
	v = json_path(o, "ends_run");
	if (v && *json_object_get_string(v)) {
		b->ends_run = xstrdup(json_object_get_string(v));
		if (pool_load_run(&b->jr.pool, b->ends_run))
			goto out;
	}
	steps = json_path(o, "steps");
	for (size_t i = 0; steps && i < json_object_array_length(steps); i++) {
		json_object *sj = json_object_array_get_idx(steps, i);
		const char *c = json_object_get_string(json_path(sj, "commit"));

		for (size_t k = 0; k < b->n; k++) {
			if (strcmp(b->c[k].commit, c))
				continue;
			step_from_json(sj, &b->c[k]);
			if (b->c[k].run_dir &&
			    pool_load_run(&b->jr.pool, b->c[k].run_dir))
				goto out;
			if (b->c[k].order > b->steps)
				b->steps = b->c[k].order;
		}
	}
	v = json_path(o, "builds");
	b->builds = v ? json_object_get_int(v) : 0;
	info("bisect: resumed from %s (%d steps done)", path, b->steps);
	ret = 0;
out:
	json_object_put(o);
	return ret;
}
