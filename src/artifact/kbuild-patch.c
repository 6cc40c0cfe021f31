// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel build: patches. Each is dry-run first (--fuzz=0) so a patch that
 * does not apply is reported with its file and hunk before anything is
 * built.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "artifact/cache.h"
#include "artifact/kbuild-int.h"
#include "util/fs.h"
#include "util/log.h"
#include "util/run.h"
#include "util/str.h"

/* The @@ header of hunk number n (1-based) of file in a patch; NULL if not found. */
static char *hunk_header(const char *patch, const char *file, int n)
{
	struct strbuf text = STRBUF_INIT;
	char *found = NULL;
	int in_file = 0, hunk = 0;

	if (strbuf_read_file(&text, patch) < 0)
		return NULL;
	for (struct kb_diff_line d = { .at = text.buf };
	     !found && kb_diff_next(&d);) {
		if (d.side == '+') {
			/* -p1: drop the first component (b/). */
			const char *slash = memchr(d.path, '/', d.path_len);
			size_t len = d.path_len;

			in_file = slash &&
				  len - (slash + 1 - d.path) == strlen(file) &&
				  !memcmp(slash + 1, file, strlen(file));
			hunk = 0;
		} else if (in_file && starts_with(d.line, "@@ ") &&
			   ++hunk == n) {
			found = xstrndup(d.line, d.len);
		}
	}
	strbuf_release(&text);
	return found;
}

static const char *const patch_opts[] = {
	"patch", "-p1", "--forward", "--fuzz=0", "--no-backup-if-mismatch",
	"-r",	 "-",
};

void kb_patch_argv(struct strvec *argv, const char *srcdir, const char *patch,
		   bool dry)
{
	for (size_t i = 0; i < ARRAY_SIZE(patch_opts); i++)
		strvec_push(argv, patch_opts[i]);
	if (dry)
		strvec_push(argv, "--dry-run");
	strvec_pushl(argv, "-d", srcdir, "-i", patch, NULL);
}

int kbuild_patch_check(const char *srcdir, const char *patch,
		       struct strbuf *msg)
{
	struct strvec argv = STRVEC_INIT;
	struct strbuf out = STRBUF_INIT;
	char *save = NULL, *file = NULL;
	int ret, failures = 0;

	if (!path_exists(patch)) {
		strbuf_addf(msg, "%s: no such patch\n", patch);
		return -1;
	}
	kb_patch_argv(&argv, srcdir, patch, true);
	ret = run_capture(argv.v, &out, &out);
	strvec_clear(&argv);
	if (ret < 0) {
		strbuf_addf(msg, "cannot run patch: %s\n", out.buf);
		strbuf_release(&out);
		return -1;
	}
	if (ret == 0) {
		strbuf_release(&out);
		return 0;
	}
	for (char *l = strtok_r(out.buf, "\n", &save); l;
	     l = strtok_r(NULL, "\n", &save)) {
		const char *name;
		int hunk, line;

		if (skip_prefix(l, "checking file ", &name) ||
		    skip_prefix(l, "patching file ", &name)) {
			free(file);
			file = xstrdup(name);
		} else if (sscanf(l, "Hunk #%d FAILED at %d", &hunk, &line) ==
			   2) {
			char *hdr = file ? hunk_header(patch, file, hunk) :
					   NULL;

			strbuf_addf(msg, "%s: hunk #%d FAILED at line %d%s%s\n",
				    file ? file : "?", hunk, line,
				    hdr ? ": " : "", hdr ? hdr : "");
			free(hdr);
			failures++;
		} else if (strstr(l, "malformed patch") ||
			   strstr(l, "can't find file") ||
			   strstr(l, "No file to patch") ||
			   strstr(l, "Reversed (or previously applied)") ||
			   strstr(l, "Only garbage") ||
			   strstr(l, "doesn't exist")) {
			strbuf_addf(msg, "%s%s%s\n", file ? file : "",
				    file ? ": " : "", l);
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
int kb_patch_failed(const char *name, const char *patch, const char *msg)
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
	kb_fail(KBUILD_PATCH, patch, "%s", msg);
	strbuf_release(&sb);
	return -1;
}

/*
 * Check all patches apply, in order, before touching any build tree: the
 * first one against the pristine tree itself, the rest in a scratch
 * hardlink copy that is removed again.
 */
int kb_check_patches(const char *name, const char *pristine, char **paths,
		     size_t n)
{
	char *scratch = NULL;
	int ret = 0;

	for (size_t i = 0; i < n && !ret; i++) {
		struct strbuf msg = STRBUF_INIT;
		const char *dir = i ? scratch : pristine;

		if (kbuild_patch_check(dir, paths[i], &msg))
			ret = kb_patch_failed(name, paths[i], msg.buf);
		strbuf_release(&msg);
		if (ret || i + 1 == n)
			break;
		if (!scratch) {
			char *leaf =
				xasprintf(".check-%s.%d", name, (int)getpid());
			const char *cp[] = { "cp",     "-al", "--",
					     pristine, NULL,  NULL };
			struct strbuf err = STRBUF_INIT;

			scratch = cache_path("build", leaf);
			free(leaf);
			cp[4] = scratch;
			if (run_capture(cp, NULL, &err))
				ret = error("cp -al %s %s failed: %s", pristine,
					    scratch, err.buf);
			strbuf_release(&err);
		}
		if (!ret) {
			struct strvec argv = STRVEC_INIT;
			struct strbuf err = STRBUF_INIT;

			kb_patch_argv(&argv, scratch, paths[i], false);
			if (run_capture(argv.v, &err, &err))
				ret = error("kernel %s: applying %s failed: %s",
					    name, paths[i], err.buf);
			strbuf_release(&err);
			strvec_clear(&argv);
		}
	}
	if (scratch)
		rm_rf(scratch);
	free(scratch);
	return ret;
}
