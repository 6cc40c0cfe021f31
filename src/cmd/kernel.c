// SPDX-License-Identifier: GPL-2.0
/* wblab kernel list | show NAME | build NAME */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "artifact/cache.h"
#include "artifact/kbuild.h"
#include "artifact/kernel.h"
#include "cmd/cmds.h"
#include "util/fs.h"
#include "util/log.h"

static const char kernel_usage[] =
	"usage: wblab kernel list          list lab/kernels specs: kind, cached or not\n"
	"       wblab kernel show NAME     a spec's fields, cache key and artifact\n"
	"       wblab kernel build NAME    fetch (prebuilt) or build (source) into the cache\n";

static const char *kernel_kind(const struct kernel_spec *s)
{
	if (s->package)
		return "prebuilt";
	if (s->base)
		return "variant";
	return "source";
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

static int kernel_cmd_list(void)
{
	struct spec_strlist names = { 0 };

	spec_list_names("lab/kernels", &names);
	printf("%-24s %-9s %-8s %-12s %s\n", "NAME", "KIND", "CACHE", "KEY", "VERSION");
	for (size_t i = 0; i < names.n; i++) {
		struct kernel_spec s;
		struct kernel_artifact a;
		char hash[HASH_HEX_LEN + 1] = "";
		int found;

		if (kernel_spec_find(names.v[i], &s)) {
			printf("%-24s (spec has errors: wblab kernel show %s)\n",
			       names.v[i], names.v[i]);
			kernel_spec_free(&s);
			continue;
		}
		found = kernel_lookup(&s, &a);
		kernel_cache_key(&s, hash);
		printf("%-24s %-9s %-8s %-12.12s %s\n", s.name, kernel_kind(&s),
		       found == 0 ? "cached" : found > 0 ? "missing" : "error", hash,
		       found == 0 ? a.version : "-");
		if (found == 0)
			kernel_artifact_free(&a);
		kernel_spec_free(&s);
	}
	spec_strlist_free(&names);
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

		while (n && (s.description[n - 1] == '\n' || s.description[n - 1] == ' '))
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
		       s.base ? "(from base)" : "defconfig");
		show_list("fragments:", &s.fragments);
		show_list("patches:", &s.patches);
		printf("localversion: %s\n", s.localversion ? s.localversion : "-");
		{
			char *b = cache_path("build", s.name);

			printf("build tree:   %s/linux/obj%s\n", b,
			       path_exists(b) ? "" : " (not yet)");
			free(b);
		}
	}
	ret = kernel_cache_key(&s, hash) ? 1 : 0;
	printf("cache key:    %s%s\n", hash, ret ? " (incomplete: see errors)" : "");
	found = kernel_lookup(&s, &a);
	if (found == 0) {
		printf("cached:       yes\n");
		printf("dir:          %s\n", a.dir);
		printf("version:      %s\n", a.version);
		printf("origin:       %s\n", a.origin ? a.origin : "-");
		printf("built from:   %s\n", a.source ? a.source : "-");
		printf("with patches: %s\n", a.patches && *a.patches ? a.patches : "-");
		printf("bzImage:      %s\n", a.bzimage);
		printf("config:       %s\n", a.config);
		printf("modules.img:  %s\n", a.modules_img ? a.modules_img : "-");
		printf("modules dir:  %s\n", a.modules_dir);
		kernel_artifact_free(&a);
	} else {
		printf("cached:       no (wblab kernel build %s)\n", s.name);
	}
	kernel_spec_free(&s);
	return ret;
}

static int kernel_cmd_build(const char *name)
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
	if (!ret)
		printf("%s %s %s %s (%.2f s)\n", s.name, found ? "built" : "cached",
		       a.version, a.dir, now_mono() - t0);
	else
		error("kernel %s: not built", s.name);
	if (!ret)
		kernel_artifact_free(&a);
	kernel_spec_free(&s);
	return ret ? 1 : 0;
}

int cmd_kernel(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "list"))
		return kernel_cmd_list();
	if (argc == 3 && !strcmp(argv[1], "show"))
		return kernel_cmd_show(argv[2]);
	if (argc == 3 && (!strcmp(argv[1], "build") || !strcmp(argv[1], "fetch")))
		return kernel_cmd_build(argv[2]);
	if (argc == 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "help"))) {
		fputs(kernel_usage, stdout);
		return 0;
	}
	fputs(kernel_usage, stderr);
	return 2;
}
