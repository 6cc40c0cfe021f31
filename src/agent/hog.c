// SPDX-License-Identifier: GPL-2.0
/*
 * Guest-side helpers run as separate processes:
 *   hog SIZE_MIB HOLD_S       touch anonymous memory page by page, then hold
 *   sample FILE INTERVAL_MS   append meminfo/vmstat figures once an interval
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "agent/agent.h"

int hog_main(int argc, char **argv)
{
	size_t mib, page = sysconf(_SC_PAGESIZE), done = 0;
	int hold;
	char *p;

	if (argc != 3)
		return 2;
	mib = strtoull(argv[1], NULL, 10);
	hold = atoi(argv[2]);
	p = mmap(NULL, mib << 20, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (p == MAP_FAILED) {
		perror("hog: mmap");
		return 1;
	}
	/* Touch in 1 MiB steps so progress shows how far the hog got. */
	for (size_t off = 0; off < mib << 20; off += page) {
		p[off] = (char)off | 1;
		if (!((off + page) & ((1 << 20) - 1)) && !(++done % 64))
			printf("hog: %zu MiB touched at %.3f s\n", done, mono());
	}
	printf("hog: %zu MiB resident, holding %d s\n", mib, hold);
	fflush(stdout);
	sleep(hold);
	return 0;
}

static long field(const char *buf, const char *key)
{
	const char *p = strstr(buf, key);

	return p ? strtol(p + strlen(key), NULL, 10) : -1;
}

static int slurp(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	size_t n;

	if (!f)
		return -1;
	n = fread(buf, 1, len - 1, f);
	buf[n] = '\0';
	fclose(f);
	return 0;
}

int sample_main(int argc, char **argv)
{
	static char mi[8192], vm[16384];
	FILE *out;
	int ms;
	double t0 = mono();

	if (argc != 3)
		return 2;
	out = fopen(argv[1], "w");
	ms = atoi(argv[2]);
	if (!out || ms <= 0)
		return 1;
	fprintf(out, "t_s\tmem_free_kb\tdirty_kb\twriteback_kb\tnr_dirty\tnr_writeback\tallocstall_normal\tpgscan_direct\tpgscan_kswapd\n");
	for (;;) {
		struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

		if (!slurp("/proc/meminfo", mi, sizeof(mi)) &&
		    !slurp("/proc/vmstat", vm, sizeof(vm))) {
			fprintf(out, "%.3f\t%ld\t%ld\t%ld\t%ld\t%ld\t%ld\t%ld\t%ld\n",
				mono() - t0, field(mi, "MemFree:"),
				field(mi, "\nDirty:"), field(mi, "\nWriteback:"),
				field(vm, "\nnr_dirty "), field(vm, "\nnr_writeback "),
				field(vm, "\nallocstall_normal "),
				field(vm, "\npgscan_direct "),
				field(vm, "\npgscan_kswapd "));
			fflush(out);
		}
		nanosleep(&ts, NULL);
	}
	return 0;
}
