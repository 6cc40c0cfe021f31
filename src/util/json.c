// SPDX-License-Identifier: GPL-2.0
#include <stdlib.h>
#include <string.h>

#include "util/fs.h"
#include "util/json.h"
#include "util/log.h"
#include "util/strbuf.h"

int json_write_atomic(const char *path, json_object *o)
{
	const char *text = json_object_to_json_string_ext(
		o, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE);
	struct strbuf sb = STRBUF_INIT;
	int ret;

	strbuf_addstr(&sb, text);
	strbuf_addch(&sb, '\n');
	ret = write_file_atomic(path, sb.buf, sb.len, 0644);
	strbuf_release(&sb);
	return ret;
}

json_object *json_path(json_object *o, const char *path)
{
	char *copy = xstrdup(path), *save, *tok;

	for (tok = strtok_r(copy, ".", &save); tok && o;
	     tok = strtok_r(NULL, ".", &save)) {
		json_object *next = NULL;

		if (json_object_is_type(o, json_type_array)) {
			char *end;
			long idx = strtol(tok, &end, 10);

			/* Only a whole index: "x" of an array is missing. */
			if (!*end && idx >= 0)
				next = json_object_array_get_idx(o, idx);
		} else {
			json_object_object_get_ex(o, tok, &next);
		}
		o = next;
	}
	free(copy);
	return o;
}
