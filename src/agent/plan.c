// SPDX-License-Identifier: GPL-2.0
/*
 * The plan executor: runs the host's steps in order (see proto.h), keeps
 * a log of every step, and sends files and the exit status back.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "agent/capfile.h"
#include "agent/io.h"
#include "agent/plan.h"
#include "agent/proto.h"
#include "util/fs.h"
#include "util/io.h"

static int find_iscsi_disk(const char *spec, char *dev, size_t len,
			   double wait_s);

#define MAX_BG 16
#define TAIL_MAX 4096

struct bg_job {
	char label[64];
	pid_t pid;
};

struct plan_state {
	int phase; /* enum proto_phase, -1 before the first */
	int failed; /* enum proto_status: which phase failed, if one did */
	char fail_label[128];
	int fail_rc;
	char fail_tail[TAIL_MAX];
	char cgroup[256]; /* run steps join this cgroup, "" for none */
	struct bg_job bg[MAX_BG];
	int nr_bg;
	FILE *log; /* agent.log */
	double t0;
};

static void logf_(struct plan_state *st, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void logf_(struct plan_state *st, const char *fmt, ...)
{
	va_list ap;

	/* agent.log is closed before it is sent: later steps log nowhere. */
	if (!st->log)
		return;
	fprintf(st->log, "[%9.3f] ", mono() - st->t0);
	va_start(ap, fmt);
	vfprintf(st->log, fmt, ap);
	va_end(ap);
	fputc('\n', st->log);
	fflush(st->log);
}

static void join_cgroup(const char *cg)
{
	char path[320];
	int fd;

	if (!cg[0])
		return;
	snprintf(path, sizeof(path), "/sys/fs/cgroup/%s/cgroup.procs", cg);
	fd = open(path, O_WRONLY);
	if (fd < 0 || write(fd, "0", 1) != 1)
		dprintf(2, "wblab-agent: cannot join cgroup %s: %s\n", cg,
			strerror(errno));
	if (fd >= 0)
		close(fd);
}

static pid_t spawn(struct plan_state *st, char **argv, const char *out_path,
		   int append)
{
	pid_t pid = fork();

	if (pid)
		return pid;
	setsid();
	join_cgroup(st->cgroup);
	{
		int in = open("/dev/null", O_RDONLY);
		int out =
			open(out_path,
			     O_WRONLY | O_CREAT | (append ? O_APPEND : O_TRUNC),
			     0644);

		dup2(in, 0);
		dup2(out, 1);
		dup2(out, 2);
	}
	/*
	 * "@disk:SERIAL" names a disk by its serial, "@iscsi:IQN:LUN" a
	 * logged-in LUN (the guest has no udev); either may end a field
	 * ("dev=@disk:wblab-disk0").
	 */
	for (char **a = argv; *a; a++) {
		char *at, dev[300];
		int iscsi, found;

		at = strstr(*a, "@disk:");
		iscsi = !at;
		if (!at)
			at = strstr(*a, "@iscsi:");
		if (!at)
			continue;
		found = iscsi ? find_iscsi_disk(at + 7, dev, sizeof(dev), 30) :
				find_disk(at + 6, dev, sizeof(dev), 10);
		if (found < 0) {
			dprintf(2, "no device for %s\n", at);
			_exit(127);
		}
		if (asprintf(a, "%.*s%s", (int)(at - *a), *a, dev) < 0)
			_exit(127);
	}
	execvp(argv[0], argv);
	dprintf(2, "cannot run %s: %s\n", argv[0], strerror(errno));
	_exit(127);
}

/* Wait for pid up to timeout seconds (0 = forever); kill its group on expiry. */
static int wait_timeout(pid_t pid, int timeout)
{
	int pfd = syscall(SYS_pidfd_open, pid, 0);
	int status = 0;

	if (pfd >= 0 && timeout > 0) {
		struct pollfd p = { pfd, POLLIN, 0 };
		int r;

		do {
			r = poll(&p, 1, timeout * 1000);
		} while (r < 0 && errno == EINTR);
		if (r == 0) {
			kill(-pid, SIGKILL);
			kill(pid, SIGKILL);
			waitpid(pid, &status, 0);
			close(pfd);
			return 124;
		}
	}
	if (pfd >= 0)
		close(pfd);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	return 128 + WTERMSIG(status);
}

static void read_tail(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY);
	off_t size;
	ssize_t n;

	buf[0] = '\0';
	if (fd < 0)
		return;
	size = lseek(fd, 0, SEEK_END);
	lseek(fd, size > (off_t)len - 1 ? size - (off_t)len + 1 : 0, SEEK_SET);
	n = read(fd, buf, len - 1);
	buf[n > 0 ? n : 0] = '\0';
	close(fd);
}

