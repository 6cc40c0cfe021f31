// SPDX-License-Identifier: GPL-2.0
/*
 * Kernels built from source.
 *
 * Layout under the cache root:
 *   src/<package>-<version>/     the pristine tree, unpacked once from /usr/src
 *   src/git-<commit>/            or exported from a git tree (git archive)
 *   build/<name>/linux/          the spec's source: a hardlink copy of the
 *                                pristine tree with the spec's patches applied
 *                                (patch writes files by rename, so a patched
 *                                file gets its own inode and a new mtime)
 *   build/<name>/linux/obj/      the O= tree
 *   build/<name>/build.log       make's output of the last build
 *   build/<name>/tree.stamp      what the source tree was made of
 *
 * The O= tree sits directly inside the source tree so kbuild uses the
 * relative srctree "..": command lines and dependency files then carry no
 * absolute path, and a variant (base: another kernel) starts from a copy of
 * its base's O= tree (cp -a keeps mtimes) and rebuilds only what its patches
 * touch. The compiler is plain "gcc" in every command line; ccache comes in
 * through PATH (/usr/lib/ccache), so turning it off does not change command
 * lines and force a full rebuild.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "artifact/cache.h"
#include "artifact/kbuild.h"
#include "artifact/kernel.h"
#include "util/fs.h"
#include "util/hash.h"
#include "util/log.h"
#include "util/run.h"

#define BUILD_SPACE (6LL << 30)
#define MAX_BASE_DEPTH 8

/* What a spec builds, with its bases' parts folded in. */
struct plan {
	char *source_package;
	char *source_git;
	char *source_ref;
	char *config_base;
	struct spec_strlist fragments;	/* names, as in the specs */
	struct spec_strlist patches;	/* names, in order */
	char *localversion;
};

static void plan_free(struct plan *p)
{
	free(p->source_package);
	free(p->source_git);
	free(p->source_ref);
	free(p->config_base);
	spec_strlist_free(&p->fragments);
	spec_strlist_free(&p->patches);
	free(p->localversion);
	memset(p, 0, sizeof(*p));
}

static char *dup_or_null(const char *s)
{
	return s ? xstrdup(s) : NULL;
}

static int plan_resolve(const struct kernel_spec *s, struct plan *p, int depth)
{
	if (s->package)
		return error("%s: kernel %s is prebuilt (package:), there is nothing to build",
			     s->path, s->name);
	if (s->base) {
		struct kernel_spec base;
		int ret;

		if (depth >= MAX_BASE_DEPTH || !strcmp(s->base, s->name))
			return error("%s: base: '%s' loops", s->path, s->base);
		if (kernel_spec_find(s->base, &base))
			return error("%s: base: cannot load kernel '%s'", s->path, s->base);
		ret = plan_resolve(&base, p, depth + 1);
		kernel_spec_free(&base);
		if (ret)
			return ret;
		if (s->config_base) {
			free(p->config_base);
			p->config_base = xstrdup(s->config_base);
		}
	} else {
		p->source_package = dup_or_null(s->source_package);
		p->source_git = dup_or_null(s->source_git);
		p->source_ref = dup_or_null(s->source_ref);
		p->config_base = xstrdup(s->config_base ? s->config_base : "defconfig");
	}
	for (size_t i = 0; i < s->fragments.n; i++)
		spec_strlist_add(&p->fragments, s->fragments.v[i]);
	for (size_t i = 0; i < s->patches.n; i++)
		spec_strlist_add(&p->patches, s->patches.v[i]);
	if (s->localversion) {
		free(p->localversion);
		p->localversion = xstrdup(s->localversion);
	}
	return 0;
}

char *kbuild_lab_file(const char *sub, const char *name)
{
	if (name[0] == '/')
		return xstrdup(name);
	return xasprintf("%s/lab/%s/%s", wblab_home(), sub, name);
}

static char *fmt_secs(double secs)
{
	long s = (long)(secs + 0.5);

	if (s >= 60)
		return xasprintf("%ldm%02lds", s / 60, s % 60);
	return xasprintf("%.1fs", secs);
}

/* flock()ed lock file: serialises builds of one tree between processes. */
static int take_lock(const char *path, const char *what)
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

static void drop_lock(int fd)
{
	if (fd >= 0)
		close(fd);
}

static int run_logged(const char *const *argv, const char *dir,
		      const char **env, const char *log)
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

/* ---- pristine source trees ---- */

static char *find_tarball(const char *package)
{
	const char *exts[] = { "tar.xz", "tar.bz2", "tar.gz" };
	const char *argv[] = { "dpkg-query", "-L", package, NULL };
	struct strbuf out = STRBUF_INIT;
	char *found = NULL;

	for (size_t i = 0; i < ARRAY_SIZE(exts); i++) {
		char *p = xasprintf("/usr/src/%s.%s", package, exts[i]);

		if (path_exists(p))
			return p;
		free(p);
	}
	if (!run_capture(argv, &out, NULL)) {
		char *save = NULL;

		for (char *l = strtok_r(out.buf, "\n", &save); l && !found;
		     l = strtok_r(NULL, "\n", &save))
			if (strstr(l, ".tar.") && path_exists(l))
				found = xstrdup(l);
	}
	strbuf_release(&out);
	return found;
}

/* Unpack into dir via dir.tmp.PID, under the src lock; dir appears whole. */
/* The source cache (ROOT/src), created if needed and locked; -1 on failure. */
static int lock_source_cache(void)
{
	char *srcdir = cache_path("src", ""), *lockp;
	int lock = -1;

	if (!cache_make_dir(srcdir)) {
		lockp = cache_path("src", ".lock");
		lock = take_lock(lockp, "the source cache");
		free(lockp);
	}
	free(srcdir);
	return lock;
}

