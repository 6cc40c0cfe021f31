/* SPDX-License-Identifier: GPL-2.0 */
#ifndef WBLAB_MAIL_INT_H
#define WBLAB_MAIL_INT_H

#include <stdbool.h>
#include <stddef.h>

#include "report/report.h"
#include "util/strbuf.h"

/*
 * Private to the mail report's unit: mail.c (the sections and the
 * verdict), mail-tables.c (the tables), mail-text.c (ASCII and wrapping).
 */

#define WIDTH 80
#define STAT_W 8
#define NAME_W 24
#define COL_W 22 /* "%11s (%7s%%)" plus a space */
#define LABEL_W (STAT_W + 1 + NAME_W)
#define COLS_PER_BLOCK ((WIDTH - LABEL_W) / COL_W)

/* mail-text.c */
/* Copy s into buf (size n) as printable ASCII, cut to max with '~'. */
const char *mail_ascii(char *buf, size_t n, const char *s, size_t max);

/* Append text wrapped at WIDTH, continuation lines indented by indent. */
void mail_wrap(struct strbuf *out, const char *first, size_t indent,
	       const char *text);

/* mail-tables.c */
/* The rows every cell has 0 in, named on one line. */
void mail_zero_rows(struct strbuf *out, const struct rpt_group *g);

/* One table of metric rows (the main figure, or every statistic with full). */
void mail_metric_table(struct strbuf *out, const struct rpt_group *g,
		       enum metric_table table, bool full);

/* Several groups, no --full: the starred Ops rows, the others counted. */
void mail_ops_starred(struct strbuf *out, const struct rpt_group *g);

/*
 * Outcome rows, the ones some cell had; the failures no cell had are one
 * line of names (0:5 on every side is evidence too, and it is said).
 */
void mail_outcome_table(struct strbuf *out, const struct rpt_group *g);

/* OOM victims and stack-overflow titles, per side, counted. */
void mail_event_names(struct strbuf *out, const struct rpt_group *g,
		      const char *kind, bool victims, const char *head);

/* Stack depth per side; the cell with the deepest stack. */
const struct rpt_cell *mail_stack_section(struct strbuf *out,
					  const struct rpt_group *g);

/* Its deepest chain, at most max frames; 0: the line naming it only. */
void mail_chain(struct strbuf *out, const struct rpt_cell *c, size_t max);

#endif
