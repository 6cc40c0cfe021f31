// SPDX-License-Identifier: GPL-2.0
/*
 * lab/nightly.yaml (spec/nightly.h): the trees wblab nightly follows, the
 * matrix, the results and the mail, read with the value rules of every
 * spec (docs/specs.md): a tree's url and ref go to git after --, and the
 * mailer is an absolute path.
 */
#include <stdlib.h>
#include <string.h>

#include "spec/nightly.h"
#include "util/log.h"

#define T(f) offsetof(struct nightly_tree, f)
#define N(f) offsetof(struct nightly_spec, f)

/* clang-format off */
static const struct spec_field tree_fields[] = {
	{ .name = "name", .type = SPEC_STR, .offset = T(name), .required = true, .value = SPEC_V_NAME },
	{ .name = "path", .type = SPEC_STR, .offset = T(path), .required = true, .value = SPEC_V_PATH },
	{ .name = "ref", .type = SPEC_STR, .offset = T(ref), .value = SPEC_V_REF },
	{ .name = "url", .type = SPEC_STR, .offset = T(url), .value = SPEC_V_URL },
	SPEC_END
};

static const struct spec_field mail_fields[] = {
	{ .name = "to", .type = SPEC_STR, .offset = N(mail_to), .required = true },
	{ .name = "from", .type = SPEC_STR, .offset = N(mail_from) },
	{ .name = "sendmail", .type = SPEC_STRLIST, .offset = N(sendmail), .value = SPEC_V_ARG },
	SPEC_END
};
/* clang-format on */

static void tree_free(struct nightly_tree *t)
{
	free(t->name);
	free(t->path);
	free(t->ref);
	free(t->url);
}

static int parse_trees(struct spec_file *sf, yaml_node_t *v, const char *field,
		       void *obj)
{
	struct nightly_spec *s = obj;
	int i = 0, bad = 0;

	if (!v || v->type != YAML_SEQUENCE_NODE) {
		spec_error(sf, v, field,
			   "expected a list of {name, path, ref, url}");
		return -1;
	}
	for (yaml_node_item_t *it = v->data.sequence.items.start;
	     it < v->data.sequence.items.top; it++, i++) {
		struct nightly_tree t = { 0 };
		char prefix[64];

		snprintf(prefix, sizeof(prefix), "%s[%d]", field, i);
		if (spec_apply(sf, spec_node(sf, *it), tree_fields, &t,
			       prefix)) {
			tree_free(&t);
			bad = 1;
			continue;
		}
		if (!t.ref)
			t.ref = xstrdup("HEAD");
		s->trees = xrealloc(s->trees, (s->nr_trees + 1) * sizeof(t));
		s->trees[s->nr_trees++] = t;
	}
	return bad ? -1 : 0;
}

static int parse_mail(struct spec_file *sf, yaml_node_t *v, const char *field,
		      void *obj)
{
	return spec_apply(sf, v, mail_fields, obj, field);
}

/* clang-format off */
static const struct spec_field nightly_fields[] = {
	{ .name = "description", .type = SPEC_TEXT, .offset = N(description) },
	{ .name = "matrix", .type = SPEC_STR, .offset = N(matrix), .required = true, .value = SPEC_V_PATH },
	{ .name = "results", .type = SPEC_STR, .offset = N(results), .value = SPEC_V_PATH },
	{ .name = "trees", .type = SPEC_MAP, .offset = 0, .required = true, .parse = parse_trees },
	{ .name = "mail", .type = SPEC_MAP, .offset = 0, .required = true, .parse = parse_mail },
	SPEC_END
};
/* clang-format on */

static int nightly_check(struct spec_file *sf, void *obj)
{
	struct nightly_spec *s = obj;

	if (!s->nr_trees)
		spec_error(sf, spec_map_get(sf, spec_root(sf), "trees"),
			   "trees", "needs at least one tree");
	/* The spec names its own mailer; it must not be found through $PATH. */
	if (s->sendmail.n && s->sendmail.v[0][0] != '/')
		spec_error(sf, spec_map_get(sf, spec_root(sf), "mail"),
			   "mail.sendmail",
			   "'%s': the mailer must be an absolute path",
			   s->sendmail.v[0]);
	if (!s->results)
		s->results = xstrdup("results");
	if (!s->mail_from)
		s->mail_from = xstrdup("wblab <wblab@localhost>");
	return 0;
}

int nightly_spec_load(const char *path, struct nightly_spec *out,
		      struct strbuf *err)
{
	memset(out, 0, sizeof(*out));
	out->path = xstrdup(path);
	return spec_load_file(path, nightly_fields, out, err, nightly_check);
}

void nightly_spec_free(struct nightly_spec *s)
{
	for (size_t i = 0; i < s->nr_trees; i++)
		tree_free(&s->trees[i]);
	free(s->trees);
	free(s->path);
	free(s->description);
	free(s->matrix);
	free(s->results);
	free(s->mail_to);
	free(s->mail_from);
	spec_strlist_free(&s->sendmail);
	memset(s, 0, sizeof(*s));
}
