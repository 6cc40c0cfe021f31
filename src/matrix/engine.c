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
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "artifact/cache.h"
#include "artifact/image.h"
#include "artifact/initramfs.h"
#include "artifact/kbuild.h"
#include "artifact/kernel.h"
#include "cell/cell.h"
#include "cell/job.h"
#include "cell/results.h"
#include "matrix/engine.h"
#include "matrix/matrix.h"
#include "matrix/progress.h"
#include "spec/hosts.h"
#include "spec/specs.h"
#include "util/fs.h"
#include "util/json.h"
#include "util/log.h"
#include "virt/owner.h"
#include "virt/probe.h"
#include "virt/virt.h"

/* A worker past its cell's deadline by this much is killed. */
#define WORKER_GRACE 120

static int sigchld_pipe[2] = { -1, -1 };

static void on_sigchld(int sig)
{
	int saved = errno;

	if (sigchld_pipe[1] >= 0 && write(sigchld_pipe[1], "c", 1) < 0) {
		/* the 1 s tick reaps it anyway */
	}
	errno = saved;
}

static void install_sigchld(void)
{
	struct sigaction sa = { .sa_handler = on_sigchld,
				.sa_flags = SA_NOCLDSTOP };

	if (sigchld_pipe[0] < 0 &&
	    pipe2(sigchld_pipe, O_CLOEXEC | O_NONBLOCK) < 0)
		die("pipe: %s", strerror(errno));
	sigemptyset(&sa.sa_mask);
	sigaction(SIGCHLD, &sa, NULL);
}

void engine_make_run_id(char *buf, size_t len)
{
	time_t t = time(NULL);
	struct tm tm;
	char ts[32];

	gmtime_r(&t, &tm);
	strftime(ts, sizeof(ts), "%Y%m%d-%H%M%S", &tm);
	snprintf(buf, len, "%s-%04x", ts, (unsigned int)(getpid() & 0xffff));
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
	for (size_t t = 0; !bad && t < m->topologies.n; t++)
		for (size_t w = 0; w < m->workloads.n; w++)
			if (workload_needs_mount(&e->wl[w]) &&
			    !topology_mount_layer(&e->topo[t])) {
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

json_object *engine_run_json(struct engine *e, const char *finished)
{
	json_object *o = json_object_new_object();
	json_object *host = json_object_new_object();

	host_json(e, host);
	json_object_object_add(o, "run", json_object_new_string(e->r->run_id));
	json_object_object_add(o, "command",
			       json_object_new_string(e->o.command));
	json_object_object_add(o, "started",
			       json_object_new_string(e->started));
	json_object_object_add(o, "finished",
			       json_object_new_string(finished ? finished :
								 ""));
	json_object_object_add(o, "spec", engine_spec_json(e));
	json_object_object_add(o, "plan", engine_plan_json(e));
	json_object_object_add(o, "host", host);
	json_object_object_add(o, "hosts", hosts_json(e));
	json_object_object_add(o, "jobs", json_object_new_int(e->o.jobs));
	json_object_object_add(o, "cells", cells_json(e));
	return o;
}

/* Returns -1 (and says so once) when the results disk takes no more. */
int engine_save_run(struct engine *e, const char *finished)
{
	json_object *o = engine_run_json(e, finished);
	char *path = xasprintf("%s/run.json", e->r->run_dir);
	int ret = json_write_atomic(path, o);

	if (ret)
		error("cannot write %s: %s", path, strerror(errno));
	free(path);
	json_object_put(o);
	return ret;
}

static char *self_exe(void)
{
	char buf[4096];
	ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);

	if (n <= 0)
		return xasprintf("%s/wblab", wblab_home());
	buf[n] = '\0';
	/* Rebuilt while running: run the new binary at the same path. */
	if (n > 10 && !strcmp(buf + n - 10, " (deleted)"))
		buf[n - 10] = '\0';
	return xstrdup(buf);
}

static void fill_job(struct engine *e, size_t ci, struct engine_host *h,
		     int slot, struct cell_job *j)
{
	struct matrix_cell_result *cr = &e->r->cells[ci];
	const struct matrix_cell *c = &cr->cell;
	int ki = name_index(&e->m.kernels, c->kernel);
	const struct engine_kernel *k = &e->k[ki];
	const struct workload_spec *w =
		&e->wl[name_index(&e->m.workloads, c->workload)];

	memset(j, 0, sizeof(*j));
	j->run_id = e->r->run_id;
	j->cell_id = c->id;
	j->cell_dir = cr->dir;
	j->kernel = c->kernel;
	j->kernel_dir = k->ok ? k->art.dir : "";
	j->topology = c->topology;
	j->workload = c->workload;
	j->rep = c->rep;
	j->memory_mib = (int)cell_memory(e, ci);
	j->vcpus = (int)c->vcpus;
	j->image = h->image ? h->image : e->image.path;
	j->initrd = h->vols ? h->vols[ki].initrd : k->initrd;
	j->bzimage = h->vols ? h->vols[ki].bzimage : NULL;
	j->modules_img = h->vols ? h->vols[ki].modules : NULL;
	j->accel = h->accel.accel;
	j->uri = h->spec->uri;
	j->host = h->spec->name;
	j->run_dir = h->spec->run_dir;
	j->qemu_user = h->spec->qemu_user;
	j->slot = slot;
	j->attempt = e->st[ci].attempt;
	j->boot_timeout = e->o.boot_timeout;
	j->workload_timeout = e->o.timeout ? e->o.timeout : (int)w->timeout;
	j->deadline = e->o.deadline;
	j->keep = e->o.keep;
	j->cmdline_extra = (char *)e->o.cmdline_extra;
	j->infra_error = e->infra ? e->infra : k->err;
}

static pid_t spawn_worker(struct engine *e, const char *job, const char *log)
{
	pid_t parent = getpid(), pid;

	fflush(NULL);
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		int fd = open(log, O_WRONLY | O_CREAT | O_APPEND, 0644);
		int in = open("/dev/null", O_RDONLY);

		/* The worker stops (and destroys its domains) when we die. */
		prctl(PR_SET_PDEATHSIG, SIGTERM);
		if (getppid() != parent)
			_exit(1);
		if (in >= 0)
			dup2(in, 0);
		if (fd >= 0) {
			dup2(fd, 1);
			dup2(fd, 2);
		}
		signal(SIGCHLD, SIG_DFL);
		execl(e->exe, "wblab", "cell-run", job, (char *)NULL);
		dprintf(2, "cannot run %s: %s\n", e->exe, strerror(errno));
		_exit(127);
	}
	return pid;
}

