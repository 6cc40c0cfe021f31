// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <math.h>
#include <stdio.h>
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

/*
 * What json-c spends on a tree, measured with json-c 0.16: an object
 * about 800 bytes (its hash table), an array 160, a number or string 90.
 */
#define JSON_OBJECT_COST 800
#define JSON_ARRAY_COST 160
#define JSON_VALUE_COST 96

/*
 * The end of the string or bare token at p (a string starts at '"'),
 * never past end: the text need not end in a NUL (a guest's fio.json).
 */
static const char *token_end(const char *p, const char *end)
{
	if (*p != '"') {
		while (p < end && *p && !strchr(",:]} \t\r\n", *p))
			p++;
		return p;
	}
	for (p++; p < end && *p != '"'; p++)
		p += *p == '\\' && p + 1 < end;
	return p < end ? p + 1 : end;
}

size_t json_tree_cost(const char *text, size_t len)
{
	const char *p = text, *end = text + len;
	size_t cost = len;

	while (p < end && *p) {
		switch (*p) {
		case '{':
			cost += JSON_OBJECT_COST;
			p++;
			break;
		case '[':
			cost += JSON_ARRAY_COST;
			p++;
			break;
		case '}':
		case ']':
		case ',':
		case ':':
		case ' ':
		case '\t':
		case '\r':
		case '\n':
			p++;
			break;
		default:
			cost += JSON_VALUE_COST;
			p = token_end(p, end);
		}
	}
	return cost;
}

int json_text_ok(const char *text, size_t len)
{
	if (json_tree_cost(text, len) <= JSON_MEM_FACTOR * len + (1u << 20))
		return 0;
	errno = E2BIG;
	return -1;
}

const char *json_strerror(int err)
{
	if (err == EBADMSG)
		return "not JSON";
	if (err == E2BIG)
		return "more JSON values than a file of its size holds: not read";
	return open_regular_strerror(err);
}

json_object *json_from_file_capped(const char *path, size_t max)
{
	struct strbuf sb = STRBUF_INIT;
	json_object *o = NULL;

	if (!read_file_capped(&sb, path, max) &&
	    !json_text_ok(sb.buf, sb.len)) {
		o = json_tokener_parse(sb.buf);
		if (!o)
			errno = EBADMSG;
	}
	strbuf_release(&sb);
	return o;
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

const char *json_str_at(json_object *o, const char *path)
{
	json_object *v = json_path(o, path);

	return json_object_is_type(v, json_type_string) ?
		       json_object_get_string(v) :
		       NULL;
}

static bool is_number(json_object *v)
{
	return json_object_is_type(v, json_type_int) ||
	       json_object_is_type(v, json_type_double);
}

double json_num_at(json_object *o, const char *path)
{
	json_object *v = json_path(o, path);
	double d;

	if (!is_number(v))
		return NAN;
	d = json_object_get_double(v);
	return isfinite(d) ? d : NAN;
}

long long json_int_at(json_object *o, const char *path, long long def)
{
	json_object *v = json_path(o, path);

	return is_number(v) ? (long long)json_object_get_int64(v) : def;
}

bool json_bool_at(json_object *o, const char *path, bool def)
{
	json_object *v = json_path(o, path);

	return json_object_is_type(v, json_type_boolean) ?
		       json_object_get_boolean(v) :
		       def;
}

json_object *json_array_at(json_object *o, const char *path)
{
	json_object *v = json_path(o, path);

	return json_object_is_type(v, json_type_array) ? v : NULL;
}

size_t json_len_at(json_object *o, const char *path)
{
	json_object *a = json_array_at(o, path);

	return a ? json_object_array_length(a) : 0;
}

size_t json_list_at(json_object *o, const char *path, size_t max,
		    json_object **a)
{
	size_t n = json_len_at(o, path);

	*a = json_array_at(o, path);
	return n < max ? n : max;
}

char *json_dup_at(json_object *o, const char *path)
{
	const char *s = json_str_at(o, path);

	return s ? xstrdup(s) : NULL;
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

/* Decimals json_round() keeps of x: 3, and one more per order below 1. */
static int json_decimals(double x)
{
	double a = fabs(x);
	int d = 3;

	for (; a > 0 && a < 0.1 && d < 15; a *= 10)
		d++;
	return a > 0 && a < 1 ? d + 1 : d;
}

double json_round(double x)
{
	if (!isfinite(x))
		return x;
	return round(x * pow(10, json_decimals(x))) / pow(10, json_decimals(x));
}

/*
 * Written as its shortest decimal ("0.2642", not json-c's %.17g
 * "0.26419999999999999"): the same double to any reader.
 */
json_object *json_number(double x)
{
	char buf[64];
	size_t n;

	if (!isfinite(x))
		return NULL;
	x = json_round(x);
	n = snprintf(buf, sizeof(buf), "%.*f", json_decimals(x), x);
	while (n > 2 && buf[n - 1] == '0' && buf[n - 2] != '.')
		buf[--n] = '\0';
	return json_object_new_double_s(x, buf);
}

void json_put(json_object *o, const char *key, json_object *v)
{
	json_object_object_add(o, key, v);
}

void json_put_int(json_object *o, const char *key, long long v)
{
	json_object_object_add(o, key, json_object_new_int64(v));
}

void json_put_num(json_object *o, const char *key, double v)
{
	json_object_object_add(o, key, json_number(v));
}

void json_put_str(json_object *o, const char *key, const char *s)
{
	json_object_object_add(o, key, s ? json_object_new_string(s) : NULL);
}
