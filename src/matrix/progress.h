/* SPDX-License-Identifier: GPL-2.0 */
#ifndef WBLAB_MATRIX_PROGRESS_H
#define WBLAB_MATRIX_PROGRESS_H

#include <stdbool.h>
#include <stddef.h>

#include "matrix/matrix.h"

/*
 * What a matrix run shows while it runs. On a TTY: one status line per
 * slot and an overall bar (done/total, failures, ETA), redrawn in place.
 * Otherwise: one timestamped line per event, for logs and CI.
 */
struct progress_slot {
	char host[32];
	int slot;
	char cell[160]; /* "" when idle */
	int attempt;
	double t_start;
};

struct progress {
	enum matrix_progress mode;
	size_t total, done, results, infra, failed; /* failed: not ok */
	double t_start;
	double cell_s_sum; /* for the ETA */
	size_t cell_s_n;
	int parallel; /* slots in use at most */
	struct progress_slot *slots;
	size_t nr_slots;
	int drawn; /* lines drawn last time (TTY) */
};

void progress_init(struct progress *p, enum matrix_progress mode, size_t total,
		   size_t already_done);
void progress_add_slot(struct progress *p, const char *host, int slot);
void progress_start(struct progress *p, const char *host, int slot,
		    const char *cell, int attempt);
/* outcome: outcome_name(); retry: it will run again. */
void progress_end(struct progress *p, const char *host, int slot,
		  const char *cell, const char *outcome, const char *reason,
		  double seconds, bool retry);
void progress_note(struct progress *p, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Redraw (TTY); call about once a second. */
void progress_tick(struct progress *p);
void progress_finish(struct progress *p);
void progress_free(struct progress *p);

#endif
