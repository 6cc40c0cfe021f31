// SPDX-License-Identifier: GPL-2.0
/*
 * The cell's collectors, host side (docs/collectors.md): fio's summary,
 * /proc/vmstat deltas and mmtests-style Ops, and summaries of what the
 * guest-side plan steps (collectors-plan.c) brought back. A collector that
 * failed in the guest is recorded with the agent's reason in
 * collector_errors. The trace's metrics are in collectors-trace.c, the
 * stack's, OOM's and blocked tasks' in collectors-console.c, and the
 * reading of a cell's files in collectors-read.c (collectors-int.h).
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agent/proto.h"
#include "cell/collectors-int.h"
#include "cell/collectors-plan.h"
#include "cell/collectors.h"
#include "collect/fio.h"
#include "collect/oom.h"
#include "collect/ops.h"
#include "collect/vmstat.h"
#include "util/fs.h"
#include "results/metric.h"
#include "util/json.h"
#include "util/log.h"
#include "util/num.h"

/*
 * What the collectors will not read, noted once as "file NAME": a link,
 * a FIFO or device, a directory, a file over CELL_FILE_MAX.
 */
static void refused_files(const char *dir, json_object *errs)
{
	struct dirent **names;
	int n = scandir(dir, &names, NULL, alphasort);

	for (int i = 0; i < n; i++) {
		const char *f = names[i]->d_name;
		char *path = xasprintf("%s/%s", dir, f);
		int fd = f[0] == '.' ? 0 : open_regular(path, CELL_FILE_MAX);

		if (fd < 0) {
			char *k = xasprintf("file %s", f);
			char *v = xasprintf("%s: %s, not read", f,
					    open_regular_strerror(errno));

			json_object_object_add(errs, k,
					       json_object_new_string(v));
			free(k);
			free(v);
		}
		if (fd > 0)
			close(fd);
		free(path);
		free(names[i]);
	}
	free(names);
}

static void metrics_fio(const char *dir, json_object *m, json_object *errs)
{
	struct strbuf sb = STRBUF_INIT;
	char err[128];

	if (!coll_read_file(dir, "fio.json", &sb)) {
		json_object *fio =
			fio_summary(sb.buf, sb.len, err, sizeof(err));

		if (fio)
			json_object_object_add(m, "fio", fio);
		else
			json_object_object_add(m, "fio_error",
					       json_object_new_string(err));
	}
	strbuf_release(&sb);
}

/*
 * Headline vmstat figures, at the top of metrics (allocstall sums its
 * zones): a registry row's under the row's key, nr_vmscan_write (no row:
 * the Ops table's "Reclaim writes" is its delta) under its name.
 */
static const struct {
	const char *counter;
	const struct metric *row;
} top_deltas[] = {
	{ "allocstall", METRIC(ALLOCSTALL) },
	{ "nr_vmscan_write", NULL },
	{ "oom_kill", METRIC(OOM_KILLS) },
};

/* Pages fio wrote, summed over its jobs: -1 when no fio job wrote. */
static long long fio_written_pages(json_object *m)
{
	json_object *fio, *job, *wr, *kib;
	long long pages = -1;

	if (!json_object_object_get_ex(m, "fio", &fio) ||
	    !json_object_is_type(fio, json_type_array))
		return -1;
	for (size_t i = 0; i < json_object_array_length(fio); i++) {
		job = json_object_array_get_idx(fio, i);
		if (!json_object_object_get_ex(job, "write", &wr) ||
		    !json_object_object_get_ex(wr, "io_kib", &kib))
			continue;
		pages = (pages < 0 ? 0 : pages) +
			json_object_get_int64(kib) / 4;
	}
	return pages;
}

/*
 * What the workload left in the page cache when its measured window
 * ended (vmstat.after is read right after the last workload step). An
 * A/B comparison of throughput or pgpgout means something only when both
 * sides did the same work: a kernel that leaves a tenth of the file dirty
 * has done less of it (#27: stock 6.1 left 3-9.5k of 65,536 pages
 * unwritten without end_fsync). dirty_share is (dirty + writeback) over
 * the pages fio wrote; the report flags a cell above 1%.
 */
static void metrics_end_of_workload(json_object *m, const struct kvset *after)
{
	json_object *o = json_object_new_object();
	long long dirty = kvset_get(after, "nr_dirty", -1);
	long long wb = kvset_get(after, "nr_writeback", -1);
	long long written = fio_written_pages(m);

	if (dirty < 0 || wb < 0) {
		json_object_put(o);
		return;
	}
	json_object_object_add(o, "dirty_pages", json_object_new_int64(dirty));
	json_object_object_add(o, "writeback_pages", json_object_new_int64(wb));
	if (written > 0) {
		json_object_object_add(o, "written_pages",
				       json_object_new_int64(written));
		json_object_object_add(
			o, "dirty_share",
			json_number((double)(dirty + wb) / written));
	}
	json_object_object_add(m, "end_of_workload", o);
}

