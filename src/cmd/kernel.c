// SPDX-License-Identifier: GPL-2.0
/* wblab kernel list | show NAME | build NAME, each with --json */
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "artifact/cache.h"
#include "artifact/debfetch.h"
#include "artifact/kbuild.h"
#include "artifact/kernel.h"
#include "cmd/cmds.h"
#include "util/fs.h"
#include "util/log.h"
#include "util/parse-options.h"

static const char *const kernel_usage[] = {
	"wblab kernel list [--json] [--available]",
	"wblab kernel show [--json] NAME",
	"wblab kernel build [--json] NAME...",
	NULL,
};

static void print_json(json_object *o)
{
	puts(json_object_to_json_string_ext(
		o, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(o);
}

static json_object *jstr(const char *s)
{
	return s ? json_object_new_string(s) : NULL;
}

static json_object *jlist(const struct spec_strlist *l)
{
	json_object *a = json_object_new_array();

	for (size_t i = 0; i < l->n; i++)
		json_object_array_add(a, json_object_new_string(l->v[i]));
	return a;
}

/* The artifact's fields, as kernel.json has them. */
static json_object *artifact_json(const struct kernel_artifact *a)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "name", jstr(a->name));
	json_object_object_add(o, "hash", jstr(a->hash));
	json_object_object_add(o, "dir", jstr(a->dir));
	json_object_object_add(o, "version", jstr(a->version));
	json_object_object_add(o, "origin", jstr(a->origin));
	json_object_object_add(o, "source", jstr(a->source));
	json_object_object_add(o, "patches", jstr(a->patches));
	json_object_object_add(o, "bzimage", jstr(a->bzimage));
	json_object_object_add(o, "config", jstr(a->config));
	json_object_object_add(o, "modules_img", jstr(a->modules_img));
	json_object_object_add(o, "modules_dir", jstr(a->modules_dir));
	return o;
}

static const char *kernel_kind(const struct kernel_spec *s)
{
	struct kernel_spec base;
	bool modules;

	if (s->package)
		return "prebuilt";
	if (!s->base)
		return "source";
	modules = kernel_spec_module_base(s, &base);
	kernel_spec_free(&base);
	return modules ? "modules" : "variant";
}

/* Load a spec by name; unknown names and spec errors are bad input (2). */
static int load(const char *name, struct kernel_spec *s)
{
	if (kernel_spec_find(name, s)) {
		kernel_spec_free(s);
		return 2;
	}
	return 0;
}

static json_object *kernel_row_json(const char *name, const char *kind,
				    const char *state, const char *key,
				    const char *version)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "name", jstr(name));
	json_object_object_add(o, "kind", jstr(kind));
	json_object_object_add(o, "state", jstr(state));
	json_object_object_add(o, "key", jstr(key));
	json_object_object_add(o, "version", jstr(version));
	return o;
}

/* One spec's pinned package and what its suite carries now. */
static int available_row(const struct kernel_spec *s, struct strvec *seen,
			 json_object *arr)
{
	const char *pkg = s->package ? s->package : s->source_package;
	const struct debfetch_source src = { .spec = s->path,
					     .suite = s->suite };
	struct strvec vers = STRVEC_INIT;
	struct strbuf has = STRBUF_INIT;
	/* Each suite's lists are refreshed once per listing. */
	bool refresh = !strvec_has(seen, s->suite);
	int ret = debfetch_versions(&src, pkg, refresh, &vers);

	if (refresh)
		strvec_push(seen, s->suite);
	for (size_t i = 0; i < vers.nr; i++)
		strbuf_addf(&has, "%s%s", i ? " " : "", vers.v[i]);
	if (arr) {
		json_object *o = json_object_new_object();
		json_object *a = json_object_new_array();

		for (size_t i = 0; i < vers.nr; i++)
			json_object_array_add(
				a, json_object_new_string(vers.v[i]));
		json_object_object_add(o, "name", jstr(s->name));
		json_object_object_add(o, "suite", jstr(s->suite));
		json_object_object_add(o, "package", jstr(pkg));
		json_object_object_add(o, "pinned", jstr(s->version));
		json_object_object_add(
			o, "pinned_available",
			json_object_new_boolean(strvec_has(&vers, s->version)));
		json_object_object_add(o, "available", a);
		json_object_array_add(arr, o);
	} else {
		printf("%-24s %-12s %-32s %-18s %s%s\n", s->name, s->suite, pkg,
		       s->version,
		       ret     ? "(error)" :
		       vers.nr ? has.buf :
				 "-",
		       !ret && !strvec_has(&vers, s->version) ?
			       "  (pinned version gone)" :
			       "");
	}
	strbuf_release(&has);
	strvec_clear(&vers);
	return ret;
}

