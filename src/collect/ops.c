// SPDX-License-Identifier: GPL-2.0
/* mmtests-style "Ops" from /proc/vmstat, PSI, and the sampler's series. */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collect/ops.h"
#include "collect/timeseries.h"
#include "util/json.h"
#include "util/log.h"
#include "util/num.h"
#include "util/str.h"

static long long d(const struct kvset *b, const struct kvset *a,
		   const char *name)
{
	return vmstat_counter_delta(b, a, name);
}

/* null when nothing was scanned: no reclaim is not 0% efficient. */
static json_object *ratio(long long a, long long b)
{
	return b ? json_number(100.0 * a / b) : NULL;
}

/* Ops that are a /proc/vmstat counter's delta as it is. */
static const struct {
	const char *key, *counter;
} plain_deltas[] = {
	{ "page_reclaim_immediate", "nr_vmscan_immediate_reclaim" },
	/* KiB submitted through submit_bio(), not sectors (see docs). */
	{ "pgpgin_kib", "pgpgin" },
	{ "pgpgout_kib", "pgpgout" },
	{ "slabs_scanned", "slabs_scanned" },
	{ "direct_inode_steals", "pginodesteal" },
	{ "kswapd_inode_steals", "kswapd_inodesteal" },
	{ "kswapd_low_wmark_hit_quickly", "kswapd_low_wmark_hit_quickly" },
	{ "kswapd_high_wmark_hit_quickly", "kswapd_high_wmark_hit_quickly" },
	{ "pages_dirtied", "nr_dirtied" },
	{ "pages_written", "nr_written" },
	{ "workingset_refault_file", "workingset_refault_file" },
	{ "workingset_refault_anon", "workingset_refault_anon" },
	{ "pgactivate", "pgactivate" },
	{ "pgdeactivate", "pgdeactivate" },
	{ "oom_kills", "oom_kill" },
};

static const char *const zones[] = { "dma", "dma32", "normal", "movable" };

json_object *vmstat_ops_json(const struct kvset *b, const struct kvset *a,
			     double elapsed)
{
	json_object *o = json_object_new_object();
	long long sd = d(b, a, "pgscan_direct"), sk = d(b, a, "pgscan_kswapd");
	long long td = d(b, a, "pgsteal_direct"),
		  tk = d(b, a, "pgsteal_kswapd");
	long long wr = d(b, a, "nr_vmscan_write"), so = d(b, a, "pswpout");
	long long pf = d(b, a, "pgfault"), mf = d(b, a, "pgmajfault");
	json_object *c;

	json_put_int(o, "minor_faults", pf - mf);
	json_put_int(o, "major_faults", mf);
	json_put_int(o, "swap_ins", d(b, a, "pswpin"));
	json_put_int(o, "swap_outs", so);
	json_put_int(o, "allocation_stalls", d(b, a, "allocstall"));
	/* By the zone asked for: user pages are movable, not normal. */
	for (size_t i = 0; i < ARRAY_SIZE(zones); i++) {
		char c[32], k[48];

		snprintf(c, sizeof(c), "allocstall_%s", zones[i]);
		snprintf(k, sizeof(k), "allocation_stalls_%s", zones[i]);
		if (kvset_has(a, c))
			json_put_int(o, k, d(b, a, c));
	}
	json_put_int(o, "fragmentation_stalls", d(b, a, "compact_stall"));
	json_put_int(o, "direct_pages_scanned", sd);
	json_put_int(o, "kswapd_pages_scanned", sk);
	json_put_int(o, "kswapd_pages_reclaimed", tk);
	json_put_int(o, "direct_pages_reclaimed", td);
	json_put(o, "kswapd_efficiency_pct", ratio(tk, sk));
	json_put(o, "direct_efficiency_pct", ratio(td, sd));
	if (elapsed > 0) {
		json_put_num(o, "kswapd_velocity", sk / elapsed);
		json_put_num(o, "direct_velocity", sd / elapsed);
		json_put_num(o, "elapsed_s", elapsed);
	}
	json_put(o, "percentage_direct_scans", ratio(sd, sd + sk));
	json_put_int(o, "direct_scan_throttled",
		     d(b, a, "pgscan_direct_throttle"));
	json_put_int(o, "page_writes_by_reclaim", wr);
	/* As mmtests: file = nr_vmscan_write - pswpout, anon = pswpout. */
	json_put_int(o, "page_writes_file", wr - so);
	json_put_int(o, "page_writes_anon", so);
	for (size_t i = 0; i < ARRAY_SIZE(plain_deltas); i++)
		json_put_int(o, plain_deltas[i].key,
			     d(b, a, plain_deltas[i].counter));
	/*
	 * 6.1's shrink_folio_list() counts NR_VMSCAN_IMMEDIATE for each dirty
	 * file folio that reclaim may not write (a direct reclaimer's, or
	 * kswapd's before PGDAT_DIRTY) and marks for reclaim at writeback end
	 * instead: allowing direct reclaim writeback lowers it by construction.
	 */
	c = json_object_new_object();
	json_put_str(
		c, "page_reclaim_immediate",
		"dirty file folios reclaim declined to write and marked for "
		"reclaim when written back: moves by construction with "
		"direct-reclaim writeback (the revert writes them instead), "
		"not a reclaim quality figure");
	json_put_str(c, "pgpgin_kib",
		     "KiB through submit_bio() (read bios at the top device); "
		     "md member I/O resubmitted below it is not counted");
	json_put(o, "caveats", c);
	return o;
}

