// SPDX-License-Identifier: GPL-2.0
/* cell.json, the SQLite index, and metrics from a cell's files. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cell/plan-failslab.h"
#include "cell/plan.h"
#include "cell/results.h"
#include "cell/collectors.h"
#include "results/db.h"
#include "util/fs.h"
#include "util/json.h"
#include "util/log.h"
#include "util/utf8.h"
#include "virt/virt.h"

static json_object *JS(const char *s)
{
	return json_object_new_string(s ? s : "");
}

static json_object *strlist_json(const struct spec_strlist *l)
{
	json_object *a = json_object_new_array();

	for (size_t i = 0; i < l->n; i++)
		json_object_array_add(a, JS(l->v[i]));
	return a;
}

/* A workload's failslab: the cache and every knob the plan set (plan.c). */
static json_object *failslab_json(const char *cache)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "cache", JS(cache));
	for (const struct failslab_knob *k = failslab_knobs; k->name; k++)
		json_object_object_add(o, k->name, JS(k->value));
	json_object_object_add(o, "probability", JS(FAILSLAB_PROBABILITY));
	return o;
}

json_object *results_metrics(const char *dir)
{
	json_object *m = json_object_new_object();

	collectors_metrics(dir, m);
	return m;
}

static json_object *topology_json(const struct topology_spec *t,
				  const struct plan_devs *devs)
{
	json_object *o = json_object_new_object();
	json_object *layers = json_object_new_array();
	const struct topo_layer *top = topology_mount_layer(t);

	json_object_object_add(o, "name", JS(t->name));
	if (top) {
		char *m = plan_mount_dir(top);

		json_object_object_add(o, "mount", JS(m));
		free(m);
	}
	for (size_t i = 0; i < t->nr_layers; i++) {
		const struct topo_layer *l = &t->layers[i];
		json_object *lj = json_object_new_object();
		json_object *on = json_object_new_array();

		json_object_object_add(lj, "name", JS(l->name));
		json_object_object_add(lj, "type", JS(l->type_name));
		json_object_object_add(lj, "guest", JS(l->guest));
		for (size_t k = 0; k < l->on.n; k++)
			json_object_array_add(on, JS(l->on.v[k]));
		json_object_object_add(lj, "on", on);
		if (devs && i < devs->nr && devs->dev[i])
			json_object_object_add(lj, "dev", JS(devs->dev[i]));
		/* Its type's own keys (cell/plan-layers.c). */
		plan_layer_record(lj, l);
		json_object_array_add(layers, lj);
	}
	json_object_object_add(o, "layers", layers);
	return o;
}

/*
 * The agent's exit body: key=value lines, a blank line, the failing
 * step's output tail. Only the keys the agent defines are taken, so a
 * guest cannot overwrite status (or add keys of its own); values are
 * bounded (the body itself is capped by the frame decoder).
 */
static json_object *agent_json(const struct guest *g)
{
	static const char *const keys[] = { "phase", "label", "rc" };
	json_object *o = json_object_new_object();
	const char *body = g->exit_body.buf, *end = body + g->exit_body.len;
	const char *blank = memmem(body, end - body, "\n\n", 2);
	const char *stop = blank ? blank + 1 : end;

	json_object_object_add(o, "status",
			       JS(g->exited ? g->agent_status : NULL));
	for (const char *p = body; p < stop;) {
		const char *nl = memchr(p, '\n', stop - p);
		const char *le = nl ? nl : stop;
		const char *eq = memchr(p, '=', le - p);

		for (size_t i = 0; eq && i < ARRAY_SIZE(keys); i++) {
			size_t vlen = le - eq - 1;

			if ((size_t)(eq - p) != strlen(keys[i]) ||
			    memcmp(p, keys[i], eq - p) ||
			    json_object_object_get_ex(o, keys[i], NULL))
				continue;
			json_object_object_add(
				o, keys[i],
				json_object_new_string_len(
					eq + 1, utf8_cut(eq + 1, vlen, 256)));
		}
		p = le + 1;
	}
	if (blank && blank + 2 < end)
		json_object_object_add(
			o, "output_tail",
			json_object_new_string_len(blank + 2, end - blank - 2));
	return o;
}

