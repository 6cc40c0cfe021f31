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

#endif
