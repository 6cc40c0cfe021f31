// SPDX-License-Identifier: GPL-2.0
/* Loaders for the image, kernel and workload specs. */
#include <ctype.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "spec/specs.h"
#include "util/fs.h"
#include "util/log.h"

#define F(type, field) offsetof(type, field)

static const struct spec_field image_fields[] = {
	{ .name = "description",
	  .type = SPEC_TEXT,
	  .offset = F(struct image_spec, description) },
	{ .name = "suite",
	  .type = SPEC_STR,
	  .offset = F(struct image_spec, suite),
	  .required = true,
	  .value = SPEC_V_WORD },
	{ .name = "mirror",
	  .type = SPEC_STR,
	  .offset = F(struct image_spec, mirror),
	  .value = SPEC_V_URL },
	{ .name = "variant",
	  .type = SPEC_ENUM,
	  .offset = F(struct image_spec, variant),
	  .choices = (const char *const[]){ "minbase", "buildd", "fakechroot",
					    NULL } },
	{ .name = "agent",
	  .type = SPEC_ENUM,
	  .offset = F(struct image_spec, agent),
	  .choices = (const char *const[]){ "initramfs", NULL } },
	{ .name = "size",
	  .type = SPEC_SIZE,
	  .offset = F(struct image_spec, size),
	  .min = 256LL << 20,
	  .max = 64LL << 30 },
	{ .name = "packages",
	  .type = SPEC_STRLIST,
	  .offset = F(struct image_spec, packages),
	  .required = true,
	  .value = SPEC_V_WORD },
	SPEC_END
};

static const struct spec_field kernel_source_fields[] = {
	{ .name = "package",
	  .type = SPEC_STR,
	  .offset = F(struct kernel_spec, source_package),
	  .value = SPEC_V_WORD },
	{ .name = "git",
	  .type = SPEC_STR,
	  .offset = F(struct kernel_spec, source_git),
	  .value = SPEC_V_URL },
	{ .name = "ref",
	  .type = SPEC_STR,
	  .offset = F(struct kernel_spec, source_ref),
	  .value = SPEC_V_REF },
	SPEC_END
};

static const struct spec_field kernel_config_fields[] = {
	{ .name = "base",
	  .type = SPEC_STR,
	  .offset = F(struct kernel_spec, config_base),
	  .value = SPEC_V_MAKE_TARGET },
	{ .name = "fragments",
	  .type = SPEC_STRLIST,
	  .offset = F(struct kernel_spec, fragments),
	  .value = SPEC_V_RELPATH },
	SPEC_END
};

static const struct spec_field kernel_fields[] = {
	{ .name = "description",
	  .type = SPEC_TEXT,
	  .offset = F(struct kernel_spec, description) },
	{ .name = "package",
	  .type = SPEC_STR,
	  .offset = F(struct kernel_spec, package),
	  .value = SPEC_V_WORD },
	{ .name = "suite",
	  .type = SPEC_STR,
	  .offset = F(struct kernel_spec, suite),
	  .value = SPEC_V_NAME },
	{ .name = "version",
	  .type = SPEC_STR,
	  .offset = F(struct kernel_spec, version),
	  .value = SPEC_V_WORD },
	SPEC_SUBMAP("source", false, kernel_source_fields),
	SPEC_SUBMAP("config", false, kernel_config_fields),
	{ .name = "patches",
	  .type = SPEC_STRLIST,
	  .offset = F(struct kernel_spec, patches),
	  .value = SPEC_V_RELPATH },
	{ .name = "base",
	  .type = SPEC_STR,
	  .offset = F(struct kernel_spec, base),
	  .value = SPEC_V_NAME },
	{ .name = "localversion",
	  .type = SPEC_STR,
	  .offset = F(struct kernel_spec, localversion) },
	SPEC_END
};

