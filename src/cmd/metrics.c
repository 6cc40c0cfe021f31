// SPDX-License-Identifier: GPL-2.0
/*
 * wblab metrics [--json] [NAME...]: the metric registry (results/metric.h),
 * the names every command and spec takes. The text is a Markdown table:
 * docs/results.md holds it as printed.
 */
#include <stdio.h>
#include <stdlib.h>

#include "cmd/cmds.h"
#include "results/metric.h"
#include "util/log.h"
#include "util/parse-options.h"

static void print_row(const struct metric *m)
{
	printf("| %s | `%s` | %s | %s | %s | %s | %s | %s |\n", m->name,
	       m->path, m->unit,
	       m->better == BETTER_HIGHER ? "higher" : "lower",
	       metric_kind_name(m->kind), metric_test_name(m->test),
	       metric_table_name(m->table), m->family);
}

int cmd_metrics(int argc, char **argv)
{
	static const char *const usage[] = { "wblab metrics [--json] [NAME...]",
					     NULL };
	bool json = false;
	struct option opts[] = {
		OPT_BOOL(0, "json", &json, "every field of each row, as JSON"),
		OPT_END(),
	};
	const struct metric **rows;
	json_object *arr = NULL;
	size_t n = 0;
	int ret = 0;

	argc = parse_options(argc, argv, "wblab metrics", opts, usage, 0);
	rows = xzalloc((argc ? (size_t)argc : metric_nr_rows) * sizeof(*rows));
	for (int i = 0; i < argc; i++) {
		struct strbuf err = STRBUF_INIT;

		rows[n] = metric_lookup(argv[i], &err);
		if (rows[n])
			n++;
		else
			ret = usage_error("wblab metrics", "%s", err.buf);
		strbuf_release(&err);
	}
	if (ret)
		goto out;
	if (!argc)
		for_each_metric(m) rows[n++] = m;
	if (json)
		arr = json_object_new_array();
	else if (n)
		printf("| name | cell.json path | unit | better | kind | test "
		       "| table | family |\n|---|---|---|---|---|---|---|---|\n");
	for (size_t i = 0; i < n; i++)
		if (json)
			json_object_array_add(arr, metric_json(rows[i]));
		else
			print_row(rows[i]);
	if (json)
		puts(json_object_to_json_string_ext(
			arr, JSON_C_TO_STRING_PRETTY |
				     JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(arr);
out:
	free(rows);
	return ret;
}
