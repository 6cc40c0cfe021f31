/* SPDX-License-Identifier: GPL-2.0 */
#ifndef WBLAB_FIO_H
#define WBLAB_FIO_H

#include <json-c/json.h>

/*
 * Summarise fio --output-format=json: per job and direction, bandwidth
 * (KiB/s), IOPS, completion latency (mean, p50, p95, p99, max, in usec)
 * and IOs done. Returns a new array, or NULL (with err) if text is not
 * fio's JSON.
 */
json_object *fio_summary(const char *text, size_t len, char *err, size_t errlen);

#endif
