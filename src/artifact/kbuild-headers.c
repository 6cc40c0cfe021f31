// SPDX-License-Identifier: GPL-2.0
/*
 * The headers a module variant of a Debian kernel is built against,
 * without installing anything on the host. Installing
 * linux-headers-6.12.118+deb12-amd64 pulls in its kernel image (a
 * dependency), which changes the host's /vmlinuz and initramfs: `make
 * deps` did that. Instead the headers package and the parts it includes
 * (its -common half and linux-kbuild, at the same version) are
 * downloaded with `apt-get download` (the host's package lists, read only;
 * nothing installed) and unpacked under the cache:
 *
 *   ROOT/headers/<package>_<version>/root/usr/src/<package>
 *
 * Their relative links (scripts -> ../../lib/linux-kbuild-X/scripts) hold
 * inside root/; the one absolute path, the arch Makefile's "include
 * /usr/src/linux-headers-X-common/Makefile", is rewritten to root/'s.
 * Headers installed on the host at the right version are used as they are.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "artifact/cache.h"
#include "artifact/kbuild-int.h"
#include "artifact/toolver.h"
#include "util/fs.h"
#include "util/log.h"
#include "util/run.h"
#include "util/str.h"

/* The host's /usr/src/<pkg> if dpkg says it is installed at ver. */
static char *installed_headers(const char *pkg, const char *ver)
{
	const char *argv[] = { "dpkg-query", "-W", "-f=${Version}",
			       "--",	     pkg,  NULL };
	struct strbuf got = STRBUF_INIT;
	char *dir = xasprintf("/usr/src/%s", pkg);

	if (tool_output(argv, &got) || strcmp(got.buf, ver) ||
	    !path_exists(dir)) {
		free(dir);
		dir = NULL;
	}
	strbuf_release(&got);
	return dir;
}

/*
 * The packages pkg's headers are made of: itself and its Depends named
 * linux-headers-* or linux-kbuild-* (not the image, not the compiler).
 */
static int header_parts(const char *pkg, struct strvec *parts)
{
	const char *argv[] = { "apt-cache",
			       "depends",
			       "--no-recommends",
			       "--no-suggests",
			       "--",
			       pkg,
			       NULL };
	struct strbuf out = STRBUF_INIT;
	char *save = NULL;

	strvec_push(parts, pkg);
	if (tool_output(argv, &out)) {
		strbuf_release(&out);
		return error(
			"apt-cache depends %s failed: is it in the host's package lists (apt-get update)?",
			pkg);
	}
	for (char *l = strtok_r(out.buf, "\n", &save); l;
	     l = strtok_r(NULL, "\n", &save)) {
		const char *dep = strstr(l, "Depends: ");

		/* "|Depends:" is an alternative (the image): never wanted. */
		if (!dep || strchr(l, '|'))
			continue;
		dep += strlen("Depends: ");
		if (starts_with(dep, "linux-headers-") ||
		    starts_with(dep, "linux-kbuild-"))
			strvec_push(parts, dep);
	}
	strbuf_release(&out);
	return 0;
}

/* apt-get download PART=ver... into dir, then dpkg-deb -x each into root. */
static int download_unpack(const struct strvec *parts, const char *ver,
			   const char *dir, const char *root)
{
	struct strvec argv = STRVEC_INIT;
	struct strbuf err = STRBUF_INIT;
	struct run_opts ro = { .dir = dir, .err = &err, .quiet = 1 };
	DIR *d;
	struct dirent *de;
	int ret = 0;

	strvec_pushl(&argv, "apt-get", "download", "-q", "--", NULL);
	for (size_t i = 0; i < parts->nr; i++)
		strvec_pushf(&argv, "%s=%s", parts->v[i], ver);
	if (run_argv((const char *const *)argv.v, &ro)) {
		ret = error("apt-get download of the headers at %s failed: %s",
			    ver, err.buf);
		goto out;
	}
	d = opendir(dir);
	while (d && !ret && (de = readdir(d))) {
		char *deb;
		const char *x[] = { "dpkg-deb", "-x", "--", NULL, root, NULL };

		size_t len = strlen(de->d_name);

		if (len < 5 || strcmp(de->d_name + len - 4, ".deb"))
			continue;
		deb = xasprintf("%s/%s", dir, de->d_name);
		x[3] = deb;
		strbuf_reset(&err);
		if (run_capture(x, NULL, &err))
			ret = error("dpkg-deb -x %s: %s", deb, err.buf);
		free(deb);
	}
	if (d)
		closedir(d);
out:
	strvec_clear(&argv);
	strbuf_release(&err);
	return ret;
}

/*
 * The arch Makefile includes its -common half by absolute path: point it
 * at final's copy (where the entry will live once installed).
 */
static int relocate_makefile(const char *tmp, const char *final,
			     const char *pkg)
{
	char *mk = xasprintf("%s/root/usr/src/%s/Makefile", tmp, pkg);
	struct strbuf in = STRBUF_INIT, out = STRBUF_INIT;
	char *save = NULL;
	int ret;

	ret = read_file_capped(&in, mk, 1 << 20);
	for (char *l = ret ? NULL : strtok_r(in.buf, "\n", &save); l;
	     l = strtok_r(NULL, "\n", &save)) {
		if (starts_with(l, "include /usr/src/"))
			strbuf_addf(&out, "include %s/root%s\n", final,
				    l + strlen("include "));
		else
			strbuf_addf(&out, "%s\n", l);
	}
	if (ret || write_string_atomic(mk, out.buf))
		ret = error("%s: cannot rewrite its include: %s", mk,
			    strerror(errno));
	free(mk);
	strbuf_release(&in);
	strbuf_release(&out);
	return ret;
}

static int fetch_headers(const char *pkg, const char *ver, const char *dir)
{
	char *tmp = xasprintf("%s.tmp.%d", dir, (int)getpid());
	char *debs = xasprintf("%s/debs", tmp);
	char *root = xasprintf("%s/root", tmp);
	struct strvec parts = STRVEC_INIT;
	int ret = -1;

	rm_rf(tmp);
	if (mkdir_p(debs, 0755) || mkdir_p(root, 0755)) {
		error("cannot make %s: %s", tmp, strerror(errno));
		goto out;
	}
	info("headers %s %s: downloading (never installed on the host)", pkg,
	     ver);
	if (header_parts(pkg, &parts) ||
	    download_unpack(&parts, ver, debs, root) ||
	    relocate_makefile(tmp, dir, pkg))
		goto out;
	rm_rf(debs);
	ret = cache_install(tmp, dir);
out:
	if (ret)
		rm_rf(tmp);
	strvec_clear(&parts);
	free(tmp);
	free(debs);
	free(root);
	return ret;
}

char *kb_debian_headers(const char *release, const char *ver)
{
	char *pkg = xasprintf("linux-headers-%s", release);
	char *leaf = xasprintf("%s_%s", pkg, ver);
	char *dir = cache_path("headers", leaf);
	char *lock = cache_lock_path(dir);
	char *headers = installed_headers(pkg, ver);
	int fd = -1;

	if (headers)
		goto out;
	headers = xasprintf("%s/root/usr/src/%s", dir, pkg);
	{
		char *parent = cache_path("headers", "");

		mkdir_p(parent, 0755);
		free(parent);
	}
	fd = cache_lock(lock, "the kernel headers");
	if (fd < 0 || (!path_exists(headers) && fetch_headers(pkg, ver, dir))) {
		free(headers);
		headers = NULL;
	}
	if (fd >= 0)
		cache_unlock(fd);
out:
	free(pkg);
	free(leaf);
	free(dir);
	free(lock);
	return headers;
}
