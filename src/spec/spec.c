// SPDX-License-Identifier: GPL-2.0
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "spec/spec.h"
#include "util/fs.h"
#include "util/log.h"
#include "util/num.h"
#include "util/str.h"

void spec_close(struct spec_file *sf)
{
	if (sf->loaded)
		yaml_document_delete(&sf->doc);
	strbuf_release(&sf->errors);
	free(sf->path);
	memset(sf, 0, sizeof(*sf));
}

yaml_node_t *spec_root(struct spec_file *sf)
{
	return sf->loaded ? yaml_document_get_root_node(&sf->doc) : NULL;
}

yaml_node_t *spec_node(struct spec_file *sf, int index)
{
	return yaml_document_get_node(&sf->doc, index);
}

int spec_line(const yaml_node_t *node)
{
	return node ? (int)node->start_mark.line + 1 : 0;
}

void spec_error(struct spec_file *sf, const yaml_node_t *node,
		const char *field, const char *fmt, ...)
{
	va_list ap;

	strbuf_addf(&sf->errors, "%s:%d: %s: ", sf->path,
		    node ? spec_line(node) : 1, field);
	va_start(ap, fmt);
	strbuf_vaddf(&sf->errors, fmt, ap);
	va_end(ap);
	strbuf_addch(&sf->errors, '\n');
	sf->nr_errors++;
}

const char *spec_scalar(const yaml_node_t *node)
{
	if (!node || node->type != YAML_SCALAR_NODE)
		return NULL;
	return (const char *)node->data.scalar.value;
}

yaml_node_t *spec_map_get(struct spec_file *sf, yaml_node_t *map,
			  const char *key)
{
	yaml_node_pair_t *p;

	if (!map || map->type != YAML_MAPPING_NODE)
		return NULL;
	for (p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top;
	     p++) {
		const char *k = spec_scalar(spec_node(sf, p->key));

		if (k && !strcmp(k, key))
			return spec_node(sf, p->value);
	}
	return NULL;
}

int spec_parse_size(const char *s, uint64_t *out)
{
	char *end;
	unsigned long long v;
	uint64_t mult = 1;

	errno = 0;
	if (!s || !*s || *s == '-')
		return -1;
	v = strtoull(s, &end, 10);
	if (errno || end == s)
		return -1;
	switch (*end) {
	case 'k':
	case 'K':
		mult = 1ULL << 10;
		end++;
		break;
	case 'm':
	case 'M':
		mult = 1ULL << 20;
		end++;
		break;
	case 'g':
	case 'G':
		mult = 1ULL << 30;
		end++;
		break;
	case 't':
	case 'T':
		mult = 1ULL << 40;
		end++;
		break;
	}
	if (*end == 'i' && mult > 1)
		end++;
	if ((*end == 'B' || *end == 'b') && end[1] == '\0')
		end++;
	if (*end)
		return -1;
	if (v > UINT64_MAX / mult)
		return -1;
	*out = v * mult;
	return 0;
}

void spec_strlist_add(struct spec_strlist *l, const char *s)
{
	l->v = xrealloc(l->v, (l->n + 2) * sizeof(*l->v));
	l->v[l->n++] = xstrdup(s);
	l->v[l->n] = NULL;
}

void spec_strlist_free(struct spec_strlist *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
	l->v = NULL;
	l->n = 0;
}

void spec_fields_free(const struct spec_field *fields, void *obj)
{
	for (const struct spec_field *f = fields; f->name; f++) {
		void *slot = (char *)obj + f->offset;

		switch (f->type) {
		case SPEC_STR:
		case SPEC_TEXT:
		case SPEC_ENUM:
			free(*(char **)slot);
			*(char **)slot = NULL;
			break;
		case SPEC_STRLIST:
			spec_strlist_free(slot);
			break;
		case SPEC_MAP:
			if (f->sub)
				spec_fields_free(f->sub, slot);
			break;
		case SPEC_INT:
		case SPEC_SIZE:
		case SPEC_MIB:
		case SPEC_BOOL:
			break;
		}
	}
}

bool spec_strlist_has(const struct spec_strlist *l, const char *s)
{
	for (size_t i = 0; i < l->n; i++)
		if (!strcmp(l->v[i], s))
			return true;
	return false;
}

static bool all_in(const char *s, const char *set)
{
	return strspn(s, set) == strlen(s);
}

#define ALNUM "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"

static bool has_dotdot(const char *s)
{
	for (const char *p = s; (p = strstr(p, "..")); p++)
		if ((p == s || p[-1] == '/') && (p[2] == '/' || !p[2]))
			return true;
	return false;
}

