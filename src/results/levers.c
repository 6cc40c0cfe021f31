// SPDX-License-Identifier: GPL-2.0
/*
 * The noise levers' table (results/levers.h). The defaults are what every
 * cell ran with before the levers existed (legacy), until bench/noise has
 * measured at idle which ones lower the spread without hiding an effect.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "results/levers.h"
#include "util/json.h"
#include "util/log.h"

/* clang-format off */
const struct lever lever_table[LEVER__N] = {
	[LEVER_PIN] = { "pin", { "off", "on", NULL }, 0, 0,
		"vCPU i on host CPU i, the emulator and iothread on the CPUs "
		"left (else the last one), through libvirt <cputune>" },
	[LEVER_CACHE] = { "cache", { "none", "directsync", "writeback", NULL },
		0, 0,
		"the disks' cache mode: none (O_DIRECT), directsync (O_DIRECT "
		"and O_DSYNC), writeback (through the host page cache)" },
	[LEVER_AIO] = { "aio", { "native", "threads", "io_uring", NULL }, 0, 0,
		"the disks' AIO (native needs cache none or directsync)" },
	[LEVER_IOTHREAD] = { "iothread", { "off", "on", NULL }, 0, 0,
		"every disk served by one iothread, not the main loop" },
	[LEVER_DROP_HOST_CACHE] = { "drop-host-cache", { "off", "on", NULL },
		0, 0,
		"before the guest starts, its own files (kernel, initramfs, "
		"images, disks) out of the host page cache: "
		"posix_fadvise(DONTNEED), never a global drop_caches" },
	[LEVER_WARMUP] = { "warmup", { "off", "on", NULL }, 0, 0,
		"the workload's fio job for at most 3 s before the "
		"workload's own setup (pre:), to warm QEMU's translation cache" },
	[LEVER_CLOCK] = { "clock", { "wall", "icount", NULL }, 0, 0,
		"icount: QEMU -icount shift=0,sleep=off (TCG only): times in "
		"the guest are instruction counts, never compared with wall" },
};
/* clang-format on */

void levers_default(struct levers *l)
{
	for (int i = 0; i < LEVER__N; i++)
		l->v[i] = (unsigned char)lever_table[i].dflt;
}

static int lever_find(const char *name, size_t len)
{
	for (int i = 0; i < LEVER__N; i++)
		if (strlen(lever_table[i].name) == len &&
		    !strncmp(lever_table[i].name, name, len))
			return i;
	return -1;
}

static int value_find(const struct lever *lv, const char *v)
{
	for (int i = 0; lv->values[i]; i++)
		if (!strcmp(lv->values[i], v))
			return i;
	return -1;
}

static void list_values(const struct lever *lv, struct strbuf *err)
{
	for (int i = 0; lv->values[i]; i++)
		strbuf_addf(err, "%s%s", i ? ", " : "", lv->values[i]);
}

static void list_names(struct strbuf *err)
{
	for (int i = 0; i < LEVER__N; i++)
		strbuf_addf(err, "%s%s", i ? ", " : "", lever_table[i].name);
}

/* One NAME=VALUE; seen[] catches a lever given twice. */
static int parse_one(const char *item, struct levers *l, bool *seen,
		     struct strbuf *err)
{
	const char *eq = strchr(item, '=');
	int id, v;

	id = eq ? lever_find(item, (size_t)(eq - item)) : -1;
	if (id < 0) {
		strbuf_addf(err, "'%s' is not NAME=VALUE with NAME one of ",
			    item);
		list_names(err);
		return -1;
	}
	v = value_find(&lever_table[id], eq + 1);
	if (v < 0) {
		strbuf_addf(err, "%s: '%s' is not one of ",
			    lever_table[id].name, eq + 1);
		list_values(&lever_table[id], err);
		return -1;
	}
	if (seen[id]) {
		strbuf_addf(err, "%s is given twice", lever_table[id].name);
		return -1;
	}
	seen[id] = true;
	l->v[id] = (unsigned char)v;
	return 0;
}