static const struct spec_field hog_fields[] = {
	{ .name = "size",
	  .type = SPEC_SIZE,
	  .offset = F(struct workload_spec, hog_size),
	  .required = true,
	  .min = 1 << 20,
	  .max = 1LL << 40 },
	{ .name = "hold",
	  .type = SPEC_INT,
	  .offset = F(struct workload_spec, hog_hold),
	  .max = 86400 },
	{ .name = "every",
	  .type = SPEC_INT,
	  .offset = F(struct workload_spec, hog_every),
	  .max = 86400 },
	{ .name = "churn",
	  .type = SPEC_SIZE,
	  .offset = F(struct workload_spec, hog_churn),
	  .min = 1 << 20,
	  .max = 1LL << 40 },
	{ .name = "churn_ms",
	  .type = SPEC_INT,
	  .offset = F(struct workload_spec, hog_churn_ms),
	  .min = 1,
	  .max = 86400 * 1000 },
	SPEC_END
};

static const struct spec_field workload_fields[] = {
	{ .name = "description",
	  .type = SPEC_TEXT,
	  .offset = F(struct workload_spec, description),
	  .required = true },
	{ .name = "timeout",
	  .type = SPEC_INT,
	  .offset = F(struct workload_spec, timeout),
	  .required = true,
	  .min = 1,
	  .max = 86400 },
	{ .name = "memory",
	  .type = SPEC_MIB,
	  .offset = F(struct workload_spec, memory),
	  .min = 128,
	  .max = 1 << 20 },
	{ .name = "fio",
	  .type = SPEC_TEXT,
	  .offset = F(struct workload_spec, fio) },
	SPEC_SUBMAP("hog", false, hog_fields),
	{ .name = "memcg_max",
	  .type = SPEC_STR,
	  .offset = F(struct workload_spec, memcg_max),
	  .value = SPEC_V_WORD },
	{ .name = "lru_gen",
	  .type = SPEC_ENUM,
	  .offset = F(struct workload_spec, lru_gen),
	  .choices = (const char *const[]){ "on", "off", NULL } },
	{ .name = "failslab",
	  .type = SPEC_STR,
	  .offset = F(struct workload_spec, failslab),
	  .value = SPEC_V_NAME },
	{ .name = "trace_page_cache",
	  .type = SPEC_BOOL,
	  .offset = F(struct workload_spec, trace_page_cache) },
	{ .name = "pre",
	  .type = SPEC_STRLIST,
	  .offset = F(struct workload_spec, pre) },
	{ .name = "primary",
	  .type = SPEC_STRLIST,
	  .offset = F(struct workload_spec, primary) },
	SPEC_END
};

static int image_check(struct spec_file *sf, void *obj)
{
	struct image_spec *s = obj;

	if (!s->mirror)
		s->mirror = xstrdup("http://deb.debian.org/debian");
	if (!s->variant)
		s->variant = xstrdup("minbase");
	if (!s->agent)
		s->agent = xstrdup("initramfs");
	if (!s->size)
		s->size = 2ULL << 30;
	return 0;
}

int image_spec_load(const char *path, const char *name, struct image_spec *out)
{
	memset(out, 0, sizeof(*out));
	out->name = xstrdup(name);
	out->path = xstrdup(path);
	return spec_load_file(path, image_fields, out, NULL, image_check);
}

int kernel_spec_module_base(const struct kernel_spec *s,
			    struct kernel_spec *base)
{
	memset(base, 0, sizeof(*base));
	return s->base && !kernel_spec_find(s->base, base) && base->package;
}

int kernel_module_variant_check(
	const struct kernel_spec *s, const struct kernel_spec *base,
	void (*bad)(const char *field, const char *msg, void *arg), void *arg)
{
	int n = 0;

	if (s->localversion && ++n)
		bad("localversion",
		    "a module variant of a prebuilt kernel keeps its release",
		    arg);
	if ((s->config_base || s->fragments.n) && ++n)
		bad("config",
		    "a module variant of a prebuilt kernel keeps its configuration",
		    arg);
	if (!s->patches.n && ++n)
		bad("base",
		    "a module variant of a prebuilt kernel needs patches:",
		    arg);
	if (!base->source_package && ++n)
		bad("base",
		    "it names no source: package (the source its package was built from), so its modules cannot be rebuilt",
		    arg);
	return n;
}

