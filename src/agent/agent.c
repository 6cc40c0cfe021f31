// SPDX-License-Identifier: GPL-2.0
/*
 * wblab-agent: the guest side of a cell. It is /init of the per-cell
 * initramfs (stage 1: load boot modules, mount the root image, switch to
 * it) and then PID 1 of the guest root (stage 2: mount the kernel's
 * interfaces, say hello on the channel, run the plan the host sends,
 * send the results back, power off). Static, libc only.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/random.h>
#include <net/if.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "agent/dmdelay.h"
#include "agent/hog.h"
#include "agent/oomwatch.h"
#include "agent/io.h"
#include "agent/plan.h"
#include "agent/proto.h"
#include "agent/watch.h"
#include "util/io.h"
#include "util/str.h"

static void power_off(void)
{
	sync();
	reboot(RB_POWER_OFF);
	for (;;)
		pause();
}

static void mount_one(const char *src, const char *dst, const char *type,
		      unsigned long flags, const char *data)
{
	mkdir(dst, 0755);
	if (mount(src, dst, type, flags, data) < 0 && errno != EBUSY)
		say("mount %s on %s (%s): %s", src, dst, type, strerror(errno));
}

static int open_channel(double wait_s)
{
	double end = mono() + wait_s;

	do {
		DIR *d = opendir("/sys/class/virtio-ports");
		struct dirent *de;

		while (d && (de = readdir(d))) {
			char p[512], buf[128];

			snprintf(p, sizeof(p),
				 "/sys/class/virtio-ports/%s/name", de->d_name);
			if (!read_small(p, buf, sizeof(buf)) ||
			    strcmp(buf, PROTO_CHANNEL))
				continue;
			snprintf(p, sizeof(p), "/dev/%s", de->d_name);
			closedir(d);
			return open(p, O_RDWR | O_CLOEXEC);
		}
		if (d)
			closedir(d);
		usleep(50000);
	} while (mono() < end);
	return -1;
}

static void cmdline_get(const char *key, char *out, size_t len)
{
	char buf[4096], *tok, *save;
	size_t klen = strlen(key);

	out[0] = '\0';
	if (!read_small("/proc/cmdline", buf, sizeof(buf)))
		return;
	for (tok = strtok_r(buf, " ", &save); tok;
	     tok = strtok_r(NULL, " ", &save))
		if (!strncmp(tok, key, klen) && tok[klen] == '=')
			snprintf(out, len, "%s", tok + klen + 1);
}

#ifndef MODULE_INIT_COMPRESSED_FILE
#define MODULE_INIT_COMPRESSED_FILE 4
#endif

/*
 * Distribution kernels ship compressed modules (Debian's 6.12: .ko.xz);
 * with CONFIG_MODULE_DECOMPRESS the kernel unpacks them itself when
 * finit_module() is told so.
 */
static int module_flags(const char *path)
{
	static const char *const ext[] = { ".xz", ".zst", ".gz" };
	size_t n = strlen(path);

	for (size_t i = 0; i < sizeof(ext) / sizeof(ext[0]); i++) {
		size_t e = strlen(ext[i]);

		if (n > e && !strcmp(path + n - e, ext[i]))
			return MODULE_INIT_COMPRESSED_FILE;
	}
	return 0;
}

/* Load the modules /etc/wblab/modules lists, in order (dependencies first). */
static void load_boot_modules(void)
{
	FILE *f = fopen("/etc/wblab/modules", "r");
	char line[512];

	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		int fd;

		line[strcspn(line, "\n")] = '\0';
		if (!line[0])
			continue;
		fd = open(line, O_RDONLY | O_CLOEXEC);
		if (fd < 0) {
			say("module %s: %s", line, strerror(errno));
			continue;
		}
		if (syscall(SYS_finit_module, fd, "", module_flags(line)) < 0 &&
		    errno != EEXIST)
			say("finit_module %s: %s", line, strerror(errno));
		close(fd);
	}
	fclose(f);
}

static void send_hello(const char *mode)
{
	struct utsname u;
	char body[512];
	int n;

	uname(&u);
	n = snprintf(
		body, sizeof(body),
		"release=%s\nversion=%s\nmachine=%s\nmode=%s\nagent=1\nuptime=%.3f\n",
		u.release, u.version, u.machine, mode, mono());
	send_frame('H', "hello", body, n);
}

static int copy_self(const char *dst)
{
	int in = open("/init", O_RDONLY | O_CLOEXEC);
	int out = open(dst, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0755);
	char buf[65536];
	ssize_t n;

	if (in < 0 || out < 0)
		return -1;
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (write_in_full(out, buf, n) < 0)
			return -1;
	close(in);
	return close(out);
}

