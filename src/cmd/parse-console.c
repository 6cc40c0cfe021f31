// SPDX-License-Identifier: GPL-2.0
/* wblab parse-console [--json] FILE...: kernel events in console logs. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cmd/cmds.h"
#include "collect/console.h"
#include "util/log.h"
#include "util/parse-options.h"

/* Escape ERE metacharacters so grep -E matches the literal string. */
static void print_ere(const char *s)
{
	for (; *s; s++) {
		if (strchr("\\.[]()*+?{}|^$", *s))
			putchar('\\');
		putchar(*s);
	}
	putchar('\n');
}

static void print_text(const char *file, const struct console_report *r)
{
	size_t i;
	const char *title = r->nr_events ? NULL : "";

	for (i = 0; !title && i < r->nr_events; i++)
		if (r->events[i].kind == r->kind)
			title = r->events[i].title;
	printf("%s: %s%s%s\n", file, r->kind, title && *title ? ": " : "",
	       title ? title : "");
	for (i = 0; i < r->nr_events; i++)
		printf("    line %ld: %s: %s\n", r->events[i].line,
		       r->events[i].kind, r->events[i].title);
	if (r->dropped_events)
		printf("    (%zu more events not kept)\n", r->dropped_events);
}

static int parse_one(const char *file, bool json)
{
	struct console_report r;
	int ret;

	console_report_init(&r);
	if (!strcmp(file, "-"))
		ret = console_parse_fd(0, &r);
	else
		ret = console_parse_file(file, &r);
	if (ret < 0) {
		error("parse-console: cannot read %s: %s", file,
		      strerror(errno));
		return -1;
	}
	if (json) {
		json_object *o = console_report_to_json(&r, file);

		puts(json_object_to_json_string_ext(
			o, JSON_C_TO_STRING_PLAIN |
				   JSON_C_TO_STRING_NOSLASHESCAPE));
		json_object_put(o);
	} else {
		print_text(file, &r);
	}
	console_report_free(&r);
	return 0;
}

int cmd_parse_console(int argc, char **argv)
{
	static const char *const usage[] = {
		"wblab parse-console [--json] FILE...",
		"wblab parse-console --print-patterns",
		NULL,
	};
	bool json = false, patterns = false;
	int n, ret = 0;
	struct option opts[] = {
		OPT_GROUP(
			"Find kernel events (oops, panic, OOM, lockups, warnings, ...) in\n"
			"kernel console logs. FILE may be - for standard input."),
		OPT_BOOL(0, "json", &json,
			 "one JSON object per file, one per line"),
		OPT_BOOL(0, "print-patterns", &patterns,
			 "print the trigger strings, one per line, as extended "
			 "regular expressions (for grep -E)"),
		OPT_END(),
	};

	n = parse_options(argc, argv, "wblab parse-console", opts, usage, 0);
	if (patterns) {
		for (size_t k = 0; k < console_nr_patterns(); k++)
			print_ere(console_pattern(k));
		return 0;
	}
	if (!n)
		return usage_error("wblab parse-console", "no FILE given");
	for (int i = 0; i < n; i++) {
		if (parse_one(argv[i], json) < 0)
			ret = 2;
		fflush(stdout);
	}
	return ret;
}