static int unpack_tree(const char *dir, const char *const *extract,
		       const char *tmp, const char *what)
{
	char *marker = xasprintf("%s/.wblab-unpacked", dir);
	struct strbuf err = STRBUF_INIT;
	double t0 = now_mono();
	int ret = -1;

	if (path_exists(marker)) {
		ret = 0;
		goto out;
	}
	info("unpacking %s into %s (once)", what, dir);
	rm_rf(tmp);
	if (cache_make_dir(tmp))
		goto out;
	if (run_capture(extract, NULL, &err)) {
		error("unpacking %s failed: %s", what, err.buf);
		rm_rf(tmp);
		goto out;
	}
	{
		char *m = xasprintf("%s/.wblab-unpacked", tmp);

		write_string_atomic(m, what);
		free(m);
	}
	rm_rf(dir);
	if (rename(tmp, dir) < 0) {
		error("cannot rename %s to %s: %s", tmp, dir, strerror(errno));
		rm_rf(tmp);
		goto out;
	}
	{
		char *t = fmt_secs(now_mono() - t0);

		info("unpacked %s in %s", what, t);
		free(t);
	}
	ret = 0;
out:
	strbuf_release(&err);
	free(marker);
	return ret;
}

char *kbuild_package_source(const char *package, char **ident)
{
	const char *q[] = { "dpkg-query", "-W", "-f=${Version}", package, NULL };
	struct strbuf ver = STRBUF_INIT;
	char *dir = NULL, *tarball = NULL, *leaf, *tmp = NULL;
	int lock = -1;

	if (run_capture(q, &ver, NULL) || !ver.len) {
		error("source package %s is not installed (make deps installs linux-source-6.1)",
		      package);
		goto fail;
	}
	tarball = find_tarball(package);
	if (!tarball) {
		error("package %s %s has no source tarball in /usr/src", package, ver.buf);
		goto fail;
	}
	leaf = xasprintf("%s-%s", package, ver.buf);
	dir = cache_path("src", leaf);
	free(leaf);
	tmp = xasprintf("%s.tmp.%d", dir, (int)getpid());
	lock = lock_source_cache();
	if (lock < 0)
		goto fail;
	{
		const char *x[] = { "tar", "-xf", tarball, "-C", tmp,
				    "--strip-components=1", NULL };

		if (unpack_tree(dir, x, tmp, tarball))
			goto fail;
	}
	drop_lock(lock);
	if (ident)
		*ident = xasprintf("%s %s", package, ver.buf);
	strbuf_release(&ver);
	free(tarball);
	free(tmp);
	return dir;
fail:
	drop_lock(lock);
	strbuf_release(&ver);
	free(tarball);
	free(tmp);
	free(dir);
	return NULL;
}

static char *git_source(const char *repo, const char *ref, char **ident)
{
	char *rev = xasprintf("%s^{commit}", ref ? ref : "HEAD");
	const char *rp[] = { "git", "-C", repo, "rev-parse", "--verify", rev, NULL };
	struct strbuf commit = STRBUF_INIT;
	char *dir = NULL, *leaf, *tmp = NULL, *tar = NULL;
	int lock = -1, ret = -1;

	if (run_capture(rp, &commit, NULL)) {
		error("source.git: cannot resolve %s in %s", rev, repo);
		goto out;
	}
	strbuf_trim_trailing(&commit);
	leaf = xasprintf("git-%s", commit.buf);
	dir = cache_path("src", leaf);
	free(leaf);
	tmp = xasprintf("%s.tmp.%d", dir, (int)getpid());
	tar = xasprintf("%s.tar", tmp);
	lock = lock_source_cache();
	if (lock < 0)
		goto out;
	{
		char *marker = xasprintf("%s/.wblab-unpacked", dir);
		int have = path_exists(marker);

		free(marker);
		if (!have) {
			const char *ga[] = { "git", "-C", repo, "archive", "--format=tar",
					     "-o", tar, commit.buf, NULL };
			const char *x[] = { "tar", "-xf", tar, "-C", tmp, NULL };
			struct strbuf err = STRBUF_INIT;
			char *what = xasprintf("%s at %s", repo, commit.buf);

			info("exporting %s (git archive)", what);
			if (run_capture(ga, NULL, &err)) {
				error("git archive of %s failed: %s", what, err.buf);
				strbuf_release(&err);
				free(what);
				unlink(tar);
				goto out;
			}
			strbuf_release(&err);
			if (unpack_tree(dir, x, tmp, what)) {
				free(what);
				unlink(tar);
				goto out;
			}
			free(what);
			unlink(tar);
		}
	}
	if (ident)
		*ident = xasprintf("%s %s", repo, commit.buf);
	ret = 0;
out:
	drop_lock(lock);
	strbuf_release(&commit);
	free(rev);
	free(tmp);
	free(tar);
	if (ret) {
		free(dir);
		return NULL;
	}
	return dir;
}

/* ---- patches ---- */

/* The @@ header of hunk number n (1-based) of file in a patch; NULL if not found. */
static char *hunk_header(const char *patch, const char *file, int n)
{
	struct strbuf text = STRBUF_INIT;
	char *save = NULL, *found = NULL;
	int in_file = 0, hunk = 0;

	if (strbuf_read_file(&text, patch) < 0)
		return NULL;
	for (char *l = strtok_r(text.buf, "\n", &save); l && !found;
	     l = strtok_r(NULL, "\n", &save)) {
		if (!strncmp(l, "+++ ", 4)) {
			char *name = l + 4;
			char *end = name + strcspn(name, "\t");
			const char *slash;

			*end = '\0';
			/* -p1: drop the first component (b/). */
			slash = strchr(name, '/');
			in_file = slash && !strcmp(slash + 1, file);
			hunk = 0;
		} else if (in_file && !strncmp(l, "@@ ", 3) && ++hunk == n) {
			found = xstrdup(l);
		}
	}
	strbuf_release(&text);
	return found;
}