/* How much the guest printed on its console, and what was kept. */
static json_object *console_log_json(const struct guest *g, json_object *m)
{
	json_object *o = json_object_new_object(), *errs;
	uint64_t omitted = capture_omitted(&g->con);

	json_object_object_add(o, "bytes", json_object_new_int64(g->con.total));
	json_object_object_add(o, "omitted", json_object_new_int64(omitted));
	json_object_object_add(o, "head_cap",
			       json_object_new_int64(g->con.head_max));
	json_object_object_add(o, "tail_cap",
			       json_object_new_int64(g->con.tail_max));
	if (omitted &&
	    json_object_object_get_ex(m, "collector_errors", &errs)) {
		char *note = xasprintf(
			"console capped: %llu of %llu bytes left out between the first %zu and the last %zu bytes",
			(unsigned long long)omitted,
			(unsigned long long)g->con.total, g->con.head_max,
			g->con.tail_max);

		json_object_object_add(o, "note", JS(note));
		json_object_object_add(errs, "console", JS(note));
		free(note);
	}
	return o;
}

/* The host's own figures, asked over its connection (virt_host_facts). */
static json_object *facts_json(const struct cell_spec *c)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "hostname", JS(c->facts->hostname));
	json_object_object_add(o, "cpu_model", JS(c->facts->cpu_model));
	json_object_object_add(
		o, "qemu_version",
		json_object_new_int64((int64_t)c->facts->qemu_version));
	json_object_object_add(
		o, "libvirt_version",
		json_object_new_int64((int64_t)c->facts->libvirt_version));
	json_object_object_add(o, "remote", json_object_new_boolean(c->remote));
	return o;
}

/* What the host took from the channel, and what it refused. */
static json_object *channel_json(const struct guest *g, json_object *metrics)
{
	json_object *o = json_object_new_object();
	json_object *refused = json_object_new_array();
	json_object *errs;
	struct strbuf sb = STRBUF_INIT;

	json_object_object_add(o, "bytes", json_object_new_int64(g->bytes_in));
	json_object_object_add(o, "files", json_object_new_int64(g->files.n));
	for (size_t i = 0; i < g->notes.n; i++) {
		json_object_array_add(refused, JS(g->notes.v[i]));
		strbuf_addf(&sb, "%s%s", i ? "; " : "", g->notes.v[i]);
	}
	json_object_object_add(o, "refused", refused);
	if (g->proto_why[0])
		json_object_object_add(o, "error", JS(g->proto_why));
	if (sb.len &&
	    json_object_object_get_ex(metrics, "collector_errors", &errs))
		json_object_object_add(errs, "channel", JS(sb.buf));
	strbuf_release(&sb);
	return o;
}

/* What is in the cell directory (collectors may have compressed files). */
void results_list_files(const char *dir, json_object *arr)
{
	struct dirent **names;
	int n = scandir(dir, &names, NULL, alphasort);

	for (int i = 0; i < n; i++) {
		const char *f = names[i]->d_name;

		if (f[0] != '.' && strcmp(f, "cell.json") &&
		    !strstr(f, ".tmp."))
			json_object_array_add(arr, JS(f));
		free(names[i]);
	}
	free(names);
}

static double span(double a, double b)
{
	return a && b && b > a ? b - a : 0;
}

/*
 * Each phase of the plan, from its start to the next phase that started
 * (the agent's exit after the last): setup_s (the storage stack),
 * warmup_s (the workload's pre: steps), arm_s (the collectors' set-up and
 * before-snapshots), workload_s, collect_s, teardown_s. Phases the guest
 * never reached are 0.
 */
