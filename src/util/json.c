// SPDX-License-Identifier: GPL-2.0
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/fs.h"
#include "util/json.h"
#include "util/log.h"
#include "util/strbuf.h"
#include "util/strvec.h"
#include "util/utf8.h"

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

/* v made strict in place, or its replacement (NULL for a non-finite number). */
static json_object *strict_value(json_object *v, bool *replace)
{
	struct strbuf sb = STRBUF_INIT;
	const char *s;
	size_t len;

	*replace = false;
	if (json_object_is_type(v, json_type_double) &&
	    !isfinite(json_object_get_double(v))) {
		*replace = true;
		return NULL;
	}
	if (!json_object_is_type(v, json_type_string)) {
		json_make_strict(v);
		return v;
	}
	s = json_object_get_string(v);
	len = json_object_get_string_len(v);
	if (utf8_valid(s, len))
		return v;
	strbuf_add_utf8(&sb, s, len);
	*replace = true;
	v = json_object_new_string_len(sb.buf, sb.len);
	strbuf_release(&sb);
	return v;
}

/* Keys that are not UTF-8 are re-added under their repaired name. */
static void strict_keys(json_object *o)
{
	struct strvec bad = STRVEC_INIT;

	json_object_object_foreach(o, k, v)
	{
		(void)v;
		if (!utf8_valid(k, strlen(k)))
			strvec_push(&bad, k);
	}
	for (size_t i = 0; i < bad.nr; i++) {
		struct strbuf sb = STRBUF_INIT;
		json_object *v =
			json_object_get(json_object_object_get(o, bad.v[i]));

		strbuf_add_utf8(&sb, bad.v[i], strlen(bad.v[i]));
		json_object_object_del(o, bad.v[i]);
		json_object_object_add(o, sb.buf, v);
		strbuf_release(&sb);
	}
	strvec_clear(&bad);
}

void json_make_strict(json_object *o)
{
	bool replace;

	if (json_object_is_type(o, json_type_object)) {
		strict_keys(o);
		json_object_object_foreach(o, k, v)
		{
			json_object *n = strict_value(v, &replace);

			if (replace)
				json_object_object_add(o, k, n);
		}
	} else if (json_object_is_type(o, json_type_array)) {
		for (size_t i = 0; i < json_object_array_length(o); i++) {
			json_object *v = json_object_array_get_idx(o, i);
			json_object *n = strict_value(v, &replace);

			if (replace)
				json_object_array_put_idx(o, i, n);
		}
	}
}
