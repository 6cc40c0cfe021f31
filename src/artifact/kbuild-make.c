// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel build: make itself. A deterministic environment (version strings,
 * ccache through PATH), and a thread that reports progress from the log
 * while make runs.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "artifact/cache.h"
#include "artifact/kbuild-int.h"
#include "util/fs.h"
#include "util/log.h"

static void progress_scan(struct progress *pr)
{
	int fd = open(pr->log, O_RDONLY | O_CLOEXEC);
	char buf[65536];
	static char partial[512];
	static size_t plen;
	ssize_t n;

	if (fd < 0)
		return;
	if (lseek(fd, pr->offset, SEEK_SET) < 0) {
		close(fd);
		return;
	}
	while ((n = read(fd, buf, sizeof(buf))) > 0) {
		pr->offset += n;
		for (ssize_t i = 0; i < n; i++) {
			if (buf[i] != '\n') {
				if (plen < sizeof(partial) - 1)
					partial[plen++] = buf[i];
				continue;
			}
			partial[plen] = '\0';
			/* kbuild's quiet lines: "  CC      mm/vmscan.o" */
			if (plen > 4 && partial[0] == ' ' &&
			    partial[1] == ' ' && partial[2] >= 'A' &&
			    partial[2] <= 'Z') {
				char *s = partial + 2;
				char *sp = strchr(s, ' ');

				pr->steps++;
				if (sp) {
					char *t = sp;

					while (*t == ' ')
						t++;
					snprintf(pr->last, sizeof(pr->last),
						 "%.*s %s", (int)(sp - s), s,
						 t);
				}
			}
			plen = 0;
		}
	}
	close(fd);
}

static void *progress_main(void *arg)
{
	struct progress *pr = arg;

	pthread_mutex_lock(&pr->lock);
	while (!pr->stop) {
		struct timespec ts;

		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_sec += 15;
		pthread_cond_timedwait(&pr->cond, &pr->lock, &ts);
		if (pr->stop)
			break;
		progress_scan(pr);
		{
			char *t = kb_fmt_secs(now_mono() - pr->t0);

			info("kernel %s: %s, %d build steps, at: %s", pr->name,
			     t, pr->steps,
			     pr->last[0] ? pr->last : "(configuring)");
			free(t);
		}
	}
	pthread_mutex_unlock(&pr->lock);
	return NULL;
}

static void progress_start(struct progress *pr, const char *name,
			   const char *log)
{
	struct stat st;

	memset(pr, 0, sizeof(*pr));
	pthread_mutex_init(&pr->lock, NULL);
	pthread_cond_init(&pr->cond, NULL);
	pr->name = name;
	pr->log = log;
	pr->t0 = now_mono();
	pr->offset = stat(log, &st) ? 0 : st.st_size;
	if (pthread_create(&pr->thread, NULL, progress_main, pr))
		pr->log = NULL;
}

static int progress_stop(struct progress *pr)
{
	if (!pr->log)
		return 0;
	pthread_mutex_lock(&pr->lock);
	pr->stop = true;
	pthread_cond_signal(&pr->cond);
	pthread_mutex_unlock(&pr->lock);
	pthread_join(pr->thread, NULL);
	progress_scan(pr);
	return pr->steps;
}

/* Build environment: deterministic version strings, ccache through PATH. */
void kb_env(struct kb *k)
{
	const char *path = getenv("PATH");
	const char *cc = getenv("WBLAB_CCACHE");
	bool ccache = !(cc && !strcmp(cc, "0")) &&
		      path_exists("/usr/lib/ccache/gcc");
	char *mk = xasprintf("%s/Makefile", k->pristine ? k->pristine : "");
	struct stat st;
	char stamp[64] = "Thu Jan  1 00:00:00 UTC 2015";
	char *basedir = cache_path("build", "");

	/*
	 * The release date of the source: the time its Makefile carries. A
	 * git checkout's mtimes are checkout times, so it keeps the fixed
	 * date: two commits with the same code then give the same image.
	 */
	if (k->pristine && !stat(mk, &st)) {
		struct tm tm;

		gmtime_r(&st.st_mtime, &tm);
		strftime(stamp, sizeof(stamp), "%a %b %e %H:%M:%S UTC %Y", &tm);
	}
	free(mk);
	if (strlen(basedir) > 1 && basedir[strlen(basedir) - 1] == '/')
		basedir[strlen(basedir) - 1] = '\0';
	strvec_pushf(&k->env, "KBUILD_BUILD_TIMESTAMP=%s", stamp);
	strvec_pushl(&k->env, "KBUILD_BUILD_USER=wblab",
		     "KBUILD_BUILD_HOST=wblab", "KBUILD_BUILD_VERSION=1",
		     "LC_ALL=C", NULL);
	/* In a git checkout, setlocalversion appends "+" unless this is set. */
	if (k->commit)
		strvec_push(&k->env, "LOCALVERSION=");
	if (ccache) {
		const char *cd = getenv("CCACHE_DIR");

		strvec_pushf(&k->env, "PATH=/usr/lib/ccache:%s",
			     path ? path : "/usr/bin:/bin");
		/*
		 * Paths under the build root become relative in ccache's hash:
		 * the tools/ build's absolute paths then hit across trees too.
		 */
		strvec_pushf(&k->env, "CCACHE_BASEDIR=%s", basedir);
		if (cd && *cd) {
			strvec_pushf(&k->env, "CCACHE_DIR=%s", cd);
		} else {
			char *dir = cache_path("ccache", "");

			strvec_pushf(&k->env, "CCACHE_DIR=%s", dir);
			free(dir);
		}
	} else {
		strvec_push(&k->env, "CCACHE_DISABLE=1");
	}
	free(basedir);
}

/* make -j: WBLAB_JOBS (1..1024) if set and sane, else the online CPUs. */
static int jobs(void)
{
	const char *e = getenv("WBLAB_JOBS");
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	if (e && *e) {
		char *end;
		long v = strtol(e, &end, 10);

		if (*end || v < 1 || v > 1024)
			warn("WBLAB_JOBS='%s' is not a number 1..1024; using %ld",
			     e, n > 0 ? n : 1);
		else
			n = v;
	}
	return n > 0 ? (int)n : 1;
}

int kb_make_kernel(struct kb *k)
{
	char *objarg = xasprintf("O=%s", k->obj);
	char *jarg = xasprintf("-j%d", jobs());
	const char *mk[] = { "make", "-C",	k->srctree, objarg,
			     jarg,   "bzImage", "modules",  NULL };
	struct progress pr;
	double t0 = now_mono();
	int ret, steps;

	info("kernel %s: make %s bzImage modules (output in %s)", k->s->name,
	     jarg, k->log);
	progress_start(&pr, k->s->name, k->log);
	ret = kb_run_logged(mk, NULL, k->env.v, k->log);
	steps = progress_stop(&pr);
	{
		char *t = kb_fmt_secs(now_mono() - t0);

		if (ret)
			error("kernel %s: make failed (%d) after %s; the end of %s says why",
			      k->s->name, ret, t, k->log);
		else
			info("kernel %s: make done in %s, %d build steps",
			     k->s->name, t, steps);
		free(t);
	}
	free(objarg);
	free(jarg);
	return ret ? -1 : 0;
}
