// SPDX-License-Identifier: GPL-2.0
/* Kernel builds from source (placeholder while the real builder lands). */
#include <stdio.h>

#include "artifact/kernel.h"
#include "util/log.h"

int kernel_build(const struct kernel_spec *s, const char *hash,
		 struct kernel_artifact *out)
{
	return error("%s: building kernels from source is not implemented yet",
		     s->path);
}