struct modvar_ctx {
	struct spec_file *sf;
	const char *base;
};

static void modvar_spec_error(const char *field, const char *msg, void *arg)
{
	struct modvar_ctx *c = arg;

	spec_error(c->sf, spec_map_get(c->sf, spec_root(c->sf), field), field,
		   "base %s: %s", c->base, msg);
}

/*
 * A variant of a prebuilt kernel is a module variant: its rules are spec
 * errors at their lines. The depth bounds a base: loop (loading the base
 * checks the base).
 */
static void check_module_variant(struct spec_file *sf,
				 const struct kernel_spec *s)
{
	static int depth;
	struct modvar_ctx c = { .sf = sf, .base = s->base };
	struct kernel_spec base;

	if (depth > 8)
		return;
	depth++;
	if (kernel_spec_module_base(s, &base))
		kernel_module_variant_check(s, &base, modvar_spec_error, &c);
	kernel_spec_free(&base);
	depth--;
}

/*
 * suite: and version: go together, pin what package: or source: package:
 * names, and a variant takes them from its base. A version is Debian's:
 * it starts with a digit and has no '=' (apt-get's PKG=VERSION).
 */
static void check_suite(struct spec_file *sf, const struct kernel_spec *s)
{
	yaml_node_t *root = spec_root(sf);
	const char *field = s->suite ? "suite" : "version";

	if (!s->suite && !s->version)
		return;
	if (!s->suite || !s->version)
		spec_error(
			sf, spec_map_get(sf, root, field), field,
			"suite: and version: go together (the exact version the suite carries)");
	else if (s->base)
		spec_error(
			sf, spec_map_get(sf, root, "suite"), "suite",
			"a variant takes its packages from its base; drop suite: and version:");
	else if (!s->package && !s->source_package)
		spec_error(
			sf, spec_map_get(sf, root, "suite"), "suite",
			"suite: pins package: or source: package:, and there is neither");
	if (s->version &&
	    (!isdigit((unsigned char)s->version[0]) || strchr(s->version, '=')))
		spec_error(
			sf, spec_map_get(sf, root, "version"), "version",
			"'%s' is not a Debian version (a digit first, no '=')",
			s->version);
}

static int kernel_check(struct spec_file *sf, void *obj)
{
	struct kernel_spec *s = obj;
	yaml_node_t *root = spec_root(sf);
	/* A prebuilt's source: names what it was built from (module variants). */
	int kinds = !!s->package +
		    (!s->package && (s->source_package || s->source_git)) +
		    !!s->base;

	if (s->base && (s->source_package || s->source_git))
		spec_error(
			sf, spec_map_get(sf, root, "base"), "base",
			"a variant takes its source from its base; drop source:");
	else if (kinds != 1)
		spec_error(
			sf, root, "package",
			"exactly one of package: (prebuilt), source: (build) or base: (variant) is needed");
	if (s->source_package && s->source_git)
		spec_error(sf, spec_map_get(sf, root, "source"), "source",
			   "give package: or git:, not both");
	if (s->package && s->source_git)
		spec_error(
			sf, spec_map_get(sf, root, "source"), "source",
			"a prebuilt kernel's source: is the package: its kernel was built from");
	if (s->package && (s->patches.n || s->fragments.n || s->config_base))
		spec_error(sf, spec_map_get(sf, root, "package"), "package",
			   "a prebuilt kernel takes no patches or config");
	if (s->base && kinds == 1)
		check_module_variant(sf, s);
	check_suite(sf, s);
	if (s->localversion &&
	    !spec_valid_name(s->localversion + (s->localversion[0] == '-')))
		spec_error(sf, spec_map_get(sf, root, "localversion"),
			   "localversion", "'%s' must be [A-Za-z0-9._-]",
			   s->localversion);
	return 0;
}