static void metrics_vmstat(const char *dir, json_object *m, double elapsed)
{
	struct kvset before, after;

	if (coll_read_kv(dir, "vmstat.before", &before))
		return;
	if (coll_read_kv(dir, "vmstat.after", &after)) {
		kvset_free(&before);
		return;
	}
	json_object_object_add(m, "vmstat_delta",
			       vmstat_delta_json(&before, &after));
	json_object_object_add(m, "ops",
			       vmstat_ops_json(&before, &after, elapsed));
	for (size_t i = 0; i < ARRAY_SIZE(top_deltas); i++) {
		json_object *v = json_object_new_int64(vmstat_counter_delta(
			&before, &after, top_deltas[i].counter));

		if (top_deltas[i].row)
			metric_put(m, top_deltas[i].row, v);
		else
			json_object_object_add(m, top_deltas[i].counter, v);
	}
	metrics_end_of_workload(m, &after);
	kvset_free(&before);
	kvset_free(&after);
}

static void metrics_psi(const char *dir, json_object *m, json_object *errs,
			const char *alog)
{
	static const char *const res[] = { "memory", "io" };
	struct strbuf b = STRBUF_INIT, a = STRBUF_INIT;
	json_object *psi = json_object_new_object();

	for (int i = 0; i < 2; i++) {
		char *nb = xasprintf("pressure.%s.before", res[i]);
		char *na = xasprintf("pressure.%s.after", res[i]);
		int hb = !coll_read_file(dir, nb, &b);
		json_object *o = NULL;
		struct numsrc ns = NUMSRC_INIT;

		if (!coll_read_file(dir, na, &a)) {
			numsrc_add(&ns, na, a.buf, a.len);
			if (hb)
				numsrc_add(&ns, nb, b.buf, b.len);
			o = psi_json(hb ? b.buf : NULL, hb ? b.len : 0, a.buf,
				     a.len, &ns);
			coll_number_errors(errs, &ns);
		}
		if (o) {
			json_object_object_add(psi, res[i], o);
		} else {
			char *what = xasprintf("/proc/pressure/%s", res[i]);
			char *key = xasprintf("psi_%s", res[i]);

			coll_error(
				errs, key, alog, what,
				"no PSI from the guest (CONFIG_PSI off or psi=0?)");
			free(what);
			free(key);
		}
		free(nb);
		free(na);
	}
	if (json_object_object_length(psi))
		json_object_object_add(m, "psi", psi);
	else
		json_object_put(psi);
	strbuf_release(&a);
	strbuf_release(&b);
}

/* "get NAME: capped at N bytes": the agent sent only the head of NAME. */
static void capped_files(const char *alog, json_object *errs)
{
	static const char key[] = ": capped at ";
	const char *p = alog;

	for (int n = 0; p && (p = strstr(p, key)) && n < 64; n++) {
		const char *s = p, *nl = strchr(p, '\n');
		char *k, *v;

		while (s > alog && s[-1] != ' ')
			s--;
		k = xasprintf("file %.*s", (int)(p - s), s);
		v = xstrndup(s, nl ? (size_t)(nl - s) : strlen(s));
		json_object_object_add(errs, k, json_object_new_string(v));
		free(k);
		free(v);
		p += sizeof(key) - 1;
	}
}

static void metrics_lru_gen(const char *dir, json_object *m, json_object *errs,
			    const char *alog)
{
	struct strbuf sb = STRBUF_INIT;
	json_object *o = json_object_new_object();

	if (!coll_read_file(dir, "lru_gen.enabled", &sb)) {
		strbuf_trim_trailing(&sb);
		json_object_object_add(o, "enabled",
				       json_object_new_string(sb.buf));
	} else {
		char *why = coll_agent_failure(alog, LRU_GEN);

		/* No file: the kernel has no MGLRU at all. */
		json_object_object_add(
			o, "absent",
			json_object_new_string(
				why ? why : "no " LRU_GEN " from the guest"));
		free(why);
	}
	json_object_object_add(m, "lru_gen", o);
	strbuf_release(&sb);
}

/* Rows of timeseries.tsv the summary left out, said where they are. */
static void timeseries_malformed(json_object *ts, json_object *errs)
{
	long long n =
		json_object_get_int64(coll_at(ts, "malformed_rows", NULL));
	char *why;

	if (!n)
		return;
	why = xasprintf(
		"timeseries.tsv: %lld malformed row(s) left out, the first at line %lld",
		n,
		(long long)json_object_get_int64(
			coll_at(ts, "first_malformed_line", NULL)));
	json_object_object_add(errs, "sampler", json_object_new_string(why));
	free(why);
}