json_object *memcg_ops_json(const struct kvset *st)
{
	json_object *o = json_object_new_object();
	long long sd = kvset_get(st, "pgscan_direct", 0),
		  sk = kvset_get(st, "pgscan_kswapd", 0);
	long long td = kvset_get(st, "pgsteal_direct", 0),
		  tk = kvset_get(st, "pgsteal_kswapd", 0);
	static const struct {
		const char *key, *stat;
	} plain[] = {
		{ "direct_pages_scanned", "pgscan_direct" },
		{ "kswapd_pages_scanned", "pgscan_kswapd" },
		{ "direct_pages_reclaimed", "pgsteal_direct" },
		{ "kswapd_pages_reclaimed", "pgsteal_kswapd" },
		{ "major_faults", "pgmajfault" },
		{ "pgrefill", "pgrefill" },
		{ "pgactivate", "pgactivate" },
		{ "pgdeactivate", "pgdeactivate" },
		{ "workingset_refault_file", "workingset_refault_file" },
		{ "workingset_refault_anon", "workingset_refault_anon" },
	};

	if (!kvset_has(st, "pgscan_direct"))
		return NULL;
	for (size_t i = 0; i < ARRAY_SIZE(plain); i++)
		if (kvset_has(st, plain[i].stat))
			json_put_int(o, plain[i].key,
				     kvset_get(st, plain[i].stat, 0));
	/* pgfault counts major faults too, as /proc/vmstat's does. */
	if (kvset_has(st, "pgfault") && kvset_has(st, "pgmajfault"))
		json_put_int(o, "minor_faults",
			     kvset_get(st, "pgfault", 0) -
				     kvset_get(st, "pgmajfault", 0));
	json_put(o, "direct_efficiency_pct", ratio(td, sd));
	json_put(o, "kswapd_efficiency_pct", ratio(tk, sk));
	json_put(o, "percentage_direct_scans", ratio(sd, sd + sk));
	return o;
}

/*
 * "some avg10=0.00 avg60=0.00 avg300=0.00 total=0": averages are
 * percentages, total microseconds; anything else (NaN, inf, overflow)
 * makes the line not a PSI line, and a bad figure is recorded in ns.
 */
