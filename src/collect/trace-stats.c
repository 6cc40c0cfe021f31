// SPDX-License-Identifier: GPL-2.0
/*
 * trace_stats.txt (collect/trace-int.h): what the plan captured of the
 * ring buffers (per-CPU overruns and drops, the buffer size) and which
 * requested events the kernel has.
 */
#include <stdio.h>
#include <string.h>

#include "collect/trace-int.h"
#include "collect/trace.h"
#include "util/json.h"
#include "util/num.h"
#include "util/str.h"

/* A per-CPU ring buffer figure: "overrun: 12" after its path's "/stats:". */
static bool stat_num(struct numsrc *ns, const char *v, const char *key,
		     long long *x)
{
	return skip_prefix(v, key, &v) &&
	       !num_ll(ns, v, 10, 0, TRACE_NUM_MAX, x, NULL);
}

int trace_loss_line(const char *line, size_t n, struct trace_loss *l,
		    struct numsrc *ns)
{
	const char *v = memmem(line, n, "/stats:", 7), *c;
	long long x, cpu = -1;

	if (!v)
		return -1;
	c = memmem(line, v - line, "/cpu", 4);
	if (c && num_ll(ns, c + 4, 10, 0, MAX_CPUS - 1, &cpu, NULL))
		cpu = -1;
	v += 7;
	if (stat_num(ns, v, "entries:", &x)) {
		l->cpus++;
		trace_add(&l->entries, x);
		return -1;
	} else if (stat_num(ns, v, "overrun:", &x)) {
		trace_add(&l->overrun, x);
	} else if (stat_num(ns, v, "commit overrun:", &x)) {
		trace_add(&l->commit_overrun, x);
	} else if (stat_num(ns, v, "dropped events:", &x)) {
		trace_add(&l->dropped, x);
	} else {
		return -1;
	}
	return x ? (int)cpu : -1;
}

long long trace_loss_total(const struct trace_loss *l)
{
	long long t = 0;

	trace_add(&t, l->overrun);
	trace_add(&t, l->commit_overrun);
	trace_add(&t, l->dropped);
	return t;
}

/* trace_stats.txt: "# section" headers, per-CPU "PATH:key: value" lines. */
void trace_parse_stats(const char *text, size_t len, json_object *o,
		       long long *lost, bool *cpu_lost, struct numsrc *ns)
{
	const char *p = text, *end = text + len;
	char section[64] = "";
	struct trace_loss loss = { 0 };
	json_object *enabled = json_object_new_array();
	json_object *missing = json_object_new_array();

	while (p < end) {
		const char *nl = memchr(p, '\n', end - p);
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		const char *line = p, *v;
		long long x;
		int cpu;

		p = nl ? nl + 1 : end;
		if (skip_prefix_mem(line, n, "# ", &v, &n)) {
			if (!starts_with(v, "(exit"))
				snprintf(section, sizeof(section), "%.*s",
					 (int)(n < 63 ? n : 63), v);
			continue;
		}
		if (!n)
			continue;
		if (!strcmp(section, "set_event")) {
			json_object_array_add(
				enabled, json_object_new_string_len(line, n));
		} else if (!strcmp(section, "buffer_size_kb")) {
			if (!num_ll(ns, line, 10, 0, TRACE_NUM_MAX, &x, NULL))
				json_put_int(o, "buffer_size_kb", x);
		} else if ((cpu = trace_loss_line(line, n, &loss, ns)) >= 0) {
			/* Which CPUs lost events, for the cut. */
			cpu_lost[cpu] = true;
		}
	}
	if (loss.cpus) {
		json_put_int(o, "cpus", loss.cpus);
		json_put_int(o, "overrun", loss.overrun);
		json_put_int(o, "commit_overrun", loss.commit_overrun);
		json_put_int(o, "dropped_events", loss.dropped);
		trace_add(lost, trace_loss_total(&loss));
	}
	/* Which requested events did the kernel not have? */
	for (size_t i = 0; trace_events[i]; i++) {
		char want[96], *slash;
		bool found = false;

		snprintf(want, sizeof(want), "%s", trace_events[i]);
		slash = strchr(want, '/');
		*slash = ':';
		for (size_t k = 0; k < json_object_array_length(enabled); k++)
			found |= !strcmp(
				json_object_get_string(
					json_object_array_get_idx(enabled, k)),
				want);
		/* write_folio and writepage are one event under two names. */
		if (!found && strstr(want, "mm_vmscan_write")) {
			const char *other =
				strstr(want, "folio") ?
					"vmscan:mm_vmscan_writepage" :
					"vmscan:mm_vmscan_write_folio";

			for (size_t k = 0;
			     k < json_object_array_length(enabled); k++)
				found |= !strcmp(
					json_object_get_string(
						json_object_array_get_idx(
							enabled, k)),
					other);
		}
		if (!found)
			json_object_array_add(missing,
					      json_object_new_string(want));
	}
	json_put(o, "enabled_events", enabled);
	if (json_object_array_length(enabled))
		json_put(o, "missing_events", missing);
	else
		json_object_put(missing);
}