static const char *const patch_opts[] = {
	"patch", "-p1", "--forward", "--fuzz=0", "--no-backup-if-mismatch",
	"-r", "-",
};

static int patch_argv(const char **argv, const char *srcdir, const char *patch,
		      bool dry)
{
	int n = 0;

	for (size_t i = 0; i < ARRAY_SIZE(patch_opts); i++)
		argv[n++] = patch_opts[i];
	if (dry)
		argv[n++] = "--dry-run";
	argv[n++] = "-d";
	argv[n++] = srcdir;
	argv[n++] = "-i";
	argv[n++] = patch;
	argv[n] = NULL;
	return n;
}

int kbuild_patch_check(const char *srcdir, const char *patch, struct strbuf *msg)
{
	const char *argv[16];
	struct strbuf out = STRBUF_INIT;
	char *save = NULL, *file = NULL;
	int ret, failures = 0;

	if (!path_exists(patch)) {
		strbuf_addf(msg, "%s: no such patch\n", patch);
		return -1;
	}
	patch_argv(argv, srcdir, patch, true);
	ret = run_capture(argv, &out, &out);
	if (ret < 0) {
		strbuf_addf(msg, "cannot run patch: %s\n", out.buf);
		strbuf_release(&out);
		return -1;
	}
	if (ret == 0) {
		strbuf_release(&out);
		return 0;
	}
	for (char *l = strtok_r(out.buf, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		int hunk, line;

		if (!strncmp(l, "checking file ", 14) || !strncmp(l, "patching file ", 14)) {
			free(file);
			file = xstrdup(l + 14);
		} else if (sscanf(l, "Hunk #%d FAILED at %d", &hunk, &line) == 2) {
			char *hdr = file ? hunk_header(patch, file, hunk) : NULL;

			strbuf_addf(msg, "%s: hunk #%d FAILED at line %d%s%s\n",
				    file ? file : "?", hunk, line,
				    hdr ? ": " : "", hdr ? hdr : "");
			free(hdr);
			failures++;
		} else if (strstr(l, "malformed patch") || strstr(l, "can't find file") ||
			   strstr(l, "No file to patch") || strstr(l, "Reversed (or previously applied)") ||
			   strstr(l, "Only garbage") || strstr(l, "doesn't exist")) {
			strbuf_addf(msg, "%s%s%s\n", file ? file : "", file ? ": " : "", l);
			failures++;
		}
	}
	if (!failures)
		strbuf_addf(msg, "patch failed (%d):\n%s\n", ret, out.buf);
	free(file);
	strbuf_release(&out);
	return 1;
}

/* Report a failing patch: which patch of which spec, which file and hunk. */
static int patch_failed(const char *name, const char *patch, const char *msg)
{
	struct strbuf sb = STRBUF_INIT;
	const char *p = msg;

	while (*p) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);

		strbuf_addstr(&sb, "\n  ");
		strbuf_add(&sb, p, len);
		p += len + (nl ? 1 : 0);
	}
	error("kernel %s: patch %s does not apply:%s", name, patch, sb.buf);
	strbuf_release(&sb);
	return -1;
}

/*
 * Check all patches apply, in order, before touching any build tree: the
 * first one against the pristine tree itself, the rest in a scratch
 * hardlink copy that is removed again.
 */
static int check_patches(const char *name, const char *pristine,
			 char **paths, size_t n)
{
	char *scratch = NULL;
	int ret = 0;

	for (size_t i = 0; i < n && !ret; i++) {
		struct strbuf msg = STRBUF_INIT;
		const char *dir = i ? scratch : pristine;

		if (kbuild_patch_check(dir, paths[i], &msg))
			ret = patch_failed(name, paths[i], msg.buf);
		strbuf_release(&msg);
		if (ret || i + 1 == n)
			break;
		if (!scratch) {
			char *leaf = xasprintf(".check-%s.%d", name, (int)getpid());
			const char *cp[] = { "cp", "-al", pristine, NULL, NULL };
			struct strbuf err = STRBUF_INIT;

			scratch = cache_path("build", leaf);
			free(leaf);
			cp[3] = scratch;
			if (run_capture(cp, NULL, &err))
				ret = error("cp -al %s %s failed: %s", pristine, scratch, err.buf);
			strbuf_release(&err);
		}
		if (!ret) {
			const char *argv[16];
			struct strbuf err = STRBUF_INIT;

			patch_argv(argv, scratch, paths[i], false);
			if (run_capture(argv, &err, &err))
				ret = error("kernel %s: applying %s failed: %s", name,
					    paths[i], err.buf);
			strbuf_release(&err);
		}
	}
	if (scratch)
		rm_rf(scratch);
	free(scratch);
	return ret;
}

/* ---- config ---- */

struct kopt {
	char *sym;
	char *val;	/* "y", "m", "\"str\"", "123", or "n" for not set */
	const char *file;
	int line;
	bool strict;
};

/* Parse "CONFIG_X=v" or "# CONFIG_X is not set"; 0 if the line is neither. */
static int parse_config_line(const char *l, char **sym, char **val)
{
	const char *eq;

	if (!strncmp(l, "CONFIG_", 7) && (eq = strchr(l, '='))) {
		size_t vl = strlen(eq + 1);

		while (vl && (eq[vl] == ' ' || eq[vl] == '\r' || eq[vl] == '\t'))
			vl--;
		*sym = xstrndup(l, eq - l);
		*val = xstrndup(eq + 1, vl);
		return 1;
	}
	if (!strncmp(l, "# CONFIG_", 9) && strstr(l, " is not set")) {
		const char *s = l + 2;

		*sym = xstrndup(s, strcspn(s, " "));
		*val = xstrdup("n");
		return 1;
	}
	return 0;
}

