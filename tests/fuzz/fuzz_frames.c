// SPDX-License-Identifier: GPL-2.0
/* libFuzzer: the host's frame decoder on the agent channel's bytes. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "virt/frames.h"

static const char *accept_cb(void *arg, char type, const char *name, size_t len)
{
	return type == 'F' && len > 4096 ? "over cap" : NULL;
}

static void frame_cb(void *arg, char type, const char *name, const char *data,
		     size_t len)
{
	size_t *sum = arg;

	/* Touch every byte: ASan checks the body is really len long. */
	for (size_t i = 0; i < len; i++)
		*sum += (unsigned char)data[i];
	*sum += strlen(name);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct frame_decoder d;
	size_t sum = 0, off = 0, step = size ? 1 + data[0] % 64 : 1;

	frame_decoder_init(&d);
	d.accept = accept_cb;
	d.on_frame = frame_cb;
	d.arg = &sum;
	while (off < size && !d.error) {
		size_t n = size - off < step ? size - off : step;

		frame_feed(&d, (const char *)data + off, n);
		off += n;
	}
	frame_idle(&d);
	frame_decoder_release(&d);
	{
		struct spec_strlist l = { 0 };

		frame_plan_outputs((const char *)data, size, &l);
		spec_strlist_free(&l);
	}
	return 0;
}
