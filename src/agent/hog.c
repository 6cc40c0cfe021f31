// SPDX-License-Identifier: GPL-2.0
/*
 * Guest-side helpers run as separate processes:
 *   hog SIZE_MIB HOLD_S [EVERY_S [CHURN_MIB CHURN_MS]]
 *                             touch anonymous memory page by page, then hold;
 *                             with EVERY_S, drop it and touch it again every
 *                             EVERY_S seconds until HOLD_S is over; with
 *                             CHURN_MIB, hold SIZE_MIB and touch CHURN_MIB
 *                             more and drop it every CHURN_MS milliseconds
 *   sample FILE INTERVAL_MS   append meminfo/vmstat figures once an interval
 *
 * The hog is a small parent that keeps one toucher child alive for HOLD_S
 * seconds: the child asks to be the OOM killer's first choice
 * (oom_score_adj 1000) so fio and the agent are spared, and when it is
 * killed the parent starts another after a second, so memory pressure
 * lasts the whole hold. The parent exits 0, or 137 if a child was killed
 * (as the single hog used to when it was the OOM victim). Both are named
 * "wblab-hog" (comm), so OOM reports do not name the agent.
 *
 * A hog that touches once charges its memory before a writer has dirtied
 * anything, so its page faults never meet dirty page cache. Re-touching
 * (EVERY_S) makes the hog fault in fresh anonymous pages all through the
 * workload: its reclaim then runs from a page fault (__GFP_FS allowed)
 * while the writer's dirty folios fill the memcg, which is what can reach
 * a filesystem whose own page cache allocations are GFP_NOFS (f2fs).
 * Churning (CHURN_MIB) does the same in small steps beside a static part:
 * the static part fills the memcg so that reclaim must find the churn's
 * pages among the writer's file folios, and every CHURN_MS the churn's
 * fresh faults ask reclaim for CHURN_MIB again (issue #26's premature
 * OOM workload: a kill there while the memcg holds dirty file pages is
 * one that cleaning them could have avoided).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "agent/hog.h"
#include "agent/io.h"
#include "agent/proto.h"
#include "util/num.h"

/* The churning part: MIB MiB dropped and touched again every MS ms. */
struct hog_churn {
	unsigned int mib, ms;
};

static void oom_adj(const char *v)
{
	int fd = open("/proc/self/oom_score_adj", O_WRONLY);

	if (fd >= 0) {
		if (write(fd, v, strlen(v)) < 0)
			perror("oom_score_adj");
		close(fd);
	}
}