int levers_parse(const char *text, struct levers *l, struct strbuf *err)
{
	bool seen[LEVER__N] = { false };
	char *copy, *save = NULL, *tok;
	int ret = 0;

	levers_default(l);
	if (!text || !*text || !strcmp(text, "default"))
		return 0;
	copy = xstrdup(text);
	for (tok = strtok_r(copy, ",", &save); tok && !ret;
	     tok = strtok_r(NULL, ",", &save))
		ret = parse_one(tok, l, seen, err);
	free(copy);
	if (ret)
		return -1;
	/* QEMU: "aio=native was specified, but it requires cache.direct=on" */
	if (lever_is(l, LEVER_AIO, "native") &&
	    lever_is(l, LEVER_CACHE, "writeback")) {
		strbuf_addstr(err, "aio=native needs cache=none or directsync "
				   "(O_DIRECT): give aio=threads or io_uring "
				   "with cache=writeback");
		return -1;
	}
	return 0;
}

const char *lever_value(const struct levers *l, enum lever_id id)
{
	return lever_table[id].values[l->v[id]];
}

bool lever_is(const struct levers *l, enum lever_id id, const char *value)
{
	return !strcmp(lever_value(l, id), value);
}

static char *join(const struct levers *l, char eq, char sep)
{
	struct strbuf sb = STRBUF_INIT;

	for (int i = 0; i < LEVER__N; i++) {
		if (l->v[i] == lever_table[i].dflt)
			continue;
		if (sb.len)
			strbuf_addch(&sb, sep);
		strbuf_addf(&sb, "%s%c%s", lever_table[i].name, eq,
			    lever_value(l, i));
	}
	if (!sb.len)
		strbuf_addstr(&sb, "default");
	return strbuf_detach(&sb, NULL);
}

char *levers_text(const struct levers *l)
{
	return join(l, '=', ',');
}

char *levers_label(const struct levers *l)
{
	return join(l, '-', '.');
}

json_object *levers_json(const struct levers *l)
{
	json_object *o = json_object_new_object();

	for (int i = 0; i < LEVER__N; i++)
		json_object_object_add(
			o, lever_table[i].name,
			json_object_new_string(lever_value(l, i)));
	return o;
}

/* A recorded value as a key part: [a-z0-9_-], at most 32 bytes. */
static void add_value(struct strbuf *sb, const char *v)
{
	for (size_t i = 0; v[i] && i < 32; i++) {
		char ch = v[i];
		bool ok = (ch >= 'a' && ch <= 'z') ||
			  (ch >= '0' && ch <= '9') || ch == '_' || ch == '-';

		strbuf_addch(sb, ok ? ch : '?');
	}
}

char *levers_cell_key(json_object *cell)
{
	json_object *o = json_path(cell, "levers"), *v;
	struct strbuf sb = STRBUF_INIT;

	for (int i = 0; i < LEVER__N; i++) {
		const struct lever *lv = &lever_table[i];

		strbuf_addf(&sb, "%s%s=", i ? "," : "", lv->name);
		if (o && json_object_object_get_ex(o, lv->name, &v) &&
		    json_object_is_type(v, json_type_string))
			add_value(&sb, json_object_get_string(v));
		else
			strbuf_addstr(&sb, lv->values[lv->legacy]);
	}
	return strbuf_detach(&sb, NULL);
}

char *levers_key_brief(const char *key)
{
	struct strbuf sb = STRBUF_INIT;
	char *copy = xstrdup(key), *save = NULL, *tok;

	for (tok = strtok_r(copy, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(tok, '=');
		int id = eq ? lever_find(tok, (size_t)(eq - tok)) : -1;

		if (id >= 0 &&
		    !strcmp(eq + 1,
			    lever_table[id].values[lever_table[id].dflt]))
			continue;
		strbuf_addf(&sb, "%s%s", sb.len ? "," : "", tok);
	}
	free(copy);
	return strbuf_detach(&sb, NULL);
}