static int start_cell(struct engine *e, size_t ci, struct engine_host *h)
{
	struct matrix_cell_result *cr = &e->r->cells[ci];
	struct engine_state *st = &e->st[ci];
	int slot = free_slot(h);
	struct cell_job j;
	char *job, *log;

	fill_job(e, ci, h, slot, &j);
	job = xasprintf("%s/jobs/%s.json", e->r->run_dir, cr->cell.id);
	log = xasprintf("%s/logs/%s.%d.log", e->r->run_dir, cr->cell.id,
			st->attempt);
	if (cell_job_write(job, &j)) {
		error("cannot write %s: %s", job, strerror(errno));
		free(job);
		free(log);
		return -1;
	}
	st->pid = spawn_worker(e, job, log);
	free(job);
	free(log);
	if (st->pid < 0)
		return error("fork: %s", strerror(errno));
	st->state = CELL_RUNNING;
	st->host = h->index;
	st->slot = slot;
	st->t_start = now_mono();
	st->term_sent = st->kill_sent = false;
	h->slots[slot] = true;
	h->running++;
	h->used_cpus += (int)cr->cell.vcpus;
	st->mib = cell_footprint(e, ci);
	h->used_mib += st->mib;
	e->nr_running++;
	progress_start(&e->prog, h->spec->name, slot, cr->cell.id, st->attempt);
	return 0;
}

/*
 * No host left (or none reachable from the start): every cell not yet
 * run is recorded infra-error with the hosts' reasons, and the run stops,
 * resumable.
 */
