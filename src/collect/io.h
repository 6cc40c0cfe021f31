/* SPDX-License-Identifier: GPL-2.0 */
#ifndef WBLAB_IO_H
#define WBLAB_IO_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>

#include "collect/traceline.h"
#include "collect/windows.h"

struct numsrc;

/*
 * Real writes by writer (pure): write bios queued at the filesystem's
 * device (block:block_bio_queue) by writer class, their sequentiality and
 * seek distance, and the service time of the requests they became on the
 * leaf devices (block_rq_issue .. block_rq_complete, traced back through
 * block_bio_remap). Plus the parsers for the in-kernel hist-trigger
 * counts and for the plan's fsdev.txt. docs/collectors.md has the names.
 */

/* Writer classes: the windows' kinds, WK_NONE being "other". */
enum io_class { IO_DIRECT, IO_MEMCG, IO_KSWAPD, IO_FLUSHER, IO_OTHER, NR_IO };
extern const char *const io_class_name[NR_IO];
enum io_class io_class_of(enum wkind k);

struct io_state;

/* fs_dev is "MAJ:MIN" of the filesystem's device, or NULL (unknown). */
struct io_state *io_new(const char *fs_dev);
void io_free(struct io_state *s);
/* One block event (name already matched by the caller) of class cls. */
void io_bio_queue(struct io_state *s, const struct trace_line *l,
		  enum io_class cls);
void io_bio_remap(struct io_state *s, const struct trace_line *l);
void io_rq_issue(struct io_state *s, const struct trace_line *l);
void io_rq_complete(struct io_state *s, const struct trace_line *l);
/* The seek analysis (collect/seek.h) the block events feed. */
struct seek_state *io_seek(struct io_state *s);
/* True once any block event was seen. */
bool io_seen(const struct io_state *s);
/* Write pages at the fs device by class (trace). */
long long io_pages(const struct io_state *s, enum io_class cls);
long long io_bios(const struct io_state *s, enum io_class cls);
/*
 * {writers: {class: {pages, bios, bio_kib_p50, service_us_p50,
 * service_us_p95, service_requests}}, devices: {...}, seek: {...}}
 * (seek: collect/seek.h)
 * from the trace; counts null when counts_ok is false (events lost).
 */
json_object *io_json(const struct io_state *s, bool counts_ok);

/*
 * The block_bio_queue hist (keys common_pid.execname, dev, stacktrace;
 * vals hitcount, nr_sector): {bios, pages} per class at fs_dev (NULL: all
 * devices), from each entry's kernel stack. NULL and why when the text is
 * no hist or the table dropped entries.
 */
json_object *io_hist_bios(const char *text, size_t len, const char *fs_dev,
			  char *why, size_t why_len, struct numsrc *ns);
/*
 * The mm_vmscan_write_folio hist (keys common_pid.execname, reclaim_flags,
 * stacktrace): {class: {file, anon}} writepage calls by reclaim context.
 * Both record a figure that is not a number in ns (util/num.h; may be
 * NULL) and leave it out.
 */
json_object *io_hist_write_folio(const char *text, size_t len, char *why,
				 size_t why_len, struct numsrc *ns);

/*
 * What a kernel stack says about who is writing: OR io_frame_bits() over
 * its frames ("pageout+0x1a5/0x3c0", leading spaces allowed), then
 * io_stack_class() gives the writer class, or -1 for a reclaim stack cut
 * short before its entry point (kswapd when comm is kswapd*).
 * ST_WRITEPAGE marks a reclaim write: pageout(), or swap_writepage() and
 * shmem_writepage() (anonymous and shmem folios to swap).
 */
enum {
	ST_MEMCG = 1,
	ST_DIRECT = 2,
	ST_KSWAPD = 4,
	ST_RECLAIM = 8,
	ST_FLUSHER = 16,
	ST_WRITEPAGE = 32,
};
int io_frame_bits(const char *frame, size_t n);
int io_stack_class(int bits, const char *comm);

/*
 * fsdev.txt ("# findmnt": "MAJ:MIN FSTYPE TARGET"; "# mountinfo"): the
 * device under the test mount; an overlay resolves to the filesystem
 * holding its upperdir. False if not found.
 */
bool io_fsdev(const char *text, size_t len, char *dev, size_t dev_len,
	      char *fstype, size_t fstype_len);

/*
 * fsdev.txt's "# swaps" (/proc/swaps) and "# partitions" (/proc/partitions)
 * sections: the first swap partition's "MAJ:MIN" and name ("md0"), where
 * a cell without a test filesystem counts its writes, once (at every
 * block device, swap on md RAID1 counted md and both mirrors: 3x). False
 * when there is no swap partition (a swap file, none) or no such device.
 */
bool io_swapdev(const char *text, size_t len, char *dev, size_t dev_len,
		char *name, size_t name_len);

#endif
