// SPDX-License-Identifier: GPL-2.0
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "collect/fio.h"
#include "util/json.h"
#include "util/utf8.h"

static json_object *get(json_object *o, const char *key)
{
	json_object *v = NULL;

	return o && json_object_object_get_ex(o, key, &v) ? v : NULL;
}

/*
 * A number from the guest's JSON: finite and within +-2^53 (exact in any
 * JSON reader; casting it to int64 is defined), else 0.
 */
static double num(json_object *o, const char *key)
{
	json_object *v = get(o, key);
	double d = v ? json_object_get_double(v) : 0;

	return isfinite(d) && fabs(d) <= FIO_NUM_MAX ? d : 0;
}

static json_object *direction(json_object *d)
{
	json_object *out = json_object_new_object();
	json_object *clat = get(d, "clat_ns");
	json_object *pct = get(clat, "percentile");

	json_object_object_add(out, "bw_kib_s", json_number(num(d, "bw")));
	json_object_object_add(out, "iops", json_number(num(d, "iops")));
	json_object_object_add(
		out, "ios",
		json_object_new_int64((int64_t)num(d, "total_ios")));
	json_object_object_add(
		out, "io_kib",
		json_object_new_int64((int64_t)num(d, "io_kbytes")));
	json_object_object_add(out, "clat_mean_us",
			       json_number(num(clat, "mean") / 1000));
	json_object_object_add(out, "clat_max_us",
			       json_number(num(clat, "max") / 1000));
	json_object_object_add(out, "clat_p50_us",
			       json_number(num(pct, "50.000000") / 1000));
	json_object_object_add(out, "clat_p95_us",
			       json_number(num(pct, "95.000000") / 1000));
	json_object_object_add(out, "clat_p99_us",
			       json_number(num(pct, "99.000000") / 1000));
	return out;
}

json_object *fio_summary(const char *text, size_t len, char *err, size_t errlen)
{
	struct json_tokener *tok = json_tokener_new_ex(FIO_JSON_DEPTH);
	const char *start = memchr(text, '{', len);
	json_object *root = NULL, *jobs, *out;

	if (len > FIO_JSON_MAX) {
		snprintf(err, errlen, "fio JSON over %u MiB: not parsed",
			 FIO_JSON_MAX >> 20);
		json_tokener_free(tok);
		return NULL;
	}
	/* a guest's fio.json of "{}," took 266 times its size in json-c */
	if (start && json_text_ok(start, len - (start - text))) {
		snprintf(
			err, errlen,
			"fio JSON holds more values than its size: not parsed");
		json_tokener_free(tok);
		return NULL;
	}
	/*
	 * fio may print notes before the JSON document. Strict: no NaN or
	 * Infinity literals (cell.json stays strict JSON), nesting capped.
	 */
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT);
	if (start && tok)
		root = json_tokener_parse_ex(tok, start, len - (start - text));
	json_tokener_free(tok);
	jobs = get(root, "jobs");
	if (!jobs || !json_object_is_type(jobs, json_type_array)) {
		snprintf(err, errlen, "not fio JSON output (no jobs array)");
		json_object_put(root);
		return NULL;
	}
	out = json_object_new_array();
	for (size_t i = 0;
	     i < json_object_array_length(jobs) && i < FIO_MAX_JOBS; i++) {
		json_object *j = json_object_array_get_idx(jobs, i);
		json_object *s = json_object_new_object();
		json_object *name = get(j, "jobname");

		/* 64 bytes of a name, never half a character. */
		json_object_object_add(
			s, "job",
			json_object_is_type(name, json_type_string) ?
				json_object_new_string_len(
					json_object_get_string(name),
					utf8_cut(json_object_get_string(name),
						 json_object_get_string_len(
							 name),
						 64)) :
				json_object_new_string("?"));
		json_object_object_add(
			s, "error", json_object_new_int((int)num(j, "error")));
		json_object_object_add(
			s, "runtime_ms",
			json_object_new_int64(
				(int64_t)num(get(j, "read"), "runtime") >
						(int64_t)num(get(j, "write"),
							     "runtime") ?
					(int64_t)num(get(j, "read"),
						     "runtime") :
					(int64_t)num(get(j, "write"),
						     "runtime")));
		if (num(get(j, "read"), "total_ios") > 0)
			json_object_object_add(s, "read",
					       direction(get(j, "read")));
		if (num(get(j, "write"), "total_ios") > 0)
			json_object_object_add(s, "write",
					       direction(get(j, "write")));
		json_object_array_add(out, s);
	}
	json_object_put(root);
	return out;
}