/*
 * The specs pinned to a suite (suite: and version:): the version each
 * pins and the versions the suite carries now, so a spec whose version
 * sid has dropped can be pinned again.
 */
static int list_available(const struct spec_strlist *names, bool json)
{
	struct strvec seen = STRVEC_INIT;
	json_object *arr = json ? json_object_new_array() : NULL;
	int ret = 0;

	if (!json)
		printf("%-24s %-12s %-32s %-18s %s\n", "NAME", "SUITE",
		       "PACKAGE", "PINNED", "AVAILABLE");
	for (size_t i = 0; i < names->n; i++) {
		struct kernel_spec s;

		if (!kernel_spec_find(names->v[i], &s) && s.suite &&
		    available_row(&s, &seen, arr))
			ret = 1;
		kernel_spec_free(&s);
	}
	if (json)
		print_json(arr);
	strvec_clear(&seen);
	return ret;
}

static int sub_list(int argc, char **argv)
{
	static const char *const usage[] = {
		"wblab kernel list [--json] [--available]", NULL
	};
	struct spec_strlist names = { 0 };
	json_object *arr = NULL;
	bool json = false, available = false;
	struct option opts[] = {
		OPT_GROUP(
			"List lab/kernels specs: kind, cached or not, cache key, version."),
		OPT_BOOL(0, "json", &json, "print the list as JSON"),
		OPT_BOOL(
			0, "available", &available,
			"for specs pinned to a suite (suite:, version:), the versions the suite carries now"),
		OPT_END(),
	};

	if (parse_options(argc, argv, "wblab kernel list", opts, usage, 0))
		return usage_error("wblab kernel list",
				   "unexpected argument '%s'", argv[0]);
	spec_list_names("lab/kernels", &names);
	if (available) {
		int ret = list_available(&names, json);

		spec_strlist_free(&names);
		return ret;
	}
	if (json)
		arr = json_object_new_array();
	else
		printf("%-24s %-9s %-8s %-12s %s\n", "NAME", "KIND", "CACHE",
		       "KEY", "VERSION");
	for (size_t i = 0; i < names.n; i++) {
		struct kernel_spec s;
		struct kernel_artifact a;
		char hash[HASH_HEX_LEN + 1] = "";
		const char *state;
		int found;

		if (kernel_spec_find(names.v[i], &s)) {
			if (json)
				json_object_array_add(
					arr, kernel_row_json(names.v[i], NULL,
							     "spec-error", NULL,
							     NULL));
			else
				printf("%-24s (spec has errors: wblab kernel show %s)\n",
				       names.v[i], names.v[i]);
			kernel_spec_free(&s);
			continue;
		}
		found = kernel_lookup(&s, &a);
		kernel_cache_key(&s, hash);
		state = found == 0 ? "cached" : found > 0 ? "missing" : "error";
		if (json)
			json_object_array_add(
				arr,
				kernel_row_json(s.name, kernel_kind(&s), state,
						hash,
						found == 0 ? a.version : NULL));
		else
			printf("%-24s %-9s %-8s %-12.12s %s\n", s.name,
			       kernel_kind(&s), state, hash,
			       found == 0 ? a.version : "-");
		if (found == 0)
			kernel_artifact_free(&a);
		kernel_spec_free(&s);
	}
	spec_strlist_free(&names);
	if (json)
		print_json(arr);
	return 0;
}

