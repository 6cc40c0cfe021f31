// SPDX-License-Identifier: GPL-2.0
/*
 * The metrics read from the stack tracer, the stack probes and the
 * console: stack depths, OOM reports and the tasks blocked when the
 * workload ended.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cell/collectors-int.h"
#include "cell/collectors-plan.h"
#include "collect/blocked.h"
#include "collect/oom.h"
#include "collect/stack.h"
#include "collect/stackprobe.h"
#include "util/json.h"
#include "util/log.h"

/* The probe sites' histograms, absent ones with why, and reclaim writes. */
static void metrics_stack_sites(const char *dir, json_object *st,
				json_object *errs, const char *alog)
{
	char *kev = coll_file_or_null(dir, "kprobe_events");
	char *ksym = coll_file_or_null(dir, "stack_kallsyms.txt");
	json_object *sites = json_object_new_object(), *rw;
	struct strbuf sb = STRBUF_INIT;
	bool compress = false;
	int present = 0;

	for (size_t i = 0; i < nr_stack_sites; i++) {
		const struct stack_site *s = &stack_sites[i];
		char *name = xasprintf("stack_hist.%s", s->name);
		json_object *h = NULL;
		char *why = stack_site_absent(s, kev, ksym, alog);
		struct numsrc ns = NUMSRC_INIT;

		if (!why && !coll_read_file(dir, name, &sb)) {
			numsrc_add(&ns, name, sb.buf, sb.len);
			h = stack_hist_summary(sb.buf, sb.len, &ns);
			coll_number_errors(errs, &ns);
		}
		if (!why && !h)
			why = xstrdup(
				"the probe exists but no histogram came back");
		if (!h) {
			h = json_object_new_object();
			json_object_object_add(h, "absent",
					       json_object_new_string(why));
		} else {
			present++;
		}
		json_object_object_add(
			h, "layer",
			json_object_new_string(stack_layer_name(s->layer)));
		json_object_object_add(h, "symbol",
				       json_object_new_string(s->symbol));
		json_object_object_add(sites, s->name, h);
		free(why);
		free(name);
	}
	json_object_object_add(st, "sites", sites);
	if (!present)
		coll_error(errs, "stack_sites", alog, "kprobe_events",
			   "no kprobe stack site came back");
	if (!coll_read_gz(dir, "stack_probe_trace", &sb, &compress, errs)) {
		struct numsrc ns = NUMSRC_INIT;

		numsrc_add(&ns, "stack_probe_trace", sb.buf, sb.len);
		rw = stack_reclaim_write(sb.buf, sb.len, &ns);
		coll_number_errors(errs, &ns);
		json_object_object_add(
			rw, "raw",
			json_object_new_string("stack_probe_trace.gz"));
		json_object_object_add(st, "reclaim_write", rw);
		if (coll_at(rw, "max_bytes", NULL))
			json_object_object_add(st, "reclaim_write_max_bytes",
					       json_object_get(coll_at(
						       rw, "max_bytes", NULL)));
	}
	if (compress)
		coll_compress(dir, "stack_probe_trace");
	strbuf_release(&sb);
	free(kev);
	free(ksym);
}

void coll_stack(const char *dir, json_object *m, json_object *errs,
		const char *alog, const struct strbuf *console,
		struct numsrc *cns)
{
	struct strbuf t = STRBUF_INIT, s = STRBUF_INIT;
	struct numsrc ns = NUMSRC_INIT;
	json_object *st = json_object_new_object(), *tr = NULL, *con;
	int ht = !coll_read_file(dir, "stack_trace", &t);
	int hs = !coll_read_file(dir, "stack_max_size", &s);

