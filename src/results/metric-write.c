// SPDX-License-Identifier: GPL-2.0
/*
 * Writing a registry row's figure into a cell's metrics (results/metric.h):
 * the writer's side of the row, so its key is spelt once, in the row.
 */
#include <string.h>

#include "results/metric.h"
#include "util/log.h"
#include "util/str.h"

const char *metric_top_key(const struct metric *m)
{
	const char *key;

	if (!skip_prefix(m->path, "metrics.", &key) || strchr(key, '.'))
		return NULL;
	return key;
}

void metric_put(json_object *metrics, const struct metric *m, json_object *v)
{
	const char *key = metric_top_key(m);

	if (!key)
		die("metric_put: %s is not at the top of metrics", m->name);
	json_object_object_add(metrics, key, v);
}
