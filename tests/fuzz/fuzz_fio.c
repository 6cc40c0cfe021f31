// SPDX-License-Identifier: GPL-2.0
/* libFuzzer: fio's JSON summary. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "collect/fio.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[128];
	json_object *o =
		fio_summary((const char *)data, size, err, sizeof(err));

	if (o)
		json_object_to_json_string(o);
	json_object_put(o);
	return 0;
}
