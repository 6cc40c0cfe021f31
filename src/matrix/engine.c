// SPDX-License-Identifier: GPL-2.0
/*
 * The matrix engine: resolve the specs a matrix names, make sure image,
 * kernels and initramfs are cached, then run the cells in their shuffled
 * order in parallel slots on the hosts, each cell in its own worker
 * process (wblab cell-run), and record them in the results layout.
 *
 * Slots: a cell starts on a host only while the guest memory of what runs
 * there (plus QEMU's own) fits the host's memory and the vCPUs fit its
 * CPUs: guest memory is never overcommitted, so memory pressure is the
 * workload's, not the host's. --jobs caps the total.
 *
 * Faults: a cell that ends infra-error is retried (bounded, on another
 * host when there is one) and never counts as a result. A host whose
 * libvirt connection is gone is dropped and its cells move to the others.
 * Workers die with the engine (PR_SET_PDEATHSIG) and destroy their
 * domains, so a kill -9 leaves a resumable run and no domains.
 *
 * The slots and workers are slots.c's; run.json is record.c's.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "artifact/cache.h"
#include "artifact/image.h"
#include "artifact/initramfs.h"
#include "artifact/kbuild.h"
#include "artifact/kernel.h"
#include "cell/cell.h"
#include "cell/results.h"
#include "matrix/engine.h"
#include "matrix/matrix.h"
#include "matrix/progress.h"
#include "results/db.h"
#include "results/reader.h"
#include "spec/hosts.h"
#include "spec/specs.h"
#include "util/devnodes.h"
#include "util/fs.h"
#include "util/json.h"
#include "util/log.h"
#include "virt/owner.h"
#include "virt/probe.h"
#include "virt/virt.h"

/*
 * TIME-XXXX, XXXX random: the pid's low bits were the same for runs
 * started in one second in containers (each one's pid 1 or so), and three
 * runs wrote into one directory. mkdir_stamped() names and makes it, the
 * same as validate's and bisect's work directories.
 */
int engine_new_run_dir(const char *results, char *run_id, size_t len,
		       char **run_dir)
{
	const char *base;

	if (mkdir_stamped(results, NULL, run_dir) < 0)
		return -1;
	base = strrchr(*run_dir, '/') + 1;
	if (strlen(base) >= len) {
		rmdir(*run_dir);
		free(*run_dir);
		*run_dir = NULL;
		errno = ENAMETOOLONG;
		return -1;
	}
	memcpy(run_id, base, strlen(base) + 1);
	return 0;
}

/* A kernel made in code (matrix_opts.kernels), else lab/kernels/NAME. */
static int find_kernel(const struct engine *e, const char *name,
		       struct kernel_spec *out)
{
	for (size_t i = 0; i < e->o.nr_kernels; i++)
		if (!strcmp(e->o.kernels[i].name, name)) {
			kernel_spec_copy(out, &e->o.kernels[i]);
			return 0;
		}
	return kernel_spec_find(name, out);
}

/* Specs: every name must load, or nothing starts (exit 2). */
static int load_specs(struct engine *e)
{
	const struct matrix_spec *m = &e->m;
	int bad = 0;

	e->k = xzalloc(m->kernels.n * sizeof(*e->k));
	e->topo = xzalloc(m->topologies.n * sizeof(*e->topo));
	e->wl = xzalloc(m->workloads.n * sizeof(*e->wl));
	for (size_t i = 0; i < m->kernels.n; i++)
		bad |= find_kernel(e, m->kernels.v[i], &e->k[i].spec) != 0;
	for (size_t i = 0; i < m->topologies.n; i++)
		bad |= topology_spec_find(m->topologies.v[i], &e->topo[i]) != 0;
	for (size_t i = 0; i < m->workloads.n; i++)
		bad |= workload_spec_find(m->workloads.v[i], &e->wl[i]) != 0;
	bad |= image_spec_find(m->image, &e->ispec) != 0;
	/*
	 * Only the pairs some cell runs: exclude: is how one matrix holds a
	 * workload that needs a mount beside a topology that has none.
	 */
	for (size_t t = 0; !bad && t < m->topologies.n; t++)
		for (size_t w = 0; w < m->workloads.n; w++)
			if (workload_needs_mount(&e->wl[w]) &&
			    !topology_mount_layer(&e->topo[t]) &&
			    !matrix_spec_pair_excluded(m, m->topologies.v[t],
						       m->workloads.v[w])) {
				error("workload %s uses ${WBLAB_MOUNT} but topology %s has no mount (add an fs layer)",
				      e->wl[w].name, e->topo[t].name);
				bad = 1;
			}
	return bad ? -1 : 0;
}

