/* SPDX-License-Identifier: GPL-2.0 */
#ifndef WBLAB_COLLECTORS_INT_H
#define WBLAB_COLLECTORS_INT_H

#include <stdbool.h>
#include <json-c/json.h>

#include "cell/collectors.h"
#include "collect/vmstat.h"
#include "util/num.h"
#include "util/strbuf.h"

/*
 * Private to the collectors unit (collectors.c and its parts): collectors.c
 * calls the trace and console parts, and all of them read the cell's files
 * through collectors-read.c.
 */

/* DIR/NAME into sb, up to CELL_FILE_MAX and never through a link; 0 or -1. */
int coll_read_file(const char *dir, const char *name, struct strbuf *sb);
/* The same, parsed as "name value" lines (vmstat, memory.stat). */
int coll_read_kv(const char *dir, const char *name, struct kvset *set);

/* The agent's reason for a failed put or get on path, from agent.log. */
char *coll_agent_failure(const char *agent_log, const char *what);

/* errs[name] = the agent's reason about what, else fallback. */
void coll_error(json_object *errs, const char *name, const char *agent_log,
		const char *what, const char *fallback);

/*
 * The numbers a parser refused (util/num.h): "number FILE" names the
 * first, "FILE:LINE: 'VALUE': why", and how many there were. What they
 * were part of is left out, never read as 0. Releases ns.
 */
void coll_number_errors(json_object *errs, struct numsrc *ns);

/* o.key as a double (0 when absent), o.a or o.a.b (NULL when absent). */
double coll_num(json_object *o, const char *key);
json_object *coll_at(json_object *o, const char *a, const char *b);
/* DIR/NAME's text (to free), or NULL. */
char *coll_file_or_null(const char *dir, const char *name);

/*
 * The raw trace is kept as trace.gz; parse whichever is there. A trace.gz
 * is decompressed only up to CELL_FILE_MAX bytes and for at most
 * CELL_GUNZIP_TIMEOUT seconds (a gzip bomb in a results directory); one
 * that fails is noted as "file NAME.gz".
 */
int coll_read_gz(const char *dir, const char *name, struct strbuf *sb,
		 bool *compress, json_object *errs);

/* coll_read_gz() of "trace". */
int coll_read_trace(const char *dir, struct strbuf *sb, bool *compress,
		    json_object *errs);

/*
 * Raw traces are kept compressed (gzip -n, argv) once parsed. Not -f: a
 * results directory may be someone else's, and gzip -f would compress
 * what a link points at; without it gzip refuses links. A stale NAME.gz
 * (only the file just read is current) is removed first.
 */
void coll_compress(const char *dir, const char *name);

/*
 * The parts collectors_metrics() calls, each adding its keys to m and its
 * failures to errs; cns holds console.log for the console's numbers.
 */
/* The stack tracer, the probe sites and the console's stack lines. */
void coll_stack(const char *dir, json_object *m, json_object *errs,
		const char *alog, const struct strbuf *console,
		struct numsrc *cns);

/*
 * OOM reports in the workload's window with the file pages they left,
 * time to the first one, and whether fio finished its work anyway.
 */
void coll_oom(json_object *m, const char *alog, const struct strbuf *console,
	      struct numsrc *cns);

/*
 * Who was stuck in the kernel when the workload ended: D-state tasks in
 * the SysRq-t dump the plan takes then. A step that timed out beside
 * kswapd waiting in mempool_alloc reads differently from a slow one.
 */
void coll_blocked(json_object *m, const struct strbuf *console);

/* The trace summary, the hists and the headline reclaim-write figures. */
void coll_trace(const char *dir, json_object *m, json_object *errs,
		const char *alog);

#endif
