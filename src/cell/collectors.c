// SPDX-License-Identifier: GPL-2.0
/*
 * The cell's collectors, host side (docs/collectors.md): fio's summary,
 * /proc/vmstat deltas and mmtests-style Ops, and summaries of what the
 * guest-side plan steps (collectors-plan.c) brought back. A collector that
 * failed in the guest is recorded with the agent's reason in
 * collector_errors.
 */
#include <stdlib.h>
#include <string.h>

#include "cell/collectors.h"
#include "cell/collectors-plan.h"
#include "collect/fio.h"
#include "collect/ops.h"
#include "collect/stack.h"
#include "collect/trace.h"
#include "collect/vmstat.h"
#include "util/fs.h"
#include "util/log.h"
#include "util/run.h"

static int read_file(const char *dir, const char *name, struct strbuf *sb)
{
	char *path = xasprintf("%s/%s", dir, name);
	int ret;

	strbuf_reset(sb);
	ret = strbuf_read_file(sb, path);
	free(path);
	return ret;
}

static int read_kv(const char *dir, const char *name, struct kvset *set)
{
	struct strbuf sb = STRBUF_INIT;
	int ret = read_file(dir, name, &sb);

	if (!ret)
		kvset_parse(set, sb.buf, sb.len);
	strbuf_release(&sb);
	return ret;
}

/* The agent's reason for a failed put or get on path, from agent.log. */
static char *agent_failure(const char *agent_log, const char *what)
{
	const char *p = agent_log ? strstr(agent_log, what) : NULL;
	const char *nl;

	if (!p)
		return NULL;
	while (p > agent_log && p[-1] != '\n')
		p--;
	nl = strchr(p, '\n');
	return xstrndup(p, nl ? (size_t)(nl - p) : strlen(p));
}

static void collector_error(json_object *errs, const char *name,
			    const char *agent_log, const char *what,
			    const char *fallback)
{
	char *why = agent_failure(agent_log, what);

	json_object_object_add(errs, name,
			       json_object_new_string(why ? why : fallback));
	free(why);
}

static double json_num(json_object *o, const char *key)
{
	json_object *v;

	return o && json_object_object_get_ex(o, key, &v) ?
		       json_object_get_double(v) :
		       0;
}

static json_object *json_at(json_object *o, const char *a, const char *b)
{
	json_object *v = NULL, *w = NULL;

	if (!json_object_object_get_ex(o, a, &v))
		return NULL;
	return b && json_object_object_get_ex(v, b, &w) ? w : b ? NULL : v;
}

static void metrics_fio(const char *dir, json_object *m, json_object *errs)
{
	struct strbuf sb = STRBUF_INIT;
	char err[128];

	if (!read_file(dir, "fio.json", &sb)) {
		json_object *fio =
			fio_summary(sb.buf, sb.len, err, sizeof(err));

		if (fio)
			json_object_object_add(m, "fio", fio);
		else
			json_object_object_add(m, "fio_error",
					       json_object_new_string(err));
	}
	strbuf_release(&sb);
}

/* Headline vmstat figures, at the top of metrics (allocstall sums its zones). */
static const char *const top_deltas[] = { "allocstall", "nr_vmscan_write",
					  "oom_kill" };

static void metrics_vmstat(const char *dir, json_object *m, double elapsed)
{
	struct kvset before, after;

	if (read_kv(dir, "vmstat.before", &before))
		return;
	if (read_kv(dir, "vmstat.after", &after)) {
		kvset_free(&before);
		return;
	}
	json_object_object_add(m, "vmstat_delta",
			       vmstat_delta_json(&before, &after));
	json_object_object_add(m, "ops",
			       vmstat_ops_json(&before, &after, elapsed));
	for (size_t i = 0; i < ARRAY_SIZE(top_deltas); i++)
		json_object_object_add(
			m, top_deltas[i],
			json_object_new_int64(vmstat_counter_delta(
				&before, &after, top_deltas[i])));
	kvset_free(&before);
	kvset_free(&after);
}

