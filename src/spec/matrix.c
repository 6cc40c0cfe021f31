// SPDX-License-Identifier: GPL-2.0
/*
 * lab/matrices/<name>.yaml, loaded with the same field tables as every
 * other spec kind, so each error names file:line: field.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "results/levers.h"
#include "spec/matrix.h"
#include "spec/specs.h"
#include "util/fs.h"
#include "util/log.h"

#define M(field) offsetof(struct matrix_spec, field)
#define S(field) offsetof(struct matrix_size, field)
#define X(field) offsetof(struct matrix_exclude, field)

/* More cells than a week of nights is a typo in reps. */
#define MATRIX_MAX_CELLS 10000

struct threshold_tmp {
	char *change;
	char *bad;
};

static const char *const bad_dirs[] = { "up", "down", "any", NULL };

/* clang-format off */
static const struct spec_field size_fields[] = {
	{ .name = "memory", .type = SPEC_MIB, .offset = S(memory), .min = 128, .max = 1 << 20 },
	{ .name = "vcpus", .type = SPEC_INT, .offset = S(vcpus), .min = 1, .max = 64 },
	SPEC_END
};

static const struct spec_field exclude_fields[] = {
	{ .name = "kernels", .type = SPEC_STRLIST, .offset = X(kernels) },
	{ .name = "topologies", .type = SPEC_STRLIST, .offset = X(topologies) },
	{ .name = "workloads", .type = SPEC_STRLIST, .offset = X(workloads) },
	SPEC_END
};

static const struct spec_field threshold_fields[] = {
	{ .name = "change", .type = SPEC_STR, .offset = offsetof(struct threshold_tmp, change), .required = true },
	{ .name = "bad", .type = SPEC_ENUM, .offset = offsetof(struct threshold_tmp, bad), .choices = bad_dirs },
	SPEC_END
};
/* clang-format on */

void matrix_spec_add_size(struct matrix_spec *m, long long memory,
			  long long vcpus)
{
	m->sizes = xrealloc(m->sizes, (m->nr_sizes + 1) * sizeof(*m->sizes));
	m->sizes[m->nr_sizes++] = (struct matrix_size){ memory, vcpus };
}

void matrix_spec_one(struct matrix_spec *m, const char *name,
		     const char *topology, const char *workload, long long reps,
		     const char *image, long long memory, long long vcpus)
{
	memset(m, 0, sizeof(*m));
	m->name = xstrdup(name);
	spec_strlist_add(&m->topologies, topology);
	spec_strlist_add(&m->workloads, workload);
	m->reps = reps;
	m->image = xstrdup(image);
	matrix_spec_add_size(m, memory, vcpus);
}

static int parse_guests(struct spec_file *sf, yaml_node_t *v, const char *field,
			void *obj)
{
	struct matrix_spec *m = obj;
	int i = 0, bad = 0;

	if (!v || v->type != YAML_SEQUENCE_NODE) {
		spec_error(
			sf, v, field,
			"expected a list of {memory: MiB or a size, vcpus: N}");
		return -1;
	}
	for (yaml_node_item_t *it = v->data.sequence.items.start;
	     it < v->data.sequence.items.top; it++, i++) {
		struct matrix_size s = { 0 };
		char prefix[64];

		snprintf(prefix, sizeof(prefix), "%s[%d]", field, i);
		if (spec_apply(sf, spec_node(sf, *it), size_fields, &s,
			       prefix)) {
			bad = 1;
			continue;
		}
		matrix_spec_add_size(m, s.memory, s.vcpus);
	}
	return bad ? -1 : 0;
}

/* Every name an entry gives must be one of the matrix's own. */
static int check_exclude(struct spec_file *sf, yaml_node_t *node,
			 const char *prefix, const struct matrix_exclude *x,
			 const struct matrix_spec *m)
{
	const struct {
		const char *name;
		const struct spec_strlist *l, *of;
	} lists[] = {
		{ "kernels", &x->kernels, &m->kernels },
		{ "topologies", &x->topologies, &m->topologies },
		{ "workloads", &x->workloads, &m->workloads },
	};
	int bad = 0;

	if (!x->kernels.n && !x->topologies.n && !x->workloads.n) {
		spec_error(sf, node, prefix,
			   "names no kernels, topologies or workloads: it "
			   "would leave out every cell");
		return -1;
	}
	for (size_t i = 0; i < ARRAY_SIZE(lists); i++)
		for (size_t j = 0; j < lists[i].l->n; j++)
			if (!spec_strlist_has(lists[i].of, lists[i].l->v[j])) {
				spec_error(sf, node, prefix,
					   "%s: '%s' is not in the matrix's %s",
					   lists[i].name, lists[i].l->v[j],
					   lists[i].name);
				bad = 1;
			}
	return bad ? -1 : 0;
}

