// SPDX-License-Identifier: GPL-2.0
/*
 * What became of a cell, read back from (or, when its worker left none,
 * written to) its cell.json; attempts set aside; the SQLite index; cells
 * an earlier invocation finished.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cell/cell.h"
#include "cell/results.h"
#include "matrix/engine.h"
#include "results/cell.h"
#include "results/outcome.h"
#include "results/reader.h"
#include "util/fs.h"
#include "util/json.h"
#include "util/log.h"
#include "util/str.h"
#include "virt/owner.h"
#include "virt/virt.h"

int name_index(const struct spec_strlist *l, const char *name)
{
	for (size_t i = 0; i < l->n; i++)
		if (!strcmp(l->v[i], name))
			return (int)i;
	return -1;
}

const struct engine_kernel *first_kernel(const struct engine *e)
{
	for (size_t i = 0; i < e->m.kernels.n; i++)
		if (e->k[i].ok)
			return &e->k[i];
	return NULL;
}

/* Read what the worker recorded; fills outcome. -1 if no cell.json. */
int read_cell_json(struct matrix_cell_result *cr, struct cell_result **out)
{
	char *path = xasprintf("%s/cell.json", cr->dir);
	struct strbuf why = STRBUF_INIT;
	json_object *o = results_read_json(path, &why);
	struct cell_result *c = o ? cell_result_decode(o) : NULL;

	strbuf_release(&why);
	free(path);
	json_object_put(o);
	*out = NULL;
	if (!c)
		return -1;
	if (c->outcome >= 0) {
		cr->outcome = c->outcome;
		*out = c;
		return 0;
	}
	cell_result_put(c);
	return -1;
}

const char *engine_resume_hint(const struct engine *e)
{
	static char hint[PATH_MAX + 128];
	char *rj = xasprintf("%s/run.json", e->r->run_dir);

	if (path_exists(rj))
		snprintf(hint, sizeof(hint),
			 "resume with: wblab matrix run --resume %s",
			 e->r->run_dir);
	else
		snprintf(
			hint, sizeof(hint),
			"%s has no run.json: nothing to resume, start the run again",
			e->r->run_dir);
	free(rj);
	return hint;
}

bool results_disk_ok(struct engine *e)
{
	int64_t free_b = fs_free_bytes(e->r->run_dir);

	if (free_b >= RESULTS_MIN_FREE)
		return true;
	if (!e->r->stopped)
		error("the results disk is full: %s has %lld KiB free; no new cell starts; finished cells are intact; %s",
		      e->r->run_dir, (long long)(free_b >> 10),
		      engine_resume_hint(e));
	e->r->stopped = true;
	return false;
}

/*
 * The worker left no cell.json (killed, crashed, or the disk is full):
 * record the cell from here, through the same outcome decision.
 */
void record_lost_worker(struct engine *e, size_t ci, const char *why)
{
	struct matrix_cell_result *cr = &e->r->cells[ci];
	struct engine_host *h = &e->hosts[e->st[ci].host];
	struct strbuf err = STRBUF_INIT;
	struct levers lv;
	int bad = levers_parse(cr->cell.levers, &lv, &err);
	struct cell_spec c = {
		.run_id = e->r->run_id,
		.cell_id = cr->cell.id,
		.cell_dir = cr->dir,
		.topo = &e->topo[name_index(&e->m.topologies,
					    cr->cell.topology)],
		.wl = &e->wl[name_index(&e->m.workloads, cr->cell.workload)],
		.rep = cr->cell.rep,
		.accel = h->accel.accel,
		.memory_mib = (unsigned int)cell_memory(e, ci),
		.vcpus = (unsigned int)cr->cell.vcpus,
		.infra_error = bad ? err.buf : why,
		.levers = lv,
		.host = h->spec->name,
		.uri = h->spec->uri,
		.slot = e->st[ci].slot,
		.attempt = e->st[ci].attempt,
	};
	struct cell_run_result r;

	cell_run(NULL, &c, &r);
	strbuf_release(&err);
}

/* Destroy whatever a dead worker may have left of its cell on the host. */
void clean_after_worker(struct engine *e, size_t ci)
{
	struct engine_host *h = &e->hosts[e->st[ci].host];
	char *name = cell_domain_name(e->r->run_id, e->r->cells[ci].cell.id);
	char *tgt = xasprintf("%s-target", name);
	char *net = xasprintf("%s-net", name);

	if (h->conn && virConnectIsAlive(h->conn) == 1) {
		virt_destroy_by_name(h->spec->uri, name);
		virt_destroy_by_name(h->spec->uri, tgt);
		virt_destroy_by_name(h->spec->uri, net);
	}
	free(name);
	free(tgt);
	free(net);
}

