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
#define FIO_JSON_MAX (64u << 20) /* bytes parsed at most */
#define FIO_JSON_DEPTH 32 /* fio nests 5 deep */
#define FIO_MAX_JOBS 256
#define FIO_NUM_MAX 9007199254740992.0 /* 2^53 */

json_object *fio_summary(const char *text, size_t len, char *err,
			 size_t errlen);

#endif
