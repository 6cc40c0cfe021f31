// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel build: the config. defconfig (or the spec's base config, or a
 * user's .config file), the fragments merged in, olddefconfig, then a
 * check that every option a lab fragment (or a user's) asks for survived.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "artifact/cache.h"
#include "artifact/kbuild-int.h"
#include "util/fs.h"
#include "util/hash.h"
#include "util/log.h"
#include "util/str.h"

struct kopt {
	char *sym;
	char *val; /* "y", "m", "\"str\"", "123", or "n" for not set */
	const char *file;
	int line;
	bool strict;
};

/* Parse "CONFIG_X=v" or "# CONFIG_X is not set"; 0 if the line is neither. */
static int parse_config_line(const char *l, char **sym, char **val)
{
	const char *eq, *s;

	if (starts_with(l, "CONFIG_") && (eq = strchr(l, '='))) {
		size_t vl = strlen(eq + 1);

		while (vl &&
		       (eq[vl] == ' ' || eq[vl] == '\r' || eq[vl] == '\t'))
			vl--;
		*sym = xstrndup(l, eq - l);
		*val = xstrndup(eq + 1, vl);
		return 1;
	}
	if (skip_prefix(l, "# ", &s) && starts_with(s, "CONFIG_") &&
	    strstr(l, " is not set")) {
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
	const char *p = cfg->buf, *q;

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
		if (len > sl + 2 && skip_prefix(p, "# ", &q) &&
		    !strncmp(q, sym, sl) && starts_with(q + sl, " is not set"))
			return "n";
		p = nl ? nl + 1 : NULL;
	}
	return NULL; /* absent: unknown symbol or unmet dependency */
}

/* Add one fragment's requests to *req (the last request for a symbol wins). */
static int read_requests(const char *file, bool strict, struct kopt **req,
			 size_t *nreq, size_t *alloc, struct strbuf *msg)
{
	struct strbuf text = STRBUF_INIT;
	const char *p;
	int line = 0;

	if (strbuf_read_file(&text, file) < 0) {
		strbuf_addf(msg, "cannot read %s: %s\n", file, strerror(errno));
		strbuf_release(&text);
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
		for (i = 0; i < *nreq; i++)
			if (!strcmp((*req)[i].sym, sym))
				break;
		if (i == *nreq) {
			if (*nreq == *alloc) {
				*alloc = *alloc ? *alloc * 2 : 64;
				*req = xrealloc(*req, *alloc * sizeof(**req));
			}
			(*req)[(*nreq)++].sym = sym;
		} else {
			free(sym);
			free((*req)[i].val);
		}
		(*req)[i].val = val;
		(*req)[i].file = file;
		(*req)[i].line = line;
		(*req)[i].strict = strict;
	}
	strbuf_release(&text);
	return 0;
}

/* Whether a .config value got satisfies the request want. */
static bool value_holds(const char *want, const char *got)
{
	if (!strcmp(want, "n"))
		return !got || !strcmp(got, "n");
	if (!strcmp(want, "m")) /* built in is as good as a module */
		return got && (!strcmp(got, "m") || !strcmp(got, "y"));
	return got && !strcmp(got, want);
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
		strbuf_addf(msg, "cannot read %s: %s\n", config,
			    strerror(errno));
		return -1;
	}
	for (int f = 0; f < n; f++) {
		if (read_requests(fragments[f], strict ? strict[f] : true, &req,
				  &nreq, &alloc, msg)) {
			strbuf_release(&cfg);
			kopts_free(req, nreq);
			return -1;
		}
	}
	for (size_t i = 0; i < nreq; i++) {
		const char *got = config_value(&cfg, req[i].sym);
		const char *want = req[i].val;

		if (value_holds(want, got))
			continue;
		strbuf_addf(
			req[i].strict ? msg : warn_msg,
			"%s=%s (%s:%d): .config has %s\n", req[i].sym, want,
			req[i].file, req[i].line,
			!got ? "nothing (unmet dependency, or no such option on this architecture)" :
			!strcmp(got, "n") ? "it not set" :
					    got);
		if (req[i].strict)
			bad++;
	}
	kopts_free(req, nreq);
	strbuf_release(&cfg);
	return bad;
}

