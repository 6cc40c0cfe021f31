// SPDX-License-Identifier: GPL-2.0
/*
 * The metrics read from the stack tracer, the stack probes and the
 * console: stack depths (each a share of the THREAD_SIZE of the kernel
 * that ran), OOM reports and the tasks blocked when the workload ended.
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
#include "collect/stackwrite.h"
#include "results/metric.h"
#include "util/json.h"
#include "util/kallsyms.h"
#include "util/log.h"

/*
 * The THREAD_SIZE of the kernel that ran: from the guest's /proc/kallsyms
 * (the bounds of init_task's stack, util/kallsyms.h), else x86_64's
 * 16 KiB, said so. {bytes, source}.
 */
static long cell_thread_size(const char *dir, json_object *st)
{
	char *ksym = coll_file_or_null(dir, "stack_kallsyms.txt");
	long ts = ksym ? ksyms_thread_size(ksym, strlen(ksym)) : 0;
	json_object *o = json_object_new_object();

	bool map = ksym && !strncmp(ksym, "# System.map", 12);

	json_put_str(
		o, "source",
		!ts ? "assumed: x86_64 without KASAN (stack_kallsyms.txt has no bounds of init_task's stack)" :
		map ? "the kernel's System.map (the bounds of init_task's stack)" :
		      "guest /proc/kallsyms (the bounds of init_task's stack)");
	json_put_int(o, "bytes", stack_thread_size(ts));
	json_put(st, "thread_size", o);
	free(ksym);
	return stack_thread_size(ts);
}

/* The stack tracer's frame size for the site, if its deepest chain has it. */
static void entry_frame(json_object *rw, json_object *tracer)
{
	json_object *chain = coll_at(tracer, "chain", NULL);
	const char *site = json_object_get_string(coll_at(rw, "site", NULL));
	const char *sym = NULL;

	for (size_t i = 0; site && i < nr_stack_sites; i++)
		if (!strcmp(stack_sites[i].name, site))
			sym = stack_sites[i].symbol;
	for (size_t i = 0; sym && i < json_object_array_length(chain); i++) {
		json_object *f = json_object_array_get_idx(chain, i);
		const char *loc =
			json_object_get_string(coll_at(f, "location", NULL));
		size_t n = strlen(sym);

		if (loc && !strncmp(loc, sym, n) && loc[n] == '+') {
			json_put(rw, "entry_frame_bytes",
				 json_object_get(coll_at(f, "size", NULL)));
			return;
		}
	}
}

/* The deepest reclaim write from the instances' traces (stackwrite.h). */
static void metrics_reclaim_write(const char *dir, json_object *st, long ts,
				  json_object *errs)
{
	struct strbuf tr = STRBUF_INIT, leaf = STRBUF_INIT, stats = STRBUF_INIT;
	struct numsrc ns = NUMSRC_INIT;
	struct stack_rw_input in = { .thread_size = ts, .nums = &ns };
	bool compress = false, compress_leaf = false;
	json_object *rw;

	if (coll_read_gz(dir, "stack_probe_trace", &tr, &compress, errs))
		goto out;
	in.trace = tr.buf;
	in.trace_len = tr.len;
	numsrc_add(&ns, "stack_probe_trace", tr.buf, tr.len);
	if (!coll_read_gz(dir, "stack_leaf_trace", &leaf, &compress_leaf,
			  errs)) {
		in.leaf = leaf.buf;
		in.leaf_len = leaf.len;
		numsrc_add(&ns, "stack_leaf_trace", leaf.buf, leaf.len);
	}
	if (!coll_read_file(dir, "stack_trace_stats.txt", &stats)) {
		in.stats = stats.buf;
		in.stats_len = stats.len;
		numsrc_add(&ns, "stack_trace_stats.txt", stats.buf, stats.len);
	}
	rw = stack_reclaim_write(&in);
	coll_number_errors(errs, &ns);
	json_put_str(rw, "raw", "stack_probe_trace.gz");
	if (coll_at(st, "tracer", NULL))
		entry_frame(rw, coll_at(st, "tracer", NULL));
	json_put(st, "reclaim_write", rw);
	if (coll_at(rw, "max_bytes", NULL))
		json_put(st, "reclaim_write_max_bytes",
			 json_object_get(coll_at(rw, "max_bytes", NULL)));
out:
	if (compress)
		coll_compress(dir, "stack_probe_trace");
	if (compress_leaf)
		coll_compress(dir, "stack_leaf_trace");
	strbuf_release(&tr);
	strbuf_release(&leaf);
	strbuf_release(&stats);
}

/* The probe sites' histograms, absent ones with why, and reclaim writes. */
static void metrics_stack_sites(const char *dir, json_object *st,
				json_object *errs, const char *alog, long ts)
{
	char *kev = coll_file_or_null(dir, "kprobe_events");
	char *ksym = coll_file_or_null(dir, "stack_kallsyms.txt");
	char *plan = coll_file_or_null(dir, "plan.txt");
	json_object *sites = json_object_new_object();
	struct strbuf sb = STRBUF_INIT;
	int present = 0;

	for (size_t i = 0; i < nr_stack_sites; i++) {
		const struct stack_site *s = &stack_sites[i];
		json_object *h = NULL;
		struct numsrc ns = NUMSRC_INIT;
		char *name, *why;

		/* The leaves have no hist: their deep samples are in rw. */
		if (s->layer == STACK_LAYER_LEAF)
			continue;
		name = xasprintf("stack_hist.%s", s->name);
		why = stack_site_absent(s, kev, ksym, alog, plan);
		if (!why && !coll_read_file(dir, name, &sb)) {
			numsrc_add(&ns, name, sb.buf, sb.len);
			h = stack_hist_summary(sb.buf, sb.len, ts, &ns);
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
	metrics_reclaim_write(dir, st, ts, errs);
	strbuf_release(&sb);
	free(kev);
	free(ksym);
	free(plan);
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
	long ts = cell_thread_size(dir, st);

	if (ht)
		numsrc_add(&ns, "stack_trace", t.buf, t.len);
	if (hs)
		numsrc_add(&ns, "stack_max_size", s.buf, s.len);
	if (ht || hs)
		tr = stack_trace_summary(ht ? t.buf : NULL, ht ? t.len : 0,
					 hs ? s.buf : NULL, hs ? s.len : 0, ts,
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
		metric_put(m, METRIC(STACK_MAX),
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
		con = win ? stack_console_usage(w, wl, ts, cns) :
			    stack_console_usage(cb, cl, ts, cns);
		json_object_object_add(
			con, "window",
			json_object_new_string(
				win ? "workload" :
				      "whole console (no workload markers)"));
		json_object_object_add(st, "console", con);
		sq = stack_console_window(cb, cl, STACK_MARK_SYSRQ, NULL, &w,
					  &wl) ?
			     stack_sysrq_tasks(w, wl, ts, cns) :
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
	metrics_stack_sites(dir, st, errs, alog, ts);
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