static void metrics_psi(const char *dir, json_object *m, json_object *errs,
			const char *alog)
{
	static const char *const res[] = { "memory", "io" };
	struct strbuf b = STRBUF_INIT, a = STRBUF_INIT;
	json_object *psi = json_object_new_object();

	for (int i = 0; i < 2; i++) {
		char *nb = xasprintf("pressure.%s.before", res[i]);
		char *na = xasprintf("pressure.%s.after", res[i]);
		int hb = !read_file(dir, nb, &b);
		json_object *o = NULL;

		if (!read_file(dir, na, &a))
			o = psi_json(hb ? b.buf : NULL, hb ? b.len : 0, a.buf,
				     a.len);
		if (o) {
			json_object_object_add(psi, res[i], o);
		} else {
			char *what = xasprintf("/proc/pressure/%s", res[i]);
			char *key = xasprintf("psi_%s", res[i]);

			collector_error(
				errs, key, alog, what,
				"no PSI from the guest (CONFIG_PSI off or psi=0?)");
			free(what);
			free(key);
		}
		free(nb);
		free(na);
	}
	if (json_object_object_length(psi))
		json_object_object_add(m, "psi", psi);
	else
		json_object_put(psi);
	strbuf_release(&a);
	strbuf_release(&b);
}

static void metrics_stack(const char *dir, json_object *m, json_object *errs,
			  const char *alog)
{
	struct strbuf t = STRBUF_INIT, s = STRBUF_INIT;
	json_object *st = json_object_new_object(), *tr = NULL, *con;
	int ht = !read_file(dir, "stack_trace", &t);
	int hs = !read_file(dir, "stack_max_size", &s);

	if (ht || hs)
		tr = stack_trace_summary(ht ? t.buf : NULL, ht ? t.len : 0,
					 hs ? s.buf : NULL, hs ? s.len : 0);
	if (tr && !read_file(dir, "stack_trace_filter", &s)) {
		json_object *f = json_object_new_array();
		char *save = NULL;

		for (char *l = strtok_r(s.buf, "\n", &save); l;
		     l = strtok_r(NULL, "\n", &save))
			json_object_array_add(f, json_object_new_string(l));
		json_object_object_add(tr, "filter", f);
	}
	if (tr && json_num(tr, "max_bytes") > 0) {
		json_object_object_add(st, "tracer", tr);
		json_object_object_add(
			m, "stack_max_bytes",
			json_object_new_int64(
				(long long)json_num(tr, "max_bytes")));
		json_object_object_add(
			m, "stack_max_fraction",
			json_object_new_double(json_num(tr, "fraction")));
	} else {
		char *why = agent_failure(alog, STACK_SYSCTL);

		json_object_put(tr);
		free(why);
		if (!why && (ht || hs))
			json_object_object_add(
				errs, "stack_tracer",
				json_object_new_string(
					"the stack tracer recorded no stack"));
		else
			collector_error(
				errs, "stack_tracer", alog, STACK_SYSCTL,
				"no stack_trace from the guest (CONFIG_STACK_TRACER off?)");
	}
	if (!read_file(dir, "console.log", &t)) {
		con = stack_console_usage(t.buf, t.len);
		json_object_object_add(st, "console", con);
		if (!json_num(con, "count"))
			json_object_object_add(
				errs, "stack_usage_console",
				json_object_new_string(
					"no 'used greatest stack depth' lines on the console "
					"(CONFIG_DEBUG_STACK_USAGE off, or no new maximum at exit)"));
	}
	json_object_object_add(m, "stack", st);
	strbuf_release(&t);
	strbuf_release(&s);
}

/* The raw trace is kept as trace.gz; parse whichever is there. */
static int read_trace(const char *dir, struct strbuf *sb, bool *compress)
{
	char *path = xasprintf("%s/trace.gz", dir);
	const char *argv[] = { "gzip", "-dc", path, NULL };
	int ret = 0;

	*compress = !read_file(dir, "trace", sb);
	if (!*compress) {
		strbuf_reset(sb);
		ret = path_exists(path) ? run_capture(argv, sb, NULL) : -1;
	}
	free(path);
	return ret;
}