int kernel_spec_load_err(const char *path, const char *name,
			 struct kernel_spec *out, struct strbuf *err)
{
	memset(out, 0, sizeof(*out));
	out->name = xstrdup(name);
	out->path = xstrdup(path);
	return spec_load_file(path, kernel_fields, out, err, kernel_check);
}

int kernel_spec_load(const char *path, const char *name,
		     struct kernel_spec *out)
{
	return kernel_spec_load_err(path, name, out, NULL);
}

/* primary: registry names, each spelled as the registry does after this. */
static void check_primary(struct spec_file *sf, struct spec_strlist *l)
{
	yaml_node_t *seq = spec_map_get(sf, spec_root(sf), "primary");

	for (size_t i = 0; i < l->n; i++) {
		yaml_node_t *node = seq;
		const struct metric *m;
		char field[32];

		if (seq && seq->type == YAML_SEQUENCE_NODE &&
		    seq->data.sequence.items.start + i <
			    seq->data.sequence.items.top)
			node = spec_node(sf, seq->data.sequence.items.start[i]);
		snprintf(field, sizeof(field), "primary[%zu]", i);
		m = spec_metric(sf, node, field, l->v[i]);
		if (m && strcmp(l->v[i], m->name)) {
			free(l->v[i]);
			l->v[i] = xstrdup(m->name);
		}
	}
}

static int workload_check(struct spec_file *sf, void *obj)
{
	struct workload_spec *s = obj;
	yaml_node_t *root = spec_root(sf);

	if (!s->fio && !s->hog_size && !s->pre.n)
		spec_error(sf, root, "fio",
			   "a workload needs fio:, hog: or pre:");
	check_primary(sf, &s->primary);
	/* The churn is in whole MiB beside the static part, never instead. */
	if (!s->hog_churn != !s->hog_churn_ms || (s->hog_churn && s->hog_every))
		spec_error(sf, spec_map_get(sf, root, "hog"), "hog",
			   "churn: and churn_ms: go together, without every:");
	if (s->hog_churn & ((1 << 20) - 1))
		spec_error(sf, spec_map_get(sf, root, "hog"), "hog.churn",
			   "not a whole number of MiB");
	if (s->memcg_max) {
		uint64_t v;

		if (strcmp(s->memcg_max, "max") &&
		    spec_parse_size(s->memcg_max, &v))
			spec_error(sf, spec_map_get(sf, root, "memcg_max"),
				   "memcg_max", "'%s' is not a size or 'max'",
				   s->memcg_max);
	}
	return 0;
}

int workload_spec_load_err(const char *path, const char *name,
			   struct workload_spec *out, struct strbuf *err)
{
	memset(out, 0, sizeof(*out));
	out->name = xstrdup(name);
	out->path = xstrdup(path);
	return spec_load_file(path, workload_fields, out, err, workload_check);
}

int workload_spec_load(const char *path, const char *name,
		       struct workload_spec *out)
{
	return workload_spec_load_err(path, name, out, NULL);
}

bool workload_needs_mount(const struct workload_spec *w)
{
	if (w->fio && strstr(w->fio, "${WBLAB_MOUNT}"))
		return true;
	for (size_t i = 0; i < w->pre.n; i++)
		if (strstr(w->pre.v[i], "${WBLAB_MOUNT}"))
			return true;
	return false;
}

void image_spec_free(struct image_spec *s)
{
	free(s->name);
	free(s->path);
	free(s->description);
	free(s->suite);
	free(s->mirror);
	free(s->variant);
	free(s->agent);
	spec_strlist_free(&s->packages);
	memset(s, 0, sizeof(*s));
}

void kernel_spec_free(struct kernel_spec *s)
{
	free(s->name);
	free(s->path);
	free(s->description);
	free(s->package);
	free(s->suite);
	free(s->version);
	free(s->source_package);
	free(s->source_git);
	free(s->source_ref);
	free(s->config_base);
	spec_strlist_free(&s->fragments);
	spec_strlist_free(&s->patches);
	free(s->base);
	free(s->localversion);
	free(s->tree);
	free(s->seed);
	memset(s, 0, sizeof(*s));
}