/* exclude: entries; their names are checked in matrix_check(). */
static int parse_exclude(struct spec_file *sf, yaml_node_t *v,
			 const char *field, void *obj)
{
	struct matrix_spec *m = obj;
	int i = 0, bad = 0;

	if (!v || v->type != YAML_SEQUENCE_NODE) {
		spec_error(sf, v, field,
			   "expected a list of {kernels: [...], topologies: "
			   "[...], workloads: [...]}");
		return -1;
	}
	for (yaml_node_item_t *it = v->data.sequence.items.start;
	     it < v->data.sequence.items.top; it++, i++) {
		struct matrix_exclude x = { 0 };
		char prefix[64];

		snprintf(prefix, sizeof(prefix), "%s[%d]", field, i);
		if (spec_apply(sf, spec_node(sf, *it), exclude_fields, &x,
			       prefix)) {
			spec_strlist_free(&x.kernels);
			spec_strlist_free(&x.topologies);
			spec_strlist_free(&x.workloads);
			bad = 1;
			continue;
		}
		m->excludes = xrealloc(m->excludes, (m->nr_excludes +
						     1) * sizeof(*m->excludes));
		m->excludes[m->nr_excludes++] = x;
	}
	return bad ? -1 : 0;
}

static bool list_matches(const struct spec_strlist *l, const char *v)
{
	return !l->n || spec_strlist_has(l, v);
}

bool matrix_spec_excluded(const struct matrix_spec *m, const char *kernel,
			  const char *topology, const char *workload)
{
	for (size_t i = 0; i < m->nr_excludes; i++) {
		const struct matrix_exclude *x = &m->excludes[i];

		if (list_matches(&x->kernels, kernel) &&
		    list_matches(&x->topologies, topology) &&
		    list_matches(&x->workloads, workload))
			return true;
	}
	return false;
}

bool matrix_spec_pair_excluded(const struct matrix_spec *m,
			       const char *topology, const char *workload)
{
	for (size_t k = 0; k < m->kernels.n; k++)
		if (!matrix_spec_excluded(m, m->kernels.v[k], topology,
					  workload))
			return false;
	return true;
}

/* "10%" or "10": a relative change in percent, > 0. */
static int parse_pct(const char *s, double *out)
{
	char *end;
	double v = strtod(s, &end);

	if (end == s)
		return -1;
	if (*end == '%')
		end++;
	if (*end || !(v > 0) || v > 1000)
		return -1;
	*out = v;
	return 0;
}

static int parse_thresholds(struct spec_file *sf, yaml_node_t *v,
			    const char *field, void *obj)
{
	struct matrix_spec *m = obj;
	int bad = 0;

	if (!v || v->type != YAML_MAPPING_NODE) {
		spec_error(
			sf, v, field,
			"expected metric: {change: PCT%%, bad: up|down|any}");
		return -1;
	}
	for (yaml_node_pair_t *p = v->data.mapping.pairs.start;
	     p < v->data.mapping.pairs.top; p++) {
		yaml_node_t *key = spec_node(sf, p->key);
		const char *metric = spec_scalar(key);
		yaml_node_t *val = spec_node(sf, p->value);
		const struct metric *row;
		struct threshold_tmp t = { 0 };
		struct matrix_threshold *mt;
		char prefix[160];
		double pct = 0;

		snprintf(prefix, sizeof(prefix), "%s.%s", field,
			 metric ? metric : "?");
		if (!metric || !*metric) {
			spec_error(sf, val, field, "a metric name is needed");
			bad = 1;
			continue;
		}
		row = spec_metric(sf, key, prefix, metric);
		for (size_t i = 0; row && i < m->nr_thresholds; i++)
			if (m->thresholds[i].row == row) {
				spec_error(sf, key, prefix,
					   "%s has a threshold already",
					   row->name);
				row = NULL;
			}
		if (spec_apply(sf, val, threshold_fields, &t, prefix) == 0 &&
		    parse_pct(t.change, &pct)) {
			char f[200];

			snprintf(f, sizeof(f), "%s.change", prefix);
			spec_error(sf, spec_map_get(sf, val, "change"), f,
				   "'%s' is not a percentage (e.g. 10%%)",
				   t.change);
		}
		if (pct > 0 && row) {
			m->thresholds = xrealloc(m->thresholds,
						 (m->nr_thresholds +
						  1) * sizeof(*m->thresholds));
			mt = &m->thresholds[m->nr_thresholds++];
			mt->row = row;
			mt->metric = xstrdup(row->name);
			mt->change_pct = pct;
			mt->bad = xstrdup(t.bad ? t.bad : "any");
		} else {
			bad = 1;
		}
		free(t.change);
		free(t.bad);
	}
	return bad ? -1 : 0;
}