static void no_host(struct engine *e)
{
	struct strbuf why = STRBUF_INIT;

	strbuf_addstr(&why, "no host to run on:");
	for (size_t i = 0; i < e->nh; i++)
		strbuf_addf(&why, " %s: %s;", e->hosts[i].spec->name,
			    e->hosts[i].down_reason ? e->hosts[i].down_reason :
						      "disabled");
	error("%s %s", why.buf, engine_resume_hint(e));
	for (size_t ci = 0; ci < e->r->n; ci++) {
		struct matrix_cell_result *cr = &e->r->cells[ci];
		json_object *cj;

		if (e->st[ci].state != CELL_PENDING)
			continue;
		e->st[ci].host = 0;
		record_lost_worker(e, ci, why.buf);
		if (read_cell_json(cr, &cj) == 0) {
			cr->ran = true;
			cr->host = xstrdup(e->hosts[0].spec->name);
			cr->attempts = e->st[ci].attempt;
			db_cell(e, ci, cj);
			json_object_put(cj);
		}
	}
	engine_save_run(e, NULL);
	e->r->stopped = true;
	strbuf_release(&why);
}

/* Start what fits, in plan order. */
static void schedule(struct engine *e)
{
	for (size_t ci = 0; ci < e->r->n; ci++) {
		struct engine_host *h;

		if (virt_interrupted() || e->r->stopped)
			return;
		if (e->o.jobs && e->nr_running >= e->o.jobs)
			return;
		if (e->st[ci].state != CELL_PENDING)
			continue;
		if (!any_host_up(e)) {
			no_host(e);
			return;
		}
		h = pick_host(e, ci);
		if (!h)
			return; /* keep the order: wait for a slot */
		if (!results_disk_ok(e))
			return;
		if (start_cell(e, ci, h))
			e->r->stopped = true;
	}
}

static bool retryable(const struct engine *e, size_t ci, json_object *cj)
{
	const char *reason =
		json_object_get_string(json_path(cj, "outcome_reason"));

	if (virt_interrupted() ||
	    e->st[ci].attempt - e->st[ci].first_attempt >= e->o.max_retries)
		return false;
	/* What no retry can fix: a missing kernel, the image, the disk. */
	if (e->infra ||
	    e->k[name_index(&e->m.kernels, e->r->cells[ci].cell.kernel)].err)
		return false;
	return !reason || !strstr(reason, "interrupted");
}

static void finish_cell(struct engine *e, size_t ci, int status)
{
	struct matrix_cell_result *cr = &e->r->cells[ci];
	struct engine_state *st = &e->st[ci];
	struct engine_host *h = &e->hosts[st->host];
	double secs = now_mono() - st->t_start;
	json_object *cj = NULL;
	bool retry = false;
	const char *reason;

	h->slots[st->slot] = false;
	h->running--;
	h->used_cpus -= (int)cr->cell.vcpus;
	h->used_mib -= st->mib;
	e->nr_running--;
	st->pid = 0;
	if (!WIFEXITED(status) || WEXITSTATUS(status))
		clean_after_worker(e, ci);
	if (read_cell_json(cr, &cj)) {
		char *why =
			WIFSIGNALED(status) ?
				xasprintf(
					"the cell's worker was killed by signal %d%s",
					WTERMSIG(status),
					st->kill_sent ? " after its deadline" :
							"") :
				xasprintf(
					"the cell's worker exited %d without a cell.json",
					WEXITSTATUS(status));

		record_lost_worker(e, ci, why);
		free(why);
		if (read_cell_json(cr, &cj)) {
			/* Not even that could be written: the disk. */
			cr->outcome = OUTCOME_INFRA_ERROR;
			results_disk_ok(e);
		}
	}
	reason = cj ? json_object_get_string(json_path(cj, "outcome_reason")) :
		      "no cell.json could be written";
	if (cr->outcome == OUTCOME_INFRA_ERROR) {
		check_host(e, h);
		retry = cj && retryable(e, ci, cj) && !e->r->stopped;
	}
	progress_end(&e->prog, h->spec->name, st->slot, cr->cell.id,
		     outcome_name(cr->outcome), reason ? reason : "", secs,
		     retry);
	if (retry) {
		set_aside(e, ci);
		st->attempt++;
		st->last_host = h->index;
		st->state = CELL_PENDING;
		json_object_put(cj);
		return;
	}
	st->state = CELL_DONE;
	cr->ran = cj != NULL;
	cr->have_result = cr->outcome != OUTCOME_INFRA_ERROR;
	free(cr->host);
	cr->host = xstrdup(h->spec->name);
	cr->slot = st->slot;
	cr->attempts = st->attempt;
	/* An interrupted cell is not done: resume runs it. */
	if (cr->outcome == OUTCOME_INFRA_ERROR && virt_interrupted())
		st->state = CELL_PENDING;
	db_cell(e, ci, cj);
	json_object_put(cj);
	if (engine_save_run(e, NULL))
		results_disk_ok(e);
}

