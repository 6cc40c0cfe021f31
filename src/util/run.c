// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdbool.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util/log.h"
#include "util/run.h"

static void child_exec(const char *const *argv, const struct run_opts *o,
		       int outfd, int errfd)
{
	int in;

	if (o->dir && chdir(o->dir) < 0)
		_exit(127);
	in = open(o->in_path ? o->in_path : "/dev/null", O_RDONLY);
	if (in >= 0) {
		dup2(in, 0);
		if (in > 2)
			close(in);
	}
	if (outfd >= 0)
		dup2(outfd, 1);
	if (errfd >= 0)
		dup2(errfd, 2);
	for (const char **e = o->env; e && *e; e++)
		putenv((char *)*e);
	execvp(argv[0], (char *const *)argv);
	dprintf(2, "cannot run %s: %s\n", argv[0], strerror(errno));
	_exit(127);
}

static int open_sink(const struct run_opts *o)
{
	if (o->log_path)
		return open(o->log_path,
			    O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	if (o->quiet)
		return open("/dev/null", O_WRONLY | O_CLOEXEC);
	return -1;
}

static int wait_child(pid_t pid, int *status, double deadline)
{
	for (;;) {
		pid_t r = waitpid(pid, status, deadline ? WNOHANG : 0);

		if (r == pid)
			return 0;
		if (r < 0 && errno != EINTR)
			return -1;
		if (deadline && now_mono() > deadline)
			return 1;
		if (deadline)
			usleep(20000);
	}
}

/* What pump() stopped on. */
enum pump_end { PUMP_EOF, PUMP_TIMEOUT, PUMP_TOO_MUCH };

/*
 * Read the child's stdout (fds[0]) and stderr (fds[1]) into o->out and
 * o->err until both end, the deadline passes or a capture passes
 * o->max_capture. Closed descriptors are set to -1.
 */
static enum pump_end pump(int fds[2], const struct run_opts *o, double deadline)
{
	while (fds[0] >= 0 || fds[1] >= 0) {
		struct pollfd p[2] = { { fds[0], POLLIN, 0 },
				       { fds[1], POLLIN, 0 } };
		int wait_ms = -1, n;

		if (deadline) {
			double left = deadline - now_mono();

			if (left <= 0)
				return PUMP_TIMEOUT;
			wait_ms = (int)(left * 1000) + 1;
		}
		n = poll(p, 2, wait_ms);
		if (n < 0 && errno == EINTR)
			continue;
		for (int i = 0; i < 2; i++) {
			char buf[65536];
			struct strbuf *dst = i ? o->err : o->out;
			ssize_t r;

			if (p[i].fd < 0 || !p[i].revents)
				continue;
			r = read(p[i].fd, buf, sizeof(buf));
			if (r > 0) {
				strbuf_add(dst, buf, r);
				if (o->max_capture && dst->len > o->max_capture)
					return PUMP_TOO_MUCH;
				continue;
			}
			close(p[i].fd);
			fds[i] = -1;
		}
	}
	return PUMP_EOF;
}

/*
 * The child runs in a process group of its own (setpgid below: a timeout
 * kills its whole tree), so a terminal's Ctrl-C reaches wblab alone.
 * wblab then died of it and the child, a kernel build's make, ran on in
 * the build tree whose lock had died with wblab: the next build there
 * raced it and failed ("fixdep: error opening file: ....o.d", 2026-12-08).
 * So while a child runs, a SIGINT or SIGTERM that would kill wblab goes to
 * the child's group first, and wblab reaps the child before it dies of
 * the signal. A handler someone installed (cells: virt.c) is left alone.
 */
static volatile sig_atomic_t fwd_pgid;

static void forward_signal(int sig)
{
	pid_t pg = fwd_pgid;

	if (pg > 0) {
		kill(-pg, sig);
		while (waitpid(pg, NULL, 0) < 0 && errno == EINTR)
			;
	}
	signal(sig, SIG_DFL);
	raise(sig);
}

static void forward_begin(pid_t pid, struct sigaction old[2])
{
	static const int sigs[2] = { SIGINT, SIGTERM };
	struct sigaction fwd = { .sa_handler = forward_signal };

	sigemptyset(&fwd.sa_mask);
	fwd_pgid = pid;
	for (int i = 0; i < 2; i++) {
		sigaction(sigs[i], NULL, &old[i]);
		if (old[i].sa_handler == SIG_DFL)
			sigaction(sigs[i], &fwd, NULL);
	}
}

static void forward_end(const struct sigaction old[2])
{
	sigaction(SIGINT, &old[0], NULL);
	sigaction(SIGTERM, &old[1], NULL);
	fwd_pgid = 0;
}

int run_argv(const char *const *argv, const struct run_opts *opts)
{
	static const struct run_opts none;
	const struct run_opts *o = opts ? opts : &none;
	int op[2] = { -1, -1 }, ep[2] = { -1, -1 };
	int sink = open_sink(o);
	double deadline = o->timeout ? now_mono() + o->timeout : 0;
	enum pump_end end;
	int status = 0, fds[2];
	struct sigaction old[2];
	pid_t pid;

	if ((o->out && pipe2(op, O_CLOEXEC) < 0) ||
	    (o->err && o->err != o->out && pipe2(ep, O_CLOEXEC) < 0))
		die("pipe: %s", strerror(errno));
	pid = fork();
	if (pid < 0) {
		if (o->err)
			strbuf_addf(o->err, "fork: %s\n", strerror(errno));
		return -1;
	}
	if (!pid) {
		int outfd = o->out ? op[1] : sink;
		int errfd = o->err == o->out && o->out ? op[1] :
			    o->err		       ? ep[1] :
							 sink;
		setpgid(0, 0);
		child_exec(argv, o, outfd, errfd);
	}
	/* Both sides set it, so a signal finds the group from the start. */
	setpgid(pid, pid);
	forward_begin(pid, old);
	if (op[1] >= 0)
		close(op[1]);
	if (ep[1] >= 0)
		close(ep[1]);

	fds[0] = op[0];
	fds[1] = ep[0];
	end = pump(fds, o, deadline);
	if (end == PUMP_EOF && wait_child(pid, &status, deadline) == 1)
		end = PUMP_TIMEOUT;
	if (end != PUMP_EOF) {
		kill(-pid, SIGKILL);
		kill(pid, SIGKILL);
		waitpid(pid, &status, 0);
	}
	forward_end(old);
	for (int i = 0; i < 2; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	if (sink >= 0)
		close(sink);
	if (end == PUMP_TIMEOUT)
		return 124;
	if (end == PUMP_TOO_MUCH)
		return 125;
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	return 128 + WTERMSIG(status);
}

int run_capture(const char *const *argv, struct strbuf *out, struct strbuf *err)
{
	struct run_opts o = { .out = out, .err = err, .quiet = 1 };

	return run_argv(argv, &o);
}

/* Characters a word may hold and still be written bare: no shell syntax. */
static bool sh_bare(const char *s)
{
	return *s && !s[strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
				  "abcdefghijklmnopqrstuvwxyz"
				  "0123456789_@%+=:,./-")];
}

void sh_quote(struct strbuf *sb, const char *s)
{
	strbuf_addch(sb, '\'');
	for (; *s; s++) {
		if (*s == '\'')
			strbuf_addstr(sb, "'\\''");
		else
			strbuf_addch(sb, *s);
	}
	strbuf_addch(sb, '\'');
}

void argv_to_strbuf(struct strbuf *sb, const char *const *argv)
{
	for (int i = 0; argv[i]; i++) {
		if (i)
			strbuf_addch(sb, ' ');
		if (sh_bare(argv[i]))
			strbuf_addstr(sb, argv[i]);
		else
			sh_quote(sb, argv[i]);
	}
}