static void kopts_free(struct kopt *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(v[i].sym);
		free(v[i].val);
	}
	free(v);
}

static const char *config_value(struct strbuf *cfg, const char *sym)
{
	/* A linear scan of a few thousand lines per request is cheap enough. */
	static char val[4096];
	size_t sl = strlen(sym);
	const char *p = cfg->buf;

	while (p && *p) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);

		if (len > sl && !strncmp(p, sym, sl) && p[sl] == '=') {
			size_t vl = len - sl - 1;

			if (vl >= sizeof(val))
				vl = sizeof(val) - 1;
			memcpy(val, p + sl + 1, vl);
			val[vl] = '\0';
			return val;
		}
		if (len > sl + 2 && !strncmp(p, "# ", 2) && !strncmp(p + 2, sym, sl) &&
		    !strncmp(p + 2 + sl, " is not set", 11))
			return "n";
		p = nl ? nl + 1 : NULL;
	}
	return NULL;	/* absent: unknown symbol or unmet dependency */
}

int kbuild_config_verify(const char *config, const char *const *fragments,
			 const bool *strict, int n, struct strbuf *msg,
			 struct strbuf *warn_msg)
{
	struct strbuf cfg = STRBUF_INIT;
	struct kopt *req = NULL;
	size_t nreq = 0, alloc = 0;
	int bad = 0;

	if (strbuf_read_file(&cfg, config) < 0) {
		strbuf_addf(msg, "cannot read %s: %s\n", config, strerror(errno));
		return -1;
	}
	for (int f = 0; f < n; f++) {
		struct strbuf text = STRBUF_INIT;
		const char *p;
		int line = 0;

		if (strbuf_read_file(&text, fragments[f]) < 0) {
			strbuf_addf(msg, "cannot read %s: %s\n", fragments[f], strerror(errno));
			strbuf_release(&text);
			strbuf_release(&cfg);
			kopts_free(req, nreq);
			return -1;
		}
		p = text.buf;
		while (p && *p) {
			const char *nl = strchr(p, '\n');
			char *l = xstrndup(p, nl ? (size_t)(nl - p) : strlen(p));
			char *sym, *val;
			size_t i;

			line++;
			p = nl ? nl + 1 : NULL;
			if (!parse_config_line(l, &sym, &val)) {
				free(l);
				continue;
			}
			free(l);
			for (i = 0; i < nreq; i++)
				if (!strcmp(req[i].sym, sym))
					break;
			if (i == nreq) {
				if (nreq == alloc) {
					alloc = alloc ? alloc * 2 : 64;
					req = xrealloc(req, alloc * sizeof(*req));
				}
				req[nreq++].sym = sym;
			} else {
				free(sym);
				free(req[i].val);
			}
			req[i].val = val;
			req[i].file = fragments[f];
			req[i].line = line;
			req[i].strict = strict ? strict[f] : true;
		}
		strbuf_release(&text);
	}
	for (size_t i = 0; i < nreq; i++) {
		const char *got = config_value(&cfg, req[i].sym);
		const char *want = req[i].val;
		bool ok;

		if (!strcmp(want, "n"))
			ok = !got || !strcmp(got, "n");
		else if (!strcmp(want, "m"))	/* built in is as good as a module */
			ok = got && (!strcmp(got, "m") || !strcmp(got, "y"));
		else
			ok = got && !strcmp(got, want);
		if (ok)
			continue;
		strbuf_addf(req[i].strict ? msg : warn_msg,
			    "%s=%s (%s:%d): .config has %s\n", req[i].sym, want,
			    req[i].file, req[i].line,
			    !got ? "nothing (unmet dependency, or no such option on this architecture)" :
			    !strcmp(got, "n") ? "it not set" : got);
		if (req[i].strict)
			bad++;
	}
	kopts_free(req, nreq);
	strbuf_release(&cfg);
	return bad;
}

/* ---- progress while make runs ---- */

struct progress {
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool stop;
	const char *name;
	const char *log;
	double t0;
	off_t offset;
	int steps;
	char last[256];
};

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
			if (plen > 4 && partial[0] == ' ' && partial[1] == ' ' &&
			    partial[2] >= 'A' && partial[2] <= 'Z') {
				char *s = partial + 2;
				char *sp = strchr(s, ' ');

				pr->steps++;
				if (sp) {
					char *t = sp;

					while (*t == ' ')
						t++;
					snprintf(pr->last, sizeof(pr->last), "%.*s %s",
						 (int)(sp - s), s, t);
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
			char *t = fmt_secs(now_mono() - pr->t0);

			info("kernel %s: %s, %d build steps, at: %s", pr->name, t,
			     pr->steps, pr->last[0] ? pr->last : "(configuring)");
			free(t);
		}
	}
	pthread_mutex_unlock(&pr->lock);
	return NULL;
}

static void progress_start(struct progress *pr, const char *name, const char *log)
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

/* ---- the build ---- */

struct kb {
	const struct kernel_spec *s;
	struct plan plan;
	char *pristine;
	char *ident;
	char *bdir;		/* build/<name> */
	char *srctree;		/* build/<name>/linux */
	char *obj;		/* build/<name>/linux/obj */
	char *log;
	char **patch_paths;
	const char *env[10];
	char *env_own[10];
	char *base_obj;		/* the base's O= tree to start from, or NULL */
	char *base_hash;
};

static void kb_free(struct kb *k)
{
	plan_free(&k->plan);
	free(k->pristine);
	free(k->ident);
	free(k->bdir);
	free(k->srctree);
	free(k->obj);
	free(k->log);
	for (size_t i = 0; k->patch_paths && k->patch_paths[i]; i++)
		free(k->patch_paths[i]);
	free(k->patch_paths);
	for (size_t i = 0; i < ARRAY_SIZE(k->env_own); i++)
		free(k->env_own[i]);
	free(k->base_obj);
	free(k->base_hash);
}