static void reap(struct engine *e)
{
	char buf[64];

	while (read(sigchld_pipe[0], buf, sizeof(buf)) > 0)
		;
	for (size_t ci = 0; ci < e->r->n; ci++) {
		struct engine_state *st = &e->st[ci];
		int status;

		if (st->state != CELL_RUNNING || st->pid <= 0)
			continue;
		if (waitpid(st->pid, &status, WNOHANG) == st->pid)
			finish_cell(e, ci, status);
	}
}

/* Backstop: a worker that outlives its cell's deadline is stopped. */
static void police(struct engine *e)
{
	double now = now_mono();

	for (size_t ci = 0; ci < e->r->n; ci++) {
		struct engine_state *st = &e->st[ci];
		double limit = e->o.deadline ? e->o.deadline : 3 * 3600;

		if (st->state != CELL_RUNNING || st->pid <= 0)
			continue;
		if (virt_interrupted() && !st->term_sent) {
			kill(st->pid, SIGTERM);
			st->term_sent = true;
			st->t_term = now;
		}
		if (!st->term_sent &&
		    now - st->t_start > limit + WORKER_GRACE) {
			kill(st->pid, SIGTERM);
			st->term_sent = true;
			st->t_term = now;
		} else if (st->term_sent && !st->kill_sent &&
			   now - st->t_term > 60) {
			kill(st->pid, SIGKILL);
			st->kill_sent = true;
		}
	}
}

static void on_sigchld_fd(int watch, int fd, int events, void *opaque)
{
	/* reap() drains the pipe; waking the loop is all this is for. */
}

static void on_tick(int timer, void *opaque)
{
}

/*
 * The engine waits in libvirt's event loop, not in poll(): libvirt's
 * keepalive on the hosts' connections needs the loop to run, or it
 * declares them dead after half a minute.
 */
static void loop(struct engine *e)
{
	int watch = virEventAddHandle(sigchld_pipe[0],
				      VIR_EVENT_HANDLE_READABLE, on_sigchld_fd,
				      NULL, NULL);
	int timer = virEventAddTimeout(1000, on_tick, NULL, NULL);
	struct pollfd pfd = { .fd = sigchld_pipe[0], .events = POLLIN };

	for (;;) {
		schedule(e);
		if (!e->nr_running)
			break;
		progress_tick(&e->prog);
		if (watch >= 0 && timer >= 0) {
			if (virEventRunDefaultImpl() < 0)
				break;
		} else if (poll(&pfd, 1, 1000) < 0 && errno != EINTR) {
			break;
		}
		reap(e);
		police(e);
	}
	if (watch >= 0)
		virEventRemoveHandle(watch);
	if (timer >= 0)
		virEventRemoveTimeout(timer);
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
	if (e->db)
		results_db_run(e->db, e->r->run_id, e->started,
			       complete ? finished : "",
			       e->hosts[0].accel.accel, names.buf);
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
	json_object_put(e->record);
	free(e->results_owned);
	if (e->db)
		results_db_close(e->db);
	if (e->lock_fd > 0)
		close(e->lock_fd);
}

/* The common part of run, resume and add-reps, once the plan is known. */
static int engine_go(struct engine *e, size_t kept)
{
	int ret;

	virt_install_signal_handlers();
	install_sigchld();
	e->exe = self_exe();
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
	e->db = results_db_open(e->o.results);
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
		loop(e);
	finish_run(e);
	ret = e->r->nr_infra || e->r->interrupted || e->r->stopped ? 1 : 0;
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
	r->seed = o->has_seed ? o->seed : matrix_random_seed();
	matrix_expand(&e.m, r->seed, 1, (int)e.m.reps, &e.plan);
	engine_make_run_id(r->run_id, sizeof(r->run_id));
	r->run_dir = xasprintf("%s/%s", e.o.results, r->run_id);
	if (mkdir_p(r->run_dir, 0755) < 0) {
		error("cannot create %s: %s", r->run_dir, strerror(errno));
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
		free(c->dir);
		free(c->host);
	}
	free(r->cells);
	free(r->run_dir);
	memset(r, 0, sizeof(*r));
}