static void phase_timings(json_object *t, const struct guest *g)
{
	static const char *const key[NR_PHASES] = {
		[PHASE_SETUP] = "setup_s",     [PHASE_WARMUP] = "warmup_s",
		[PHASE_ARM] = "arm_s",	       [PHASE_WORKLOAD] = "workload_s",
		[PHASE_COLLECT] = "collect_s", [PHASE_TEARDOWN] = "teardown_s",
	};

	for (int i = 0; i < NR_PHASES; i++) {
		double end = g->t_exit;

		for (int j = i + 1; j < NR_PHASES; j++)
			if (g->t_phase[j]) {
				end = g->t_phase[j];
				break;
			}
		json_object_object_add(t, key[i],
				       json_number(span(g->t_phase[i], end)));
	}
}

int results_write_cell(const struct cell_spec *c,
		       const struct cell_run_result *r, const struct guest *g,
		       const struct console_report *con, const char *started,
		       const char *cmdline, const struct plan_devs *devs)
{
	json_object *o = json_object_new_object();
	json_object *k = json_object_new_object();
	json_object *t = json_object_new_object();
	json_object *files = json_object_new_array();
	json_object *cj = console_report_to_json(con, "console.log");
	json_object *events = NULL;
	char finished[32], *path;
	int ret;

	now_iso8601(finished, sizeof(finished));
	json_object_object_add(o, "run", JS(c->run_id));
	json_object_object_add(o, "cell", JS(c->cell_id));
	if (c->kernel) {
		json_object_object_add(k, "name", JS(c->kernel->name));
		json_object_object_add(k, "hash", JS(c->kernel->hash));
		json_object_object_add(k, "version", JS(c->kernel->version));
		json_object_object_add(k, "origin", JS(c->kernel->origin));
		json_object_object_add(k, "source", JS(c->kernel->source));
		json_object_object_add(k, "patches", JS(c->kernel->patches));
		/* From its System.map when built or fetched; absent: unknown. */
		if (c->kernel->thread_size)
			json_object_object_add(
				k, "thread_size",
				json_object_new_int64(c->kernel->thread_size));
	}
	json_object_object_add(k, "guest_release", JS(g->release));
	json_object_object_add(k, "cmdline", JS(cmdline));
	json_object_object_add(o, "kernel", k);
	json_object_object_add(o, "topology", topology_json(c->topo, devs));
	json_object_object_add(o, "workload", JS(c->wl->name));
	json_object_object_add(o, "workload_primary",
			       strlist_json(&c->wl->primary));
	if (c->wl->failslab)
		json_object_object_add(o, "failslab",
				       failslab_json(c->wl->failslab));
	json_object_object_add(o, "rep", json_object_new_int(c->rep));
	json_object_object_add(o, "accel", JS(c->accel));
	/* How the guest ran on its host: cells that differ never pool. */
	json_object_object_add(o, "levers", levers_json(&c->levers));
	json_object_object_add(o, "memory_mib",
			       json_object_new_int(c->memory_mib));
	json_object_object_add(o, "vcpus", json_object_new_int(c->vcpus));
	/* Where it ran: the matrix engine's host and slot, and which try. */
	json_object_object_add(o, "host", JS(c->host ? c->host : "local"));
	json_object_object_add(o, "host_uri", JS(c->uri));
	if (c->facts)
		json_object_object_add(o, "host_facts", facts_json(c));
	json_object_object_add(o, "slot", json_object_new_int(c->slot));
	json_object_object_add(
		o, "attempt", json_object_new_int(c->attempt ? c->attempt : 1));
	json_object_object_add(o, "outcome", JS(outcome_name(r->outcome)));
	json_object_object_add(o, "outcome_reason", JS(r->reason));
	json_object_object_add(o, "agent", agent_json(g));
	json_object_object_add(t, "started", JS(started));
	json_object_object_add(t, "finished", JS(finished));
	/* The lab's own cost: libvirt starting QEMU (part of boot_s). */
	json_object_object_add(t, "domain_start_s",
			       json_number(span(g->t_create, g->t_running)));
	json_object_object_add(t, "boot_s",
			       json_number(span(g->t_create, g->t_hello)));
	phase_timings(t, g);
	/* The guest's poweroff after its exit status, until QEMU is gone. */
	json_object_object_add(t, "poweroff_s",
			       json_number(span(g->t_exit, g->t_stop)));
	json_object_object_add(t, "total_s",
			       json_number(span(g->t_create, g->t_stop)));
	json_object_object_add(o, "timings", t);
	json_object_object_add(o, "console_kind", JS(con->kind));
	if (cj && json_object_object_get_ex(cj, "events", &events))
		json_object_object_add(o, "events", json_object_get(events));
	else
		json_object_object_add(o, "events", json_object_new_array());
	{
		json_object *m = results_metrics(c->cell_dir);

		json_object_object_add(o, "channel", channel_json(g, m));
		if (g->con_open)
			json_object_object_add(o, "console_log",
					       console_log_json(g, m));
		json_object_object_add(o, "metrics", m);
	}
	results_list_files(c->cell_dir, files);
	json_object_object_add(o, "files", files);
	/* Strict JSON, UTF-8 throughout: the last pass over guest data. */
	json_make_strict(o);
	path = xasprintf("%s/cell.json", c->cell_dir);
	ret = json_write_atomic(path, o);
	if (ret)
		error("cannot write %s: %s", path, strerror(errno));
	free(path);
	json_object_put(cj);
	json_object_put(o);
	return ret;
}

