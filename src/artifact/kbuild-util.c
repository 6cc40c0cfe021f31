// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel build: what every step uses (lab files, lock files, commands
 * logged into build.log). A leaf: it calls no other kbuild file.
 */
#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "artifact/kbuild-int.h"
#include "spec/spec.h"
#include "util/fs.h"
#include "util/log.h"
#include "util/run.h"

char *kbuild_lab_file(const char *sub, const char *name)
{
	char *dir, *found;

	if (name[0] == '/')
		return xstrdup(name);
	/* A user's fragments and patches first (spec/spec.h's search path). */
	dir = xasprintf("lab/%s", sub);
	found = spec_search(dir, name);
	free(dir);
	return found ? found :
		       xasprintf("%s/lab/%s/%s", wblab_home(), sub, name);
}

char *kb_fmt_secs(double secs)
{
	long s = (long)(secs + 0.5);

	if (s >= 60)
		return xasprintf("%ldm%02lds", s / 60, s % 60);
	return xasprintf("%.1fs", secs);
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

/* Why the last build failed: every step reports here, first cause wins. */
static struct kbuild_failure last_failure;

const struct kbuild_failure *kbuild_last_failure(void)
{
	return &last_failure;
}

void kb_fail_reset(void)
{
	last_failure.kind = KBUILD_OK;
	last_failure.patch[0] = '\0';
	last_failure.msg[0] = '\0';
}

void kb_fail(enum kbuild_fail kind, const char *patch, const char *fmt, ...)
{
	va_list ap;

	/* The first, most specific cause wins over the callers' summaries. */
	if (last_failure.kind != KBUILD_OK)
		return;
	last_failure.kind = kind;
	snprintf(last_failure.patch, sizeof(last_failure.patch), "%s",
		 patch ? patch : "");
	va_start(ap, fmt);
	vsnprintf(last_failure.msg, sizeof(last_failure.msg), fmt, ap);
	va_end(ap);
}

const char *kbuild_fail_name(enum kbuild_fail kind)
{
	static const char *const names[] = {
		[KBUILD_OK] = "ok",	    [KBUILD_PATCH] = "patch",
		[KBUILD_CONFIG] = "config", [KBUILD_COMPILE] = "compile",
		[KBUILD_INFRA] = "infra",
	};

	return kind <= KBUILD_INFRA ? names[kind] : "?";
}

bool kb_diff_next(struct kb_diff_line *d)
{
	const char *end;

	if (!d->at || !*d->at)
		return false;
	end = strchrnul(d->at, '\n');
	d->line = d->at;
	d->len = end - d->at;
	d->at = *end ? end + 1 : end;
	d->nr++;
	d->side = 0;
	d->path = NULL;
	d->path_len = 0;
	if (d->len >= 4 &&
	    (!strncmp(d->line, "--- ", 4) || !strncmp(d->line, "+++ ", 4))) {
		d->side = d->line[0] == '+' ? '+' : '-';
		d->path = d->line + 4;
		d->path_len = strcspn(d->path, "\t\n");
	}
	return true;
}
