// SPDX-License-Identifier: GPL-2.0
/*
 * The noise levers on the host (cell/tune.h). Each lever's setting is
 * recorded in cell.json whatever it does here, so two cells run
 * differently are never compared as one population.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cell/tune.h"
#include "util/log.h"
#include "virt/virt.h"

/*
 * icount: one instruction is 2^0 ns of guest time, and an idle guest
 * skips ahead to its next timer instead of sleeping (sleep=off), so the
 * guest's clocks count instructions, not the host's seconds. QEMU runs
 * every vCPU in one thread then (no MTTCG).
 */
static const char *const icount_args[] = { "-icount", "shift=0,sleep=off",
					   NULL };

/* "3", "1-3", "0,2-3" from a list of CPU numbers; -1 if it does not fit. */
static int cpuset(char *buf, size_t len, const int *cpu, int n)
{
	size_t at = 0;

	buf[0] = '\0';
	for (int i = 0; i < n;) {
		int j = i;
		int w;

		while (j + 1 < n && cpu[j + 1] == cpu[j] + 1)
			j++;
		w = j > i ? snprintf(buf + at, len - at, "%s%d-%d",
				     at ? "," : "", cpu[i], cpu[j]) :
			    snprintf(buf + at, len - at, "%s%d", at ? "," : "",
				     cpu[i]);
		if (w < 0 || (size_t)w >= len - at)
			return -1;
		at += (size_t)w;
		i = j + 1;
	}
	return 0;
}

static int pin(const int *online, int n, struct domain_config *dc,
	       struct strbuf *err)
{
	int v = (int)dc->vcpus;

	if (n < 1 || v > DOMAIN_MAX_VCPUS) {
		strbuf_addf(err, "pin=on: %d vCPUs on %d host CPUs", v, n);
		return -1;
	}
	for (int i = 0; i < v; i++)
		snprintf(dc->vcpupin[i], sizeof(dc->vcpupin[i]), "%d",
			 online[i % n]);
	if (cpuset(dc->emulatorpin, sizeof(dc->emulatorpin),
		   v < n ? online + v : online + n - 1, v < n ? n - v : 1)) {
		strbuf_addstr(err, "pin=on: the host's spare CPUs do not fit "
				   "a cpuset");
		return -1;
	}
	dc->pinned = true;
	return 0;
}

int cell_tune_domain(const struct levers *l, const char *accel,
		     const int *online, int n, struct domain_config *dc,
		     struct strbuf *err)
{
	dc->disk_cache = lever_value(l, LEVER_CACHE);
	dc->disk_io = lever_value(l, LEVER_AIO);
	dc->iothread = lever_is(l, LEVER_IOTHREAD, "on");
	if (lever_is(l, LEVER_CLOCK, "icount")) {
		if (!strcmp(accel, "kvm")) {
			strbuf_addstr(err, "clock=icount needs TCG, and this "
					   "host runs KVM: give --accel tcg");
			return -1;
		}
		dc->qemu_args = icount_args;
	}
	if (lever_is(l, LEVER_PIN, "on"))
		return pin(online, n, dc, err);
	return 0;
}

/* One file out of the page cache: 1 dropped, 0 not a regular file. */
static int drop_file(const char *path, struct strbuf *err)
{
	struct stat st;
	int fd, ret = 0;

	/* O_NONBLOCK: a FIFO put in a disk's place must not block us. */
	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		strbuf_addf(err, "drop-host-cache: cannot open %s: %s", path,
			    strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
		/* Dirty pages are not dropped: write them first. */
		fdatasync(fd);
		ret = posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
		if (ret) {
			strbuf_addf(err, "drop-host-cache: %s: %s", path,
				    strerror(ret));
			ret = -1;
		} else {
			ret = 1;
		}
	}
	close(fd);
	return ret;
}

int cell_tune_drop_cache(const struct domain_config *dc, const char *extra,
			 struct strbuf *err)
{
	const char *more[] = { dc->kernel, dc->initrd, extra };
	int n = 0, r;

	for (int i = 0; i < dc->nr_disks; i++) {
		r = drop_file(dc->disks[i].path, err);
		if (r < 0)
			return -1;
		n += r;
	}
	for (size_t i = 0; i < ARRAY_SIZE(more); i++) {
		if (!more[i])
			continue;
		r = drop_file(more[i], err);
		if (r < 0)
			return -1;
		n += r;
	}
	return n;
}

/* The host's online CPUs, by number; n of them. */
static int *online_cpus(virConnectPtr conn, int *n)
{
	unsigned char *map = NULL;
	unsigned int online = 0;
	int total = conn ? virNodeGetCPUMap(conn, &map, &online, 0) : -1;
	int *cpu;

	*n = 0;
	if (total <= 0) {
		free(map);
		return NULL;
	}
	cpu = xmalloc((size_t)total * sizeof(*cpu));
	for (int i = 0; i < total; i++)
		if (VIR_CPU_USED(map, i))
			cpu[(*n)++] = i;
	free(map);
	return cpu;
}

int cell_tune(const struct cell_spec *c, virConnectPtr conn,
	      struct domain_config *dc, struct strbuf *err)
{
	int n = 0, *online = NULL, ret;

	if (lever_is(&c->levers, LEVER_PIN, "on")) {
		online = online_cpus(conn, &n);
		if (!online) {
			strbuf_addf(err,
				    "pin=on: libvirt cannot say the "
				    "host's online CPUs: %s",
				    virt_last_error());
			return -1;
		}
	}
	ret = cell_tune_domain(&c->levers, c->accel, online, n, dc, err);
	free(online);
	if (ret || !lever_is(&c->levers, LEVER_DROP_HOST_CACHE, "on"))
		return ret;
	if (c->remote) {
		strbuf_addf(err,
			    "drop-host-cache=on: the cell's files are on "
			    "host %s, not here",
			    c->host);
		return -1;
	}
	return cell_tune_drop_cache(dc, c->image, err) < 0 ? -1 : 0;
}