static const char *check_url(const char *s)
{
	static const char *const schemes[] = { "https://", "http://", "git://",
					       "ssh://" };

	if (s[0] == '/')
		return has_dotdot(s) ? "must not contain '..'" : NULL;
	for (size_t i = 0; i < ARRAY_SIZE(schemes); i++) {
		size_t n = strlen(schemes[i]);

		if (strncmp(s, schemes[i], n))
			continue;
		/* ssh://-oProxyCommand=... is an option to ssh. */
		if (!isalnum((unsigned char)s[n]) && s[n] != '[')
			return "the host must start with a letter or digit";
		return all_in(s, ALNUM "-._~:/?#[]@!$&'()*+,;=%") ?
			       NULL :
			       "has characters a URL does not";
	}
	return "must be an https://, http://, git:// or ssh:// URL or an absolute path";
}

const char *spec_value_check(enum spec_value v, const char *s)
{
	if (v != SPEC_V_ANY && v != SPEC_V_ARG && s[0] == '-')
		return "must not start with '-'";
	switch (v) {
	case SPEC_V_ANY:
	case SPEC_V_ARG:
	case SPEC_V_PATH: /* the leading '-' was checked above */
		return NULL;
	case SPEC_V_NAME:
		return spec_valid_name(s) ? NULL :
					    "must be [A-Za-z0-9._-]{1,64}, "
					    "not starting with '.' or '-'";
	case SPEC_V_WORD:
		return *s && all_in(s, ALNUM "._+:~=-") ?
			       NULL :
			       "must be [A-Za-z0-9._+:~=-]";
	case SPEC_V_URL:
		return check_url(s);
	case SPEC_V_MAKE_TARGET: {
		size_t n = strlen(s);

		return n >= 6 && !strcmp(s + n - 6, "config") &&
				       all_in(s, "abcdefghijklmnopqrstuvwxyz"
						 "0123456789_") ?
			       NULL :
			       "must be a make config target ([a-z0-9_]*config)";
	}
	case SPEC_V_REF:
		return *s && all_in(s, ALNUM "._/-") && !strstr(s, "..") ?
			       NULL :
			       "must be a git ref ([A-Za-z0-9._/-], no '..')";
	case SPEC_V_IQN:
		return (starts_with(s, "iqn.") || starts_with(s, "eui.") ||
			starts_with(s, "naa.")) &&
				       all_in(s, "abcdefghijklmnopqrstuvwxyz"
						 "0123456789.:-") ?
			       NULL :
			       "is not an IQN (iqn.YYYY-MM.reversed.domain:name, lower case)";
	case SPEC_V_RELPATH:
		return *s && s[0] != '/' && !has_dotdot(s) &&
				       all_in(s, ALNUM "._/+-") ?
			       NULL :
			       "must be a file name inside its directory "
			       "([A-Za-z0-9._/+-], no leading '/', no '..')";
	case SPEC_V_ABSPATH:
		return s[0] == '/' && !has_dotdot(s) &&
				       all_in(s, ALNUM "._/+-") ?
			       NULL :
			       "must be an absolute path ([A-Za-z0-9._/+-], no '..')";
	case SPEC_V_OPTS:
		return *s && all_in(s, ALNUM "=,._:/+-") ?
			       NULL :
			       "must be options [A-Za-z0-9=,._:/+-]";
	}
	return "unknown value rule";
}

/* Control bytes, length, then the field's own rule. */
static int check_string(struct spec_file *sf, yaml_node_t *v,
			const struct spec_field *f, const char *s,
			const char *fname)
{
	size_t max = f->type == SPEC_TEXT ? SPEC_TEXT_MAX : SPEC_STR_MAX;
	const char *why;

	if (strlen(s) > max) {
		spec_error(sf, v, fname, "longer than %zu bytes", max);
		return -1;
	}
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if ((*p < ' ' &&
		     !(f->type == SPEC_TEXT && (*p == '\n' || *p == '\t'))) ||
		    *p == 0x7f) {
			spec_error(sf, v, fname,
				   "control character 0x%02x is not allowed",
				   *p);
			return -1;
		}
	}
	why = f->type == SPEC_TEXT ? NULL : spec_value_check(f->value, s);
	if (why) {
		spec_error(sf, v, fname, "'%s' %s", s, why);
		return -1;
	}
	return 0;
}

static void known_fields(struct strbuf *sb, const struct spec_field *fields)
{
	for (const struct spec_field *f = fields; f->name; f++)
		strbuf_addf(sb, "%s%s", f == fields ? "" : ", ", f->name);
}