static json_object *psi_line(const char *text, size_t len, const char *kind,
			     long long *total, struct numsrc *ns)
{
	static const char *const keys[] = { " avg10=", " avg60=", " avg300=",
					    " total=" };
	const char *p = text, *end = text + len;

	while (p && p < end) {
		const char *nl = memchr(p, '\n', end - p), *q;
		size_t n = (nl ? nl : end) - p;
		double v[4];
		int i;
		json_object *o;

		q = p;
		p = nl ? nl + 1 : end;
		if (!skip_prefix_mem(q, n, kind, &q, &n))
			continue;
		for (i = 0; i < 4; i++) {
			/*
			 * num_double() reads on past the line's end when the
			 * text goes on (a field cut at len, or blanks then a
			 * newline): such a number is not this line's.
			 */
			if (!skip_prefix_mem(q, n, keys[i], &q, &n) ||
			    num_double(ns, q, 0, i < 3 ? 100 : 1e18, &v[i],
				       &q) ||
			    q > (nl ? nl : end))
				break;
			n = (nl ? nl : end) - q;
		}
		if (i < 4)
			continue;
		*total = (long long)v[3];
		o = json_object_new_object();
		json_put_num(o, "avg10", v[0]);
		json_put_num(o, "avg60", v[1]);
		json_put_num(o, "avg300", v[2]);
		json_put_int(o, "total", *total);
		return o;
	}
	return NULL;
}

json_object *psi_json(const char *before, size_t blen, const char *after,
		      size_t alen, struct numsrc *ns)
{
	static const char *const kinds[] = { "some", "full" };
	json_object *o = NULL;

	for (int i = 0; i < 2; i++) {
		long long tb = 0, ta = 0;
		json_object *a = psi_line(after, alen, kinds[i], &ta, ns);
		json_object *b =
			before ? psi_line(before, blen, kinds[i], &tb, ns) :
				 NULL;
		json_object *k;

		if (!a) {
			json_object_put(b);
			continue;
		}
		if (!o)
			o = json_object_new_object();
		k = json_object_new_object();
		if (b) {
			json_put(k, "before", b);
			json_put_int(k, "total_delta_us", ta - tb);
		}
		json_put(k, "after", a);
		json_put(o, kinds[i], k);
	}
	return o;
}

json_object *timeseries_summary(const char *text, size_t len)
{
	struct timeseries ts;
	double min[TS_MAX_COLS], max[TS_MAX_COLS], t0, t1;
	int seen[TS_MAX_COLS] = { 0 };
	json_object *o;

	if (timeseries_parse(text, len, &ts))
		return NULL;
	if (!ts.nrows) {
		timeseries_release(&ts);
		return NULL;
	}
	for (size_t r = 0; r < ts.nrows; r++) {
		for (int i = 0; i < ts.ncols; i++) {
			double v = timeseries_at(&ts, r, i);

			/* -1: the sampler did not find the field. */
			if (v < 0)
				continue;
			if (!seen[i] || v < min[i])
				min[i] = v;
			if (!seen[i] || v > max[i])
				max[i] = v;
			seen[i] = 1;
		}
	}
	t0 = timeseries_at(&ts, 0, 0);
	t1 = timeseries_at(&ts, ts.nrows - 1, 0);
	o = json_object_new_object();
	json_put_int(o, "samples", (long long)ts.nrows);
	json_put_num(o, "duration_s", t1 - t0);
	if (ts.malformed) {
		json_put_int(o, "malformed_rows", (long long)ts.malformed);
		json_put_int(o, "first_malformed_line",
			     (long long)ts.first_bad);
	}
	/* The headline keys first: a column's own keys never replace them. */
	for (int i = 1; i < ts.ncols; i++) {
		if (!seen[i])
			continue;
		if (!strcmp(ts.cols[i], "dirty_kb"))
			json_put_int(o, "peak_dirty_kb", (long long)max[i]);
		else if (!strcmp(ts.cols[i], "writeback_kb"))
			json_put_int(o, "peak_writeback_kb", (long long)max[i]);
		else if (!strcmp(ts.cols[i], "mem_free_kb"))
			json_put_int(o, "min_free_kb", (long long)min[i]);
		else if (!strcmp(ts.cols[i], "mem_available_kb"))
			json_put_int(o, "min_available_kb", (long long)min[i]);
	}
	for (int i = 1; i < ts.ncols; i++) {
		char key[80];

		if (!seen[i])
			continue;
		snprintf(key, sizeof(key), "max_%s", ts.cols[i]);
		if (!json_object_object_get_ex(o, key, NULL))
			json_put_int(o, key, (long long)max[i]);
		snprintf(key, sizeof(key), "min_%s", ts.cols[i]);
		if (!json_object_object_get_ex(o, key, NULL))
			json_put_int(o, key, (long long)min[i]);
	}
	timeseries_release(&ts);
	return o;
}