/* clang-format off */
static const struct spec_field matrix_fields[] = {
	{ .name = "description", .type = SPEC_TEXT, .offset = M(description), .required = true },
	{ .name = "kernels", .type = SPEC_STRLIST, .offset = M(kernels), .required = true },
	{ .name = "topologies", .type = SPEC_STRLIST, .offset = M(topologies), .required = true },
	{ .name = "workloads", .type = SPEC_STRLIST, .offset = M(workloads), .required = true },
	{ .name = "levers", .type = SPEC_STRLIST, .offset = M(levers) },
	{ .name = "reps", .type = SPEC_INT, .offset = M(reps), .min = 1, .max = 1000 },
	{ .name = "image", .type = SPEC_STR, .offset = M(image), .value = SPEC_V_NAME },
	{ .name = "guests", .type = SPEC_MAP, .offset = 0, .parse = parse_guests },
	{ .name = "thresholds", .type = SPEC_MAP, .offset = 0, .parse = parse_thresholds },
	{ .name = "exclude", .type = SPEC_MAP, .offset = 0, .parse = parse_exclude },
	SPEC_END
};
/* clang-format on */

static void check_names(struct spec_file *sf, const char *field,
			const struct spec_strlist *l)
{
	yaml_node_t *node = spec_map_get(sf, spec_root(sf), field);

	if (!l->n)
		spec_error(sf, node, field, "needs at least one name");
	for (size_t i = 0; i < l->n; i++) {
		if (!spec_valid_name(l->v[i]))
			spec_error(sf, node, field,
				   "'%s' is not a name ([A-Za-z0-9._-]+)",
				   l->v[i]);
		for (size_t j = 0; j < i; j++)
			if (!strcmp(l->v[i], l->v[j]))
				spec_error(sf, node, field,
					   "'%s' is listed twice", l->v[i]);
	}
}

/* After every field is read: exclude:'s names against the matrix's. */
static void check_excludes(struct spec_file *sf, const struct matrix_spec *m)
{
	yaml_node_t *seq = spec_map_get(sf, spec_root(sf), "exclude");
	char prefix[64];

	for (size_t i = 0; i < m->nr_excludes; i++) {
		yaml_node_t *node = seq;

		/* Entries that failed to parse are not kept: find the item. */
		if (seq && seq->type == YAML_SEQUENCE_NODE &&
		    (size_t)(seq->data.sequence.items.top -
			     seq->data.sequence.items.start) == m->nr_excludes)
			node = spec_node(sf, seq->data.sequence.items.start[i]);
		snprintf(prefix, sizeof(prefix), "exclude[%zu]", i);
		check_exclude(sf, node, prefix, &m->excludes[i], m);
	}
}

/* Each levers: entry a setting of levers.c's table, none twice. */
static void check_levers(struct spec_file *sf, const struct spec_strlist *l)
{
	yaml_node_t *node = spec_map_get(sf, spec_root(sf), "levers");
	char **text = xzalloc((l->n + 1) * sizeof(*text));

	for (size_t i = 0; i < l->n; i++) {
		struct strbuf err = STRBUF_INIT;
		struct levers lv;

		if (levers_parse(l->v[i], &lv, &err)) {
			spec_error(sf, node, "levers", "'%s': %s", l->v[i],
				   err.buf);
		} else {
			text[i] = levers_text(&lv);
			for (size_t j = 0; j < i; j++)
				if (text[j] && !strcmp(text[i], text[j]))
					spec_error(sf, node, "levers",
						   "'%s' is '%s' again",
						   l->v[i], l->v[j]);
		}
		strbuf_release(&err);
	}
	for (size_t i = 0; i < l->n; i++)
		free(text[i]);
	free(text);
}

