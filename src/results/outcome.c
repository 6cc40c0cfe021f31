// SPDX-License-Identifier: GPL-2.0
/* The outcome names (results/outcome.h): one table. */
#include <string.h>

#include "results/outcome.h"

static const char *const names[NR_OUTCOMES] = {
	[OUTCOME_OK] = "ok",
	[OUTCOME_WORKLOAD_FAILED] = "workload-failed",
	[OUTCOME_CRASHED] = "crashed",
	[OUTCOME_HUNG] = "hung",
	[OUTCOME_BOOT_FAILED] = "boot-failed",
	[OUTCOME_INFRA_ERROR] = "infra-error",
};

const char *outcome_name(enum cell_outcome o)
{
	return names[o];
}

int outcome_parse(const char *name)
{
	for (int o = 0; name && o < NR_OUTCOMES; o++)
		if (!strcmp(name, names[o]))
			return o;
	return -1;
}

bool outcome_is(const char *name, enum cell_outcome o)
{
	return name && !strcmp(name, names[o]);
}
