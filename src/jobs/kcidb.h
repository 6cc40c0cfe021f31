/* SPDX-License-Identifier: GPL-2.0 */
#ifndef WBLAB_JOBS_KCIDB_H
#define WBLAB_JOBS_KCIDB_H

#include <json-c/json.h>

#include "jobs/pool.h"

/*
 * Runs as KernelCI's common report database I/O (KCIDB, schema v5.3), so
 * that a lab can submit its results with KernelCI's tools (kcidb-submit):
 *
 *   version   {major: 5, minor: 3}
 *   checkouts one per kernel: ORIGIN:src-NAME-HASH12 (the source and
 *             patches the kernel was made of, in comment and misc)
 *   builds    one per kernel: ORIGIN:HASH (the kernel's cache key)
 *   tests     one per cell: ORIGIN:RUN/CELL, path wblab.TOPOLOGY.WORKLOAD.MEMORY,
 *             status PASS (ok), MISS (infra-error: the lab, not the
 *             kernel), FAIL (any other outcome), number = the workload's
 *             primary row; and one per decision of a kernel against the
 *             baseline: ORIGIN:RUN/decide/KERNEL/GROUP/ROW, path
 *             wblab.TOPOLOGY.WORKLOAD.MEMORY.ROW (or .event), status FAIL
 *             (regression), PASS (same, or a change that is no regression),
 *             DONE (unknown), number = the kernel's mean, misc = n, p and
 *             the effect, log_excerpt = the decision as jobs print it.
 *
 * Decisions are the jobs' (family_decide(), the primary rows at 10%).
 * baseline NULL: kcidb_baseline(). Returns the document, or NULL when the
 * pool has no cell of baseline.
 */
json_object *kcidb_export(const struct pool *p, const char *origin,
			  const char *baseline);

/*
 * The default baseline: the first kernel the pool's first run declares
 * (run.json's spec.kernels, the reference first as validate, a nightly's
 * confirmation and bisect write them) that has cells, else the first
 * cell's kernel. Not simply the first cell's: cells run interleaved in a
 * seeded order, and a reference taken from it can be the kernel under test.
 */
const char *kcidb_baseline(const struct pool *p);

#endif
