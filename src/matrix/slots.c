// SPDX-License-Identifier: GPL-2.0
/*
 * The engine's slots (matrix/engine.h): each cell in a worker process
 * (wblab cell-run with its job file) on a host whose memory and CPUs
 * still fit it, workers reaped on SIGCHLD and policed past their
 * deadlines, a cell that ended infra-error retried, all from one loop.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cell/job.h"
#include "matrix/engine.h"
#include "matrix/progress.h"
#include "results/cell.h"
#include "util/devnodes.h"
#include "util/fs.h"
#include "util/json.h"
#include "util/log.h"
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

void engine_install_sigchld(void)
{
	struct sigaction sa = { .sa_handler = on_sigchld,
				.sa_flags = SA_NOCLDSTOP };

	if (sigchld_pipe[0] < 0 &&
	    pipe2(sigchld_pipe, O_CLOEXEC | O_NONBLOCK) < 0)
		die("pipe: %s", strerror(errno));
	sigemptyset(&sa.sa_mask);
	sigaction(SIGCHLD, &sa, NULL);
}

char *engine_self_exe(void)
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
	j->remote = h->spec->remote;
	j->slot = slot;
	j->attempt = e->st[ci].attempt;
	j->boot_timeout = e->o.boot_timeout;
	j->workload_timeout = e->o.timeout ? e->o.timeout : (int)w->timeout;
	j->deadline = e->o.deadline;
	j->keep = e->o.keep;
	j->cmdline_extra = (char *)e->o.cmdline_extra;
	j->levers = c->levers;
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
		struct cell_result *cj;

		if (e->st[ci].state != CELL_PENDING)
			continue;
		e->st[ci].host = 0;
		record_lost_worker(e, ci, why.buf);
		if (read_cell_json(cr, &cj) == 0) {
			cr->ran = true;
			cr->host = xstrdup(e->hosts[0].spec->name);
			cr->attempts = e->st[ci].attempt;
			db_cell(e, ci, cj);
			cell_result_put(cj);
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
		if (e->st[ci].state != CELL_PENDING ||
		    e->st[ci].not_before > now_mono())
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

/*
 * A retry waits 2, 6, 18 ... s (at most 60): a host that failed one
 * domain start often fails the next at once (three retries of a cell used
 * to run within 0.3 s), and a short pause lets a restarting libvirtd or a
 * freed disk come back.
 */
static double retry_delay(int retries)
{
	double d = 2;

	while (--retries > 0 && d < 60)
		d *= 3;
	return d < 60 ? d : 60;
}

/* A cell waits out its back-off: the loop must not end under it. */
static bool any_backing_off(const struct engine *e)
{
	for (size_t ci = 0; ci < e->r->n; ci++)
		if (e->st[ci].state == CELL_PENDING &&
		    e->st[ci].not_before > now_mono())
			return true;
	return false;
}

/*
 * An infra-error may be the whole host's: /dev/null replaced by a file
 * fails every domain start, so no retry and no later cell can run. The
 * run stops with that reason (resumable once fixed) instead of burning
 * every cell's retries.
 */
static bool host_broken(struct engine *e)
{
	struct strbuf why = STRBUF_INIT;
	bool broken = devnodes_check(devnodes_root(), &why) < 0;

	if (broken) {
		error("this host cannot start a domain: %s; the run stops. %s",
		      why.buf, engine_resume_hint(e));
		e->r->stopped = true;
	}
	strbuf_release(&why);
	return broken;
}

static bool retryable(const struct engine *e, size_t ci,
		      const struct cell_result *cj)
{
	const char *reason = cj->reason;

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
	struct cell_result *cj = NULL;
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
	reason = cj ? cj->reason : "no cell.json could be written";
	if (cr->outcome == OUTCOME_INFRA_ERROR) {
		check_host(e, h);
		retry = !host_broken(e) && cj && retryable(e, ci, cj) &&
			!e->r->stopped;
	}
	progress_end(&e->prog, h->spec->name, st->slot, cr->cell.id,
		     outcome_name(cr->outcome), reason ? reason : "", secs,
		     retry);
	if (retry) {
		set_aside(e, ci);
		st->attempt++;
		st->last_host = h->index;
		st->state = CELL_PENDING;
		st->not_before = now_mono() +
				 retry_delay(st->attempt - st->first_attempt);
		cell_result_put(cj);
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
	cell_result_put(cj);
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
void engine_loop(struct engine *e)
{
	int watch = virEventAddHandle(sigchld_pipe[0],
				      VIR_EVENT_HANDLE_READABLE, on_sigchld_fd,
				      NULL, NULL);
	int timer = virEventAddTimeout(1000, on_tick, NULL, NULL);
	struct pollfd pfd = { .fd = sigchld_pipe[0], .events = POLLIN };

	for (;;) {
		schedule(e);
		if (!e->nr_running && (e->r->stopped || virt_interrupted() ||
				       !any_backing_off(e)))
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
