/* SPDX-License-Identifier: GPL-2.0 */
#ifndef WBLAB_SEEK_H
#define WBLAB_SEEK_H

#include <json-c/json.h>
#include <stdbool.h>

#include "collect/traceline.h"

/*
 * How seeky each writer's writes are (pure; issue #26, the seed's claim
 * that reclaim writes in LRU order, upsetting the flusher's sequential
 * I/O). Two views:
 *
 * - the requests each writer's bios became at the leaf device, in issue
 *   order after plug and elevator merging (block_rq_issue), one stream
 *   per (device, pid, class): runs of contiguous requests, the gap from
 *   one request's end to the next one's start (a histogram: contiguous,
 *   near within 64 KiB, up to 1 MiB, up to 16 MiB, farther), and the
 *   Spearman correlation of issue order with sector. Distances are taken
 *   only within one stream, never between two writers' requests;
 * - the folios reclaim wrote (mm_vmscan_write_folio's pfn), joined to
 *   their page-cache insertion (mm_filemap_add_to_page_cache: pfn, inode,
 *   offset): the Spearman correlation of each reclaimer's write order
 *   with file offset, per (pid, inode).
 *
 * Both also over disjoint windows of SEEK_WINDOW consecutive writes (a
 * reclaim batch is 32 folios): the flusher sweeps each file many times
 * in a cell, and a sweep's order is what a disk sees.
 */
#define SEEK_WINDOW 32

struct seek_state;

struct seek_state *seek_new(void);
void seek_free(struct seek_state *s);
/* The name of pid, for the streams table (the queuer's, at bio queue). */
void seek_comm(struct seek_state *s, int pid, const char *comm);
/*
 * One write request issued at dev ("MAJ<<20|MIN"), attributed to the pid
 * and class (an io_class, or -1) that queued its first bio.
 */
void seek_request(struct seek_state *s, unsigned int dev, int pid, int cls,
		  unsigned long long sector, unsigned int nr);
/* mm_filemap_add_to_page_cache: remember pfn -> (inode, offset). */
void seek_folio_cached(struct seek_state *s, const struct trace_line *l);
/* mm_vmscan_write_folio by a writer of class cls (an io_class). */
void seek_folio_written(struct seek_state *s, const struct trace_line *l,
			int cls);
/*
 * {classes: {CLASS: {...}}, streams: [...], ...}: docs/collectors.md
 * names every field. class_names has nr_classes names.
 */
json_object *seek_json(const struct seek_state *s,
		       const char *const *class_names, int nr_classes);

#endif