static void stop_bg(struct plan_state *st)
{
	for (int i = 0; i < st->nr_bg; i++) {
		int status;

		kill(-st->bg[i].pid, SIGKILL);
		kill(st->bg[i].pid, SIGKILL);
		waitpid(st->bg[i].pid, &status, 0);
		logf_(st, "bg %s stopped", st->bg[i].label);
	}
	st->nr_bg = 0;
}

/*
 * Send a guest file back as name. At most PROTO_MAX_FILE bytes go: the
 * host refuses bigger frames, and PID 1 must not grow without bound on a
 * file that keeps growing (tracefs, a runaway log). A capped file says so
 * in agent.log, which the host turns into a collector error.
 */
static void send_file(struct plan_state *st, const char *name, const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct stat sb;
	char *buf, probe;
	size_t got = 0, cap;
	int capped = 0;

	if (fd < 0 || fstat(fd, &sb) < 0) {
		logf_(st, "get %s: %s: %s", name, path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return;
	}
	/* procfs and sysfs files report size 0: read until EOF. */
	cap = sb.st_size > 0 && sb.st_size < PROTO_MAX_FILE ?
		      (size_t)sb.st_size + 1 :
		      65536;
	buf = malloc(cap);
	while (buf) {
		ssize_t n;

		if (got == PROTO_MAX_FILE) {
			/* One byte more tells a file of exactly the cap apart. */
			capped = read(fd, &probe, 1) > 0;
			break;
		}
		if (got == cap) {
			char *nb;

			cap = cap * 2 > PROTO_MAX_FILE ? PROTO_MAX_FILE :
							 cap * 2;
			nb = realloc(buf, cap);
			if (!nb)
				break;
			buf = nb;
		}
		n = read(fd, buf + got, cap - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += n;
	}
	close(fd);
	if (!buf) {
		logf_(st, "get %s: out of memory", name);
		return;
	}
	if (capped)
		logf_(st, "get %s: capped at %zu bytes (the file is longer)",
		      name, got);
	if (send_frame('F', name, buf, got))
		logf_(st, "get %s: channel write failed", name);
	else
		logf_(st, "get %s: %zu bytes from %s", name, got, path);
	free(buf);
}

/* "IQN:LUN" -> /dev/sdX of the logged-in session's LUN, via sysfs. */
static int find_iscsi_disk(const char *spec, char *dev, size_t len,
			   double wait_s)
{
	const char *colon = strrchr(spec, ':');
	double end = mono() + wait_s;
	char iqn[256], pat[512];
	glob_t gl;

	if (!colon || colon == spec || (size_t)(colon - spec) >= sizeof(iqn))
		return -1;
	snprintf(iqn, sizeof(iqn), "%.*s", (int)(colon - spec), spec);
	do {
		DIR *d = opendir("/sys/class/iscsi_session");
		struct dirent *de;

		while (d && (de = readdir(d))) {
			char p[512], buf[256];
			int fd;
			ssize_t n;

			snprintf(p, sizeof(p),
				 "/sys/class/iscsi_session/%s/targetname",
				 de->d_name);
			fd = open(p, O_RDONLY);
			if (fd < 0)
				continue;
			n = read(fd, buf, sizeof(buf) - 1);
			close(fd);
			buf[n > 0 ? n : 0] = '\0';
			buf[strcspn(buf, "\n")] = '\0';
			if (strcmp(buf, iqn))
				continue;
			snprintf(
				pat, sizeof(pat),
				"/sys/class/iscsi_session/%s/device/target*/*:*:*:%s/block/*",
				de->d_name, colon + 1);
			if (glob(pat, 0, NULL, &gl) == 0 && gl.gl_pathc) {
				const char *b = strrchr(gl.gl_pathv[0], '/');

				snprintf(dev, len, "/dev/%s", b + 1);
				globfree(&gl);
				closedir(d);
				return 0;
			}
			globfree(&gl);
		}
		if (d)
			closedir(d);
		usleep(100000);
	} while (mono() < end);
	return -1;
}

static const char *phase_name(const struct plan_state *st)
{
	return st->phase >= 0 ? proto_phase_names[st->phase] : "";
}

/* Should a step run? After a setup failure only collect and teardown do. */
static int skipping(struct plan_state *st)
{
	return st->failed == STATUS_SETUP_FAILED &&
	       (proto_phase_is_setup(st->phase) || st->phase == PHASE_WORKLOAD);
}

/* A TIMEOUT field: whole seconds; a bad one is logged and means 60. */
static int timeout_field(struct plan_state *st, const char *s)
{
	unsigned int v;

	if (!proto_uint(s, 7 * 86400, &v))
		return (int)v;
	logf_(st, "bad timeout '%s', using 60 s", s);
	return 60;
}

static void step_run(struct plan_state *st, char **f, int fatal)
{
	const char *label = f[1];
	int timeout = timeout_field(st, f[2]);
	double t = mono();
	char out[] = "/tmp/wblab-step.out";
	int rc;
	pid_t pid;

	pid = spawn(st, f + 3, out, 0);
	rc = pid < 0 ? 127 : wait_timeout(pid, timeout);
	logf_(st, "%s %s:%s rc=%d %.2fs", fatal ? "run" : "try", phase_name(st),
	      label, rc, mono() - t);
	if (!rc)
		return;
	{
		char tail[TAIL_MAX];

		read_tail(out, tail, sizeof(tail));
		if (st->log)
			fprintf(st->log, "%s%s", tail,
				tail[0] && tail[strlen(tail) - 1] != '\n' ?
					"\n" :
					"");
		if (!fatal || st->failed)
			return;
		if (proto_phase_is_setup(st->phase))
			st->failed = STATUS_SETUP_FAILED;
		else if (st->phase == PHASE_WORKLOAD)
			st->failed = STATUS_WORKLOAD_FAILED;
		else
			return;
		snprintf(st->fail_label, sizeof(st->fail_label), "%s", label);
		st->fail_rc = rc;
		memcpy(st->fail_tail, tail, sizeof(tail));
	}
}

/* Open capture NAME in the out dir and write its "# LABEL" line; -1 on error. */
static int capture_open(const char *name, const char *label)
{
	char path[256];
	int fd;

	snprintf(path, sizeof(path), AGENT_OUT_DIR "/%s", name);
	fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	if (fd >= 0)
		dprintf(fd, "# %s\n", label);
	return fd;
}

/* A failed capture says so ("# (exit N)"); a blank line ends each. */
static void capture_close(struct plan_state *st, char **f, int fd, int rc)
{
	if (rc)
		dprintf(fd, "# (exit %d)\n", rc);
	write_in_full(fd, "\n", 1);
	close(fd);
	logf_(st, "capture %s:%s rc=%d", f[1], f[2], rc);
}

static void step_capture(struct plan_state *st, char **f)
{
	char path[256];
	int fd = capture_open(f[1], f[2]), rc;
	pid_t pid;

	if (fd < 0)
		return;
	snprintf(path, sizeof(path), AGENT_OUT_DIR "/%s", f[1]);
	pid = spawn(st, f + 3, path, 1);
	rc = pid < 0 ? 127 : wait_timeout(pid, 60);
	capture_close(st, f, fd, rc);
}

/* capfile and caplines: what cat and grep -H . print, without starting them. */
static void cap_each(struct plan_state *st, char **f,
		     int (*cap)(int out, const char *arg))
{
	int fd = capture_open(f[1], f[2]), rc = 0;

	if (fd < 0)
		return;
	for (char **p = f + 3; *p; p++)
		rc |= cap(fd, *p);
	capture_close(st, f, fd, rc);
}

static void step_capfile(struct plan_state *st, char **f)
{
	cap_each(st, f, cap_file);
}

static void step_caplines(struct plan_state *st, char **f)
{
	cap_each(st, f, cap_lines);
}

static void step_mkdir(struct plan_state *st, char **f)
{
	if (mkdir_p(f[1], 0755))
		logf_(st, "mkdir %s: %s", f[1], strerror(errno));
}

static void step_put(struct plan_state *st, char **f)
{
	const char *path = f[1], *text = f[2];
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	if (fd < 0 || write_in_full(fd, text, strlen(text)) < 0)
		logf_(st, "put %s: %s", path, strerror(errno));
	if (fd >= 0)
		close(fd);
}

/*
 * Like put, without truncating: tracefs' kprobe_events and trigger files
 * take one definition per write and O_TRUNC would drop the earlier ones.
 * The failure names the text, since several appends share one path.
 */
static void step_append(struct plan_state *st, char **f)
{
	const char *path = f[1], *text = f[2];
	int fd = open(path, O_WRONLY | O_APPEND);

	if (fd < 0 || write_in_full(fd, text, strlen(text)) < 0)
		logf_(st, "append %s '%.120s': %s", path, text,
		      strerror(errno));
	if (fd >= 0)
		close(fd);
}

static void step_cgroup(struct plan_state *st, char **f)
{
	const char *cg = f[1], *max = f[2];
	char path[320];
	int fd;

	snprintf(st->cgroup, sizeof(st->cgroup), "%s", cg);
	if (!cg[0])
		return;
	fd = open("/sys/fs/cgroup/cgroup.subtree_control", O_WRONLY);
	if (fd >= 0) {
		write_in_full(fd, "+memory", 7);
		close(fd);
	}
	snprintf(path, sizeof(path), "/sys/fs/cgroup/%s", cg);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "/sys/fs/cgroup/%s/memory.max", cg);
	fd = open(path, O_WRONLY);
	if (fd < 0 || write_in_full(fd, max, strlen(max)) < 0) {
		logf_(st, "cgroup %s memory.max=%s: %s", cg, max,
		      strerror(errno));
		if (!st->failed) {
			st->failed = STATUS_SETUP_FAILED;
			snprintf(st->fail_label, sizeof(st->fail_label),
				 "cgroup");
			st->fail_rc = 1;
		}
	} else {
		logf_(st, "cgroup %s memory.max=%s", cg, max);
	}
	if (fd >= 0)
		close(fd);
}

static void step_phase(struct plan_state *st, char **f)
{
	int ph = proto_phase(f[1]);

	if (ph < 0) {
		logf_(st, "bad phase '%s'", f[1]);
		return;
	}
	stop_bg(st);
	st->phase = ph;
	logf_(st, "phase %s", f[1]);
	send_frame('S', "phase", f[1], strlen(f[1]));
}

static void step_env(struct plan_state *st, char **f)
{
	setenv(f[1], f[2], 1);
}

static void step_run_fatal(struct plan_state *st, char **f)
{
	step_run(st, f, 1);
}

static void step_try(struct plan_state *st, char **f)
{
	step_run(st, f, 0);
}

static void step_get(struct plan_state *st, char **f)
{
	send_file(st, f[1], f[2]);
}

static void step_bg(struct plan_state *st, char **f)
{
	struct bg_job *j;
	char out[128];

	if (st->nr_bg == MAX_BG) {
		logf_(st, "bg %s: more than %d background steps", f[1], MAX_BG);
		return;
	}
	j = &st->bg[st->nr_bg++];
	snprintf(j->label, sizeof(j->label), "%s", f[1]);
	snprintf(out, sizeof(out), AGENT_BG_PREFIX "%s" AGENT_BG_SUFFIX,
		 j->label);
	j->pid = spawn(st, f + 2, out, 0);
	logf_(st, "bg %s pid %d", j->label, (int)j->pid);
}

static void step_wait(struct plan_state *st, char **f)
{
	for (int i = 0; i < st->nr_bg; i++) {
		if (strcmp(st->bg[i].label, f[1]))
			continue;
		logf_(st, "wait %s rc=%d", f[1],
		      wait_timeout(st->bg[i].pid, timeout_field(st, f[2])));
		st->bg[i] = st->bg[--st->nr_bg];
		break;
	}
}

/*
 * The verbs (agent/proto.h): how many fields each takes, verb included
 * (max 0: any number, an argv follows), and whether it still runs after
 * a setup failure.
 */
static const struct verb_def {
	int min, max;
	bool always;
	void (*fn)(struct plan_state *st, char **f);
} verbs[NR_VERBS] = {
	[VERB_ENV] = { 3, 3, true, step_env },
	[VERB_PHASE] = { 2, 2, true, step_phase },
	[VERB_RUN] = { 4, 0, false, step_run_fatal },
	[VERB_TRY] = { 4, 0, false, step_try },
	[VERB_CAPTURE] = { 4, 0, false, step_capture },
	[VERB_BG] = { 3, 0, false, step_bg },
	[VERB_WAIT] = { 3, 3, false, step_wait },
	[VERB_PUT] = { 3, 3, false, step_put },
	[VERB_APPEND] = { 3, 3, false, step_append },
	[VERB_GET] = { 3, 3, false, step_get },
	[VERB_CGROUP] = { 3, 3, false, step_cgroup },
	[VERB_CAPFILE] = { 4, 0, false, step_capfile },
	[VERB_CAPLINES] = { 4, 0, false, step_caplines },
	[VERB_MKDIR] = { 2, 2, false, step_mkdir },
};

static void step(struct plan_state *st, char **f, int n)
{
	int v = proto_verb(f[0]);
	const struct verb_def *d = v >= 0 ? &verbs[v] : NULL;

	if (!d || n < d->min || (d->max && n > d->max)) {
		logf_(st, "bad plan step '%s' with %d fields", f[0], n);
		return;
	}
	if (!d->always && skipping(st))
		return;
	/* Each step is announced on the console: after a hang it shows where. */
	if (!d->always)
		say("%s %s", f[0], f[1]);
	d->fn(st, f);
}

static void send_outputs(struct plan_state *st)
{
	DIR *d = opendir(AGENT_OUT_DIR);
	struct dirent *de;

	while (d && (de = readdir(d))) {
		char path[300];

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), AGENT_OUT_DIR "/%s", de->d_name);
		send_file(st, de->d_name, path);
	}
	if (d)
		closedir(d);
}

