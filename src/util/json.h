/* SPDX-License-Identifier: GPL-2.0 */
#ifndef WBLAB_JSON_H
#define WBLAB_JSON_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>

/* Write a JSON object to path atomically (temp-then-rename), pretty-printed. */
int json_write_atomic(const char *path, json_object *o);
/*
 * Memory for a JSON text from elsewhere, bounded by its size: json-c
 * spends about 800 bytes on an object, so 6 MiB of "{}," took 1.64 GB
 * (17 GB at the 64 MiB cap of a cell.json). json_tree_cost() estimates,
 * in one pass and without allocating, the bytes json-c's tree of text
 * takes (the text itself included); json_text_ok() is 0 when that is at
 * most JSON_MEM_FACTOR times the text (plus 1 MiB), else -1 with errno
 * E2BIG. wblab's own files take 6-8 times their size (cell.json, run.json,
 * fio.json of this lab: at least 139 bytes an object, 28 a value).
 */
#define JSON_MEM_FACTOR 16
size_t json_tree_cost(const char *text, size_t len);
int json_text_ok(const char *text, size_t len);
/*
 * Parse a JSON file of untrusted results: read through read_file_capped()
 * (a regular file, no link followed, at most max bytes) and json_text_ok().
 * NULL with errno set on refusal (see open_regular(); E2BIG: a tree too
 * big for its size), EBADMSG when it is not JSON.
 */
json_object *json_from_file_capped(const char *path, size_t max);
/* Why json_from_file_capped() failed, from its errno. */
const char *json_strerror(int err);
/*
 * Follow a dotted path ("metrics.fio.0.write.bw_kib_s"): object keys, and
 * array indexes where the node is an array. NULL if any step is missing.
 */
json_object *json_path(json_object *o, const char *path);
/*
 * The getters every reader of wblab's JSON uses (one rule each): the value
 * at a json_path() if it has the type asked for, else "absent".
 *   json_str_at:   a string, or NULL;
 *   json_num_at:   a finite number (an int or a double), or NAN: wblab
 *                  writes a non-finite number as null, and an Infinity
 *                  from elsewhere is no measurement either;
 *   json_int_at:   an int (a double truncated), or def;
 *   json_bool_at:  a boolean, or def;
 *   json_array_at: an array, or NULL (json_len_at: its length, or 0;
 *                  json_list_at: the array in *a and its length, at
 *                  most max: past that a file from elsewhere is not
 *                  believed);
 *   json_dup_at:   json_str_at's string copied, or NULL.
 */
const char *json_str_at(json_object *o, const char *path);
double json_num_at(json_object *o, const char *path);
long long json_int_at(json_object *o, const char *path, long long def);
bool json_bool_at(json_object *o, const char *path, bool def);
json_object *json_array_at(json_object *o, const char *path);
size_t json_len_at(json_object *o, const char *path);
size_t json_list_at(json_object *o, const char *path, size_t max,
		    json_object **a);
char *json_dup_at(json_object *o, const char *path);

/*
 * Make o strict JSON that every reader takes (Python's json, jq): a
 * non-finite number becomes null (json-c would print NaN), and every
 * string and object key is made valid UTF-8, each invalid byte sequence
 * replaced by U+FFFD (json-c writes bytes as they are). The last pass
 * before a file of guest data is written (cell.json).
 */
void json_make_strict(json_object *o);

/*
 * The one precision of the figures wblab derives (rates, percentages,
 * latencies, seconds): three decimals, or four significant digits where
 * that is finer (|x| < 1: a stack fraction 0.6162, a rate 0.01234). No
 * figure loses what the 2-, 3- and 4-decimal roundings it replaces kept,
 * and cell.json carries no float noise (0.30000000000000004).
 */
double json_round(double x);
/* json_round(x) as a JSON number; NULL (null) when x is NAN or infinite. */
json_object *json_number(double x);

/* o[key] = v, taking v (NULL is null): the collectors' one-liners. */
void json_put(json_object *o, const char *key, json_object *v);
void json_put_int(json_object *o, const char *key, long long v);
void json_put_num(json_object *o, const char *key,
		  double v); /* json_number() */
void json_put_str(json_object *o, const char *key,
		  const char *s); /* NULL: null */

#endif
