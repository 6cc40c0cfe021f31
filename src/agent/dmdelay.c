// SPDX-License-Identifier: GPL-2.0
/*
 * wblab-agent dm-delay NAME DEV MS: a dm-delay device NAME over the whole
 * of DEV, every bio held MS milliseconds (a topology's dm-delay layer).
 *
 * The table is "0 SECTORS delay DEV 0 MS": its length is DEV's size in
 * 512-byte sectors, which only the guest knows when DEV is an md array or
 * an iSCSI LUN, so the agent reads it (BLKGETSIZE64) and hands the table to
 * dmsetup. The guest runs no udev: --noudevsync keeps dmsetup from waiting
 * for a udev cookie that nobody would release, and libdevmapper then makes
 * /dev/mapper/NAME itself.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "agent/dmdelay.h"
#include "agent/io.h"

static int dev_sectors(const char *dev, uint64_t *sectors)
{
	uint64_t bytes = 0;
	int fd = open(dev, O_RDONLY | O_CLOEXEC);

	if (fd < 0 || ioctl(fd, BLKGETSIZE64, &bytes) < 0) {
		fprintf(stderr, "dm-delay: %s: %s\n", dev, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	close(fd);
	*sectors = bytes >> 9;
	return 0;
}

int dmdelay_main(int argc, char **argv)
{
	char table[512], *end;
	uint64_t sectors;
	long ms;

	if (argc != 4 || !argv[1][0] || strchr(argv[1], '/')) {
		fprintf(stderr, "usage: wblab-agent dm-delay NAME DEV MS\n");
		return 2;
	}
	ms = strtol(argv[3], &end, 10);
	if (*end || ms < 1 || ms > 60000) {
		fprintf(stderr,
			"dm-delay: '%s' is not a delay of 1..60000 ms\n",
			argv[3]);
		return 2;
	}
	if (dev_sectors(argv[2], &sectors))
		return 1;
	if ((size_t)snprintf(table, sizeof(table), "0 %llu delay %s 0 %ld",
			     (unsigned long long)sectors, argv[2],
			     ms) >= sizeof(table)) {
		fprintf(stderr, "dm-delay: device name too long: %s\n",
			argv[2]);
		return 2;
	}
	printf("dm-delay: %s: %s\n", argv[1], table);
	fflush(stdout);
	execlp("dmsetup", "dmsetup", "create", "--noudevsync", argv[1],
	       "--table", table, (char *)NULL);
	fprintf(stderr, "dm-delay: cannot run dmsetup: %s\n", strerror(errno));
	return 127;
}