static void show_list(const char *label, const struct spec_strlist *l)
{
	printf("%-13s", label);
	if (!l->n)
		printf(" -");
	for (size_t i = 0; i < l->n; i++)
		printf(" %s", l->v[i]);
	printf("\n");
}

static int kernel_cmd_show(const char *name)
{
	struct kernel_spec s;
	struct kernel_artifact a;
	char hash[HASH_HEX_LEN + 1] = "";
	int ret, found;

	ret = load(name, &s);
	if (ret)
		return ret;
	printf("name:         %s\n", s.name);
	printf("spec:         %s\n", s.path);
	printf("kind:         %s\n", kernel_kind(&s));
	if (s.description) {
		size_t n = strlen(s.description);

		while (n && (s.description[n - 1] == '\n' ||
			     s.description[n - 1] == ' '))
			n--;
		printf("description:  %.*s\n", (int)n, s.description);
	}
	if (s.package)
		printf("package:      %s\n", s.package);
	if (s.base)
		printf("base:         %s\n", s.base);
	if (s.source_package)
		printf("source:       package %s\n", s.source_package);
	if (s.source_git)
		printf("source:       git %s ref %s\n", s.source_git,
		       s.source_ref ? s.source_ref : "HEAD");
	if (!s.package) {
		printf("config base:  %s\n", s.config_base ? s.config_base :
					     s.base	   ? "(from base)" :
							     "defconfig");
		show_list("fragments:", &s.fragments);
		show_list("patches:", &s.patches);
		printf("localversion: %s\n",
		       s.localversion ? s.localversion : "-");
		{
			char *b = cache_path("build", s.name);

			printf("build tree:   %s/linux/obj%s\n", b,
			       path_exists(b) ? "" : " (not yet)");
			free(b);
		}
	}
	ret = kernel_cache_key(&s, hash) ? 1 : 0;
	printf("cache key:    %s%s\n", hash,
	       ret ? " (incomplete: see errors)" : "");
	found = kernel_lookup(&s, &a);
	if (found == 0) {
		printf("cached:       yes\n");
		printf("dir:          %s\n", a.dir);
		printf("version:      %s\n", a.version);
		printf("origin:       %s\n", a.origin ? a.origin : "-");
		printf("built from:   %s\n", a.source ? a.source : "-");
		printf("with patches: %s\n",
		       a.patches && *a.patches ? a.patches : "-");
		printf("bzImage:      %s\n", a.bzimage);
		printf("config:       %s\n", a.config);
		printf("modules.img:  %s\n",
		       a.modules_img ? a.modules_img : "-");
		printf("modules dir:  %s\n", a.modules_dir);
		kernel_artifact_free(&a);
	} else {
		printf("cached:       no (wblab kernel build %s)\n", s.name);
	}
	kernel_spec_free(&s);
	return ret;
}

static int kernel_show_json(const char *name)
{
	json_object *o = json_object_new_object();
	struct kernel_spec s;
	struct kernel_artifact a;
	char hash[HASH_HEX_LEN + 1] = "";
	int ret, found;

	ret = load(name, &s);
	if (ret) {
		json_object_put(o);
		return ret;
	}
	json_object_object_add(o, "name", jstr(s.name));
	json_object_object_add(o, "spec", jstr(s.path));
	json_object_object_add(o, "kind", jstr(kernel_kind(&s)));
	json_object_object_add(o, "description", jstr(s.description));
	json_object_object_add(o, "package", jstr(s.package));
	json_object_object_add(o, "base", jstr(s.base));
	json_object_object_add(o, "source_package", jstr(s.source_package));
	json_object_object_add(o, "source_git", jstr(s.source_git));
	json_object_object_add(o, "source_ref", jstr(s.source_ref));
	if (!s.package) {
		char *b = cache_path("build", s.name);
		char *tree = xasprintf("%s/linux/obj", b);

		json_object_object_add(o, "config_base", jstr(s.config_base));
		json_object_object_add(o, "fragments", jlist(&s.fragments));
		json_object_object_add(o, "patches", jlist(&s.patches));
		json_object_object_add(o, "localversion", jstr(s.localversion));
		json_object_object_add(o, "build_tree", jstr(tree));
		free(tree);
		free(b);
	}
	ret = kernel_cache_key(&s, hash) ? 1 : 0;
	json_object_object_add(o, "cache_key", jstr(hash));
	json_object_object_add(o, "cache_key_complete",
			       json_object_new_boolean(!ret));
	found = kernel_lookup(&s, &a);
	json_object_object_add(o, "cached",
			       json_object_new_boolean(found == 0));
	if (found == 0) {
		json_object_object_add(o, "artifact", artifact_json(&a));
		kernel_artifact_free(&a);
	}
	print_json(o);
	kernel_spec_free(&s);
	return ret;
}