static int matrix_check(struct spec_file *sf, void *obj)
{
	struct matrix_spec *m = obj;
	unsigned long long n;

	check_names(sf, "kernels", &m->kernels);
	check_names(sf, "topologies", &m->topologies);
	check_names(sf, "workloads", &m->workloads);
	if (!m->reps)
		m->reps = 1;
	if (!m->image)
		m->image = xstrdup(SPEC_DEFAULT_IMAGE);
	if (!m->nr_sizes)
		matrix_spec_add_size(m, 0, 0);
	for (size_t i = 0; i < m->nr_sizes; i++)
		for (size_t j = 0; j < i; j++)
			if (m->sizes[i].memory == m->sizes[j].memory &&
			    m->sizes[i].vcpus == m->sizes[j].vcpus)
				spec_error(sf,
					   spec_map_get(sf, spec_root(sf),
							"guests"),
					   "guests",
					   "size %zu repeats size %zu", i, j);
	check_excludes(sf, m);
	check_levers(sf, &m->levers);
	n = (unsigned long long)m->kernels.n * m->topologies.n *
	    m->workloads.n * m->nr_sizes * m->reps *
	    (m->levers.n ? m->levers.n : 1);
	if (n > MATRIX_MAX_CELLS)
		spec_error(sf, spec_map_get(sf, spec_root(sf), "reps"), "reps",
			   "%llu cells is more than %d", n, MATRIX_MAX_CELLS);
	return 0;
}

int matrix_spec_load(const char *path, const char *name,
		     struct matrix_spec *out, struct strbuf *err)
{
	memset(out, 0, sizeof(*out));
	out->name = xstrdup(name);
	out->path = xstrdup(path);
	return spec_load_file(path, matrix_fields, out, err, matrix_check);
}

int matrix_spec_find(const char *arg, struct matrix_spec *out)
{
	char *path, *name;
	const char *base = strrchr(arg, '/');
	size_t len;
	int ret;

	memset(out, 0, sizeof(*out));
	/* A path (lab/matrices/seed.yaml) or a bare name (seed). */
	if (base || strstr(arg, ".yaml")) {
		base = base ? base + 1 : arg;
		len = strlen(base);
		if (len > 5 && !strcmp(base + len - 5, ".yaml"))
			len -= 5;
		if (!path_exists(arg)) {
			error("%s: no such matrix file", arg);
			return -2;
		}
		path = xstrdup(arg);
		name = xstrndup(base, len);
	} else {
		path = spec_resolve("matrix", "lab/matrices", arg);
		if (!path)
			return -2;
		name = xstrdup(arg);
	}
	ret = matrix_spec_load(path, name, out, NULL);
	free(path);
	free(name);
	return ret;
}

const struct matrix_threshold *
matrix_spec_threshold(const struct matrix_spec *m, const char *metric)
{
	for (size_t i = 0; i < m->nr_thresholds; i++)
		if (!strcmp(m->thresholds[i].metric, metric))
			return &m->thresholds[i];
	return NULL;
}

void matrix_spec_free(struct matrix_spec *m)
{
	free(m->name);
	free(m->path);
	free(m->description);
	spec_strlist_free(&m->kernels);
	spec_strlist_free(&m->topologies);
	spec_strlist_free(&m->workloads);
	spec_strlist_free(&m->levers);
	free(m->image);
	free(m->sizes);
	for (size_t i = 0; i < m->nr_thresholds; i++) {
		free(m->thresholds[i].metric);
		free(m->thresholds[i].bad);
	}
	free(m->thresholds);
	for (size_t i = 0; i < m->nr_excludes; i++) {
		spec_strlist_free(&m->excludes[i].kernels);
		spec_strlist_free(&m->excludes[i].topologies);
		spec_strlist_free(&m->excludes[i].workloads);
	}
	free(m->excludes);
	memset(m, 0, sizeof(*m));
}
