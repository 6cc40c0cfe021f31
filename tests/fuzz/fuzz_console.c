// SPDX-License-Identifier: GPL-2.0
/* libFuzzer: the console parser, fed in pieces whose sizes come from the input. */
#include <stdint.h>
#include <string.h>

#include "collect/console.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct console_parser *p = console_parser_new();
	struct console_report r;
	json_object *o;
	size_t off = 0, step = size ? 1 + data[0] * 37 : 1;

	while (off < size) {
		size_t n = size - off < step ? size - off : step;

		console_parser_feed(p, (const char *)data + off, n);
		off += n;
	}
	console_report_init(&r);
	console_parser_finish(p, &r);
	console_parser_free(p);
	o = console_report_to_json(&r, "console.log");
	json_object_to_json_string(o);
	json_object_put(o);
	console_report_free(&r);
	return 0;
}
