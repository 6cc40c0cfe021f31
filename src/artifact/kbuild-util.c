// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel build: what every step uses (lab files, lock files, commands
 * logged into build.log). A leaf: it calls no other kbuild file.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "artifact/kbuild-int.h"
#include "util/fs.h"
#include "util/log.h"
#include "util/run.h"

char *kbuild_lab_file(const char *sub, const char *name)
{
	if (name[0] == '/')
		return xstrdup(name);
	return xasprintf("%s/lab/%s/%s", wblab_home(), sub, name);
}

char *kb_fmt_secs(double secs)
{
	long s = (long)(secs + 0.5);

	if (s >= 60)
		return xasprintf("%ldm%02lds", s / 60, s % 60);
	return xasprintf("%.1fs", secs);
}

/* flock()ed lock file: serialises builds of one tree between processes. */
int kb_take_lock(const char *path, const char *what)
{
	int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);

	if (fd < 0) {
		error("cannot open %s: %s", path, strerror(errno));
		return -1;
	}
	if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		info("waiting for another wblab process using %s", what);
		if (flock(fd, LOCK_EX) < 0) {
			error("cannot lock %s: %s", path, strerror(errno));
			close(fd);
			return -1;
		}
	}
	return fd;
}

void kb_drop_lock(int fd)
{
	if (fd >= 0)
		close(fd);
}

int kb_run_logged(const char *const *argv, const char *dir, const char **env,
		  const char *log)
{
	struct run_opts o = { .dir = dir, .env = env, .log_path = log };
	FILE *f = fopen(log, "a");

	if (f) {
		struct strbuf cmd = STRBUF_INIT;

		argv_to_strbuf(&cmd, argv);
		fprintf(f, "\n+ %s\n", cmd.buf);
		fclose(f);
		strbuf_release(&cmd);
	}
	return run_argv(argv, &o);
}

