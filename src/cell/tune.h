/* SPDX-License-Identifier: GPL-2.0 */
#ifndef WBLAB_CELL_TUNE_H
#define WBLAB_CELL_TUNE_H

#include <libvirt/libvirt.h>

#include "cell/types.h"
#include "results/levers.h"
#include "util/strbuf.h"
#include "virt/domxml.h"

/*
 * The host side of the noise levers (results/levers.h) for one guest of a
 * cell: its domain (disk cache and AIO, an iothread, <cputune> pinning,
 * QEMU -icount) and, before it starts, its files out of the host page
 * cache. The guest side (warmup) is the planner's (plan_opts.warmup).
 */

/*
 * Set dc's lever fields. online[0..n-1]: the host's online CPUs, for
 * pinning: vCPU i on online[i % n], the emulator threads and the
 * iothread on the CPUs no vCPU has, or on the last one when there are
 * none left. accel: "kvm" or "tcg" (icount needs TCG). 0, or -1 with
 * why in err.
 */
int cell_tune_domain(const struct levers *l, const char *accel,
		     const int *online, int n, struct domain_config *dc,
		     struct strbuf *err);
/*
 * posix_fadvise(DONTNEED) on every regular file of dc (its disks, kernel
 * and initramfs) and on extra (the base image, or NULL); anything else
 * is left alone. Returns the number of files dropped, -1 with why in err.
 */
int cell_tune_drop_cache(const struct domain_config *dc, const char *extra,
			 struct strbuf *err);
/* Both for a cell's guest on conn's host, as c's levers say. */
int cell_tune(const struct cell_spec *c, virConnectPtr conn,
	      struct domain_config *dc, struct strbuf *err);

#endif
