// SPDX-License-Identifier: GPL-2.0
/*
 * The trace's metrics (docs/collectors.md): the tracepoint summary, the
 * hist triggers, and what they say about writes from reclaim, by writer
 * class and device.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cell/collectors-int.h"
#include "collect/io.h"
#include "collect/trace.h"
#include "results/metric.h"
#include "util/json.h"
#include "util/log.h"

/* A headline figure, or null and why in metrics.null_reasons. */
static void headline_at(json_object *m, const char *key, json_object *v,
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

/* A registry row's headline figure, written under the row's own key. */
static void headline(json_object *m, const struct metric *row, json_object *v,
		     const char *why)
{
	headline_at(m, metric_top_key(row), v, why);
}

static json_object *num_or_null(json_object *o, const char *a, const char *b,
				const char *c)
{
	json_object *v = coll_at(coll_at(o, a, NULL), b, c);

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

	if (coll_read_file(dir, file, &sb)) {
		/* The agent's own words for a failed put of this trigger. */
		char *what = NULL;

		for (size_t i = 0; trace_hists[i].event && !what; i++)
			if (!strcmp(trace_hists[i].file, file))
				what = xasprintf("events/%s/trigger",
						 trace_hists[i].event);
		fail = what ? coll_agent_failure(alog, what) : NULL;
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
		coll_number_errors(errs, &ns);
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
	if (!by_class || coll_at(by_class, "reclaim_unresolved", NULL))
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
	json_object *io = coll_at(sum, "io", NULL), *ctx, *wb, *calls[2],
		    *pages[2];
	json_object *miss = coll_at(sum, "missing_events", NULL);
	bool complete = json_object_get_boolean(coll_at(sum, "complete", NULL));
	bool write_ev = !miss || !strstr(json_object_to_json_string(miss),
					 "mm_vmscan_write");
	bool bio_ev = !miss || !strstr(json_object_to_json_string(miss),
				       "block_bio_queue");
	json_object *tw = complete && write_ev ?
				  coll_at(sum, "vmscan_write", NULL) :
				  NULL;
	json_object *tb = complete && bio_ev && fs_dev && io ?
				  coll_at(io, "writers", NULL) :
				  NULL;
	char why[600];

	if (!hb)
		json_object_object_add(errs, "hist_block_bio_queue",
				       json_object_new_string(why_b));
	if (!hw)
		json_object_object_add(errs, "hist_mm_vmscan_write_folio",
				       json_object_new_string(why_w));
	if (hw && coll_at(hw, "reclaim_unresolved", NULL))
		snprintf(
			why_w, sizeof(why_w),
			"some reclaim stacks were cut short of their entry point (io.hist_writepage.reclaim_unresolved)");
	if (hb && coll_at(hb, "reclaim_unresolved", NULL))
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
			 k ? METRIC(RECLAIM_WR_KSWAPD) :
			     METRIC(RECLAIM_WR_DIRECT),
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
		headline_at(m,
			    k ? "vmscan_write_file_kswapd_pages" :
				"vmscan_write_file_direct_pages",
			    pages[k], pw);
		headline_at(m,
			    k ? "vmscan_write_file_kswapd_redirty_pct" :
				"vmscan_write_file_direct_redirty_pct",
			    redirty_pct(calls[k], pages[k]),
			    "no writepage calls, or no page count");
	}
	if (io) {
		io = json_object_get(io);
		json_object_object_del(sum, "io");
		/* A hist with unresolved reclaim stacks undercounts a class. */
		bool use_hist = hb && !coll_at(hb, "reclaim_unresolved", NULL);

		json_object_object_add(io, "counts_source",
				       use_hist ?
					       json_object_new_string("hist") :
				       tb ? json_object_new_string("trace") :
					    NULL);
		if (use_hist) {
			json_object_object_foreach(hb, cls, v)
			{
				json_object *w = coll_at(io, "writers", cls);

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
	ctx = coll_at(sum, "writeback_context", NULL);
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
 * The device whose write bios the io writers count: the test mount's
 * (fsdev.txt's findmnt), or in a cell without one the swap partition
 * (/proc/swaps): counting at every device would count swap on md RAID1
 * three times (md and both mirrors).
 */
static void io_device(const struct strbuf *f, char *dev, size_t dev_len,
		      char *fstype, size_t fs_len, char *swap, size_t swap_len,
		      json_object *errs)
{
	bool mount = strstr(f->buf, "# findmnt") != NULL;

	if (mount && io_fsdev(f->buf, f->len, dev, dev_len, fstype, fs_len))
		return;
	if (!mount &&
	    io_swapdev(f->buf, f->len, dev, dev_len, swap, swap_len)) {
		snprintf(fstype, fs_len, "swap");
		return;
	}
	json_put_str(
		errs, "fsdev",
		mount ? "fsdev.txt names no device for the test mount" :
			"fsdev.txt has no test mount and no swap partition");
}

void coll_trace(const char *dir, json_object *m, json_object *errs,
		const char *alog)
{
	struct strbuf t = STRBUF_INIT, s = STRBUF_INIT, f = STRBUF_INIT;
	struct numsrc ns = NUMSRC_INIT;
	json_object *sum, *miss;
	bool compress, has_stats;
	char fs_dev[24] = "", fstype[32] = "", swap[64] = "";

	if (coll_read_trace(dir, &t, &compress, errs)) {
		json_object *why = coll_at(errs, "file trace.gz", NULL);

		coll_error(errs, "trace", alog, "get trace:",
			   why ? json_object_get_string(why) :
				 "no trace from the guest (no tracefs?)");
		goto out;
	}
	has_stats = !coll_read_file(dir, "trace_stats.txt", &s);
	if (!coll_read_file(dir, "fsdev.txt", &f))
		io_device(&f, fs_dev, sizeof(fs_dev), fstype, sizeof(fstype),
			  swap, sizeof(swap), errs);
	numsrc_add(&ns, "trace", t.buf, t.len);
	if (has_stats)
		numsrc_add(&ns, "trace_stats.txt", s.buf, s.len);
	sum = trace_summary_dev(t.buf, t.len, has_stats ? s.buf : NULL, s.len,
				fs_dev[0] ? fs_dev : NULL, &ns);
	coll_number_errors(errs, &ns);
	json_object_object_add(sum, "raw", json_object_new_string("trace.gz"));
	json_object_object_add(m, "trace", sum);
	miss = coll_at(sum, "missing_events", NULL);
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
	if (swap[0])
		json_put_str(
			coll_at(m, "io", NULL), "dev_source",
			"the swap partition in /proc/swaps (no test filesystem)");
	if (compress)
		coll_compress(dir, "trace");
out:
	strbuf_release(&t);
	strbuf_release(&s);
	strbuf_release(&f);
}