/* Build environment: deterministic version strings, ccache through PATH. */
static void kb_env(struct kb *k)
{
	const char *path = getenv("PATH");
	const char *cc = getenv("WBLAB_CCACHE");
	bool ccache = !(cc && !strcmp(cc, "0")) && path_exists("/usr/lib/ccache/gcc");
	char *mk = xasprintf("%s/Makefile", k->pristine);
	struct stat st;
	char stamp[64] = "Thu Jan  1 00:00:00 UTC 2015";
	int n = 0;

	/* The release date of the source: the time its Makefile carries. */
	if (!stat(mk, &st)) {
		struct tm tm;

		gmtime_r(&st.st_mtime, &tm);
		strftime(stamp, sizeof(stamp), "%a %b %e %H:%M:%S UTC %Y", &tm);
	}
	free(mk);
	k->env_own[n++] = xasprintf("KBUILD_BUILD_TIMESTAMP=%s", stamp);
	k->env_own[n++] = xstrdup("KBUILD_BUILD_USER=wblab");
	k->env_own[n++] = xstrdup("KBUILD_BUILD_HOST=wblab");
	k->env_own[n++] = xstrdup("KBUILD_BUILD_VERSION=1");
	k->env_own[n++] = xstrdup("LC_ALL=C");
	if (ccache) {
		const char *cd = getenv("CCACHE_DIR");

		k->env_own[n++] = xasprintf("PATH=/usr/lib/ccache:%s",
					    path ? path : "/usr/bin:/bin");
		k->env_own[n++] = cd && *cd ? xasprintf("CCACHE_DIR=%s", cd)
					    : cache_path("ccache", "");
		if (!(cd && *cd)) {
			char *v = xasprintf("CCACHE_DIR=%s", k->env_own[n - 1]);

			free(k->env_own[n - 1]);
			k->env_own[n - 1] = v;
		}
	} else {
		k->env_own[n++] = xstrdup("CCACHE_DISABLE=1");
	}
	for (int i = 0; i < n; i++)
		k->env[i] = k->env_own[i];
	k->env[n] = NULL;
}

static char *read_stamp(const char *path)
{
	struct strbuf sb = STRBUF_INIT;

	if (strbuf_read_file(&sb, path) < 0) {
		strbuf_release(&sb);
		return NULL;
	}
	return strbuf_detach(&sb, NULL);
}

static char *tree_stamp(struct kb *k)
{
	struct strbuf sb = STRBUF_INIT;

	strbuf_addf(&sb, "layout 1\nsource %s\n", k->ident);
	for (size_t i = 0; i < k->plan.patches.n; i++) {
		char hex[HASH_HEX_LEN + 1] = "";

		hash_file_hex(k->patch_paths[i], hex);
		strbuf_addf(&sb, "patch %s %s\n", k->plan.patches.v[i], hex);
	}
	if (k->s->base)
		strbuf_addf(&sb, "base %s %s\n", k->s->base, k->base_hash);
	return strbuf_detach(&sb, NULL);
}

/*
 * The tools/ build (objtool, built during prepare) uses absolute paths in
 * its command lines and dependency files. Every kernel object depends on
 * the objtool binary, so if objtool were relinked in the variant's tree,
 * everything would rebuild: point the copied .cmd and .d files at the new
 * tree, keeping their mtimes. Kbuild's own files use the relative srctree.
 */
static const char *fix_from, *fix_to;
static int fix_count, fix_errors;

static int fix_one(const char *path, const struct stat *st, int flag, struct FTW *f)
{
	const char *base = path + f->base;
	size_t bl = strlen(base);
	struct strbuf in = STRBUF_INIT, out = STRBUF_INIT;
	size_t fl = strlen(fix_from);
	const char *p, *hit;

	if (flag != FTW_F || !S_ISREG(st->st_mode))
		return 0;
	if (!((base[0] == '.' && bl > 4 && !strcmp(base + bl - 4, ".cmd")) ||
	      (bl > 2 && !strcmp(base + bl - 2, ".d"))))
		return 0;
	if (strbuf_read_file(&in, path) < 0) {
		fix_errors++;
		goto out;
	}
	if (!strstr(in.buf, fix_from))
		goto out;
	for (p = in.buf; (hit = strstr(p, fix_from)); p = hit + fl) {
		strbuf_add(&out, p, hit - p);
		strbuf_addstr(&out, fix_to);
	}
	strbuf_addstr(&out, p);
	{
		struct timespec ts[2] = { st->st_atim, st->st_mtim };

		if (write_file_atomic(path, out.buf, out.len, st->st_mode & 07777) ||
		    utimensat(AT_FDCWD, path, ts, 0))
			fix_errors++;
		else
			fix_count++;
	}
out:
	strbuf_release(&in);
	strbuf_release(&out);
	return 0;
}

static int fix_abs_paths(const char *obj, const char *from, const char *to)
{
	fix_from = from;
	fix_to = to;
	fix_count = fix_errors = 0;
	nftw(obj, fix_one, 64, FTW_PHYS);
	if (fix_errors)
		return error("cannot rewrite %d dependency files under %s", fix_errors, obj);
	return fix_count;
}

/*
 * Make build/<name>/linux: reuse it when its stamp matches, else a hardlink
 * copy of the pristine tree with the patches applied and, for a variant, a
 * copy of the base's O= tree.
 */