/* The memcg's kills and its dirty pages at each (collect/oom.c). */
static void metrics_memcg_oom(const char *dir, json_object *m,
			      json_object *errs)
{
	struct strbuf sb = STRBUF_INIT;
	struct numsrc ns = NUMSRC_INIT;
	json_object *o;

	if (coll_read_file(dir, OOMWATCH_FILE, &sb))
		goto out;
	numsrc_add(&ns, OOMWATCH_FILE, sb.buf, sb.len);
	o = memcg_oom_facts(sb.buf, sb.len, -1, &ns);
	if (o)
		json_object_object_add(m, "memcg_oom", o);
	else
		json_object_object_add(errs, "memcg_oom",
				       json_object_new_string(
					       OOMWATCH_FILE
					       ": no header of its columns "
					       "or no row"));
	coll_number_errors(errs, &ns);
out:
	strbuf_release(&sb);
}

void collectors_metrics(const char *dir, json_object *m)
{
	json_object *errs = json_object_new_object(), *ts = NULL;
	struct strbuf sb = STRBUF_INIT, alog = STRBUF_INIT,
		      conbuf = STRBUF_INIT;
	const struct strbuf *con;
	struct numsrc cns = NUMSRC_INIT;
	const char *al;
	double elapsed = 0;

	refused_files(dir, errs);
	al = coll_read_file(dir, "agent.log", &alog) ? NULL : alog.buf;
	capped_files(al, errs);
	metrics_fio(dir, m, errs);
	if (!coll_read_file(dir, "timeseries.tsv", &sb))
		ts = timeseries_summary(sb.buf, sb.len);
	if (ts) {
		/* the summary's headline keys: a row's are the row's own */
		static const struct {
			const char *key;
			const struct metric *row;
		} keys[] = {
			{ "peak_dirty_kb", METRIC(PEAK_DIRTY) },
			{ "peak_writeback_kb", METRIC(PEAK_WRITEBACK) },
			{ "min_free_kb", METRIC(MIN_FREE) },
			{ "min_available_kb", NULL },
		};

		elapsed = coll_num(ts, "duration_s");
		for (size_t i = 0; i < ARRAY_SIZE(keys); i++) {
			json_object *v;

			if (!json_object_object_get_ex(ts, keys[i].key, &v))
				continue;
			if (keys[i].row)
				metric_put(m, keys[i].row, json_object_get(v));
			else
				json_object_object_add(m, keys[i].key,
						       json_object_get(v));
		}
		json_object_object_add(m, "timeseries", ts);
		timeseries_malformed(ts, errs);
	} else {
		json_object_object_add(
			errs, "sampler",
			json_object_new_string("no samples in timeseries.tsv"));
	}
	metrics_vmstat(dir, m, elapsed);
	metrics_psi(dir, m, errs, al);
	if (!coll_read_file(dir, "memcg.events", &sb)) {
		struct kvset ev;
		json_object *o = json_object_new_object();

		kvset_parse(&ev, sb.buf, sb.len);
		for (size_t i = 0; i < ev.n; i++)
			json_object_object_add(
				o, ev.v[i].name,
				json_object_new_int64(ev.v[i].value));
		if (!coll_read_file(dir, "memcg.peak", &sb)) {
			struct numsrc ns = NUMSRC_INIT;
			long long peak;

			numsrc_add(&ns, "memcg.peak", sb.buf, sb.len);
			if (!num_ll(&ns, sb.buf, 10, 0, KVSET_VALUE_MAX, &peak,
				    NULL))
				json_object_object_add(
					o, "peak_bytes",
					json_object_new_int64(peak));
			coll_number_errors(errs, &ns);
		}
		/* Global vmstat leaves memcg reclaim out: memory.stat has it. */
		if (!coll_read_file(dir, "memcg.stat", &sb)) {
			json_object *st = json_object_new_object();

			kvset_free(&ev);
			kvset_parse(&ev, sb.buf, sb.len);
			for (size_t i = 0; i < ev.n; i++)
				json_object_object_add(
					st, ev.v[i].name,
					json_object_new_int64(ev.v[i].value));
			json_object_object_add(o, "stat", st);
			json_object_object_add(o, "ops", memcg_ops_json(&ev));
		}
		json_object_object_add(m, "memcg", o);
		kvset_free(&ev);
	}
	metrics_memcg_oom(dir, m, errs);
	/* The console, read once: the stack, OOM and blocked-task parsers. */
	con = coll_read_file(dir, "console.log", &conbuf) ? NULL : &conbuf;
	if (con)
		numsrc_add(&cns, "console.log", con->buf, con->len);
	coll_stack(dir, m, errs, al, con, &cns);
	if (con) {
		coll_oom(m, al, con, &cns);
		coll_blocked(m, con);
	}
	coll_number_errors(errs, &cns);
	metrics_lru_gen(dir, m, errs, al);
	coll_trace(dir, m, errs, al);
	json_object_object_add(m, "collector_errors", errs);
	strbuf_release(&sb);
	strbuf_release(&alog);
	strbuf_release(&conbuf);
}