/* Stage 1: PID 1 in the initramfs. */
static int stage1(void)
{
	char mode[32], root[64];

	mount_one("devtmpfs", "/dev", "devtmpfs", 0, NULL);
	mount_one("proc", "/proc", "proc", 0, NULL);
	mount_one("sysfs", "/sys", "sysfs", 0, NULL);
	say("stage 1 at %.3f s", mono());
	load_boot_modules();
	cmdline_get("wblab.mode", mode, sizeof(mode));

	if (!strcmp(mode, "probe")) {
		/* The host only needs to see that userspace ran. */
		agent_chan_fd = open_channel(10);
		send_hello("probe");
		power_off();
	}
	if (find_disk("wblab-root", root, sizeof(root), 30) < 0) {
		say("no disk with serial wblab-root: cannot boot");
		power_off();
	}
	mount_one(root, "/newroot", "ext4", 0, NULL);
	mount_one("tmpfs", "/newroot/run", "tmpfs", 0, "mode=0755");
	if (copy_self("/newroot/run/wblab-agent") < 0) {
		say("cannot copy the agent into the root: %s", strerror(errno));
		power_off();
	}
	if (mount("/dev", "/newroot/dev", NULL, MS_MOVE, NULL) ||
	    mount("/proc", "/newroot/proc", NULL, MS_MOVE, NULL) ||
	    mount("/sys", "/newroot/sys", NULL, MS_MOVE, NULL) ||
	    chdir("/newroot") || mount(".", "/", NULL, MS_MOVE, NULL) ||
	    chroot(".") || chdir("/")) {
		say("switching root: %s", strerror(errno));
		power_off();
	}
	execl("/run/wblab-agent", "wblab-agent", "stage2", (char *)NULL);
	say("exec stage 2: %s", strerror(errno));
	power_off();
	return 1;
}

static void lo_up(void)
{
	struct ifreq ifr = { 0 };
	int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	if (s < 0)
		return;
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "lo");
	if (!ioctl(s, SIOCGIFFLAGS, &ifr)) {
		ifr.ifr_flags |= IFF_UP | IFF_RUNNING;
		ioctl(s, SIOCSIFFLAGS, &ifr);
	}
	close(s);
}

/* Read exactly len bytes of a frame's body; 0 or -1. */
static int read_body(char *buf, size_t len)
{
	size_t got = 0;

	while (got < len) {
		ssize_t n = read(agent_chan_fd, buf + got, len - got);

		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n <= 0)
			return -1;
		got += n;
	}
	return 0;
}

/*
 * The host's random seed (an R frame): credited to the kernel's pool, as
 * virtio-rng would be. Without it the CRNG of a TCG guest with no RNG
 * device is still not ready after the whole cell, and libuuid (mkfs.ext4,
 * mkfs.xfs, mdadm) waits 1 s per UUID for it before reading urandom anyway:
 * 4.2 s of a dirty-flood cell's 8 s setup was mkfs.ext4 waiting.
 */
static void credit_seed(const char *seed, size_t len)
{
	struct rand_pool_info *e = malloc(sizeof(*e) + len);
	int fd = open("/dev/urandom", O_WRONLY | O_CLOEXEC);

	if (e) {
		e->entropy_count = (int)len * 8;
		e->buf_size = (int)len;
		memcpy(e->buf, seed, len);
	}
	if (!e || fd < 0 || ioctl(fd, RNDADDENTROPY, e) < 0)
		say("cannot credit the host's seed: %s", strerror(errno));
	if (fd >= 0)
		close(fd);
	free(e);
}

/* One frame header from the channel: 0, or -1 at EOF or if malformed. */
static int read_header(char *type, size_t *len, char *name)
{
	char hdr[256];
	size_t i = 0;

	while (i < sizeof(hdr) - 1) {
		ssize_t n = read(agent_chan_fd, hdr + i, 1);

		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n <= 0)
			return -1;
		if (hdr[i] == '\n')
			break;
		i++;
	}
	hdr[i] = '\0';
	return proto_parse_header(hdr, type, len, name);
}

/* The plan (a P frame), after the host's seed (an R frame) if it sends one. */
static char *read_plan(size_t *len)
{
	char type, name[PROTO_MAX_NAME + 1], seed[PROTO_MAX_SEED];
	char *buf;

	if (read_header(&type, len, name))
		return NULL;
	if (type == 'R' && *len <= PROTO_MAX_SEED) {
		if (read_body(seed, *len))
			return NULL;
		credit_seed(seed, *len);
		if (read_header(&type, len, name))
			return NULL;
	}
	if (type != 'P')
		return NULL;
	buf = malloc(*len + 1);
	if (buf && read_body(buf, *len)) {
		free(buf);
		return NULL;
	}
	if (buf)
		buf[*len] = '\0';
	return buf;
}

/*
 * Fault injection for tests/e2e.d/faults.sh, off unless the kernel command
 * line says wblab.fault=KIND (a lab kernel never has it by accident):
 * garbage and truncate break the channel, refuse sends a file the plan did
 * not ask for, flood:MB prints MB MiB on the serial console, lkdtm:TYPE
 * has a kernel with CONFIG_LKDTM perform TYPE (EXHAUST_STACK, PANIC, ...).
 */
