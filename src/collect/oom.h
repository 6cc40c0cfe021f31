/* SPDX-License-Identifier: GPL-2.0 */
#ifndef WBLAB_OOM_H
#define WBLAB_OOM_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>

struct numsrc;

/*
 * The file pages each OOM report on the console says were still there
 * (docs/collectors.md): a global report's Mem-Info line "unevictable:N
 * dirty:N writeback:N" and "active_file:N inactive_file:N" (pages), a
 * memcg report's "Memory cgroup stats for /CG:" file, file_dirty and
 * file_writeback (bytes). A premature OOM is one with dirty or writeback
 * file pages left: memory reclaim could have had by writing them.
 *
 * Returns {reports, with_dirty_file, first_oom_s (seconds after
 * start_s, absent without a report or start_s < 0), events: [{t_s, kind,
 * memcg, file_kb, dirty_kb, writeback_kb, dirty_present}]}. A report's
 * figures are absent when its Mem-Info part is missing (cut console), or
 * when one is not a number (recorded in ns, util/num.h; may be NULL).
 */
json_object *oom_facts(const char *console, size_t len, double start_s,
		       struct numsrc *ns);

/*
 * A kill is premature when the memcg (or the machine) still held more than
 * 1/OOM_PREMATURE_DEN of its limit in dirty or writeback file pages:
 * memory that writing could have freed. 1/16 of issue #26's 256 MiB memcg
 * is 16 MiB, one round of its churning hog: cleaning that much would
 * have met the allocation that killed.
 */
#define OOM_PREMATURE_DEN 16
bool oom_premature(long long dirty_wb_bytes, long long limit_bytes);

/*
 * The memcg's kills from the agent's oomwatch rows (memcg-oom.tsv: the
 * memcg's memory.events oom and oom_kill and its memory.stat, read at
 * each change of either; agent/oomwatch.c), not from the console, whose
 * OOM reports are rate limited. Returns {rows, ooms, kills,
 * premature_kills, premature_share, kill_dirty_wb_kb_mean,
 * kill_dirty_wb_kb_max, kill_dirty_share_mean (absent without a kill),
 * events: [{t_s, kills, anon_kb, file_kb, dirty_kb, writeback_kb,
 * limit_kb, dirty_share, premature}]}, t_s after start_s (after the
 * first row, the watcher's start, if start_s < 0); NULL without a header
 * and a row.
 * A row whose number is bad is left out and recorded in ns.
 */
json_object *memcg_oom_facts(const char *tsv, size_t len, double start_s,
			     struct numsrc *ns);

/* The "[   12.345678] " timestamp of a console line, or -1. */
double console_line_ts(const char *line, size_t len);

#endif
