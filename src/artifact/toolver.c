// SPDX-License-Identifier: GPL-2.0
/*
 * Tools' answers, cached while their package database and binary stay
 * the same (artifact/toolver.h).
 */
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "artifact/cache.h"
#include "artifact/seal.h"
#include "artifact/toolver.h"
#include "util/json.h"
#include "util/log.h"
#include "util/run.h"

#define DPKG_STATUS "/var/lib/dpkg/status"

static void add_stamp(struct strbuf *sb, const char *path)
{
	struct stat st;
	char *stamp;

	if (stat(path, &st) < 0) {
		strbuf_addf(sb, "%s:-;", path);
		return;
	}
	stamp = seal_stat_stamp(&st);
	strbuf_addf(sb, "%s:%s;", path, stamp);
	free(stamp);
}

/* The executable execvp() would run for name, or NULL. */
static char *which(const char *name)
{
	const char *p = getenv("PATH");

	if (strchr(name, '/'))
		return xstrdup(name);
	while (p && *p) {
		const char *end = strchrnul(p, ':');
		char *f = xasprintf("%.*s/%s", (int)(end - p), p, name);
		struct stat st;

		if (end > p && !stat(f, &st) && S_ISREG(st.st_mode) &&
		    !access(f, X_OK))
			return f;
		free(f);
		p = *end ? end + 1 : end;
	}
	return NULL;
}

/* Key and stamp of argv; NULL when argv[0] is not on PATH (not cached). */
static char *stamp_of(const char *const *argv, struct strbuf *key)
{
	struct strbuf st = STRBUF_INIT;
	char *exe = which(argv[0]);

	if (!exe)
		return NULL;
	for (size_t i = 0; argv[i]; i++)
		strbuf_addf(key, "%s%s", i ? "\x1f" : "", argv[i]);
	add_stamp(&st, DPKG_STATUS);
	add_stamp(&st, exe);
	free(exe);
	return strbuf_detach(&st, NULL);
}

int tool_output(const char *const *argv, struct strbuf *out)
{
	struct strbuf key = STRBUF_INIT, got = STRBUF_INIT;
	char *path = cache_path("probe", "tools.json");
	char *stamp = stamp_of(argv, &key);
	json_object *db = json_object_from_file(path), *e;
	int ret;

	if (stamp && db && json_object_object_get_ex(db, key.buf, &e) &&
	    !strcmp(json_object_get_string(json_object_object_get(e, "stamp")) ?:
			    "",
		    stamp)) {
		strbuf_addstr(
			out,
			json_object_get_string(json_object_object_get(e, "out")) ?:
				"");
		ret = 0;
		goto out;
	}
	ret = run_capture(argv, &got, NULL);
	strbuf_add(out, got.buf, got.len);
	if (ret || !stamp)
		goto out;
	if (!db || !json_object_is_type(db, json_type_object)) {
		json_object_put(db);
		db = json_object_new_object();
	}
	e = json_object_new_object();
	json_object_object_add(e, "stamp", json_object_new_string(stamp));
	json_object_object_add(e, "out", json_object_new_string(got.buf));
	json_object_object_add(db, key.buf, e);
	{
		char *dir = cache_path("probe", "");

		cache_make_dir(dir);
		free(dir);
	}
	/* Best effort: the answer is right either way, only slower. */
	if (json_write_atomic(path, db))
		warn("cannot cache tool versions in %s", path);
out:
	json_object_put(db);
	strbuf_release(&key);
	strbuf_release(&got);
	free(stamp);
	free(path);
	return ret;
}
