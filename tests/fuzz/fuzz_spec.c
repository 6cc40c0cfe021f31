// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer: the YAML spec loaders. The first byte picks the kind
 * (kernel, topology, workload, image, matrix, hosts); the rest is the file,
 * given to the loader through a memfd so it reads it like any spec.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "spec/hosts.h"
#include "spec/matrix.h"
#include "spec/specs.h"
#include "util/strbuf.h"

static int fd = -1;
static char path[64];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct strbuf err = STRBUF_INIT;

	if (!size)
		return 0;
	if (fd < 0) {
		fd = memfd_create("spec.yaml", 0);
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	}
	if (ftruncate(fd, 0) ||
	    pwrite(fd, data + 1, size - 1, 0) != (ssize_t)(size - 1))
		return 0;
	switch (data[0] % 6) {
	case 0: {
		struct kernel_spec s;

		kernel_spec_load_err(path, "f", &s, &err);
		kernel_spec_free(&s);
		break;
	}
	case 1: {
		struct topology_spec s;

		topology_spec_load_err(path, "f", &s, &err);
		topology_spec_free(&s);
		break;
	}
	case 2: {
		struct workload_spec s;

		workload_spec_load_err(path, "f", &s, &err);
		workload_spec_free(&s);
		break;
	}
	case 3: {
		struct image_spec s;

		image_spec_load(path, "f", &s);
		image_spec_free(&s);
		break;
	}
	case 4: {
		struct matrix_spec s;

		memset(&s, 0, sizeof(s));
		matrix_spec_load(path, "f", &s, &err);
		matrix_spec_free(&s);
		break;
	}
	case 5: {
		struct hosts_spec s;

		memset(&s, 0, sizeof(s));
		hosts_spec_load(path, &s, &err);
		hosts_spec_free(&s);
		break;
	}
	}
	strbuf_release(&err);
	return 0;
}