/* Artifacts: failures here are the lab's, recorded as infra-error cells. */
static void prepare_artifacts(struct engine *e)
{
	char *agent = agent_binary_path();

	if (image_ensure(&e->ispec, &e->image, NULL))
		e->infra = xasprintf("guest image %s could not be built",
				     e->ispec.name);
	for (size_t i = 0; i < e->m.kernels.n; i++) {
		struct engine_kernel *k = &e->k[i];

		if (kernel_ensure(&k->spec, &k->art)) {
			k->err = xasprintf(
				"kernel %s could not be fetched or built",
				k->spec.name);
			continue;
		}
		k->ok = true;
		k->initrd = initramfs_ensure(&k->art, agent);
		if (!k->initrd) {
			k->ok = false;
			k->err =
				xasprintf("initramfs for %s could not be built",
					  k->spec.name);
		}
	}
	free(agent);
}

static int open_lock(struct engine *e, bool wait)
{
	char *path = xasprintf("%s/lock", e->r->run_dir);
	double end = now_mono() + 90;
	bool said = false;

	/* No O_CLOEXEC: workers hold it too, until the last one is gone. */
	e->lock_fd = open(path, O_RDWR | O_CREAT, 0644);
	free(path);
	if (e->lock_fd < 0)
		return error("cannot open the run lock in %s: %s",
			     e->r->run_dir, strerror(errno));
	while (flock(e->lock_fd, LOCK_EX | LOCK_NB) < 0) {
		if (!wait || now_mono() > end)
			return error(
				"run %s is being run by another wblab (its lock is held)",
				e->r->run_dir);
		if (!said)
			info("waiting for the previous owner's cells of %s to stop",
			     e->r->run_dir);
		said = true;
		usleep(200000);
	}
	return 0;
}

static void init_results(struct engine *e)
{
	struct matrix_run *r = e->r;

	r->n = e->plan.n;
	r->cells = xzalloc(r->n * sizeof(*r->cells));
	e->st = xzalloc(r->n * sizeof(*e->st));
	for (size_t i = 0; i < r->n; i++) {
		struct matrix_cell *src = &e->plan.cells[i],
				   *dst = &r->cells[i].cell;

		*dst = *src;
		dst->id = xstrdup(src->id);
		dst->kernel = xstrdup(src->kernel);
		dst->topology = xstrdup(src->topology);
		dst->workload = xstrdup(src->workload);
		dst->levers = xstrdup(src->levers ? src->levers : "default");
		r->cells[i].dir = xasprintf("%s/cells/%s", r->run_dir, src->id);
		r->cells[i].outcome = OUTCOME_INFRA_ERROR;
		e->st[i].attempt = e->st[i].first_attempt = 1;
		e->st[i].last_host = -1;
	}
}

/*
 * Nothing of this run may outlive it: destroy its domains that still run.
 * One whose guest powered itself off is already being torn down by
 * libvirt (on_poweroff=destroy): waiting for that, or destroying it (which
 * waits for QEMU to exit too), cost every run ~1.5 s for nothing.
 */
static int destroy_left(virConnectPtr conn, const char *prefix)
{
	virDomainPtr *doms = NULL;
	int n = virConnectListAllDomains(conn, &doms,
					 VIR_CONNECT_LIST_DOMAINS_ACTIVE),
	    killed = 0;

	for (int i = 0; i < n; i++) {
		const char *name = virDomainGetName(doms[i]);
		int state = -1, reason;

		if (name && !strncmp(name, prefix, strlen(prefix)) &&
		    virDomainGetState(doms[i], &state, &reason, 0) == 0 &&
		    state != VIR_DOMAIN_SHUTDOWN &&
		    state != VIR_DOMAIN_SHUTOFF &&
		    virDomainDestroy(doms[i]) == 0)
			killed++;
		virDomainFree(doms[i]);
	}
	free(doms);
	return killed;
}

