/* SPDX-License-Identifier: GPL-2.0 */
#ifndef WBLAB_COLLECTORS_H
#define WBLAB_COLLECTORS_H

#include <json-c/json.h>

#include "util/strbuf.h"

/*
 * Collectors, host side: results.c calls collectors_metrics() for every
 * cell. The guest side (plan steps) is in collectors-plan.h.
 */

/* Host side: parse a cell's files into metrics (adds keys to metrics). */
void collectors_metrics(const char *cell_dir, json_object *metrics);

#endif