static int sub_show(int argc, char **argv)
{
	static const char *const usage[] = { "wblab kernel show [--json] NAME",
					     NULL };
	bool json = false;
	struct option opts[] = {
		OPT_GROUP(
			"A spec's fields, its cache key and the cached artifact."),
		OPT_BOOL(0, "json", &json, "print them as JSON"),
		OPT_END(),
	};

	if (parse_options(argc, argv, "wblab kernel show", opts, usage, 0) != 1)
		return usage_error("wblab kernel show", "one NAME is needed");
	return json ? kernel_show_json(argv[0]) : kernel_cmd_show(argv[0]);
}

static int kernel_cmd_build(const char *name, bool json)
{
	struct kernel_spec s;
	struct kernel_artifact a;
	double t0 = now_mono();
	int ret, found;

	ret = load(name, &s);
	if (ret)
		return ret;
	found = kernel_lookup(&s, &a);
	if (found < 0) {
		kernel_spec_free(&s);
		return 1;
	}
	if (found > 0)
		ret = kernel_ensure(&s, &a);
	if (!ret && json) {
		json_object *o = artifact_json(&a);

		json_object_object_add(
			o, "state",
			json_object_new_string(found ? "built" : "cached"));
		json_object_object_add(o, "seconds",
				       json_object_new_double(now_mono() - t0));
		print_json(o);
	} else if (!ret) {
		printf("%s %s %s %s (%.2f s)\n", s.name,
		       found ? "built" : "cached", a.version, a.dir,
		       now_mono() - t0);
	} else
		error("kernel %s: not built", s.name);
	if (!ret)
		kernel_artifact_free(&a);
	kernel_spec_free(&s);
	/* A pinned version its suite has dropped: the spec needs a new pin. */
	if (ret && debfetch_gone())
		return DEBFETCH_EXIT_GONE;
	return ret ? 1 : 0;
}

static int sub_build(int argc, char **argv)
{
	static const char *const usage[] = {
		"wblab kernel build [--json] NAME...", NULL
	};
	bool json = false;
	int n, worst = 0;
	struct option opts[] = {
		OPT_GROUP(
			"Fetch (prebuilt) or build (source) a kernel into the cache.\n"
			"'fetch' is the same subcommand."),
		OPT_BOOL(0, "json", &json, "print the artifact as JSON"),
		OPT_END(),
	};

	n = parse_options(argc, argv, "wblab kernel build", opts, usage, 0);
	if (n < 1)
		return usage_error("wblab kernel build", "a NAME is needed");
	/* One after the other, each tried; the exit status is the highest. */
	for (int i = 0; i < n; i++) {
		int ret = kernel_cmd_build(argv[i], json);

		if (ret > worst)
			worst = ret;
	}
	return worst;
}

int cmd_kernel(int argc, char **argv)
{
	static const struct subcommand subs[] = {
		{ "list", sub_list },	{ "show", sub_show },
		{ "build", sub_build }, { "fetch", sub_build },
		{ NULL, NULL },
	};
	struct option opts[] = {
		OPT_GROUP(
			"Candidate kernels (lab/kernels/*.yaml): prebuilt packages, source\n"
			"trees with patches, variants of another kernel.\n"
			"'wblab kernel SUBCOMMAND --help' describes a subcommand."),
		OPT_END(),
	};

	return parse_subcommand(argc, argv, "wblab kernel", opts, kernel_usage,
				subs);
}