static void finish_run(struct engine *e)
{
	char finished[32];
	struct strbuf names = STRBUF_INIT;
	bool complete = true;

	for (size_t ci = 0; ci < e->r->n; ci++) {
		struct matrix_cell_result *cr = &e->r->cells[ci];

		complete &= e->st[ci].state == CELL_DONE;
		if (e->st[ci].state == CELL_DONE && cr->have_result)
			e->r->nr_results++;
		else
			e->r->nr_infra++;
	}
	e->r->interrupted = virt_interrupted();
	now_iso8601(finished, sizeof(finished));
	/* finished stays empty while cells are left: the run is resumable. */
	engine_save_run(e, complete ? finished : NULL);
	for (size_t i = 0; i < e->nh; i++)
		strbuf_addf(&names, "%s%s", i ? "," : "",
			    e->hosts[i].spec->name);
	if (e->db && results_db_run(e->db, e->r->run_id, e->started,
				    complete ? finished : "",
				    e->hosts[0].accel.accel, names.buf))
		e->db_errors++;
	if (e->db_errors)
		error("%s: %d record(s) of run %s failed: the run is in run.json, not all in the index",
		      resdb_path(e->db), e->db_errors, e->r->run_id);
	strbuf_release(&names);
	for (size_t i = 0; i < e->nh; i++) {
		struct engine_host *h = &e->hosts[i];
		char *prefix = xasprintf("wblab-%s-", e->r->run_id);

		if (h->conn && virConnectIsAlive(h->conn) == 1 &&
		    destroy_left(h->conn, prefix))
			warn("destroyed domains of run %s left running on %s",
			     e->r->run_id, h->spec->name);
		free(prefix);
	}
	progress_finish(&e->prog);
	if (e->r->interrupted || e->r->stopped)
		info("run %s stopped: %s", e->r->run_id, engine_resume_hint(e));
}

static void engine_free(struct engine *e)
{
	for (size_t i = 0; e->k && i < e->m.kernels.n; i++) {
		kernel_spec_free(&e->k[i].spec);
		kernel_artifact_free(&e->k[i].art);
		free(e->k[i].initrd);
		free(e->k[i].err);
	}
	free(e->k);
	for (size_t i = 0; e->topo && i < e->m.topologies.n; i++)
		topology_spec_free(&e->topo[i]);
	free(e->topo);
	for (size_t i = 0; e->wl && i < e->m.workloads.n; i++)
		workload_spec_free(&e->wl[i]);
	free(e->wl);
	image_spec_free(&e->ispec);
	image_artifact_free(&e->image);
	for (size_t i = 0; i < e->nh; i++)
		engine_host_free(e, &e->hosts[i]);
	free(e->hosts);
	hosts_spec_free(&e->hs);
	matrix_plan_free(&e->plan);
	matrix_spec_free(&e->m);
	progress_free(&e->prog);
	free(e->st);
	free(e->infra);
	free(e->exe);
	if (e->record)
		results_close_run(e->record);
	free(e->record);
	free(e->results_owned);
	if (e->db)
		results_db_close(e->db);
	if (e->lock_fd > 0)
		close(e->lock_fd);
}

/*
 * The host's own device nodes, before a run directory is made: with
 * /dev/null a regular file every domain start fails, each retry too, so
 * no cell could say anything about a kernel.
 */
static int preflight(void)
{
	struct strbuf why = STRBUF_INIT;
	int ret = devnodes_check(devnodes_root(), &why);

	if (ret)
		error("this host cannot start a domain: %s; nothing started",
		      why.buf);
	strbuf_release(&why);
	return ret;
}

/*
 * A fresh run whose hosts all refuse a connection (libvirtd down, a user
 * without permission) stops before its run directory exists: there is
 * nothing to resume, and the error says what to do. Each connection is
 * closed again: the engine opens its own after the kernels are built, so
 * libvirt's keepalive never times out during a long build.
 */
static int hosts_reachable(struct engine *e)
{
	struct strbuf why = STRBUF_INIT;
	int ret = -1;

	for (size_t i = 0; i < e->hs.n && ret; i++) {
		struct strbuf err = STRBUF_INIT;
		virConnectPtr c;

		if (e->hs.hosts[i].disabled)
			continue;
		c = virt_connect(e->hs.hosts[i].uri, &err);
		if (c) {
			virConnectClose(c);
			ret = 0;
		} else {
			strbuf_addf(&why, " %s: %s;", e->hs.hosts[i].name,
				    err.buf);
		}
		strbuf_release(&err);
	}
	if (ret)
		error("no host to run on:%s nothing started", why.buf);
	strbuf_release(&why);
	return ret;
}

