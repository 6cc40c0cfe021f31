/* SPDX-License-Identifier: GPL-2.0 */
#ifndef WBLAB_OOM_H
#define WBLAB_OOM_H

#include <json-c/json.h>
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

/* The "[   12.345678] " timestamp of a console line, or -1. */
double console_line_ts(const char *line, size_t len);

#endif