void workload_spec_free(struct workload_spec *s)
{
	free(s->name);
	free(s->path);
	free(s->description);
	free(s->fio);
	free(s->memcg_max);
	free(s->lru_gen);
	free(s->failslab);
	spec_strlist_free(&s->pre);
	spec_strlist_free(&s->primary);
	memset(s, 0, sizeof(*s));
}

#define DEFINE_FIND(kind, dir, type, loader)                     \
	int kind##_spec_find(const char *name, struct type *out) \
	{                                                        \
		char *path = spec_resolve(#kind, dir, name);     \
		int ret;                                         \
                                                                 \
		memset(out, 0, sizeof(*out));                    \
		if (!path)                                       \
			return -2;                               \
		ret = loader(path, name, out);                   \
		free(path);                                      \
		return ret;                                      \
	}

DEFINE_FIND(image, "guests", image_spec, image_spec_load)

static char *dup_or_null(const char *s)
{
	return s ? xstrdup(s) : NULL;
}

static void strlist_copy(struct spec_strlist *dst,
			 const struct spec_strlist *src)
{
	memset(dst, 0, sizeof(*dst));
	for (size_t i = 0; i < src->n; i++)
		spec_strlist_add(dst, src->v[i]);
}

void kernel_spec_copy(struct kernel_spec *d, const struct kernel_spec *s)
{
	memset(d, 0, sizeof(*d));
	d->name = dup_or_null(s->name);
	d->path = dup_or_null(s->path);
	d->description = dup_or_null(s->description);
	d->package = dup_or_null(s->package);
	d->suite = dup_or_null(s->suite);
	d->version = dup_or_null(s->version);
	d->source_package = dup_or_null(s->source_package);
	d->source_git = dup_or_null(s->source_git);
	d->source_ref = dup_or_null(s->source_ref);
	d->config_base = dup_or_null(s->config_base);
	strlist_copy(&d->fragments, &s->fragments);
	strlist_copy(&d->patches, &s->patches);
	d->base = dup_or_null(s->base);
	d->localversion = dup_or_null(s->localversion);
	d->tree = dup_or_null(s->tree);
	d->seed = dup_or_null(s->seed);
}

int kernel_spec_check_name(const char *name)
{
	/* '_' separates the parts of a cell id. */
	if (!name || !spec_valid_name(name) || strchr(name, '_'))
		return error("kernel name '%s' is not valid", name ? name : "");
	return 0;
}

/*
 * A kernel spec given by its path (it has a '/' or ends in .yaml): its
 * name is the file's, without .yaml, as if it were in lab/kernels.
 */
static int kernel_spec_at(const char *path, struct kernel_spec *out)
{
	const char *base = strrchr(path, '/');
	char *name;
	size_t len;
	int ret;

	base = base ? base + 1 : path;
	len = strlen(base);
	if (len > 5 && !strcmp(base + len - 5, ".yaml"))
		len -= 5;
	name = xstrndup(base, len);
	if (!spec_valid_name(name)) {
		ret = error("%s: '%s' cannot name a kernel ([A-Za-z0-9._-])",
			    path, name);
		goto out;
	}
	if (!path_exists(path)) {
		ret = error("%s: no such kernel spec", path);
		goto out;
	}
	ret = kernel_spec_load(path, name, out);
out:
	free(name);
	return ret;
}

int kernel_spec_find(const char *name, struct kernel_spec *out)
{
	size_t len = strlen(name);
	char *path;
	int ret;

	memset(out, 0, sizeof(*out));
	if (strchr(name, '/') || (len > 5 && !strcmp(name + len - 5, ".yaml")))
		return kernel_spec_at(name, out);
	path = spec_resolve("kernel", "lab/kernels", name);
	if (!path)
		return -2;
	ret = kernel_spec_load(path, name, out);
	free(path);
	return ret;
}
DEFINE_FIND(topology, "topologies", topology_spec, topology_spec_load)
DEFINE_FIND(workload, "workloads", workload_spec, workload_spec_load)