/* The common part of run, resume and add-reps, once the plan is known. */
static int engine_go(struct engine *e, size_t kept)
{
	int ret;

	virt_install_signal_handlers();
	engine_install_sigchld();
	e->exe = engine_self_exe();
	mkdir_p(e->r->run_dir, 0755);
	if (open_lock(e, kept > 0 || e->resuming))
		return 1;
	{
		char *jobs = xasprintf("%s/jobs", e->r->run_dir);
		char *logs = xasprintf("%s/logs", e->r->run_dir);

		mkdir_p(jobs, 0755);
		mkdir_p(logs, 0755);
		free(jobs);
		free(logs);
	}
	if (!e->resuming)
		now_iso8601(e->started, sizeof(e->started));
	/*
	 * A run not in the index is lost to history: none starts without
	 * it, and before any artifact is made (results_db_open() names the
	 * file and why).
	 */
	e->db = results_db_open(e->o.results);
	if (!e->db) {
		error("the results database cannot be used; nothing started");
		return 1;
	}
	prepare_artifacts(e);
	progress_init(&e->prog, e->o.progress, e->r->n, 0);
	hosts_up(e);
	kept = e->resuming ? adopt_finished(e) : 0;
	e->prog.done = e->prog.results = kept;
	/* Status lines for the slots a host can use; more appear if used. */
	for (size_t i = 0; i < e->nh; i++) {
		int n = e->hosts[i].cpus;

		if (e->o.jobs && e->o.jobs < n)
			n = e->o.jobs;
		for (int s = 0; e->hosts[i].up && s < n; s++)
			progress_add_slot(&e->prog, e->hosts[i].spec->name, s);
	}
	if (engine_save_run(e, NULL)) {
		error("the results directory takes no writes; nothing started");
		e->r->stopped = true;
	}
	progress_note(
		&e->prog,
		"run %s: %zu cells (%zu kept), seed %llu, %zu host(s), results in %s",
		e->r->run_id, e->r->n, kept, (unsigned long long)e->r->seed,
		e->nh, e->r->run_dir);
	if (!e->r->stopped)
		engine_loop(e);
	finish_run(e);
	ret = e->r->nr_infra || e->r->interrupted || e->r->stopped ||
			      e->db_errors ?
		      1 :
		      0;
	return ret;
}

static void engine_init(struct engine *e, const struct matrix_opts *o,
			struct matrix_run *r)
{
	memset(e, 0, sizeof(*e));
	memset(r, 0, sizeof(*r));
	/* The defaults are MATRIX_OPTS_INIT's, where every caller starts. */
	e->o = *o;
	e->r = r;
	e->lock_fd = -1;
}

int matrix_run(const struct matrix_spec *m, const struct matrix_opts *o,
	       struct matrix_run *r)
{
	struct engine e;
	int ret;

	engine_init(&e, o, r);
	engine_copy_spec(&e.m, m);
	if (load_specs(&e) || load_hosts(&e)) {
		engine_free(&e);
		return 2;
	}
	if (preflight() || hosts_reachable(&e)) {
		engine_free(&e);
		return 1;
	}
	r->seed = o->has_seed ? o->seed : matrix_random_seed();
	matrix_expand(&e.m, r->seed, 1, (int)e.m.reps, &e.plan);
	if (engine_new_run_dir(e.o.results, r->run_id, sizeof(r->run_id),
			       &r->run_dir)) {
		error("cannot create %s: %s",
		      r->run_dir ? r->run_dir : e.o.results, strerror(errno));
		engine_free(&e);
		return 1;
	}
	init_results(&e);
	ret = engine_go(&e, 0);
	engine_free(&e);
	return ret;
}

/* Resume and add-reps: the run's own record says what it is. */
static int reopen(struct engine *e, const char *run_dir, int extra)
{
	struct matrix_run *r = e->r;
	int ret;

	if (engine_load_run(e, run_dir))
		return 2;
	if (load_specs(e) || load_hosts(e))
		return 2;
	if (preflight())
		return 1;
	if (extra > 0) {
		struct matrix_plan more;
		int from = (int)e->m.reps + 1;

		/* New reps get their own shuffle, from the run's seed. */
		matrix_expand(&e->m, r->seed ^ (0x9e3779b97f4a7c15ULL * from),
			      from, from + extra - 1, &more);
		engine_plan_append(&e->plan, &more);
		e->m.reps += extra;
	}
	init_results(e);
	e->resuming = true;
	ret = engine_go(e, 0);
	return ret;
}

int matrix_resume(const char *run_dir, const struct matrix_opts *o,
		  struct matrix_run *r)
{
	struct engine e;
	int ret;

	engine_init(&e, o, r);
	ret = reopen(&e, run_dir, 0);
	engine_free(&e);
	return ret;
}

int matrix_add_reps(const char *run_dir, int extra, const struct matrix_opts *o,
		    struct matrix_run *r)
{
	struct engine e;
	int ret;

	if (extra < 1 || extra > 1000)
		return error("add-reps: %d repetitions is not in [1, 1000]",
			     extra) ?
			       2 :
			       2;
	engine_init(&e, o, r);
	ret = reopen(&e, run_dir, extra);
	engine_free(&e);
	return ret;
}

void matrix_run_free(struct matrix_run *r)
{
	for (size_t i = 0; i < r->n; i++) {
		struct matrix_cell_result *c = &r->cells[i];

		free(c->cell.id);
		free(c->cell.kernel);
		free(c->cell.topology);
		free(c->cell.workload);
		free(c->cell.levers);
		free(c->dir);
		free(c->host);
	}
	free(r->cells);
	free(r->run_dir);
	memset(r, 0, sizeof(*r));
}