int kbuild_config_conflicts(const char *const *lab, int nlab,
			    const char *const *user, int nuser,
			    struct strbuf *msg)
{
	struct kopt *need = NULL, *ask = NULL;
	size_t nneed = 0, aneed = 0, nask = 0, aask = 0;
	int bad = 0;

	for (int f = 0; f < nlab && bad >= 0; f++)
		if (read_requests(lab[f], true, &need, &nneed, &aneed, msg))
			bad = -1;
	for (int f = 0; f < nuser && bad >= 0; f++)
		if (read_requests(user[f], true, &ask, &nask, &aask, msg))
			bad = -1;
	for (size_t i = 0; bad >= 0 && i < nask; i++) {
		for (size_t j = 0; j < nneed; j++) {
			if (strcmp(ask[i].sym, need[j].sym) ||
			    value_holds(need[j].val, ask[i].val))
				continue;
			strbuf_addf(
				msg,
				"%s:%d: %s=%s: the lab needs %s=%s (%s:%d)\n",
				ask[i].file, ask[i].line, ask[i].sym,
				ask[i].val, need[j].sym, need[j].val,
				need[j].file, need[j].line);
			bad++;
		}
	}
	kopts_free(need, nneed);
	kopts_free(ask, nask);
	return bad;
}

int kbuild_config_overrides(const char *config, const char *const *lab,
			    int nlab, struct strbuf *msg)
{
	struct strbuf cfg = STRBUF_INIT;
	struct kopt *need = NULL;
	size_t nneed = 0, aneed = 0;
	int changed = 0;

	if (strbuf_read_file(&cfg, config) < 0) {
		strbuf_addf(msg, "cannot read %s: %s\n", config,
			    strerror(errno));
		return -1;
	}
	if (!strstr(cfg.buf, "CONFIG_")) {
		strbuf_addf(msg, "%s: not a kernel .config (no CONFIG_ line)\n",
			    config);
		strbuf_release(&cfg);
		return -1;
	}
	for (int f = 0; f < nlab; f++) {
		if (read_requests(lab[f], true, &need, &nneed, &aneed, msg)) {
			changed = -1;
			goto out;
		}
	}
	for (size_t j = 0; j < nneed; j++) {
		const char *got = config_value(&cfg, need[j].sym);

		if (value_holds(need[j].val, got))
			continue;
		strbuf_addf(msg, "%s: %s in %s, %s by %s:%d\n", need[j].sym,
			    !got	      ? "absent" :
			    !strcmp(got, "n") ? "not set" :
						got,
			    config,
			    !strcmp(need[j].val, "n") ? "not set" : need[j].val,
			    need[j].file, need[j].line);
		changed++;
	}
out:
	kopts_free(need, nneed);
	strbuf_release(&cfg);
	return changed;
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

/* "NAME" or "NAME (sha256 HEX)" when path is a readable file. */
static void add_input(struct strbuf *sb, const char *name, const char *path)
{
	char hex[HASH_HEX_LEN + 1];

	strbuf_addf(sb, "%s%s", sb->len ? ", " : "", name);
	if (path && path_exists(path) && !sha256_file_hex(path, hex))
		strbuf_addf(sb, " (sha256 %s)", hex);
}

char *kb_config_inputs(const struct kb *k)
{
	struct strbuf sb = STRBUF_INIT;

	add_input(&sb, k->plan.config_base,
		  k->plan.config_base[0] == '/' ? k->plan.config_base : NULL);
	for (size_t i = 0; i < k->plan.fragments.n; i++) {
		char *p = kbuild_lab_file("configs", k->plan.fragments.v[i]);

		add_input(&sb, k->plan.fragments.v[i], p);
		free(p);
	}
	return strbuf_detach(&sb, NULL);
}

int kb_configure(struct kb *k)
{
	char *objarg = xasprintf("O=%s", k->obj);
	char *lvfrag = xasprintf("%s/localversion.config", k->bdir);
	char *config = xasprintf("%s/.config", k->obj);
	size_t nf = k->plan.fragments.n + 1; /* and localversion.config */
	struct strvec frags = STRVEC_INIT, argv = STRVEC_INIT;
	bool *strict = xzalloc(nf * sizeof(*strict));
	struct strbuf msg = STRBUF_INIT, wmsg = STRBUF_INIT;
	char inputs[HASH_HEX_LEN + 1];
	bool have_inputs;
	int ret = -1, n;

	for (size_t i = 0; i < k->plan.fragments.n; i++) {
		char *path =
			fragment_path(k, k->plan.fragments.v[i], &strict[i]);

		if (!path)
			goto out;
		strvec_push(&frags, path);
		free(path);
	}
	{
		char *text = xasprintf(
			"# written by wblab from the spec's localversion\n"
			"CONFIG_LOCALVERSION=\"%s\"\n"
			"# CONFIG_LOCALVERSION_AUTO is not set\n",
			k->plan.localversion ? k->plan.localversion : "");

		if (write_string_atomic(lvfrag, text)) {
			free(text);
			goto out;
		}
		free(text);
		strvec_push(&frags, lvfrag);
		strict[nf - 1] = true;
	}
	if (cache_make_dir(k->obj))
		goto out;
	/* the localversion fragment is not an input: it is rewritten */
	have_inputs =
		!kb_config_digest(k, frags.v, k->plan.fragments.n, inputs);
	if (have_inputs && kb_config_reuse(k, inputs)) {
		info("kernel %s: configure skipped: the base config, fragments, Kconfig files and compiler of %s/.config are unchanged",
		     k->s->name, k->obj);
		goto verify;
	}
	info("kernel %s: configuring (%s + %zu fragments)", k->s->name,
	     k->plan.config_base, k->plan.fragments.n);
	if (k->plan.config_base[0] == '/') {
		/* A user's .config (run --config FILE): the lab's fragments go over it. */
		if (copy_file(k->plan.config_base, config, 0644)) {
			error("kernel %s: cannot copy %s to %s: %s", k->s->name,
			      k->plan.config_base, config, strerror(errno));
			goto out;
		}
	} else {
		const char *mk[] = {
			"make", "-C", k->srctree, objarg, k->plan.config_base,
			NULL
		};

		if (kb_run_logged(mk, NULL, k->env.v, k->log)) {
			error("kernel %s: make %s failed, see %s", k->s->name,
			      k->plan.config_base, k->log);
			goto out;
		}
	}
	{
		char *script = xasprintf("%s/scripts/kconfig/merge_config.sh",
					 k->srctree);

		strvec_pushl(&argv, "sh", script, "-m", "-O", k->obj, config,
			     NULL);
		strvec_pushv(&argv, frags.v);
		if (kb_run_logged(argv.v, k->srctree, k->env.v, k->log)) {
			error("kernel %s: merge_config.sh failed, see %s",
			      k->s->name, k->log);
			free(script);
			goto out;
		}
		free(script);
	}
	{
		const char *mk[] = { "make", "-C",	     k->srctree,
				     objarg, "olddefconfig", NULL };

		if (kb_run_logged(mk, NULL, k->env.v, k->log)) {
			error("kernel %s: make olddefconfig failed, see %s",
			      k->s->name, k->log);
			goto out;
		}
	}
verify:
	n = kbuild_config_verify(config, frags.v, strict, (int)frags.nr, &msg,
				 &wmsg);
	if (wmsg.len) {
		FILE *f = fopen(k->log, "a");

		if (f) {
			fprintf(f,
				"wblab: options of the kernel's own fragments not as requested (ignored):\n%s",
				wmsg.buf);
			fclose(f);
		}
	}
	if (n) {
		error("kernel %s: %d requested config option%s did not survive olddefconfig "
		      "(fix the fragment or the option's dependencies):\n%s",
		      k->s->name, n, n == 1 ? "" : "s", msg.buf);
		goto out;
	}
	if (have_inputs && kb_config_record(k, inputs))
		goto out;
	ret = 0;
out:
	strvec_clear(&frags);
	strvec_clear(&argv);
	free(strict);
	free(objarg);
	free(lvfrag);
	free(config);
	strbuf_release(&msg);
	strbuf_release(&wmsg);
	return ret;
}