sqlite3 *results_db_open(const char *dir)
{
	char *path = xasprintf("%s/wblab.db", dir);
	struct strbuf err = STRBUF_INIT;
	sqlite3 *db = resdb_open(path, true, false, &err);

	if (!db) {
		error("%s", err.buf);
	} else if (resdb_schema(db)) {
		sqlite3_close(db);
		db = NULL;
	}
	strbuf_release(&err);
	free(path);
	return db;
}

static int exec_bind(sqlite3 *db, const char *sql, const char *const *text,
		     int ntext, const double *nums, int nnums)
{
	sqlite3_stmt *st;
	int rc;

	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return error("%s: %s", resdb_path(db), sqlite3_errmsg(db));
	for (int i = 0; i < ntext; i++)
		sqlite3_bind_text(st, i + 1, text[i], -1, SQLITE_TRANSIENT);
	for (int i = 0; i < nnums; i++)
		sqlite3_bind_double(st, ntext + i + 1, nums[i]);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return error("%s: %s", resdb_path(db), sqlite3_errmsg(db));
	return 0;
}

int results_db_run(sqlite3 *db, const char *run_id, const char *started,
		   const char *finished, const char *accel, const char *host)
{
	const char *t[] = { run_id, started, finished, accel, host };

	return exec_bind(db, "INSERT OR REPLACE INTO runs VALUES (?,?,?,?,?)",
			 t, 5, NULL, 0);
}

int results_db_cell(sqlite3 *db, const char *run_id, const char *cell_id,
		    const char *kernel, const char *kernel_hash,
		    const char *topology, const char *workload, int rep,
		    const char *outcome, const char *started, double total_s,
		    double boot_s)
{
	char repbuf[16];
	const char *t[] = { run_id,   cell_id, kernel,	kernel_hash, topology,
			    workload, repbuf,  outcome, started };
	double n[] = { total_s, boot_s };

	snprintf(repbuf, sizeof(repbuf), "%d", rep);
	return exec_bind(
		db,
		"INSERT OR REPLACE INTO cells VALUES (?,?,?,?,?,?,?,?,?,?,?)",
		t, 9, n, 2);
}

void results_db_close(sqlite3 *db)
{
	sqlite3_close(db);
}