static void metrics_trace(const char *dir, json_object *m, json_object *errs,
			  const char *alog)
{
	struct strbuf t = STRBUF_INIT, s = STRBUF_INIT;
	json_object *sum, *miss, *w;
	bool compress, has_stats;

	if (read_trace(dir, &t, &compress)) {
		collector_error(errs, "trace", alog, "get trace:",
				"no trace from the guest (no tracefs?)");
		goto out;
	}
	has_stats = !read_file(dir, "trace_stats.txt", &s);
	sum = trace_summary(t.buf, t.len, has_stats ? s.buf : NULL, s.len);
	json_object_object_add(sum, "raw", json_object_new_string("trace.gz"));
	json_object_object_add(m, "trace", sum);
	miss = json_at(sum, "missing_events", NULL);
	if (miss && json_object_array_length(miss)) {
		struct strbuf e = STRBUF_INIT;

		strbuf_addstr(&e, "tracepoints missing on this kernel:");
		for (size_t i = 0; i < json_object_array_length(miss); i++)
			strbuf_addf(
				&e, " %s",
				json_object_get_string(
					json_object_array_get_idx(miss, i)));
		json_object_object_add(errs, "trace_events",
				       json_object_new_string(e.buf));
		strbuf_release(&e);
	}
	/* Only when the write event was on: absent means not measured. */
	if (!miss || json_object_array_length(miss) == 0 ||
	    !strstr(json_object_to_json_string(miss), "mm_vmscan_write")) {
		w = json_at(sum, "vmscan_write", "direct");
		json_object_object_add(
			m, "vmscan_write_file_direct",
			json_object_new_int64((long long)json_num(w, "file")));
		w = json_at(sum, "vmscan_write", "kswapd");
		json_object_object_add(
			m, "vmscan_write_file_kswapd",
			json_object_new_int64((long long)json_num(w, "file")));
	}
	if (compress) {
		char *path = xasprintf("%s/trace", dir);
		const char *argv[] = { "gzip", "-f", "-n", path, NULL };
		struct run_opts o = { .quiet = 1, .timeout = 300 };

		if (run_argv(argv, &o))
			warn("cannot compress %s", path);
		free(path);
	}
out:
	strbuf_release(&t);
	strbuf_release(&s);
}

/* "get NAME: capped at N bytes": the agent sent only the head of NAME. */
static void capped_files(const char *alog, json_object *errs)
{
	static const char key[] = ": capped at ";
	const char *p = alog;

	for (int n = 0; p && (p = strstr(p, key)) && n < 64; n++) {
		const char *s = p, *nl = strchr(p, '\n');
		char *k, *v;

		while (s > alog && s[-1] != ' ')
			s--;
		k = xasprintf("file %.*s", (int)(p - s), s);
		v = xstrndup(s, nl ? (size_t)(nl - s) : strlen(s));
		json_object_object_add(errs, k, json_object_new_string(v));
		free(k);
		free(v);
		p += sizeof(key) - 1;
	}
}

void collectors_metrics(const char *dir, json_object *m)
{
	json_object *errs = json_object_new_object(), *ts = NULL;
	struct strbuf sb = STRBUF_INIT, alog = STRBUF_INIT;
	const char *al;
	double elapsed = 0;

	al = read_file(dir, "agent.log", &alog) ? NULL : alog.buf;
	capped_files(al, errs);
	metrics_fio(dir, m, errs);
	if (!read_file(dir, "timeseries.tsv", &sb))
		ts = timeseries_summary(sb.buf, sb.len);
	if (ts) {
		static const char *const keys[] = { "peak_dirty_kb",
						    "peak_writeback_kb",
						    "min_free_kb",
						    "min_available_kb" };

		elapsed = json_num(ts, "duration_s");
		for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
			json_object *v;

			if (json_object_object_get_ex(ts, keys[i], &v))
				json_object_object_add(m, keys[i],
						       json_object_get(v));
		}
		json_object_object_add(m, "timeseries", ts);
	} else {
		json_object_object_add(
			errs, "sampler",
			json_object_new_string("no samples in timeseries.tsv"));
	}
	metrics_vmstat(dir, m, elapsed);
	metrics_psi(dir, m, errs, al);
	if (!read_file(dir, "memcg.events", &sb)) {
		struct kvset ev;
		json_object *o = json_object_new_object();

		kvset_parse(&ev, sb.buf, sb.len);
		for (size_t i = 0; i < ev.n; i++)
			json_object_object_add(
				o, ev.v[i].name,
				json_object_new_int64(ev.v[i].value));
		if (!read_file(dir, "memcg.peak", &sb))
			json_object_object_add(o, "peak_bytes",
					       json_object_new_int64(strtoll(
						       sb.buf, NULL, 10)));
		/* Global vmstat leaves memcg reclaim out: memory.stat has it. */
		if (!read_file(dir, "memcg.stat", &sb)) {
			json_object *st = json_object_new_object();

			kvset_free(&ev);
			kvset_parse(&ev, sb.buf, sb.len);
			for (size_t i = 0; i < ev.n; i++)
				json_object_object_add(
					st, ev.v[i].name,
					json_object_new_int64(ev.v[i].value));
			json_object_object_add(o, "stat", st);
		}
		json_object_object_add(m, "memcg", o);
		kvset_free(&ev);
	}
	metrics_stack(dir, m, errs, al);
	metrics_trace(dir, m, errs, al);
	json_object_object_add(m, "collector_errors", errs);
	strbuf_release(&sb);
	strbuf_release(&alog);
}
