// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel build: skipping the configure step when nothing it reads changed.
 *
 * defconfig, merge_config.sh and olddefconfig cost 8-12 s of a variant's
 * rebuild and of every bisection step, and give the same .config whenever
 * their inputs are the same: the base config's name, the fragments'
 * contents, the Kconfig files of the tree (changed only by patches or
 * commits that touch them) and the compiler (Kconfig asks it what it
 * supports). A successful configure leaves a digest of those inputs in
 * the O= tree (.wblab-config-inputs); a later build that starts from that
 * tree (a variant's copy of its base's, or the next commit of a git tree)
 * and computes the same digest keeps the .config and only rewrites the
 * localversion lines, which kbuild's syncconfig picks up. Anything else
 * configures from scratch, and the stamp is removed first, so a configure
 * that fails never leaves a stale one.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "artifact/kbuild-int.h"
#include "artifact/toolver.h"
#include "util/fs.h"
#include "util/hash.h"
#include "util/log.h"
#include "util/run.h"
#include "util/str.h"
#include "util/strbuf.h"

#define INPUTS_FILE ".wblab-config-inputs"

/* A path a patch touches that Kconfig reads: Kconfig files, configs dirs. */
static bool kconfig_path(const char *p, size_t len)
{
	const char *base = p;

	for (size_t i = 0; i < len; i++)
		if (p[i] == '/')
			base = p + i + 1;
	if (!strncmp(base, "Kconfig", 7) && (size_t)(base - p) + 7 <= len)
		return true;
	for (size_t i = 0; i + 9 <= len; i++)
		if (!memcmp(p + i, "/configs/", 9) ||
		    (i == 0 && !memcmp(p, "configs/", 8)))
			return true;
	return false;
}

/* 1 if the patch's ---/+++ lines name a Kconfig input, 0 if not, -1 unread. */
int kb_patch_touches_kconfig(const char *patch)
{
	struct strbuf sb = STRBUF_INIT;
	int ret = 0;

	if (strbuf_read_file(&sb, patch) < 0)
		return -1;
	for (struct kb_diff_line d = { .at = sb.buf };
	     !ret && kb_diff_next(&d);) {
		const char *p = d.path;
		size_t pl = d.path_len;

		if (!d.side || d.len <= 6)
			continue;
		/* strip a/ b/ (the tab and the date after it are not in it) */
		if (pl > 2 && (p[0] == 'a' || p[0] == 'b') && p[1] == '/') {
			p += 2;
			pl -= 2;
		}
		ret = kconfig_path(p, pl);
	}
	strbuf_release(&sb);
	return ret;
}

/* A git tree's Kconfig inputs: their blob ids, from the index. */
static int git_kconfig_blobs(const struct kb *k, struct strbuf *out)
{
	const char *argv[] = {
		"git", "-C", k->srctree,	   "ls-files",
		"-s",  "--", ":(glob)**/Kconfig*", ":(glob)**/configs/**",
		NULL
	};

	return run_capture(argv, out, NULL) ? -1 : 0;
}

int kb_config_digest(const struct kb *k, const char *const *frags,
		     size_t nfrags, char *hex)
{
	struct hasher *h = hasher_new();
	const char *cc[] = { "gcc", "--version", NULL };
	struct strbuf sb = STRBUF_INIT;
	int ret = -1;

	hasher_add_str(h, "base", k->plan.config_base);
	/* a user's .config (run --config FILE) by its contents */
	if (k->plan.config_base[0] == '/' &&
	    hasher_add_file(h, "base-text", k->plan.config_base))
		goto out;
	for (size_t i = 0; i < nfrags; i++) {
		/* by name: a tree's own fragments are in each copy's tree */
		hasher_add_str(h, "fragment", k->plan.fragments.v[i]);
		if (hasher_add_file(h, "fragment-text", frags[i]))
			goto out;
	}
	for (size_t i = 0; k->patch_paths && k->patch_paths[i]; i++) {
		int t = kb_patch_touches_kconfig(k->patch_paths[i]);

		if (t < 0)
			goto out;
		if (t && hasher_add_file(h, "kconfig-patch", k->patch_paths[i]))
			goto out;
	}
	if (k->commit) {
		if (git_kconfig_blobs(k, &sb))
			goto out;
		hasher_add_str(h, "kconfig-blobs", sb.buf);
		strbuf_reset(&sb);
	}
	if (tool_output(cc, &sb))
		goto out;
	hasher_add_str(h, "cc", sb.buf);
	ret = 0;
out:
	hasher_finish(h, hex);
	strbuf_release(&sb);
	return ret;
}

/* Rewrite .config's localversion lines to the spec's. */
static int set_localversion(const char *config, const char *lv)
{
	struct strbuf in = STRBUF_INIT, out = STRBUF_INIT;
	int ret = -1, seen = 0;

	if (strbuf_read_file(&in, config) < 0)
		return error("%s: %m", config);
	for (const char *l = in.buf; l && *l;) {
		const char *nl = strchr(l, '\n');
		size_t len = nl ? (size_t)(nl - l) + 1 : strlen(l);

		if (starts_with(l, "CONFIG_LOCALVERSION=")) {
			strbuf_addf(&out, "CONFIG_LOCALVERSION=\"%s\"\n",
				    lv ? lv : "");
			seen++;
		} else {
			strbuf_add(&out, l, len);
		}
		l = nl ? nl + 1 : NULL;
	}
	if (seen != 1) {
		error("%s: %d CONFIG_LOCALVERSION lines, configuring again",
		      config, seen);
		goto out;
	}
	ret = write_string_atomic(config, out.buf);
out:
	strbuf_release(&in);
	strbuf_release(&out);
	return ret;
}

bool kb_config_reuse(const struct kb *k, const char *hex)
{
	char *stamp = xasprintf("%s/" INPUTS_FILE, k->obj);
	char *config = xasprintf("%s/.config", k->obj);
	struct strbuf sb = STRBUF_INIT;
	bool ok = false;

	if (strbuf_read_file(&sb, stamp) >= 0 && !strcmp(sb.buf, hex) &&
	    path_exists(config) &&
	    !set_localversion(config, k->plan.localversion))
		ok = true;
	if (!ok)
		unlink(stamp);
	strbuf_release(&sb);
	free(stamp);
	free(config);
	return ok;
}

int kb_config_record(const struct kb *k, const char *hex)
{
	char *stamp = xasprintf("%s/" INPUTS_FILE, k->obj);
	int ret = write_string_atomic(stamp, hex);

	free(stamp);
	return ret;
}