/* Touch MIB MiB of fresh anonymous memory, a page at a time. */
static char *touch_once(size_t mib, int round)
{
	size_t page = sysconf(_SC_PAGESIZE), done = 0;
	char *p;

	p = mmap(NULL, mib << 20, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (p == MAP_FAILED) {
		perror("hog: mmap");
		return NULL;
	}
	/* Touch in 1 MiB steps so progress shows how far the hog got. */
	for (size_t off = 0; off < mib << 20; off += page) {
		p[off] = (char)off | 1;
		if (!((off + page) & ((1 << 20) - 1)) && !(++done % 64)) {
			printf("hog[%d]: %zu MiB touched at %.3f s (round %d)\n",
			       getpid(), done, mono(), round);
			fflush(stdout);
		}
	}
	return p;
}

static void sleep_ms(unsigned int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

/*
 * Hold the static part until end; every ms, touch churn MiB and drop it
 * at once. The gap is the writer's: its dirty pages fill what the churn
 * left, so the next round's faults must reclaim them (touching right
 * after the drop would take back the pages just freed, and reclaim
 * nothing). Each round's time is its faults' stall in reclaim.
 */
static int churn(size_t mib, unsigned int ms, double end)
{
	int round = 0;

	while (mono() < end) {
		double t0 = mono();
		char *p = touch_once(mib, ++round);

		if (!p)
			return 1;
		printf("hog[%d]: churn %d: %zu MiB touched in %.3f s\n",
		       getpid(), round, mib, mono() - t0);
		fflush(stdout);
		munmap(p, mib << 20);
		sleep_ms(ms);
	}
	return 0;
}

/*
 * Without EVERY, hold HOLD seconds once touched (as the workloads' hold:
 * says). With it, touch again every EVERY seconds, HOLD seconds from the
 * first touch in all.
 */
static int touch(size_t mib, int hold, int every, const struct hog_churn *c)
{
	double end = mono() + hold;
	int round = 1;
	char *p;

	oom_adj("1000");
	for (;;) {
		double t0 = mono();

		p = touch_once(mib, round);
		if (!p)
			return 1;
		/* A round's time is how long its page faults stalled in reclaim. */
		printf("hog[%d]: round %d: %zu MiB touched in %.3f s\n",
		       getpid(), round, mib, mono() - t0);
		fflush(stdout);
		if (c->mib)
			return churn(c->mib, c->ms, end);
		if (!every) {
			printf("hog[%d]: %zu MiB resident, holding %d s\n",
			       getpid(), mib, hold);
			fflush(stdout);
			sleep(hold);
			return 0;
		}
		if (mono() + every >= end)
			return 0;
		sleep(every);
		munmap(p, mib << 20);
		round++;
	}
}

int hog_main(int argc, char **argv)
{
	struct hog_churn c = { 0, 0 };
	unsigned int mib, hold, every = 0;
	int killed = 0;
	double end;

	/* Sizes in MiB up to 1 TiB, holds up to a week: the planner's. */
	if ((argc != 3 && argc != 4 && argc != 6) ||
	    proto_uint(argv[1], 1u << 20, &mib) ||
	    proto_uint(argv[2], 7 * 86400, &hold) ||
	    (argc >= 4 && proto_uint(argv[3], 7 * 86400, &every)) ||
	    (argc == 6 &&
	     (proto_uint(argv[4], 1u << 20, &c.mib) ||
	      proto_uint(argv[5], 86400 * 1000, &c.ms) || !c.mib))) {
		say("hog: usage: hog SIZE_MIB HOLD_S [EVERY_S [CHURN_MIB CHURN_MS]]");
		return 2;
	}
	end = mono() + hold;
	/* Name it on the console's OOM reports: not the agent. */
	prctl(PR_SET_NAME, "wblab-hog");
	oom_adj("-1000");
	for (;;) {
		double left = end - mono();
		int status;
		pid_t pid;

		if (left <= 0)
			break;
		pid = fork();
		if (pid < 0) {
			perror("hog: fork");
			return 1;
		}
		if (!pid)
			_exit(touch(mib, (int)left + 1, (int)every, &c));
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
		if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
			break;
		if (WIFEXITED(status))
			return WEXITSTATUS(status);
		killed++;
		printf("hog: child %d killed by signal %d at %.3f s (%d so far)\n",
		       pid, WTERMSIG(status), mono(), killed);
		fflush(stdout);
		sleep(1);
	}
	return killed ? 128 + SIGKILL : 0;
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

/*
 * A memcg file holding one number of bytes (memory.current, memory.max)
 * in KiB; -1 when it is absent (no memcg yet, or none: the workload has
 * no memcg_max) or not a number ("max").
 */
static long long memcg_kb(const char *dir, const char *name)
{
	char path[512], buf[64];
	long long v;

	if (!dir)
		return -1;
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if (slurp(path, buf, sizeof(buf)) ||
	    num_ll(NULL, buf, 10, 0, LLONG_MAX, &v, NULL))
		return -1;
	return v / 1024;
}

int sample_main(int argc, char **argv)
{
	static char mi[8192], vm[16384];
	const char *memcg = argc == 4 ? argv[3] : NULL;
	FILE *out;
	unsigned int ms;
	double t0 = mono();

	if (argc < 3 || argc > 4 || proto_uint(argv[2], 3600 * 1000, &ms) ||
	    !ms) {
		say("sample: usage: sample FILE INTERVAL_MS [MEMCG_DIR]");
		return 2;
	}
	out = fopen(argv[1], "w");
	if (!out)
		return 1;
	/* The sampler must outlive the OOM killer's choices. */
	prctl(PR_SET_NAME, "wblab-sampler");
	oom_adj("-1000");
	/*
	 * An observer, not a reclaimer: unlocked, its pages went to swap in
	 * swap-direct, and faulting them back in entered direct reclaim
	 * beside the workload (1% of the direct writes, and the deepest
	 * stack of some cells, all the sampler's own).
	 */
	if (mlockall(MCL_CURRENT | MCL_FUTURE))
		say("sample: mlockall: %s", strerror(errno));
	/* Column names are the host's keys: add, never rename. */
	fprintf(out,
		"t_s\tmem_free_kb\tdirty_kb\twriteback_kb\tnr_dirty\tnr_writeback\tallocstall_normal\tpgscan_direct\tpgscan_kswapd"
		"\tmem_available_kb\tcached_kb\tanon_kb\tnr_vmscan_write\tpswpout\tpgsteal_direct\tpgsteal_kswapd\toom_kill"
		"\tmemcg_current_kb\tmemcg_max_kb\n");
	for (;;) {
		struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

		if (!slurp("/proc/meminfo", mi, sizeof(mi)) &&
		    !slurp("/proc/vmstat", vm, sizeof(vm))) {
			fprintf(out,
				"%.3f\t%lld\t%lld\t%lld\t%lld\t%lld\t%lld\t%lld"
				"\t%lld\t%lld\t%lld\t%lld\t%lld\t%lld\t%lld"
				"\t%lld\t%lld\t%lld\t%lld\n",
				mono() - t0, num_field(mi, "MemFree:"),
				num_field(mi, "Dirty:"),
				num_field(mi, "Writeback:"),
				num_field(vm, "nr_dirty"),
				num_field(vm, "nr_writeback"),
				num_field(vm, "allocstall_normal"),
				num_field(vm, "pgscan_direct"),
				num_field(vm, "pgscan_kswapd"),
				num_field(mi, "MemAvailable:"),
				num_field(mi, "Cached:"),
				num_field(mi, "AnonPages:"),
				num_field(vm, "nr_vmscan_write"),
				num_field(vm, "pswpout"),
				num_field(vm, "pgsteal_direct"),
				num_field(vm, "pgsteal_kswapd"),
				num_field(vm, "oom_kill"),
				memcg_kb(memcg, "memory.current"),
				memcg_kb(memcg, "memory.max"));
			fflush(out);
		}
		nanosleep(&ts, NULL);
	}
	return 0;
}
