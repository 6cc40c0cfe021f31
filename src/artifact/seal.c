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
#include "util/strvec.h"

/* seal.json's format: 2 has each file's plain SHA-256 under "files". */
#define SEAL_FORMAT 2

char *seal_stat_stamp(const struct stat *st)
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
	return cache_seal_with(dir, files, NULL, NULL);
}

int cache_seal_with(const char *dir, const char *const *files, const char *key,
		    json_object *extra)
{
	json_object *seal = json_object_new_object();
	json_object *sealed = json_object_new_object();
	json_object *ver = json_object_new_object();
	int ret = 0;

	json_object_object_add(seal, "format",
			       json_object_new_int(SEAL_FORMAT));
	json_object_object_add(seal, "digest",
			       json_object_new_string("sha256"));
	json_object_object_add(seal, "files", sealed);
	if (key && extra)
		json_object_object_add(seal, key, extra);
	for (size_t i = 0; files[i]; i++) {
		char *p = xasprintf("%s/%s", dir, files[i]);
		char hex[HASH_HEX_LEN + 1];
		struct stat st;

		if (stat(p, &st) == 0 && sha256_file_hex(p, hex) == 0) {
			json_object *f = json_object_new_object();
			char *stamp = seal_stat_stamp(&st);

			json_object_object_add(f, "sha256",
					       json_object_new_string(hex));
			json_object_object_add(
				f, "size", json_object_new_int64(st.st_size));
			json_object_object_add(sealed, files[i], f);
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

/*
 * A seal from before format 2 holds labelled digests (hash_file_hex),
 * which no sha256sum matches. Its files are checked against them once
 * and, if whole, sealed again with plain SHA-256: the old digest is as
 * strong a check of the bytes, and rebuilding every cached kernel (half
 * an hour each from source) for a change of name would be waste.
 */
static int verify_legacy(const char *dir, const char *const *files,
			 json_object *seal, char *why, size_t len)
{
	size_t named = 0;

	for (size_t i = 0; files[i]; i++) {
		const char *want = jget(seal, files[i], "sha256");
		char *p = xasprintf("%s/%s", dir, files[i]);
		char hex[HASH_HEX_LEN + 1] = "";
		int bad;

		if (!want) {
			free(p);
			continue;
		}
		named++;
		bad = !path_exists(p)				     ? 1 :
		      hash_file_hex(p, hex) < 0 || strcmp(hex, want) ? 2 :
								       0;
		free(p);
		if (bad == 1)
			snprintf(why, len, "%s is missing", files[i]);
		else if (bad)
			snprintf(
				why, len,
				"%s: labelled digest %.12s, sealed %.12s (a seal before format %d)",
				files[i], hex, want, SEAL_FORMAT);
		if (bad)
			return -1;
	}
	if (!named) {
		snprintf(why, len, "seal.json names none of its files");
		return -1;
	}
	if (cache_seal(dir, files)) {
		snprintf(why, len, "cannot seal it again");
		return -1;
	}
	info("cache entry %s: seal.json from an older wblab (labelled digests) checked and sealed again with plain SHA-256",
	     dir);
	return 0;
}

/* One file against its seal; a stamp seen good before is not rehashed. */
static int verify_file(const char *dir, const char *name, const char *want,
		       json_object *ver, bool *rehashed, char *why, size_t len)
{
	char *p = xasprintf("%s/%s", dir, name);
	char hex[HASH_HEX_LEN + 1] = "", *stamp;
	const char *seen = jget(ver, name, NULL);
	struct stat st;
	int ret = 0;

	if (stat(p, &st) < 0) {
		snprintf(why, len, "%s is missing", name);
		free(p);
		return -1;
	}
	stamp = seal_stat_stamp(&st);
	if (seen && !strcmp(seen, stamp))
		goto out;
	if (sha256_file_hex(p, hex) < 0 || strcmp(hex, want)) {
		snprintf(why, len, "%s: SHA-256 %.12s, sealed %.12s", name, hex,
			 want);
		ret = -1;
	} else {
		json_object_object_add(ver, name,
				       json_object_new_string(stamp));
		*rehashed = true;
	}
out:
	free(stamp);
	free(p);
	return ret;
}

int cache_verify(const char *dir, const char *const *files, char *why,
		 size_t len)
{
	char *sp = xasprintf("%s/seal.json", dir);
	char *vp = xasprintf("%s/verified.json", dir);
	json_object *seal = json_object_from_file(sp);
	json_object *ver = json_object_from_file(vp), *sealed;
	bool rehashed = false;
	size_t named = 0;
	int ret = 0;

	if (!seal) {
		/* wblab seals an entry before renaming it into place. */
		snprintf(
			why, len,
			path_exists(sp) ?
				"seal.json unreadable" :
				"no seal.json: unfinished, or not made by wblab");
		ret = -1;
		goto out;
	}
	if (json_object_get_int(json_object_object_get(seal, "format")) !=
	    SEAL_FORMAT) {
		ret = verify_legacy(dir, files, seal, why, len);
		goto out;
	}
	sealed = json_object_object_get(seal, "files");
	if (!ver)
		ver = json_object_new_object();
	for (size_t i = 0; files[i] && !ret; i++) {
		const char *want = jget(sealed, files[i], "sha256");

		/* A file the seal does not name is not part of this entry. */
		if (want)
			ret = verify_file(dir, files[i], want, ver, &rehashed,
					  why, len);
		named += want != NULL;
	}
	if (!ret && !named) {
		snprintf(why, len, "seal.json names none of its files");
		ret = -1;
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

void cache_warn_corrupt(const char *what, const char *dir, const char *why)
{
	static struct strvec warned = STRVEC_INIT;

	for (size_t i = 0; i < warned.nr; i++)
		if (!strcmp(warned.v[i], dir))
			return;
	strvec_push(&warned, dir);
	warn("%s cache entry %s is corrupt (%s): rebuilding it", what, dir,
	     why);
}
