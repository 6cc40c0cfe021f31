// SPDX-License-Identifier: GPL-2.0
/*
 * The cell's collectors. Base set: a 1 s time series of free memory and
 * dirty/writeback pages, fio's summary and /proc/vmstat deltas.
 */
#include <stdlib.h>
#include <string.h>

#include "cell/collectors.h"
#include "cell/plan.h"
#include "collect/fio.h"
#include "collect/vmstat.h"
#include "util/log.h"

void collectors_plan_arm(struct strbuf *plan)
{
}

void collectors_plan_workload(struct strbuf *plan)
{
	plan_step_argv(plan, "bg", "sampler", NULL, (const char *const[]){
		"/run/wblab-agent", "sample", "/tmp/wblab-out/timeseries.tsv",
		"1000", NULL });
}

void collectors_plan_collect(struct strbuf *plan)
{
}

static int read_kv(const char *dir, const char *name, struct kvset *set)
{
	char *path = xasprintf("%s/%s", dir, name);
	struct strbuf sb = STRBUF_INIT;
	int ret = strbuf_read_file(&sb, path);

	if (!ret)
		kvset_parse(set, sb.buf, sb.len);
	strbuf_release(&sb);
	free(path);
	return ret;
}

static long long sum_prefix(const struct kvset *b, const struct kvset *a,
			    const char *prefix)
{
	long long s = 0;
	size_t n = strlen(prefix);

	for (size_t i = 0; i < a->n; i++)
		if (!strncmp(a->v[i].name, prefix, n))
			s += a->v[i].value - kvset_get(b, a->v[i].name, a->v[i].value);
	return s;
}

void collectors_metrics(const char *dir, json_object *m)
{
	struct kvset before, after;
	struct strbuf sb = STRBUF_INIT;
	char *path = xasprintf("%s/fio.json", dir);

	if (!strbuf_read_file(&sb, path)) {
		char err[128];
		json_object *fio = fio_summary(sb.buf, sb.len, err, sizeof(err));

		if (fio)
			json_object_object_add(m, "fio", fio);
		else
			json_object_object_add(m, "fio_error", json_object_new_string(err));
	}
	if (!read_kv(dir, "vmstat.before", &before) &&
	    !read_kv(dir, "vmstat.after", &after)) {
		json_object_object_add(m, "vmstat_delta", vmstat_delta_json(&before, &after));
		json_object_object_add(m, "allocstall", json_object_new_int64(
			sum_prefix(&before, &after, "allocstall_")));
		json_object_object_add(m, "nr_vmscan_write", json_object_new_int64(
			kvset_get(&after, "nr_vmscan_write", 0) -
			kvset_get(&before, "nr_vmscan_write", 0)));
		json_object_object_add(m, "oom_kill", json_object_new_int64(
			kvset_get(&after, "oom_kill", 0) - kvset_get(&before, "oom_kill", 0)));
		kvset_free(&before);
		kvset_free(&after);
	}
	strbuf_release(&sb);
	free(path);
}