static int apply_scalar(struct spec_file *sf, yaml_node_t *v,
			const struct spec_field *f, void *slot,
			const char *fname)
{
	const char *s = spec_scalar(v), *d, *e;
	char *end;
	long long n;

	if (!s) {
		spec_error(sf, v, fname, "expected a scalar value");
		return -1;
	}
	switch (f->type) {
	case SPEC_STR:
		if (strchr(s, '\n')) {
			spec_error(sf, v, fname, "must be a single line");
			return -1;
		}
		/* fall through */
	case SPEC_TEXT:
		if (check_string(sf, v, f, s, fname))
			return -1;
		free(*(char **)slot);
		*(char **)slot = xstrdup(s);
		return 0;
	case SPEC_ENUM:
		for (const char *const *c = f->choices; *c; c++) {
			if (!strcmp(*c, s)) {
				free(*(char **)slot);
				*(char **)slot = xstrdup(s);
				return 0;
			}
		}
		{
			struct strbuf sb = STRBUF_INIT;

			for (const char *const *c = f->choices; *c; c++)
				strbuf_addf(&sb, "%s%s",
					    c == f->choices ? "" : ", ", *c);
			spec_error(sf, v, fname, "'%s' is not one of: %s", s,
				   sb.buf);
			strbuf_release(&sb);
		}
		return -1;
	case SPEC_INT:
		if (!f->max) {
			spec_error(sf, v, fname, "internal: no maximum");
			return -1;
		}
		/* Decimal only: strtoll's base 0 read 0100 as 64, 0x40 as hex. */
		d = s + (*s == '-');
		if (num_ll(NULL, s, 10, LLONG_MIN, LLONG_MAX, &n, &e) || *e ||
		    !isdigit((unsigned char)*d) || (d[0] == '0' && d[1])) {
			spec_error(sf, v, fname,
				   "'%s' is not a decimal integer", s);
			return -1;
		}
		if (n < f->min || n > f->max) {
			spec_error(sf, v, fname,
				   "%lld is out of range [%lld, %lld]", n,
				   f->min, f->max);
			return -1;
		}
		*(long long *)slot = n;
		return 0;
	case SPEC_SIZE: {
		uint64_t sz;

		if (spec_parse_size(s, &sz) < 0) {
			spec_error(sf, v, fname,
				   "'%s' is not a size (e.g. 4096, 512M, 2G)",
				   s);
			return -1;
		}
		if (!f->max || sz < (uint64_t)f->min || sz > (uint64_t)f->max) {
			spec_error(sf, v, fname,
				   "%s is out of range [%lld, %lld] bytes", s,
				   f->min, f->max);
			return -1;
		}
		*(uint64_t *)slot = sz;
		return 0;
	}
	case SPEC_MIB: {
		uint64_t sz;

		/* Memory: a plain number is MiB, a size says its unit. */
		if (s[strspn(s, "0123456789")] && !spec_parse_size(s, &sz) &&
		    !(sz & ((1 << 20) - 1))) {
			n = (long long)(sz >> 20);
		} else {
			errno = 0;
			n = strtoll(s, &end, 10);
			if (errno || end == s || *end || *s == '-' ||
			    *s == '+') {
				spec_error(
					sf, v, fname,
					"'%s' is not a whole number of MiB (512, 512M, 2G)",
					s);
				return -1;
			}
		}
		if (!f->max || n < f->min || n > f->max) {
			spec_error(sf, v, fname,
				   "%s is out of range [%lld, %lld] MiB", s,
				   f->min, f->max);
			return -1;
		}
		*(long long *)slot = n;
		return 0;
	}
	case SPEC_BOOL:
		if (!strcmp(s, "true") || !strcmp(s, "yes") ||
		    !strcmp(s, "on")) {
			*(bool *)slot = true;
		} else if (!strcmp(s, "false") || !strcmp(s, "no") ||
			   !strcmp(s, "off")) {
			*(bool *)slot = false;
		} else {
			spec_error(sf, v, fname,
				   "'%s' is not a boolean (true/false)", s);
			return -1;
		}
		return 0;
	default:
		return -1;
	}
}

/* A list item is a single-line string under the field's rule. */
static int check_item(struct spec_file *sf, yaml_node_t *v,
		      const struct spec_field *f, const char *s,
		      const char *fname)
{
	struct spec_field one = *f;

	one.type = SPEC_STR;
	if (strchr(s, '\n')) {
		spec_error(sf, v, fname, "list items must be single lines");
		return -1;
	}
	return check_string(sf, v, &one, s, fname);
}