/* Retried attempts live in DIR/<run>/attempts/, out of the cells' way. */
void set_aside(struct engine *e, size_t ci)
{
	struct matrix_cell_result *cr = &e->r->cells[ci];
	char *dir = xasprintf("%s/attempts", e->r->run_dir);
	char *dst = xasprintf("%s/%s.%d", dir, cr->cell.id, e->st[ci].attempt);

	mkdir_p(dir, 0755);
	rm_rf(dst);
	if (rename(cr->dir, dst) < 0 && errno != ENOENT)
		rm_rf(cr->dir);
	free(dir);
	free(dst);
}

/* A time the index records: 0 when the cell has none. */
static double db_time(double s)
{
	return isnan(s) ? 0 : s;
}

void db_cell(struct engine *e, size_t ci, const struct cell_result *cj)
{
	struct matrix_cell_result *cr = &e->r->cells[ci];

	if (!e->db || !cj)
		return;
	if (results_db_cell(
		    e->db, e->r->run_id, cr->cell.id, cr->cell.kernel,
		    str_or(cj->kernel.hash, ""), cr->cell.topology,
		    cr->cell.workload, cr->cell.rep, outcome_name(cr->outcome),
		    str_or(cj->timings.started, ""),
		    db_time(cj->timings.total_s), db_time(cj->timings.boot_s)))
		e->db_errors++;
}

json_object *cells_json(const struct engine *e)
{
	json_object *a = json_object_new_array();

	for (size_t i = 0; i < e->r->n; i++) {
		const struct matrix_cell_result *c = &e->r->cells[i];
		json_object *o;

		if (!c->ran)
			continue;
		o = json_object_new_object();
		json_object_object_add(o, "id",
				       json_object_new_string(c->cell.id));
		json_object_object_add(o, "kernel",
				       json_object_new_string(c->cell.kernel));
		json_object_object_add(
			o, "topology",
			json_object_new_string(c->cell.topology));
		json_object_object_add(
			o, "workload",
			json_object_new_string(c->cell.workload));
		json_object_object_add(o, "rep",
				       json_object_new_int(c->cell.rep));
		json_object_object_add(
			o, "outcome",
			json_object_new_string(outcome_name(c->outcome)));
		json_object_object_add(
			o, "dir",
			json_object_new_string(c->dir + strlen(e->r->run_dir) +
					       1));
		json_object_object_add(
			o, "host",
			json_object_new_string(c->host ? c->host : ""));
		json_object_object_add(o, "slot", json_object_new_int(c->slot));
		json_object_object_add(o, "attempts",
				       json_object_new_int(c->attempts));
		json_object_array_add(a, o);
	}
	return a;
}

/* Cells with a kernel result in an earlier invocation are kept. */
size_t adopt_finished(struct engine *e)
{
	size_t kept = 0;

	for (size_t ci = 0; ci < e->r->n; ci++) {
		struct matrix_cell_result *cr = &e->r->cells[ci];
		struct cell_result *cj;

		if (read_cell_json(cr, &cj)) {
			rm_rf(cr->dir); /* a worker's half-written cell */
			continue;
		}
		if (cr->outcome == OUTCOME_INFRA_ERROR) {
			e->st[ci].attempt = (int)cj->attempt;
			if (e->st[ci].attempt < 1)
				e->st[ci].attempt = 1;
			set_aside(e, ci);
			/* Numbering goes on; the retry budget starts afresh. */
			e->st[ci].attempt++;
			e->st[ci].first_attempt = e->st[ci].attempt;
			cell_result_put(cj);
			continue;
		}
		cr->ran = cr->have_result = true;
		cr->host = cj->host ? xstrdup(cj->host) : NULL;
		cr->slot = (int)cj->slot;
		cr->attempts = (int)cj->attempt;
		e->st[ci].state = CELL_DONE;
		kept++;
		cell_result_put(cj);
	}
	return kept;
}

long long cell_memory(const struct engine *e, size_t ci)
{
	const struct matrix_cell *c = &e->r->cells[ci].cell;
	const struct workload_spec *w =
		&e->wl[name_index(&e->m.workloads, c->workload)];

	return c->memory ? c->memory : w->memory ? w->memory : 1024;
}

/* Host memory the cell takes: its guests and their QEMUs. */
long long cell_footprint(const struct engine *e, size_t ci)
{
	const struct topology_spec *t = &e->topo[name_index(
		&e->m.topologies, e->r->cells[ci].cell.topology)];
	long long mib = cell_memory(e, ci) + QEMU_OVERHEAD_MIB;

	if (topology_has_target(t))
		mib += (t->target_memory ? t->target_memory : 512) +
		       QEMU_OVERHEAD_MIB;
	return mib;
}
