/* SPDX-License-Identifier: GPL-2.0 */
#ifndef WBLAB_RESULTS_OUTCOME_H
#define WBLAB_RESULTS_OUTCOME_H

#include <stdbool.h>

/*
 * A cell's outcome (cell.json "outcome", run.json's cells): the one owner
 * of the names. cell/outcome.c decides it, everything else reads it
 * through these, never by a literal name.
 */
enum cell_outcome {
	OUTCOME_OK,
	OUTCOME_WORKLOAD_FAILED,
	OUTCOME_CRASHED,
	OUTCOME_HUNG,
	OUTCOME_BOOT_FAILED,
	OUTCOME_INFRA_ERROR,
	NR_OUTCOMES,
};

/* The name cell.json records for o. */
const char *outcome_name(enum cell_outcome o);
/* The outcome named name, or -1 (name NULL or no outcome's name). */
int outcome_parse(const char *name);
/* name is outcome o's name (false for NULL). */
bool outcome_is(const char *name, enum cell_outcome o);

#endif
