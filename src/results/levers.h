/* SPDX-License-Identifier: GPL-2.0 */
#ifndef WBLAB_RESULTS_LEVERS_H
#define WBLAB_RESULTS_LEVERS_H

/*
 * The noise levers: how a cell's guest is run on its host, apart from
 * what it runs (kernel, topology, workload). Each is a row of one table
 * (levers.c): its name, its values, the default and the value a cell
 * written before the lever existed ran with. A setting travels as text,
 * "pin=on,cache=directsync" (the matrix spec's levers:, `wblab run
 * --levers`, the job file) and is recorded in cell.json as the object
 * "levers" with every lever's value. Two cells whose levers differ are
 * never one population: the report and the jobs split them into groups
 * by levers_cell_key() (docs/report.md, "Noise"). A new lever is a row
 * in levers.c, its effect in cell/tune.c (or the planner), and a test.
 */
#include <json-c/json.h>
#include <stdbool.h>

#include "util/strbuf.h"

enum lever_id {
	LEVER_PIN, /* vCPU and emulator threads pinned (<cputune>) */
	LEVER_CACHE, /* the disks' cache mode */
	LEVER_AIO, /* the disks' AIO */
	LEVER_IOTHREAD, /* the disks served by an iothread */
	LEVER_DROP_HOST_CACHE, /* the cell's files out of the host page cache */
	LEVER_WARMUP, /* a warm-up run of the workload before its phase */
	LEVER_CLOCK, /* wall, or icount: guest-virtual time */
	LEVER__N,
};

#define LEVER_MAX_VALUES 4

struct lever {
	const char *name;
	const char *values[LEVER_MAX_VALUES + 1]; /* NULL-terminated */
	int dflt; /* index of the default */
	int legacy; /* what cells from before the lever ran with */
	const char *help;
};

extern const struct lever lever_table[LEVER__N];

/* One setting of every lever: an index into its values. */
struct levers {
	unsigned char v[LEVER__N];
};

/* Every lever at its default. */
void levers_default(struct levers *l);
/*
 * "NAME=VALUE[,NAME=VALUE]..." over the defaults ("" and "default" are
 * the defaults). An unknown name or value, a lever given twice, or a
 * combination QEMU refuses is -1 with why in err (no prefix: the caller
 * names the option or file:line).
 */
int levers_parse(const char *text, struct levers *l, struct strbuf *err);
const char *lever_value(const struct levers *l, enum lever_id id);
bool lever_is(const struct levers *l, enum lever_id id, const char *value);
/* Only what differs from the defaults, "pin=on,cache=directsync", or "default". */
char *levers_text(const struct levers *l);
/* The same as a name part of a cell id: "pin-on.cache-directsync", "default". */
char *levers_label(const struct levers *l);
/* cell.json's "levers": every lever's value. */
json_object *levers_json(const struct levers *l);
/*
 * A cell's levers as one comparable string, every lever in table order
 * ("pin=off,cache=none,..."): cell.json's levers, a lever it lacks at
 * its legacy value (an older cell), a value this wblab does not know
 * kept as it is (bounded, [a-z0-9_-] only).
 */
char *levers_cell_key(json_object *cell);
/* The levers of a key that differ from the defaults, or "" (for titles). */
char *levers_key_brief(const char *key);

#endif