	if (ht)
		numsrc_add(&ns, "stack_trace", t.buf, t.len);
	if (hs)
		numsrc_add(&ns, "stack_max_size", s.buf, s.len);
	if (ht || hs)
		tr = stack_trace_summary(ht ? t.buf : NULL, ht ? t.len : 0,
					 hs ? s.buf : NULL, hs ? s.len : 0,
					 &ns);
	coll_number_errors(errs, &ns);
	if (tr && !coll_read_file(dir, "stack_trace_filter", &s)) {
		json_object *f = json_object_new_array();
		char *save = NULL;

		for (char *l = strtok_r(s.buf, "\n", &save); l;
		     l = strtok_r(NULL, "\n", &save))
			json_object_array_add(f, json_object_new_string(l));
		json_object_object_add(tr, "filter", f);
	}
	if (tr && coll_num(tr, "max_bytes") > 0) {
		json_object_object_add(st, "tracer", tr);
		json_object_object_add(
			m, "stack_max_bytes",
			json_object_new_int64(
				(long long)coll_num(tr, "max_bytes")));
		json_object_object_add(m, "stack_max_fraction",
				       json_number(coll_num(tr, "fraction")));
	} else {
		char *why = coll_agent_failure(alog, STACK_SYSCTL);

		json_object_put(tr);
		free(why);
		if (!why && (ht || hs))
			json_object_object_add(
				errs, "stack_tracer",
				json_object_new_string(
					"the stack tracer recorded no stack"));
		else
			coll_error(
				errs, "stack_tracer", alog, STACK_SYSCTL,
				"no stack_trace from the guest (CONFIG_STACK_TRACER off?)");
	}
	if (console) {
		const char *cb = console->buf, *w;
		size_t cl = console->len, wl;
		bool win = stack_console_window(cb, cl, STACK_MARK_BEGIN,
						STACK_MARK_END, &w, &wl);
		json_object *sq;

		/* Boot and setup set records too: the workload's lines only. */
		con = win ? stack_console_usage(w, wl, cns) :
			    stack_console_usage(cb, cl, cns);
		json_object_object_add(
			con, "window",
			json_object_new_string(
				win ? "workload" :
				      "whole console (no workload markers)"));
		json_object_object_add(st, "console", con);
		sq = stack_console_window(cb, cl, STACK_MARK_SYSRQ, NULL, &w,
					  &wl) ?
			     stack_sysrq_tasks(w, wl, cns) :
			     NULL;
		if (sq)
			json_object_object_add(st, "sysrq", sq);
		else
			json_object_object_add(
				errs, "stack_sysrq",
				json_object_new_string(
					"no SysRq-t task lines with a free stack figure after the "
					"workload (no marker, or CONFIG_DEBUG_STACK_USAGE off)"));
		if (!coll_num(con, "count"))
			json_object_object_add(
				errs, "stack_usage_console",
				json_object_new_string(
					"no 'used greatest stack depth' lines on the console "
					"(CONFIG_DEBUG_STACK_USAGE off, or no new maximum at exit)"));
	}
	metrics_stack_sites(dir, st, errs, alog);
	json_object_object_add(m, "stack", st);
	strbuf_release(&t);
	strbuf_release(&s);
}

/* fio's run step exit status, from "run workload:fio rc=N" in agent.log. */
static int fio_rc(const char *alog)
{
	static const char key[] = "run workload:fio rc=";
	const char *p = alog ? strstr(alog, key) : NULL;
	long long rc;

	return p && !num_ll(NULL, p + strlen(key), 10, INT_MIN, INT_MAX, &rc,
			    NULL) ?
		       (int)rc :
		       -1;
}

/*
 * OOM reports in the workload's window with the file pages they left,
 * time to the first one, and whether fio finished its work anyway.
 */
void coll_oom(json_object *m, const char *alog, const struct strbuf *console,
	      struct numsrc *cns)
{
	const char *w = NULL;
	size_t wl = 0;
	double start = -1;
	json_object *o;

	if (stack_console_window(console->buf, console->len, STACK_MARK_BEGIN,
				 STACK_MARK_END, &w, &wl))
		start = console_line_ts(w, wl);
	else {
		w = console->buf;
		wl = console->len;
	}
	o = oom_facts(w, wl, start, cns);
	json_object_object_add(
		o, "window",
		json_object_new_string(
			start >= 0 ? "workload" :
				     "whole console (no workload markers)"));
	if (alog && strstr(alog, "workload:fio"))
		json_object_object_add(o, "fio_completed",
				       json_object_new_boolean(fio_rc(alog) ==
							       0));
	json_object_object_add(m, "oom", o);
}

/*
 * Who was stuck in the kernel when the workload ended: D-state tasks in
 * the SysRq-t dump the plan takes then. A step that timed out beside
 * kswapd waiting in mempool_alloc reads differently from a slow one.
 */
void coll_blocked(json_object *m, const struct strbuf *console)
{
	const char *w;
	size_t wl;
	json_object *o;

	if (!stack_console_window(console->buf, console->len, STACK_MARK_SYSRQ,
				  NULL, &w, &wl))
		return;
	/* stack_sysrq_tasks() read the same task lines: their numbers too. */
	o = blocked_tasks(w, wl, NULL);
	json_object_object_add(
		o, "when",
		json_object_new_string("SysRq-t at the end of the workload"));
	json_object_object_add(m, "blocked", o);
}