static int apply_field(struct spec_file *sf, yaml_node_t *v,
		       const struct spec_field *f, void *obj, const char *fname)
{
	void *slot = (char *)obj + f->offset;

	if (f->type == SPEC_MAP && f->sub)
		return spec_apply(sf, v, f->sub, slot, fname);
	if (f->type == SPEC_MAP)
		return f->parse(sf, v, fname, obj);
	if (f->type != SPEC_STRLIST)
		return apply_scalar(sf, v, f, slot, fname);

	if (spec_scalar(v)) {
		/* A single scalar is a one-element list. */
		if (check_item(sf, v, f, spec_scalar(v), fname))
			return -1;
		spec_strlist_add(slot, spec_scalar(v));
		return 0;
	}
	if (v->type != YAML_SEQUENCE_NODE) {
		spec_error(sf, v, fname, "expected a list");
		return -1;
	}
	for (yaml_node_item_t *i = v->data.sequence.items.start;
	     i < v->data.sequence.items.top; i++) {
		yaml_node_t *item = spec_node(sf, *i);
		const char *s = spec_scalar(item);

		if (!s) {
			spec_error(sf, item, fname,
				   "list items must be scalars");
			return -1;
		}
		if (i - v->data.sequence.items.start >= SPEC_MAX_ITEMS) {
			spec_error(sf, item, fname, "more than %d items",
				   SPEC_MAX_ITEMS);
			return -1;
		}
		if (check_item(sf, item, f, s, fname))
			return -1;
		spec_strlist_add(slot, s);
	}
	return 0;
}

int spec_apply(struct spec_file *sf, yaml_node_t *map,
	       const struct spec_field *fields, void *obj, const char *prefix)
{
	int before = sf->nr_errors;
	char fname[256];

	if (!map || map->type != YAML_MAPPING_NODE) {
		spec_error(sf, map, prefix && *prefix ? prefix : "(top)",
			   "expected a mapping of field: value");
		return -1;
	}
	if (map->data.mapping.pairs.top - map->data.mapping.pairs.start >
	    SPEC_MAX_KEYS) {
		spec_error(sf, map, prefix && *prefix ? prefix : "(top)",
			   "more than %d keys", SPEC_MAX_KEYS);
		return -1;
	}
	for (yaml_node_pair_t *p = map->data.mapping.pairs.start;
	     p < map->data.mapping.pairs.top; p++) {
		yaml_node_t *k = spec_node(sf, p->key);
		const char *key = spec_scalar(k);
		const struct spec_field *f;
		yaml_node_pair_t *q;

		snprintf(fname, sizeof(fname), "%s%s%s", prefix ? prefix : "",
			 prefix && *prefix ? "." : "", key ? key : "?");
		/* YAML says keys are unique; libyaml does not check. */
		for (q = map->data.mapping.pairs.start; key && q < p; q++) {
			yaml_node_t *qk = spec_node(sf, q->key);
			const char *k2 = spec_scalar(qk);

			if (k2 && !strcmp(k2, key))
				break;
		}
		if (key && q < p) {
			spec_error(sf, k, fname,
				   "duplicate key (first at line %d)",
				   spec_line(spec_node(sf, q->key)));
			continue;
		}
		for (f = fields; f->name; f++)
			if (key && !strcmp(f->name, key))
				break;
		if (!f->name) {
			struct strbuf sb = STRBUF_INIT;

			known_fields(&sb, fields);
			spec_error(sf, k, fname, "unknown field (known: %s)",
				   sb.buf);
			strbuf_release(&sb);
			continue;
		}
		apply_field(sf, spec_node(sf, p->value), f, obj, fname);
	}
	for (const struct spec_field *f = fields; f->name; f++) {
		if (!f->required || spec_map_get(sf, map, f->name))
			continue;
		snprintf(fname, sizeof(fname), "%s%s%s", prefix ? prefix : "",
			 prefix && *prefix ? "." : "", f->name);
		spec_error(sf, map, fname, "required field is missing");
	}
	return sf->nr_errors > before ? -1 : 0;
}

int spec_load_file(const char *path, const struct spec_field *fields, void *obj,
		   struct strbuf *err, int (*check)(struct spec_file *, void *))
{
	struct spec_file sf;
	int ret = -1;

	if (spec_open(&sf, path) == 0) {
		spec_apply(&sf, spec_root(&sf), fields, obj, "");
		if (check && !sf.nr_errors)
			check(&sf, obj);
		ret = sf.nr_errors ? -1 : 0;
	}
	if (ret) {
		if (err)
			strbuf_add(err, sf.errors.buf, sf.errors.len);
		else
			fputs(sf.errors.buf, stderr);
	}
	spec_close(&sf);
	return ret;
}

bool spec_valid_name(const char *name)
{
	if (!name || !*name || strlen(name) > 64 || name[0] == '.')
		return false;
	for (const char *p = name; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		      (*p >= '0' && *p <= '9') || *p == '.' || *p == '_' ||
		      *p == '-'))
			return false;
	return true;
}

const struct metric *spec_metric(struct spec_file *sf, const yaml_node_t *node,
				 const char *field, const char *name)
{
	struct strbuf err = STRBUF_INIT;
	const struct metric *m = metric_lookup(name, &err);

	if (!m)
		spec_error(sf, node, field, "%s", err.buf);
	strbuf_release(&err);
	return m;
}
