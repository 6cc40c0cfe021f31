// SPDX-License-Identifier: GPL-2.0
/*
 * Where specs and lab files are found: the search path of a user's own
 * kernels, topologies, workloads, fragments and patches before wblab's
 * shipped ones (docs/specs.md, "Where specs are found").
 */
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "spec/spec.h"
#include "util/fs.h"
#include "util/log.h"
#include "util/str.h"

static int cmp_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * The directories a lab file of dir ("lab/kernels", "topologies",
 * "lab/configs" ...) is looked for in, first match first: the current
 * directory's own (./lab/kernels: a user's specs beside their work), then
 * $XDG_CONFIG_HOME/wblab/<dir without "lab/"> (default ~/.config/wblab),
 * then wblab's shipped ones. Each to free; n set. A kernel developer's
 * kernel spec and config fragments no longer have to live inside the
 * wblab checkout, and an installed wblab can take them.
 */
static size_t search_dirs(const char *dir, char *dirs[3])
{
	const char *xdg = getenv("XDG_CONFIG_HOME"), *home = getenv("HOME");
	const char *leaf = starts_with(dir, "lab/") ? dir + 4 : dir;
	char cwd[PATH_MAX], *shipped, *real_shipped;
	size_t n = 0;

	shipped = xasprintf("%s/%s", wblab_home(), dir);
	real_shipped = realpath(shipped, NULL);
	if (getcwd(cwd, sizeof(cwd))) {
		char *mine = xasprintf("%s/%s", cwd, dir);
		char *real_mine = realpath(mine, NULL);

		if (real_mine &&
		    (!real_shipped || strcmp(real_mine, real_shipped)))
			dirs[n++] = mine;
		else
			free(mine);
		free(real_mine);
	}
	if (xdg && xdg[0] == '/')
		dirs[n++] = xasprintf("%s/wblab/%s", xdg, leaf);
	else if (home && home[0] == '/')
		dirs[n++] = xasprintf("%s/.config/wblab/%s", home, leaf);
	dirs[n++] = shipped;
	free(real_shipped);
	return n;
}

char *spec_search(const char *dir, const char *file)
{
	char *dirs[3], *found = NULL;
	size_t n = search_dirs(dir, dirs);

	for (size_t i = 0; i < n; i++) {
		char *p = xasprintf("%s/%s", dirs[i], file);

		if (!found && path_exists(p))
			found = p;
		else
			free(p);
		free(dirs[i]);
	}
	return found;
}

static void list_dir(const char *path, struct spec_strlist *out)
{
	DIR *d = opendir(path);
	struct dirent *de;

	if (!d)
		return;
	while ((de = readdir(d))) {
		size_t len = strlen(de->d_name);

		if (len > 5 && !strcmp(de->d_name + len - 5, ".yaml")) {
			char *n = xstrndup(de->d_name, len - 5);

			if (!spec_strlist_has(out, n))
				spec_strlist_add(out, n);
			free(n);
		}
	}
	closedir(d);
}

void spec_list_names(const char *dir, struct spec_strlist *out)
{
	char *dirs[3];
	size_t n;

	if (dir[0] == '/') {
		list_dir(dir, out);
	} else {
		n = search_dirs(dir, dirs);
		for (size_t i = 0; i < n; i++) {
			list_dir(dirs[i], out);
			free(dirs[i]);
		}
	}
	if (out->n)
		qsort(out->v, out->n, sizeof(*out->v), cmp_name);
}

/* "known topologies", "known kernels": the kinds spec_resolve() is given. */
static void put_plural(FILE *f, const char *kind)
{
	size_t n = strlen(kind);

	if (n > 1 && kind[n - 1] == 'y')
		fprintf(f, "%.*sies", (int)(n - 1), kind);
	else if (n > 1 && !strcmp(kind + n - 2, "ix"))
		fprintf(f, "%.*sices", (int)(n - 2), kind);
	else
		fprintf(f, "%ss", kind);
}

char *spec_resolve(const char *kind, const char *dir, const char *name)
{
	struct spec_strlist names = { 0 };
	char *path;

	if (spec_valid_name(name)) {
		char *file = xasprintf("%s.yaml", name);

		path = spec_search(dir, file);
		free(file);
		if (path)
			return path;
	}
	spec_list_names(dir, &names);
	fprintf(stderr, "wblab: unknown %s '%s'; known ", kind, name);
	put_plural(stderr, kind);
	fputc(':', stderr);
	for (size_t i = 0; i < names.n; i++)
		fprintf(stderr, " %s", names.v[i]);
	fprintf(stderr, "%s\n", names.n ? "" : " (none)");
	spec_strlist_free(&names);
	return NULL;
}
