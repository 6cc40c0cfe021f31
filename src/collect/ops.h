/* SPDX-License-Identifier: GPL-2.0 */
#ifndef WBLAB_OPS_H
#define WBLAB_OPS_H

#include <json-c/json.h>
#include <stddef.h>

#include "collect/vmstat.h"

/*
 * /proc/vmstat deltas the way mmtests' "Ops" table reports them: direct
 * and kswapd pages scanned and stolen, efficiencies, % direct scans,
 * allocation stalls, reclaim writes file/anon, reclaim immediate,
 * dirtied/written, OOM kills and friends. elapsed_s > 0 adds velocities.
 */
json_object *vmstat_ops_json(const struct kvset *before,
			     const struct kvset *after, double elapsed_s);

/*
 * The same Ops for one memcg from its memory.stat (cumulative since the
 * cgroup was made, at the start of the workload, so already a delta):
 * memcg reclaim is counted here as pgscan/pgsteal_direct, and not in the
 * global /proc/vmstat ones. NULL if st has no pgscan_direct.
 */
json_object *memcg_ops_json(const struct kvset *st);

/*
 * /proc/pressure/{memory,io} before and after: {some: {before: {avg10,
 * avg60, avg300, total}, after: {...}, total_delta_us}, full: ...}.
 * before may be NULL. NULL if after has no "some" line. A line with a
 * figure that is not a number in range is no PSI line, and recorded in ns
 * (util/num.h; may be NULL).
 */
struct numsrc;
json_object *psi_json(const char *before, size_t blen, const char *after,
		      size_t alen, struct numsrc *ns);

/*
 * The agent sampler's timeseries.tsv (header line of column names, then
 * tab-separated samples): {samples, duration_s, peak_dirty_kb,
 * peak_writeback_kb, min_free_kb, min_available_kb (if sampled),
 * max_<col>/min_<col> for all}, and malformed_rows and
 * first_malformed_line when rows were left out (a value out of range, a
 * field missing; a last line without its newline is torn, not counted).
 * NULL without a header and a sample.
 */
json_object *timeseries_summary(const char *text, size_t len);

#endif
