// SPDX-License-Identifier: GPL-2.0
/*
 * The cell's collectors, host side (docs/collectors.md): fio's summary,
 * /proc/vmstat deltas and mmtests-style Ops, and summaries of what the
 * guest-side plan steps (collectors-plan.c) brought back. A collector that
 * failed in the guest is recorded with the agent's reason in
 * collector_errors.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cell/collectors.h"
#include "cell/collectors-plan.h"
#include "collect/blocked.h"
#include "collect/fio.h"
#include "collect/io.h"
#include "collect/oom.h"
#include "collect/ops.h"
#include "collect/stack.h"
#include "collect/stackprobe.h"
#include "collect/trace.h"
#include "collect/vmstat.h"
#include "util/fs.h"
#include "util/json.h"
#include "util/log.h"
#include "util/num.h"
#include "util/run.h"

static int read_file(const char *dir, const char *name, struct strbuf *sb)
{
	char *path = xasprintf("%s/%s", dir, name);
	int ret;

	ret = read_file_capped(sb, path, CELL_FILE_MAX);
	free(path);
	return ret;
}

/*
 * What the collectors will not read, noted once as "file NAME": a link,
 * a FIFO or device, a directory, a file over CELL_FILE_MAX.
 */
static void refused_files(const char *dir, json_object *errs)
{
	struct dirent **names;
	int n = scandir(dir, &names, NULL, alphasort);

	for (int i = 0; i < n; i++) {
		const char *f = names[i]->d_name;
		char *path = xasprintf("%s/%s", dir, f);
		int fd = f[0] == '.' ? 0 : open_regular(path, CELL_FILE_MAX);

		if (fd < 0) {
			char *k = xasprintf("file %s", f);
			char *v = xasprintf("%s: %s, not read", f,
					    open_regular_strerror(errno));

			json_object_object_add(errs, k,
					       json_object_new_string(v));
			free(k);
			free(v);
		}
		if (fd > 0)
			close(fd);
		free(path);
		free(names[i]);
	}
	free(names);
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

/*
 * The numbers a parser refused (util/num.h): "number FILE" names the
 * first, "FILE:LINE: 'VALUE': why", and how many there were. What they
 * were part of is left out, never read as 0. Releases ns.
 */
static void number_errors(json_object *errs, struct numsrc *ns)
{
	char *key, *why;

	if (!ns->nr_bad)
		goto out;
	key = xasprintf("number %s", ns->first_file ? ns->first_file : "?");
	why = ns->nr_bad > 1 ?
		      xasprintf("%s (%u bad numbers)", ns->first, ns->nr_bad) :
		      xstrdup(ns->first);
	if (!json_object_object_get_ex(errs, key, NULL))
		json_object_object_add(errs, key, json_object_new_string(why));
	free(key);
	free(why);
out:
	numsrc_release(ns);
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

/* Pages fio wrote, summed over its jobs: -1 when no fio job wrote. */
static long long fio_written_pages(json_object *m)
{
	json_object *fio, *job, *wr, *kib;
	long long pages = -1;

	if (!json_object_object_get_ex(m, "fio", &fio) ||
	    !json_object_is_type(fio, json_type_array))
		return -1;
	for (size_t i = 0; i < json_object_array_length(fio); i++) {
		job = json_object_array_get_idx(fio, i);
		if (!json_object_object_get_ex(job, "write", &wr) ||
		    !json_object_object_get_ex(wr, "io_kib", &kib))
			continue;
		pages = (pages < 0 ? 0 : pages) +
			json_object_get_int64(kib) / 4;
	}
	return pages;
}

/*
 * What the workload left in the page cache when its measured window
 * ended (vmstat.after is read right after the last workload step). An
 * A/B comparison of throughput or pgpgout means something only when both
 * sides did the same work: a kernel that leaves a tenth of the file dirty
 * has done less of it (#27: stock 6.1 left 3-9.5k of 65,536 pages
 * unwritten without end_fsync). dirty_share is (dirty + writeback) over
 * the pages fio wrote; the report flags a cell above 1%.
 */
static void metrics_end_of_workload(json_object *m, const struct kvset *after)
{
	json_object *o = json_object_new_object();
	long long dirty = kvset_get(after, "nr_dirty", -1);
	long long wb = kvset_get(after, "nr_writeback", -1);
	long long written = fio_written_pages(m);

	if (dirty < 0 || wb < 0) {
		json_object_put(o);
		return;
	}
	json_object_object_add(o, "dirty_pages", json_object_new_int64(dirty));
	json_object_object_add(o, "writeback_pages", json_object_new_int64(wb));
	if (written > 0) {
		json_object_object_add(o, "written_pages",
				       json_object_new_int64(written));
		json_object_object_add(
			o, "dirty_share",
			json_number((double)(dirty + wb) / written));
	}
	json_object_object_add(m, "end_of_workload", o);
}

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
	metrics_end_of_workload(m, &after);
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
		struct numsrc ns = NUMSRC_INIT;

		if (!read_file(dir, na, &a)) {
			numsrc_add(&ns, na, a.buf, a.len);
			if (hb)
				numsrc_add(&ns, nb, b.buf, b.len);
			o = psi_json(hb ? b.buf : NULL, hb ? b.len : 0, a.buf,
				     a.len, &ns);
			number_errors(errs, &ns);
		}
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

static char *file_or_null(const char *dir, const char *name)
{
	struct strbuf sb = STRBUF_INIT;

	if (read_file(dir, name, &sb)) {
		strbuf_release(&sb);
		return NULL;
	}
	return strbuf_detach(&sb, NULL);
}

static int read_gz(const char *dir, const char *name, struct strbuf *sb,
		   bool *compress, json_object *errs);
static void compress_file(const char *dir, const char *name);

/* The probe sites' histograms, absent ones with why, and reclaim writes. */
static void metrics_stack_sites(const char *dir, json_object *st,
				json_object *errs, const char *alog)
{
	char *kev = file_or_null(dir, "kprobe_events");
	char *ksym = file_or_null(dir, "stack_kallsyms.txt");
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

		if (!why && !read_file(dir, name, &sb)) {
			numsrc_add(&ns, name, sb.buf, sb.len);
			h = stack_hist_summary(sb.buf, sb.len, &ns);
			number_errors(errs, &ns);
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
		collector_error(errs, "stack_sites", alog, "kprobe_events",
				"no kprobe stack site came back");
	if (!read_gz(dir, "stack_probe_trace", &sb, &compress, errs)) {
		struct numsrc ns = NUMSRC_INIT;

		numsrc_add(&ns, "stack_probe_trace", sb.buf, sb.len);
		rw = stack_reclaim_write(sb.buf, sb.len, &ns);
		number_errors(errs, &ns);
		json_object_object_add(
			rw, "raw",
			json_object_new_string("stack_probe_trace.gz"));
		json_object_object_add(st, "reclaim_write", rw);
		if (json_at(rw, "max_bytes", NULL))
			json_object_object_add(st, "reclaim_write_max_bytes",
					       json_object_get(json_at(
						       rw, "max_bytes", NULL)));
	}
	if (compress)
		compress_file(dir, "stack_probe_trace");
	strbuf_release(&sb);
	free(kev);
	free(ksym);
}

static void metrics_stack(const char *dir, json_object *m, json_object *errs,
			  const char *alog, const struct strbuf *console,
			  struct numsrc *cns)
{
	struct strbuf t = STRBUF_INIT, s = STRBUF_INIT;
	struct numsrc ns = NUMSRC_INIT;
	json_object *st = json_object_new_object(), *tr = NULL, *con;
	int ht = !read_file(dir, "stack_trace", &t);
	int hs = !read_file(dir, "stack_max_size", &s);

	if (ht)
		numsrc_add(&ns, "stack_trace", t.buf, t.len);
	if (hs)
		numsrc_add(&ns, "stack_max_size", s.buf, s.len);
	if (ht || hs)
		tr = stack_trace_summary(ht ? t.buf : NULL, ht ? t.len : 0,
					 hs ? s.buf : NULL, hs ? s.len : 0,
					 &ns);
	number_errors(errs, &ns);
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
		json_object_object_add(m, "stack_max_fraction",
				       json_number(json_num(tr, "fraction")));
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
		if (!json_num(con, "count"))
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

/* A headline figure, or null and why in metrics.null_reasons. */
static void headline(json_object *m, const char *key, json_object *v,
		     const char *why)
{
	json_object *r;

	json_object_object_add(m, key, v);
	if (v)
		return;
	if (!json_object_object_get_ex(m, "null_reasons", &r)) {
		r = json_object_new_object();
		json_object_object_add(m, "null_reasons", r);
	}
	json_object_object_add(r, key, json_object_new_string(why));
}

static json_object *num_or_null(json_object *o, const char *a, const char *b,
				const char *c)
{
	json_object *v = json_at(json_at(o, a, NULL), b, c);

	return v && !json_object_is_type(v, json_type_null) ?
		       json_object_new_int64(json_object_get_int64(v)) :
		       NULL;
}

/* The hist file of a trigger, parsed by fn; NULL and why if none. */
static json_object *read_hist(const char *dir, const char *file,
			      const char *fs_dev, bool bios, char *why,
			      size_t why_len, const char *alog,
			      json_object *errs)
{
	struct strbuf sb = STRBUF_INIT;
	struct numsrc ns = NUMSRC_INIT;
	json_object *o = NULL;
	char *fail;

	if (read_file(dir, file, &sb)) {
		/* The agent's own words for a failed put of this trigger. */
		char *what = NULL;

		for (size_t i = 0; trace_hists[i].event && !what; i++)
			if (!strcmp(trace_hists[i].file, file))
				what = xasprintf("events/%s/trigger",
						 trace_hists[i].event);
		fail = what ? agent_failure(alog, what) : NULL;
		snprintf(
			why, why_len, "%s",
			fail ? fail :
			       "no hist file in the cell (an older cell, or CONFIG_HIST_TRIGGERS off)");
		free(fail);
		free(what);
	} else {
		numsrc_add(&ns, file, sb.buf, sb.len);
		o = bios ? io_hist_bios(sb.buf, sb.len, fs_dev, why, why_len,
					&ns) :
			   io_hist_write_folio(sb.buf, sb.len, why, why_len,
					       &ns);
		number_errors(errs, &ns);
	}
	strbuf_release(&sb);
	return o;
}

/* direct + memcg (reclaim in the task that needed memory), or kswapd. */
static json_object *reclaim_sum(json_object *by_class, const char *field,
				bool kswapd)
{
	json_object *d, *mc, *k;

	/* A reclaim stack cut short could be either: no guess. */
	if (!by_class || json_at(by_class, "reclaim_unresolved", NULL))
		return NULL;
	if (kswapd)
		return num_or_null(by_class, "kswapd", field, NULL);
	d = num_or_null(by_class, "direct", field, NULL);
	mc = num_or_null(by_class, "memcg", field, NULL);
	k = d && mc ? json_object_new_int64(json_object_get_int64(d) +
					    json_object_get_int64(mc)) :
		      NULL;
	json_object_put(d);
	json_object_put(mc);
	return k;
}

static json_object *redirty_pct(json_object *calls, json_object *pages)
{
	long long c, p;

	if (!calls || !pages || !(c = json_object_get_int64(calls)))
		return NULL;
	p = json_object_get_int64(pages);
	return json_number(p >= c ? 0 : 100.0 * (c - p) / c);
}

/*
 * Reclaim writes as writepage calls and as real pages, counted by hist
 * triggers where the kernel has them (no loss possible) or by the trace
 * (null when it lost events); metrics.io's writers; writeback context.
 */
static void metrics_io(const char *dir, json_object *m, json_object *sum,
		       json_object *errs, const char *alog, const char *fs_dev,
		       const char *fstype)
{
	char why_b[256] = "", why_w[256] = "";
	json_object *hb = read_hist(dir, "hist.block_bio_queue", fs_dev, true,
				    why_b, sizeof(why_b), alog, errs);
	json_object *hw = read_hist(dir, "hist.mm_vmscan_write_folio", NULL,
				    false, why_w, sizeof(why_w), alog, errs);
	json_object *io = json_at(sum, "io", NULL), *ctx, *wb, *calls[2],
		    *pages[2];
	json_object *miss = json_at(sum, "missing_events", NULL);
	bool complete = json_object_get_boolean(json_at(sum, "complete", NULL));
	bool write_ev = !miss || !strstr(json_object_to_json_string(miss),
					 "mm_vmscan_write");
	bool bio_ev = !miss || !strstr(json_object_to_json_string(miss),
				       "block_bio_queue");
	json_object *tw = complete && write_ev ?
				  json_at(sum, "vmscan_write", NULL) :
				  NULL;
	json_object *tb = complete && bio_ev && fs_dev && io ?
				  json_at(io, "writers", NULL) :
				  NULL;
	char why[600];

	if (!hb)
		json_object_object_add(errs, "hist_block_bio_queue",
				       json_object_new_string(why_b));
	if (!hw)
		json_object_object_add(errs, "hist_mm_vmscan_write_folio",
				       json_object_new_string(why_w));
	if (hw && json_at(hw, "reclaim_unresolved", NULL))
		snprintf(
			why_w, sizeof(why_w),
			"some reclaim stacks were cut short of their entry point (io.hist_writepage.reclaim_unresolved)");
	if (hb && json_at(hb, "reclaim_unresolved", NULL))
		snprintf(
			why_b, sizeof(why_b),
			"some reclaim stacks were cut short of their entry point (io.hist_bios.reclaim_unresolved)");
	snprintf(why, sizeof(why), "hist: %s; trace: %s", why_w,
		 !write_ev ? "the write tracepoint is missing" :
			     "events were lost (metrics.trace.lost_events)");
	for (int k = 0; k < 2; k++) {
		calls[k] = reclaim_sum(hw, "file", k);
		if (!calls[k])
			calls[k] = reclaim_sum(tw, "file", k);
		headline(m,
			 k ? "vmscan_write_file_kswapd" :
			     "vmscan_write_file_direct",
			 calls[k], why);
	}
	snprintf(why, sizeof(why), "hist: %s; trace: %s", why_b,
		 !fs_dev ? "no device for the test mount (fsdev.txt)" :
		 !bio_ev ? "block_bio_queue is missing" :
			   "events were lost (metrics.trace.lost_events)");
	for (int k = 0; k < 2; k++) {
		json_object *anon = reclaim_sum(hw, "anon", k);
		const char *pw = why;

		if (!anon)
			anon = reclaim_sum(tw, "anon", k);
		pages[k] = reclaim_sum(hb, "pages", k);
		if (!pages[k])
			pages[k] = reclaim_sum(tb, "pages", k);
		/*
		 * A bio does not say whether its pages were file or anon: when
		 * the same reclaimers swapped, their pages are not file pages.
		 */
		if (pages[k] && (!anon || json_object_get_int64(anon))) {
			json_object_put(pages[k]);
			pages[k] = NULL;
			pw = anon ? "these reclaimers wrote anonymous folios too (swap, shmem): the block layer cannot tell file pages from them" :
				    "no count of anonymous reclaim writes to rule swap out";
		}
		json_object_put(anon);
		headline(m,
			 k ? "vmscan_write_file_kswapd_pages" :
			     "vmscan_write_file_direct_pages",
			 pages[k], pw);
		headline(m,
			 k ? "vmscan_write_file_kswapd_redirty_pct" :
			     "vmscan_write_file_direct_redirty_pct",
			 redirty_pct(calls[k], pages[k]),
			 "no writepage calls, or no page count");
	}
	if (io) {
		io = json_object_get(io);
		json_object_object_del(sum, "io");
		/* A hist with unresolved reclaim stacks undercounts a class. */
		bool use_hist = hb && !json_at(hb, "reclaim_unresolved", NULL);

		json_object_object_add(io, "counts_source",
				       use_hist ?
					       json_object_new_string("hist") :
				       tb ? json_object_new_string("trace") :
					    NULL);
		if (use_hist) {
			json_object_object_foreach(hb, cls, v)
			{
				json_object *w = json_at(io, "writers", cls);

				if (!w)
					continue;
				json_object_object_add(
					w, "pages",
					num_or_null(hb, cls, "pages", NULL));
				json_object_object_add(
					w, "bios",
					num_or_null(hb, cls, "bios", NULL));
			}
		}
	} else {
		io = json_object_new_object();
	}
	if (fstype[0])
		json_object_object_add(io, "fs_type",
				       json_object_new_string(fstype));
	json_object_object_add(io, "hist_bios", hb);
	json_object_object_add(io, "hist_writepage", hw);
	json_object_object_add(m, "io", io);
	ctx = json_at(sum, "writeback_context", NULL);
	if (ctx) {
		wb = json_object_new_object();
		json_object_object_add(wb, "context", json_object_get(ctx));
		json_object_object_add(wb, "complete",
				       json_object_new_boolean(complete));
		json_object_object_del(sum, "writeback_context");
		json_object_object_add(m, "writeback", wb);
	}
}

/*
 * The raw trace is kept as trace.gz; parse whichever is there. A trace.gz
 * is decompressed only up to CELL_FILE_MAX bytes and for at most
 * CELL_GUNZIP_TIMEOUT seconds (a gzip bomb in a results directory); one
 * that fails is noted as "file NAME.gz".
 */
static int read_gz(const char *dir, const char *name, struct strbuf *sb,
		   bool *compress, json_object *errs)
{
	char *path = xasprintf("%s/%s.gz", dir, name);
	const char *argv[] = { "gzip", "-dc", NULL };
	char in[64];
	struct run_opts o = { .out = sb,
			      .quiet = 1,
			      .in_path = in,
			      .timeout = CELL_GUNZIP_TIMEOUT,
			      .max_capture = CELL_FILE_MAX };
	int fd, ret = -1;

	*compress = !read_file(dir, name, sb);
	if (*compress)
		goto out;
	/* gzip would follow a link: it reads the file we checked instead. */
	fd = open_regular(path, CELL_FILE_MAX);
	if (fd < 0)
		goto out;
	snprintf(in, sizeof(in), "/proc/self/fd/%d", fd);
	ret = run_argv(argv, &o);
	close(fd);
	if (ret) {
		char *k = xasprintf("file %s.gz", name);
		char *v = xasprintf(
			"%s.gz: %s, not read", name,
			ret == 125 ?
				"decompresses to more than the cap of a file" :
			ret == 124 ?
				"decompression timed out" :
				"gzip failed (not gzip data, or cut short)");

		json_object_object_add(errs, k, json_object_new_string(v));
		free(k);
		free(v);
		strbuf_reset(sb);
		ret = -1;
	}
out:
	free(path);
	return *compress ? 0 : ret;
}

static int read_trace(const char *dir, struct strbuf *sb, bool *compress,
		      json_object *errs)
{
	return read_gz(dir, "trace", sb, compress, errs);
}

/*
 * Raw traces are kept compressed (gzip -n, argv) once parsed. Not -f: a
 * results directory may be someone else's, and gzip -f would compress
 * what a link points at; without it gzip refuses links. A stale NAME.gz
 * (only the file just read is current) is removed first.
 */
static void compress_file(const char *dir, const char *name)
{
	char *path = xasprintf("%s/%s", dir, name);
	char *gz = xasprintf("%s.gz", path);
	const char *argv[] = { "gzip", "-n", "--", path, NULL };
	struct run_opts o = { .quiet = 1, .timeout = 300 };

	if ((unlink(gz) < 0 && errno != ENOENT) || run_argv(argv, &o))
		warn("cannot compress %s", path);
	free(gz);
	free(path);
}

static void metrics_trace(const char *dir, json_object *m, json_object *errs,
			  const char *alog)
{
	struct strbuf t = STRBUF_INIT, s = STRBUF_INIT, f = STRBUF_INIT;
	struct numsrc ns = NUMSRC_INIT;
	json_object *sum, *miss;
	bool compress, has_stats;
	char fs_dev[24] = "", fstype[32] = "";

	if (read_trace(dir, &t, &compress, errs)) {
		json_object *why = json_at(errs, "file trace.gz", NULL);

		collector_error(errs, "trace", alog, "get trace:",
				why ? json_object_get_string(why) :
				      "no trace from the guest (no tracefs?)");
		goto out;
	}
	has_stats = !read_file(dir, "trace_stats.txt", &s);
	if (!read_file(dir, "fsdev.txt", &f) &&
	    !io_fsdev(f.buf, f.len, fs_dev, sizeof(fs_dev), fstype,
		      sizeof(fstype)))
		json_object_object_add(
			errs, "fsdev",
			json_object_new_string(
				"fsdev.txt names no device for the test mount"));
	numsrc_add(&ns, "trace", t.buf, t.len);
	if (has_stats)
		numsrc_add(&ns, "trace_stats.txt", s.buf, s.len);
	sum = trace_summary_dev(t.buf, t.len, has_stats ? s.buf : NULL, s.len,
				fs_dev[0] ? fs_dev : NULL, &ns);
	number_errors(errs, &ns);
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
	metrics_io(dir, m, sum, errs, alog, fs_dev[0] ? fs_dev : NULL, fstype);
	if (compress)
		compress_file(dir, "trace");
out:
	strbuf_release(&t);
	strbuf_release(&s);
	strbuf_release(&f);
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
static void metrics_oom(json_object *m, const char *alog,
			const struct strbuf *console, struct numsrc *cns)
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
static void metrics_blocked(json_object *m, const struct strbuf *console)
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

static void metrics_lru_gen(const char *dir, json_object *m, json_object *errs,
			    const char *alog)
{
	struct strbuf sb = STRBUF_INIT;
	json_object *o = json_object_new_object();

	if (!read_file(dir, "lru_gen.enabled", &sb)) {
		strbuf_trim_trailing(&sb);
		json_object_object_add(o, "enabled",
				       json_object_new_string(sb.buf));
	} else {
		char *why = agent_failure(alog, LRU_GEN);

		/* No file: the kernel has no MGLRU at all. */
		json_object_object_add(
			o, "absent",
			json_object_new_string(
				why ? why : "no " LRU_GEN " from the guest"));
		free(why);
	}
	json_object_object_add(m, "lru_gen", o);
	strbuf_release(&sb);
}

/* Rows of timeseries.tsv the summary left out, said where they are. */
static void timeseries_malformed(json_object *ts, json_object *errs)
{
	long long n =
		json_object_get_int64(json_at(ts, "malformed_rows", NULL));
	char *why;

	if (!n)
		return;
	why = xasprintf(
		"timeseries.tsv: %lld malformed row(s) left out, the first at line %lld",
		n,
		(long long)json_object_get_int64(
			json_at(ts, "first_malformed_line", NULL)));
	json_object_object_add(errs, "sampler", json_object_new_string(why));
	free(why);
}

void collectors_metrics(const char *dir, json_object *m)
{
	json_object *errs = json_object_new_object(), *ts = NULL;
	struct strbuf sb = STRBUF_INIT, alog = STRBUF_INIT,
		      conbuf = STRBUF_INIT;
	const struct strbuf *con;
	struct numsrc cns = NUMSRC_INIT;
	const char *al;
	double elapsed = 0;

	refused_files(dir, errs);
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
		timeseries_malformed(ts, errs);
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
		if (!read_file(dir, "memcg.peak", &sb)) {
			struct numsrc ns = NUMSRC_INIT;
			long long peak;

			numsrc_add(&ns, "memcg.peak", sb.buf, sb.len);
			if (!num_ll(&ns, sb.buf, 10, 0, KVSET_VALUE_MAX, &peak,
				    NULL))
				json_object_object_add(
					o, "peak_bytes",
					json_object_new_int64(peak));
			number_errors(errs, &ns);
		}
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
			json_object_object_add(o, "ops", memcg_ops_json(&ev));
		}
		json_object_object_add(m, "memcg", o);
		kvset_free(&ev);
	}
	/* The console, read once: the stack, OOM and blocked-task parsers. */
	con = read_file(dir, "console.log", &conbuf) ? NULL : &conbuf;
	if (con)
		numsrc_add(&cns, "console.log", con->buf, con->len);
	metrics_stack(dir, m, errs, al, con, &cns);
	if (con) {
		metrics_oom(m, al, con, &cns);
		metrics_blocked(m, con);
	}
	number_errors(errs, &cns);
	metrics_lru_gen(dir, m, errs, al);
	metrics_trace(dir, m, errs, al);
	json_object_object_add(m, "collector_errors", errs);
	strbuf_release(&sb);
	strbuf_release(&alog);
	strbuf_release(&conbuf);
}