static int prepare_tree(struct kb *k)
{
	char *stamp = tree_stamp(k);
	char *stamp_path = xasprintf("%s/tree.stamp", k->bdir);
	char *old = read_stamp(stamp_path);
	char *newt = xasprintf("%s/linux.new", k->bdir);
	struct strbuf err = STRBUF_INIT;
	int ret = -1;

	if (old && !strcmp(old, stamp) && path_exists(k->srctree)) {
		info("kernel %s: reusing the object tree %s", k->s->name, k->obj);
		ret = 0;
		goto out;
	}
	if (cache_make_dir(k->bdir))
		goto out;
	unlink(stamp_path);
	rm_rf(newt);
	{
		const char *cp[] = { "cp", "-al", k->pristine, newt, NULL };

		if (run_capture(cp, NULL, &err)) {
			error("cp -al %s %s failed: %s", k->pristine, newt, err.buf);
			goto out;
		}
	}
	{
		char *m = xasprintf("%s/.wblab-unpacked", newt);

		unlink(m);
		free(m);
	}
	for (size_t i = 0; i < k->plan.patches.n; i++) {
		struct strbuf msg = STRBUF_INIT;
		const char *argv[16];
		int r = kbuild_patch_check(newt, k->patch_paths[i], &msg);

		if (r) {
			patch_failed(k->s->name, k->patch_paths[i], msg.buf);
			strbuf_release(&msg);
			goto out;
		}
		strbuf_release(&msg);
		patch_argv(argv, newt, k->patch_paths[i], false);
		info("kernel %s: applying %s", k->s->name, k->plan.patches.v[i]);
		if (run_logged(argv, NULL, NULL, k->log)) {
			error("kernel %s: applying %s failed, see %s", k->s->name,
			      k->patch_paths[i], k->log);
			goto out;
		}
	}
	if (k->base_obj) {
		char *dst = xasprintf("%s/obj", newt);
		const char *cp[] = { "cp", "-a", "--reflink=auto", k->base_obj, dst, NULL };
		double t0 = now_mono();

		info("kernel %s: starting from a copy of %s", k->s->name, k->base_obj);
		strbuf_reset(&err);
		if (run_capture(cp, NULL, &err)) {
			error("cp -a %s %s failed: %s", k->base_obj, dst, err.buf);
			free(dst);
			goto out;
		}
		{
			/* build/<base>/linux/obj -> build/<base>/linux */
			char *from = xstrndup(k->base_obj, strlen(k->base_obj) - 4);
			int n = fix_abs_paths(dst, from, k->srctree);

			free(from);
			free(dst);
			if (n < 0)
				goto out;
		}
		{
			char *t = fmt_secs(now_mono() - t0);

			info("kernel %s: copied the base's object tree in %s", k->s->name, t);
			free(t);
		}
	}
	rm_rf(k->srctree);
	if (rename(newt, k->srctree) < 0) {
		error("cannot rename %s to %s: %s", newt, k->srctree, strerror(errno));
		goto out;
	}
	if (write_string_atomic(stamp_path, stamp))
		goto out;
	ret = 0;
out:
	if (ret)
		rm_rf(newt);
	strbuf_release(&err);
	free(stamp);
	free(stamp_path);
	free(old);
	free(newt);
	return ret;
}

/* Resolve a fragment: the lab's own (strict) or the kernel tree's. */
static char *fragment_path(struct kb *k, const char *name, bool *strict)
{
	char *p = kbuild_lab_file("configs", name);
	const char *tree_dirs[] = { "kernel/configs", "arch/x86/configs" };

	*strict = true;
	if (path_exists(p))
		return p;
	free(p);
	*strict = false;
	for (size_t i = 0; i < ARRAY_SIZE(tree_dirs); i++) {
		p = xasprintf("%s/%s/%s", k->srctree, tree_dirs[i], name);
		if (path_exists(p))
			return p;
		free(p);
	}
	error("%s: config fragment %s is neither in lab/configs nor in the kernel's kernel/configs",
	      k->s->path, name);
	return NULL;
}

static int configure(struct kb *k)
{
	char *objarg = xasprintf("O=%s", k->obj);
	char *lvfrag = xasprintf("%s/localversion.config", k->bdir);
	char *config = xasprintf("%s/.config", k->obj);
	size_t nf = k->plan.fragments.n + 1;
	const char **frags = xzalloc((nf + 1) * sizeof(*frags));
	char **own = xzalloc((nf + 1) * sizeof(*own));
	bool *strict = xzalloc(nf * sizeof(*strict));
	const char **argv = xzalloc((nf + 8) * sizeof(*argv));
	struct strbuf msg = STRBUF_INIT, wmsg = STRBUF_INIT;
	int ret = -1, n;

	for (size_t i = 0; i < k->plan.fragments.n; i++) {
		own[i] = fragment_path(k, k->plan.fragments.v[i], &strict[i]);
		if (!own[i])
			goto out;
		frags[i] = own[i];
	}
	{
		char *text = xasprintf("# written by wblab from the spec's localversion\n"
				       "CONFIG_LOCALVERSION=\"%s\"\n"
				       "# CONFIG_LOCALVERSION_AUTO is not set\n",
				       k->plan.localversion ? k->plan.localversion : "");

		if (write_string_atomic(lvfrag, text)) {
			free(text);
			goto out;
		}
		free(text);
		frags[nf - 1] = lvfrag;
		strict[nf - 1] = true;
	}
	if (cache_make_dir(k->obj))
		goto out;
	info("kernel %s: configuring (%s + %zu fragments)", k->s->name,
	     k->plan.config_base, k->plan.fragments.n);
	{
		const char *mk[] = { "make", "-C", k->srctree, objarg, k->plan.config_base, NULL };

		if (run_logged(mk, NULL, k->env, k->log)) {
			error("kernel %s: make %s failed, see %s", k->s->name,
			      k->plan.config_base, k->log);
			goto out;
		}
	}
	{
		char *script = xasprintf("%s/scripts/kconfig/merge_config.sh", k->srctree);

		n = 0;
		argv[n++] = "sh";
		argv[n++] = script;
		argv[n++] = "-m";
		argv[n++] = "-O";
		argv[n++] = k->obj;
		argv[n++] = config;
		for (size_t i = 0; i < nf; i++)
			argv[n++] = frags[i];
		argv[n] = NULL;
		if (run_logged(argv, k->srctree, k->env, k->log)) {
			error("kernel %s: merge_config.sh failed, see %s", k->s->name, k->log);
			free(script);
			goto out;
		}
		free(script);
	}
	{
		const char *mk[] = { "make", "-C", k->srctree, objarg, "olddefconfig", NULL };

		if (run_logged(mk, NULL, k->env, k->log)) {
			error("kernel %s: make olddefconfig failed, see %s", k->s->name, k->log);
			goto out;
		}
	}
	n = kbuild_config_verify(config, frags, strict, nf, &msg, &wmsg);
	if (wmsg.len) {
		FILE *f = fopen(k->log, "a");

		if (f) {
			fprintf(f, "wblab: options of the kernel's own fragments not as requested (ignored):\n%s",
				wmsg.buf);
			fclose(f);
		}
	}
	if (n) {
		error("kernel %s: %d requested config option%s did not survive olddefconfig "
		      "(fix the fragment or the option's dependencies):\n%s", k->s->name,
		      n, n == 1 ? "" : "s", msg.buf);
		goto out;
	}
	ret = 0;
out:
	for (size_t i = 0; i < nf; i++)
		free(own[i]);
	free(own);
	free(frags);
	free(strict);
	free(argv);
	free(objarg);
	free(lvfrag);
	free(config);
	strbuf_release(&msg);
	strbuf_release(&wmsg);
	return ret;
}

