/* SPDX-License-Identifier: GPL-2.0 */
#ifndef WBLAB_SPEC_H
#define WBLAB_SPEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <yaml.h>

#include "results/metric.h"
#include "util/strbuf.h"

/*
 * Table-driven YAML spec loading (after fio's options.c): each spec kind is
 * a table of field descriptors, so every error names file:line: field.
 */
struct spec_file {
	char *path;
	yaml_document_t doc;
	bool loaded;
	struct strbuf errors; /* "file:line: field: message\n" lines */
	int nr_errors;
};

enum spec_type {
	SPEC_STR, /* char * */
	SPEC_TEXT, /* char *, multi-line block allowed */
	SPEC_INT, /* long long, within [min, max] */
	SPEC_SIZE, /* uint64_t bytes: "512M", "2G", "4096" */
	SPEC_MIB, /* long long MiB: "512" (MiB), "512M", "2G"; min, max in MiB */
	SPEC_BOOL, /* bool */
	SPEC_ENUM, /* char *, one of choices */
	SPEC_STRLIST, /* struct spec_strlist: a sequence of scalars */
	SPEC_MAP, /* nested map: handled by a callback */
};

/*
 * What a string may be, for values that reach a command line or a path
 * (docs/specs.md, "Value rules"). Every string also has no control bytes
 * and at most SPEC_STR_MAX bytes.
 */
enum spec_value {
	SPEC_V_ANY, /* free text (descriptions, guest-only commands) */
	SPEC_V_NAME, /* [A-Za-z0-9._-], not starting with '.' or '-' */
	SPEC_V_WORD, /* a package, suite, size: [A-Za-z0-9._+:~=-], no leading '-' */
	SPEC_V_URL, /* http(s)://, git://, ssh:// with a host, or an absolute path */
	SPEC_V_MAKE_TARGET, /* a kernel config make target: [a-z0-9_]*config */
	SPEC_V_REF, /* a git ref: [A-Za-z0-9._/-], no leading '-', no ".." */
	SPEC_V_IQN, /* iqn./eui./naa. then [a-z0-9.:-] */
	SPEC_V_RELPATH, /* a file inside its spec directory: no '/' lead, no ".." */
	SPEC_V_ABSPATH, /* an absolute guest path without ".." */
	SPEC_V_OPTS, /* mount options: [A-Za-z0-9=,._:/+-], no leading '-' */
	SPEC_V_ARG, /* an option to a guest tool: printable, no shell needed */
	SPEC_V_PATH, /* a host path, absolute or relative: no leading '-' */
};

#define SPEC_STR_MAX 4096
#define SPEC_TEXT_MAX (1 << 20)
#define SPEC_MAX_KEYS 1024 /* keys in one mapping */
#define SPEC_MAX_ITEMS 1024 /* items in one list */

/* NULL if s may be a value of kind v, else why not. */
const char *spec_value_check(enum spec_value v, const char *s);

struct spec_strlist {
	char **v;
	size_t n;
};

struct spec_file;
struct spec_field;

typedef int (*spec_map_fn)(struct spec_file *sf, yaml_node_t *node,
			   const char *field, void *obj);

struct spec_field {
	const char *name;
	enum spec_type type;
	size_t offset;
	bool required;
	long long min, max;
	const char *const *choices; /* NULL-terminated, for SPEC_ENUM */
	spec_map_fn parse; /* for SPEC_MAP: a custom parser, or */
	const struct spec_field *sub; /* for SPEC_MAP: a nested field table */
	enum spec_value value; /* for SPEC_STR and SPEC_STRLIST items */
};

/* clang-format off */
#define SPEC_END { .name = NULL }
/* A nested map whose fields fill the same object: "hog: {size, hold}". */
#define SPEC_SUBMAP(n, req, tbl) \
	{ .name = (n), .type = SPEC_MAP, .required = (req), .sub = (tbl) }
/* A nested map whose fields fill a struct at off: "disks: {count, size}". */
#define SPEC_SUBMAP_AT(n, req, tbl, off) \
	{ .name = (n), .type = SPEC_MAP, .required = (req), .sub = (tbl), .offset = (off) }
/* clang-format on */

/*
 * Parse path (spec-load.c); YAML syntax errors are recorded and return
 * -1. A spec is read only from a regular file of at most SPEC_FILE_MAX
 * bytes (a FIFO given as --matrix hung the run), and nested at most
 * SPEC_MAX_DEPTH deep: libyaml takes quadratic time over deep nesting
 * (200,000 levels in 400 KB took 75 s), so the depth is counted on its
 * event stream first, which stops at the first level too deep.
 */
#define SPEC_FILE_MAX (4u << 20)
#define SPEC_MAX_DEPTH 64
int spec_open(struct spec_file *sf, const char *path);
int spec_open_string(struct spec_file *sf, const char *name, const char *text);
void spec_close(struct spec_file *sf);
yaml_node_t *spec_root(struct spec_file *sf);
yaml_node_t *spec_node(struct spec_file *sf, int index);

void spec_error(struct spec_file *sf, const yaml_node_t *node,
		const char *field, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* 1-based line of a node (0 if unknown). */
int spec_line(const yaml_node_t *node);
const char *spec_scalar(const yaml_node_t *node);
yaml_node_t *spec_map_get(struct spec_file *sf, yaml_node_t *map,
			  const char *key);

/*
 * Fill obj from map according to fields. prefix names the map for errors
 * ("layers[2]"); unknown keys are errors. Returns -1 if any error was recorded.
 */
int spec_apply(struct spec_file *sf, yaml_node_t *map,
	       const struct spec_field *fields, void *obj, const char *prefix);
/*
 * Open path, apply fields to its root map, then check(sf, obj) if nothing
 * failed. Errors go to err, or to stderr when err is NULL. 0 on success.
 */
int spec_load_file(const char *path, const struct spec_field *fields, void *obj,
		   struct strbuf *err,
		   int (*check)(struct spec_file *, void *));
int spec_parse_size(const char *s, uint64_t *out);
void spec_strlist_free(struct spec_strlist *l);
/* Free every string and list that fields (and their submaps) fill in obj. */
void spec_fields_free(const struct spec_field *fields, void *obj);
void spec_strlist_add(struct spec_strlist *l, const char *s);
bool spec_strlist_has(const struct spec_strlist *l, const char *s);

/*
 * The first DIR/FILE of the search path (to free), or NULL: ./DIR (the
 * current directory's lab/kernels, topologies ...), then
 * $XDG_CONFIG_HOME/wblab/DIR (DIR without "lab/"; default
 * ~/.config/wblab), then the wblab home's (docs/specs.md).
 */
char *spec_search(const char *dir, const char *file);
/*
 * Resolve NAME to DIR/NAME.yaml on the search path. On failure, prints the
 * known names and returns NULL.
 */
char *spec_resolve(const char *kind, const char *dir, const char *name);
/* List the known NAMEs of a spec directory on the search path (sorted). */
void spec_list_names(const char *dir, struct spec_strlist *out);
/* Check a name is [A-Za-z0-9._-]+ (names become file and domain names). */
bool spec_valid_name(const char *name);
/*
 * The registry's row of a metric name a spec gives (results/metric.h), or
 * NULL with "FILE:LINE: field: unknown metric 'X'; did you mean Y?".
 */
const struct metric *spec_metric(struct spec_file *sf, const yaml_node_t *node,
				 const char *field, const char *name);

#endif
