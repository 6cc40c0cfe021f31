// SPDX-License-Identifier: GPL-2.0
/* Cache entry seals: see seal.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "artifact/seal.h"
#include "util/fs.h"
#include "util/hash.h"
#include "util/json.h"
#include "util/log.h"

static char *stamp_of(const struct stat *st)
{
	return xasprintf("%lld:%llu:%lld.%09ld:%lld.%09ld",
			 (long long)st->st_size, (unsigned long long)st->st_ino,
			 (long long)st->st_mtim.tv_sec, st->st_mtim.tv_nsec,
			 (long long)st->st_ctim.tv_sec, st->st_ctim.tv_nsec);
}

static int write_json(const char *dir, const char *name, json_object *o)
{
	char *path = xasprintf("%s/%s", dir, name);
	int ret = json_write_atomic(path, o);

	free(path);
	return ret;
}

int cache_seal(const char *dir, const char *const *files)
{
	json_object *seal = json_object_new_object();
	json_object *ver = json_object_new_object();
	int ret = 0;

	for (size_t i = 0; files[i]; i++) {
		char *p = xasprintf("%s/%s", dir, files[i]);
		char hex[HASH_HEX_LEN + 1];
		struct stat st;

		if (stat(p, &st) == 0 && hash_file_hex(p, hex) == 0) {
			json_object *f = json_object_new_object();
			char *stamp = stamp_of(&st);

			json_object_object_add(f, "sha256",
					       json_object_new_string(hex));
			json_object_object_add(
				f, "size", json_object_new_int64(st.st_size));
			json_object_object_add(seal, files[i], f);
			json_object_object_add(ver, files[i],
					       json_object_new_string(stamp));
			free(stamp);
		} else if (errno != ENOENT) {
			ret = error("cannot seal %s: %s", p, strerror(errno));
		}
		free(p);
	}
	if (!ret && (write_json(dir, "seal.json", seal) ||
		     write_json(dir, "verified.json", ver)))
		ret = error("cannot write the seal of %s: %s", dir,
			    strerror(errno));
	json_object_put(seal);
	json_object_put(ver);
	return ret;
}

static const char *jget(json_object *o, const char *a, const char *b)
{
	json_object *v = NULL, *w = NULL;

	if (!o || !json_object_object_get_ex(o, a, &v))
		return NULL;
	if (b && !json_object_object_get_ex(v, b, &w))
		return NULL;
	return json_object_get_string(b ? w : v);
}

int cache_verify(const char *dir, const char *const *files, char *why,
		 size_t len)
{
	char *sp = xasprintf("%s/seal.json", dir);
	char *vp = xasprintf("%s/verified.json", dir);
	json_object *seal = json_object_from_file(sp);
	json_object *ver = json_object_from_file(vp);
	bool rehashed = false;
	int ret = 0;

	if (!seal) {
		/* Made before seals: trust it once, seal it now. */
		ret = path_exists(sp) ? -1 : cache_seal(dir, files);
		if (ret)
			snprintf(why, len, "seal.json unreadable");
		goto out;
	}
	if (!ver)
		ver = json_object_new_object();
	for (size_t i = 0; files[i] && !ret; i++) {
		const char *want = jget(seal, files[i], "sha256");
		char *p = xasprintf("%s/%s", dir, files[i]);
		char hex[HASH_HEX_LEN + 1], *stamp;
		struct stat st;

		if (!want) {
			free(p);
			continue; /* not part of this entry */
		}
		if (stat(p, &st) < 0) {
			snprintf(why, len, "%s is missing", files[i]);
			ret = -1;
			free(p);
			break;
		}
		stamp = stamp_of(&st);
		if (jget(ver, files[i], NULL) &&
		    !strcmp(jget(ver, files[i], NULL), stamp)) {
			free(stamp);
			free(p);
			continue;
		}
		hex[0] = '\0';
		if (hash_file_hex(p, hex) < 0 || strcmp(hex, want)) {
			snprintf(why, len, "%s: SHA-256 %.12s, sealed %.12s",
				 files[i], hex, want);
			ret = -1;
		} else {
			json_object_object_add(ver, files[i],
					       json_object_new_string(stamp));
			rehashed = true;
		}
		free(stamp);
		free(p);
	}
	if (!ret && rehashed)
		write_json(dir, "verified.json", ver);
out:
	json_object_put(seal);
	json_object_put(ver);
	free(sp);
	free(vp);
	return ret;
}