static int jobs(void)
{
	const char *e = getenv("WBLAB_JOBS");
	long n = e ? atol(e) : sysconf(_SC_NPROCESSORS_ONLN);

	return n > 0 ? (int)n : 1;
}

static int make_kernel(struct kb *k)
{
	char *objarg = xasprintf("O=%s", k->obj);
	char *jarg = xasprintf("-j%d", jobs());
	const char *mk[] = { "make", "-C", k->srctree, objarg, jarg, "bzImage", "modules", NULL };
	struct progress pr;
	double t0 = now_mono();
	int ret, steps;

	info("kernel %s: make %s bzImage modules (output in %s)", k->s->name, jarg, k->log);
	progress_start(&pr, k->s->name, k->log);
	ret = run_logged(mk, NULL, k->env, k->log);
	steps = progress_stop(&pr);
	{
		char *t = fmt_secs(now_mono() - t0);

		if (ret)
			error("kernel %s: make failed (%d) after %s; the end of %s says why",
			      k->s->name, ret, t, k->log);
		else
			info("kernel %s: make done in %s, %d build steps", k->s->name, t, steps);
		free(t);
	}
	free(objarg);
	free(jarg);
	return ret ? -1 : 0;
}

static int install(struct kb *k, const char *hash, struct kernel_artifact *a)
{
	char *leaf = xasprintf("%s-%.12s", k->s->name, hash);
	char *dir = cache_path("kernels", leaf);
	char *tmpdir = xasprintf("%s.tmp.%d", dir, (int)getpid());
	char *moddir = xasprintf("%s/modules", tmpdir);
	char *objarg = xasprintf("O=%s", k->obj);
	char *modarg = xasprintf("INSTALL_MOD_PATH=%s", moddir);
	char *relpath = xasprintf("%s/include/config/kernel.release", k->obj);
	char *src_k = xasprintf("%s/arch/x86/boot/bzImage", k->obj);
	char *src_c = xasprintf("%s/.config", k->obj);
	char *dst_k = xasprintf("%s/bzImage", tmpdir);
	char *dst_c = xasprintf("%s/config", tmpdir);
	struct strbuf rel = STRBUF_INIT, pl = STRBUF_INIT;
	int ret = -1;

	memset(a, 0, sizeof(*a));
	rm_rf(tmpdir);
	if (cache_make_dir(moddir))
		goto out;
	if (strbuf_read_file(&rel, relpath) < 0 || (strbuf_trim_trailing(&rel), !rel.len)) {
		error("kernel %s: no kernel release in %s", k->s->name, relpath);
		goto out;
	}
	{
		const char *mk[] = { "make", "-C", k->srctree, objarg, modarg,
				     "INSTALL_MOD_STRIP=1", "modules_install", NULL };

		if (run_logged(mk, NULL, k->env, k->log)) {
			error("kernel %s: make modules_install failed, see %s", k->s->name, k->log);
			goto out;
		}
	}
	{
		/* build and source point into the host's build tree: not for the guest. */
		char *mv = xasprintf("%s/lib/modules/%s", moddir, rel.buf);
		char *b = xasprintf("%s/build", mv);
		char *s = xasprintf("%s/source", mv);

		mkdir_p(mv, 0755);
		unlink(b);
		unlink(s);
		free(mv);
		free(b);
		free(s);
	}
	if (copy_file(src_k, dst_k, 0644) || copy_file(src_c, dst_c, 0644)) {
		error("kernel %s: cannot copy %s and %s into %s: %s", k->s->name, src_k,
		      src_c, tmpdir, strerror(errno));
		goto out;
	}
	for (size_t i = 0; i < k->plan.patches.n; i++)
		strbuf_addf(&pl, "%s%s", i ? "," : "", k->plan.patches.v[i]);
	a->name = xstrdup(k->s->name);
	snprintf(a->hash, sizeof(a->hash), "%s", hash);
	a->dir = xstrdup(dir);
	a->version = xstrdup(rel.buf);
	a->source = xstrdup(k->ident);
	a->patches = strbuf_detach(&pl, NULL);
	a->origin = xstrdup("built");
	if (kernel_commit(tmpdir, a))
		goto out;
	{
		struct kernel_artifact loaded;

		if (kernel_artifact_load(dir, &loaded)) {
			error("kernel %s: %s/kernel.json unreadable after commit", k->s->name, dir);
			goto out;
		}
		kernel_artifact_free(a);
		*a = loaded;
	}
	ret = 0;
out:
	if (ret) {
		rm_rf(tmpdir);
		kernel_artifact_free(a);
	}
	strbuf_release(&rel);
	strbuf_release(&pl);
	free(leaf);
	free(dir);
	free(tmpdir);
	free(moddir);
	free(objarg);
	free(modarg);
	free(relpath);
	free(src_k);
	free(src_c);
	free(dst_k);
	free(dst_c);
	return ret;
}