int plan_execute(char *plan, size_t len)
{
	struct plan_state st = { .t0 = mono(), .phase = -1 };
	char *line = plan, *end = plan + len;
	char body[TAIL_MAX + 512];
	int n;

	mkdir(AGENT_OUT_DIR, 0755);
	st.log = fopen(AGENT_OUT_DIR "/agent.log", "w");
	if (!st.log)
		st.log = stderr;
	while (line < end) {
		char *nl = memchr(line, '\n', end - line);
		struct strvec f = STRVEC_INIT;

		if (nl)
			*nl = '\0';
		if (*line)
			step(&st, (char **)f.v, (int)proto_split(line, &f));
		strvec_clear(&f);
		line = nl ? nl + 1 : end;
	}
	stop_bg(&st);
	logf_(&st, "plan finished: %s", proto_status_names[st.failed]);
	if (st.log != stderr)
		fclose(st.log);
	st.log = NULL;
	send_outputs(&st);
	n = snprintf(body, sizeof(body), "phase=%s\nlabel=%s\nrc=%d\n\n%s",
		     st.failed == STATUS_SETUP_FAILED ?
			     proto_phase_names[PHASE_SETUP] :
		     st.failed == STATUS_WORKLOAD_FAILED ?
			     proto_phase_names[PHASE_WORKLOAD] :
			     "",
		     st.fail_label, st.fail_rc, st.fail_tail);
	send_frame('X', proto_status_names[st.failed], body, n);
	return st.failed;
}