static void inject_fault(void)
{
	char fault[32];
	const char *arg;

	cmdline_get("wblab.fault", fault, sizeof(fault));
	if (!fault[0])
		return;
	say("injecting fault %s", fault);
	if (!strcmp(fault, "garbage")) {
		static const char junk[] = "WBL1 F 5 fio.json\nabcde"
					   "\x01\x02GET / HTTP/1.0\n";

		write_in_full(agent_chan_fd, junk, sizeof(junk) - 1);
		power_off();
	} else if (!strcmp(fault, "truncate")) {
		static const char cut[] = "WBL1 F 1000 fio.json\n0123456789";

		write_in_full(agent_chan_fd, cut, sizeof(cut) - 1);
		power_off();
	} else if (!strcmp(fault, "refuse")) {
		send_frame('F', "evil.sh", "rm -rf /", 8);
	} else if (skip_prefix(fault, "lkdtm:", &arg)) {
		int fd = open("/sys/kernel/debug/provoke-crash/DIRECT",
			      O_WRONLY | O_CLOEXEC);

		if (fd < 0 || write_in_full(fd, arg, strlen(arg)) < 0)
			say("lkdtm %s: %s", arg, strerror(errno));
		if (fd >= 0)
			close(fd);
	} else if (skip_prefix(fault, "flood:", &arg)) {
		long mb = strtol(arg, NULL, 10);
		int fd = open("/dev/ttyS0", O_WRONLY | O_NOCTTY | O_CLOEXEC);
		char line[128];
		double t = mono();

		for (long i = 0; fd >= 0 && i < mb * 10486; i++) {
			int n = snprintf(line, sizeof(line),
					 "wblab flood %09ld %s\n", i,
					 "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
					 "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx");

			if (write_in_full(fd, line, n) < 0)
				break;
		}
		if (fd >= 0)
			close(fd);
		say("flooded %ld MiB in %.1f s", mb, mono() - t);
	}
}

/* Stage 2: PID 1 in the guest root. */
static int stage2(void)
{
	char dev[64], *plan;
	size_t len;
	int status;

	mount_one("tmpfs", "/tmp", "tmpfs", 0, NULL);
	mount_one("devpts", "/dev/pts", "devpts", 0, NULL);
	mount_one("tmpfs", "/dev/shm", "tmpfs", 0, NULL);
	mount_one("debugfs", "/sys/kernel/debug", "debugfs", 0, NULL);
	mount_one("tracefs", "/sys/kernel/tracing", "tracefs", 0, NULL);
	mount_one("configfs", "/sys/kernel/config", "configfs", 0, NULL);
	mount_one("cgroup2", "/sys/fs/cgroup", "cgroup2", 0, NULL);
	if (find_disk("wblab-modules", dev, sizeof(dev), 5) == 0)
		mount_one(dev, "/lib/modules", "ext4", MS_RDONLY, NULL);
	/* /run is a fresh tmpfs: the directories daemons expect in it. */
	mkdir("/run/lock", 01777);
	sethostname("wblab", 5);
	lo_up();
	setenv("PATH",
	       "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
	       1);
	setenv("HOME", "/root", 1);
	agent_chan_fd = open_channel(10);
	if (agent_chan_fd < 0) {
		say("no virtio-serial port named %s", PROTO_CHANNEL);
		power_off();
	}
	send_hello("cell");
	say("hello sent at %.3f s, waiting for the plan", mono());
	plan = read_plan(&len);
	if (!plan) {
		say("no plan received");
		power_off();
	}
	inject_fault();
	status = plan_execute(plan, len);
	free(plan);
	say("plan done (%d) at %.3f s", status, mono());
	power_off();
	return 0;
}

int main(int argc, char **argv)
{
	if (getpid() == 1 && argc >= 2 && !strcmp(argv[1], "stage2"))
		return stage2();
	if (getpid() == 1)
		return stage1();
	if (argc >= 2 && !strcmp(argv[1], "hog"))
		return hog_main(argc - 1, argv + 1);
	if (argc >= 2 && !strcmp(argv[1], "sample"))
		return sample_main(argc - 1, argv + 1);
	if (argc >= 2 && !strcmp(argv[1], "oomwatch"))
		return oomwatch_main(argc - 1, argv + 1);
	if (argc >= 2 && !strcmp(argv[1], "watch"))
		return watch_main(argc - 1, argv + 1);
	if (argc >= 2 && !strcmp(argv[1], "dm-delay"))
		return dmdelay_main(argc - 1, argv + 1);
	if (argc >= 2 && !strcmp(argv[1], "dm-stall"))
		return dmstall_main(argc - 1, argv + 1);
	fprintf(stderr,
		"usage: wblab-agent hog|sample|oomwatch|watch|dm-delay|dm-stall ... (stage 1/2 run as PID 1)\n");
	return 2;
}