/* After waiting for a lock: another process may have built it meanwhile. */
static int already_built(const struct kernel_spec *s, const char *hash,
			 struct kernel_artifact *out)
{
	char *leaf = xasprintf("%s-%.12s", s->name, hash);
	char *dir = cache_path("kernels", leaf);
	int ret = kernel_artifact_load(dir, out);

	free(leaf);
	free(dir);
	return ret == 0;
}

int kernel_build(const struct kernel_spec *s, const char *hash,
		 struct kernel_artifact *out)
{
	struct kb k = { .s = s };
	char *lockp = NULL, *builddir = NULL;
	int lock = -1, ret = -1;
	double t0 = now_mono();

	memset(out, 0, sizeof(*out));
	if (plan_resolve(s, &k.plan, 0))
		goto out;
	if (k.plan.source_package)
		k.pristine = kbuild_package_source(k.plan.source_package, &k.ident);
	else if (k.plan.source_git)
		k.pristine = git_source(k.plan.source_git, k.plan.source_ref, &k.ident);
	else
		error("%s: no source: (package: or git:)", s->path);
	if (!k.pristine)
		goto out;

	/* Patches first: a patch that does not apply must cost nothing. */
	k.patch_paths = xzalloc((k.plan.patches.n + 1) * sizeof(char *));
	for (size_t i = 0; i < k.plan.patches.n; i++)
		k.patch_paths[i] = kbuild_lab_file("patches", k.plan.patches.v[i]);
	builddir = cache_path("build", "");
	if (cache_make_dir(builddir))
		goto out;
	if (check_patches(s->name, k.pristine, k.patch_paths, k.plan.patches.n))
		goto out;

	if (s->base) {
		struct kernel_spec base;
		struct kernel_artifact ba;

		if (kernel_spec_find(s->base, &base)) {
			error("%s: base: cannot load kernel '%s'", s->path, s->base);
			goto out;
		}
		info("kernel %s: needs its base %s first", s->name, s->base);
		if (kernel_ensure(&base, &ba)) {
			error("kernel %s: building its base %s failed", s->name, s->base);
			kernel_spec_free(&base);
			goto out;
		}
		k.base_hash = xstrdup(ba.hash);
		if (!base.package) {
			char *bb = cache_path("build", base.name);

			k.base_obj = xasprintf("%s/linux/obj", bb);
			free(bb);
			if (!path_exists(k.base_obj)) {
				/* Cached kernel, but its tree is gone: build from scratch. */
				info("kernel %s: the base's object tree is gone; building from scratch",
				     s->name);
				free(k.base_obj);
				k.base_obj = NULL;
			}
		}
		kernel_artifact_free(&ba);
		kernel_spec_free(&base);
	}

	{
		char *leaf = xasprintf("%s.lock", s->name);

		lockp = cache_path("build", leaf);
		free(leaf);
	}
	lock = take_lock(lockp, lockp);
	if (lock < 0)
		goto out;
	if (already_built(s, hash, out)) {
		ret = 0;
		goto out;
	}
	if (cache_check_space(cache_root(), BUILD_SPACE))
		goto out;
	k.bdir = cache_path("build", s->name);
	k.srctree = xasprintf("%s/linux", k.bdir);
	k.obj = xasprintf("%s/obj", k.srctree);
	k.log = xasprintf("%s/build.log", k.bdir);
	if (cache_make_dir(k.bdir))
		goto out;
	{
		FILE *f = fopen(k.log, "w");
		char when[64];

		now_iso8601(when, sizeof(when));
		if (f) {
			fprintf(f, "wblab kernel build %s (%s), %s\nsource: %s\n", s->name,
				hash, when, k.ident);
			fclose(f);
		}
	}
	info("kernel %s: building from %s%s%s; log: %s", s->name, k.ident,
	     k.plan.patches.n ? " + patches" : "", s->base ? " (variant)" : "", k.log);
	kb_env(&k);
	/* Hold the base's lock while copying its tree so it does not change under us. */
	if (k.base_obj) {
		char *bl = xasprintf("%s.lock", s->base);
		char *blp = cache_path("build", bl);
		int bfd = take_lock(blp, blp);

		free(bl);
		free(blp);
		if (bfd < 0)
			goto out;
		ret = prepare_tree(&k);
		drop_lock(bfd);
		if (ret)
			goto out;
		ret = -1;
	} else if (prepare_tree(&k)) {
		goto out;
	}
	if (configure(&k) || make_kernel(&k) || install(&k, hash, out))
		goto out;
	{
		char *t = fmt_secs(now_mono() - t0);

		info("kernel %s: %s built in %s -> %s", s->name, out->version, t, out->dir);
		free(t);
	}
	ret = 0;
out:
	drop_lock(lock);
	free(lockp);
	free(builddir);
	kb_free(&k);
	return ret;
}
