/* SPDX-License-Identifier: GPL-2.0 */
#ifndef WBLAB_COLLECT_CONSOLE_H
#define WBLAB_COLLECT_CONSOLE_H

/*
 * Kernel console-log parser: finds kernel events (oopses, warnings, OOM
 * kills, lockups, ...) in untrusted console output. Pure, streaming, with
 * bounded memory: lines are truncated to CONSOLE_LINE_MAX bytes and at most
 * CONSOLE_MAX_EVENTS events are kept per log. See docs/console-parser.md.
 */

#include <stdbool.h>
#include <stddef.h>

#include <json-c/json.h>

#define CONSOLE_LINE_MAX 1024
#define CONSOLE_MAX_EVENTS 64
#define CONSOLE_MAX_FRAMES 32

struct console_event {
	const char *kind; /* static string, see docs */
	char *title; /* stable: no addresses, pids, timestamps */
	long line; /* 1-based line of the event's first line */
	json_object *detail; /* extra fields, may be NULL */
};

struct console_report {
	const char *kind; /* primary kind, "none" if none */
	struct console_event *events;
	size_t nr_events;
	size_t bytes, lines;
	size_t dropped_events; /* events beyond CONSOLE_MAX_EVENTS */
};

void console_report_init(struct console_report *r);
void console_report_free(struct console_report *r);

/* Streaming interface. */
struct console_parser *console_parser_new(void);
void console_parser_feed(struct console_parser *p, const char *buf, size_t len);
/* Fills out (which must be initialised); the parser may then only be freed. */
void console_parser_finish(struct console_parser *p,
			   struct console_report *out);
void console_parser_free(struct console_parser *p);

int console_parse_fd(int fd, struct console_report *out); /* -1 on read error */
int console_parse_file(const char *path, struct console_report *out);

/* {"file": ..., "kind": ..., "events": [...]} */
json_object *console_report_to_json(const struct console_report *r,
				    const char *file);

/* oops, panic, stack_overflow, sanitizer, hard_lockup: kernel died/corrupt. */
bool console_kind_is_crash(const char *kind);

/*
 * The literal trigger strings: a line that contains none of them can start
 * no event (used by bench/parse-console to compare with grep -F/-E).
 */
size_t console_nr_patterns(void);
const char *console_pattern(size_t i);

#endif
