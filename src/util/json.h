/* SPDX-License-Identifier: GPL-2.0 */
#ifndef WBLAB_JSON_H
#define WBLAB_JSON_H

#include <json-c/json.h>

/* Write a JSON object to path atomically (temp-then-rename), pretty-printed. */
int json_write_atomic(const char *path, json_object *o);
/*
 * Follow a dotted path ("metrics.fio.0.write.bw_kib_s"): object keys, and
 * array indexes where the node is an array. NULL if any step is missing.
 */
json_object *json_path(json_object *o, const char *path);

/*
 * Make o strict JSON that every reader takes (Python's json, jq): a
 * non-finite number becomes null (json-c would print NaN), and every
 * string and object key is made valid UTF-8, each invalid byte sequence
 * replaced by U+FFFD (json-c writes bytes as they are). The last pass
 * before a file of guest data is written (cell.json).
 */
void json_make_strict(json_object *o);

#endif
