// SPDX-License-Identifier: GPL-2.0
/*
 * Stack depth per layer from kprobe events (docs/collectors.md): the sites,
 * the tracefs strings that arm them, and pure parsers of what comes back.
 */
#include <ctype.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collect/stack.h"
#include "collect/stackprobe.h"
#include "util/json.h"
#include "util/log.h"
#include "util/num.h"
#include "util/strbuf.h"

/* A site probes the function it is named after. */
#define SITE(sym, lay, ...)                                             \
	{                                                               \
		.name = sym, .symbol = sym, .layer = STACK_LAYER_##lay, \
		__VA_ARGS__                                             \
	}

/*
 * Reclaim entry, filesystem writeback entry, storage layers top down.
 * XFS has no ->writepage in 6.1: its writeback entry is ->writepages.
 * virtio-blk takes plugged batches through ->queue_rqs, which does not
 * call ->queue_rq: both are probed.
 */
const struct stack_site stack_sites[] = {
	SITE("try_to_free_pages", RECLAIM),
	SITE("try_to_free_mem_cgroup_pages", RECLAIM),
	SITE("balance_pgdat", RECLAIM),
	/* 6.12 has neither (what earlier kernels dropped them is not kept). */
	SITE("ext4_writepage", FS, .until = KVER(6, 12)),
	SITE("blkdev_writepage", FS, .until = KVER(6, 12)),
	SITE("xfs_vm_writepages", FS, .need = STACK_NEED_XFS),
	/*
	 * What reclaim can still write through on 6.12 (no ext4/blkdev).
	 * 7.x has no ->writepage at all: pageout() calls shmem_writeout()
	 * and swap_writeout() (mm/vmscan.c), swap_writepage() is renamed
	 * and f2fs's entry is gone, so reclaim writes no f2fs folio. Checked
	 * on the trees the lab builds (6.12.118 has the old names, 7.2.13
	 * and 7.3-rc7 the new ones); the release in between that renamed
	 * them is not pinned here, so 7.0 is the bound: a kernel of 6.13 to
	 * 6.19 gets the 6.12 names, and a name it lacks is "not armed".
	 */
	SITE("swap_writepage", FS, .until = KVER(7, 0)),
	SITE("swap_writeout", FS, .since = KVER(7, 0)),
	SITE("shmem_writeout", FS, .since = KVER(7, 0)),
	SITE("f2fs_write_data_page", FS, .need = STACK_NEED_F2FS,
	     .until = KVER(7, 0)),
	SITE("submit_bio_noacct", STORAGE),
	SITE("raid1_make_request", STORAGE, .need = STACK_NEED_RAID1),
	SITE("raid5_make_request", STORAGE, .need = STACK_NEED_RAID5),
	SITE("scsi_queue_rq", STORAGE, .need = STACK_NEED_ISCSI),
	SITE("iscsi_queuecommand", STORAGE, .need = STACK_NEED_ISCSI),
	SITE("virtio_queue_rq", STORAGE),
	SITE("virtio_queue_rqs", STORAGE),
	/*
	 * Leaves below the storage sites: where a write's chain goes deepest
	 * (the stack tracer's deepest chains end in the allocator and the
	 * virtqueue). 6.10 renamed the allocators *_noprof (memory allocation
	 * profiling).
	 */
	SITE("__alloc_pages", LEAF, .until = KVER(6, 10)),
	SITE("__alloc_pages_noprof", LEAF, .since = KVER(6, 10)),
	SITE("kmem_cache_alloc", LEAF, .until = KVER(6, 10)),
	SITE("kmem_cache_alloc_noprof", LEAF, .since = KVER(6, 10)),
	SITE("__kmalloc", LEAF, .until = KVER(6, 10)),
	SITE("__kmalloc_noprof", LEAF, .since = KVER(6, 10)),
	/*
	 * 7.2's kprobes refuse virtqueue_add_split's entry (EINVAL, on the
	 * lab's build and on Debian's, run 20261207-194545-48a7; it is now
	 * reached through the ring's ops table; why the probe is refused was
	 * not found). There the leaf is virtqueue_add_sgs, virtio_blk's call
	 * into the ring, one frame above it: a 7.x leaf figure is a few
	 * dozen bytes shallower than 6.x's for the same chain.
	 */
	SITE("virtqueue_add_split", LEAF, .until = KVER(7, 0)),
	SITE("virtqueue_add_sgs", LEAF, .since = KVER(7, 0)),
	SITE("virtqueue_notify", LEAF),
};
const size_t nr_stack_sites = ARRAY_SIZE(stack_sites);

bool stack_site_on(const struct stack_site *s, int kver, unsigned int layers)
{
	if (s->need && !(s->need & layers))
		return false;
	if (!kver)
		return true;
	return (!s->since || kver >= s->since) &&
	       (!s->until || kver < s->until);
}

const char *stack_layer_name(enum stack_layer l)
{
	return l == STACK_LAYER_RECLAIM ? "reclaim" :
	       l == STACK_LAYER_FS	? "fs" :
	       l == STACK_LAYER_STORAGE ? "storage" :
					  "leaf";
}

const char *stack_site_instance(const struct stack_site *s)
{
	return s->layer == STACK_LAYER_LEAF ? STACK_LEAF_INSTANCE :
					      STACK_INSTANCE;
}

static int log2_of(long v)
{
	int b = 0;

	while ((1L << b) < v)
		b++;
	return b;
}

char *stack_site_probe(const struct stack_site *s, long thread_size)
{
	/*
	 * bN@0/64: sp & (THREAD_SIZE - 1), the offset into the task stack
	 * (b14 on 16 KiB stacks, b13 on 8 KiB ones).
	 */
	return xasprintf("p:" STACK_PROBE_GROUP "/%s %s sp=$stack:b%d@0/64\n",
			 s->name, s->symbol,
			 log2_of(stack_thread_size(thread_size)));
}

long long stack_depth(long long sp, long thread_size)
{
	long ts = stack_thread_size(thread_size);

	return ts - (sp & (ts - 1));
}

/*
 * Hard and soft interrupts and NMIs run on per-CPU stacks that are only
 * page aligned: their sp offset says nothing about a task's depth, so
 * those hits are left out (TRACE_FLAG_HARDIRQ | SOFTIRQ | NMI).
 */
#define TASK_CONTEXT "!(common_flags & 0x58)"

char *stack_site_filter(long thread_size)
{
	return xasprintf("sp < %ld && " TASK_CONTEXT,
			 stack_thread_size(thread_size) - STACK_DEEP_BYTES);
}

/* pause and cont name the same trigger: keys, size and filter match. */
const char *stack_site_hist(bool paused)
{
	return paused ? "hist:keys=sp:size=" STACK_HIST_SIZE
			":pause if " TASK_CONTEXT "\n" :
			"hist:keys=sp:size=" STACK_HIST_SIZE
			":cont if " TASK_CONTEXT "\n";
}

struct bucket {
	long long depth, count;
};

static int by_depth(const void *a, const void *b)
{
	const struct bucket *x = a, *y = b;

	return (x->depth > y->depth) - (x->depth < y->depth);
}

/* "{ sp:      12536 } hitcount:          1" */
static bool hist_line(const char *l, size_t n, long ts, long long *sp,
		      long long *hits, struct numsrc *ns)
{
	const char *k = memmem(l, n, "{ sp:", 5),
		   *h = memmem(l, n, "hitcount:", 9);

	return k && h && !num_ll(ns, k + 5, 0, 0, ts - 1, sp, NULL) &&
	       /* hit counts of a 4096-entry hist: sums stay far from overflow */
	       !num_ll(ns, h + 9, 10, 1, 1LL << 40, hits, NULL);
}

json_object *stack_hist_summary(const char *text, size_t len, long thread_size,
				struct numsrc *ns)
{
	long ts = stack_thread_size(thread_size);
	const char *p = text, *end = text + len;
	struct bucket *b = NULL;
	size_t n = 0, cap = 0;
	long long total = 0, dropped = 0, acc = 0, p99 = -1;
	bool header = false;
	json_object *o;

	while (text && p < end) {
		const char *nl = memchr(p, '\n', end - p);
		size_t ll = nl ? (size_t)(nl - p) : (size_t)(end - p);
		const char *line = p, *d;
		long long sp, hits;

		p = nl ? nl + 1 : end;
		if (memmem(line, ll, "# event histogram", 17))
			header = true;
		if ((d = memmem(line, ll, "Dropped:", 8)) &&
		    num_ll(ns, d + 8, 10, 0, LLONG_MAX, &dropped, NULL))
			dropped = 0;
		if (!hist_line(line, ll, ts, &sp, &hits, ns))
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 256;
			b = xrealloc(b, cap * sizeof(*b));
		}
		b[n].depth = stack_depth(sp, ts);
		b[n++].count = hits;
		total += hits;
	}
	if (!header) {
		free(b);
		return NULL;
	}
	if (n) /* qsort(NULL, 0, ...) is undefined (make check-asan) */
		qsort(b, n, sizeof(*b), by_depth);
	/* Nearest rank: the smallest depth with >= 99% of hits at or below. */
	for (size_t i = 0; i < n && p99 < 0; i++) {
		acc += b[i].count;
		if (100 * acc >= 99 * total)
			p99 = b[i].depth;
	}
	o = json_object_new_object();
	json_put_int(o, "samples", total);
	if (n) {
		json_put_int(o, "max_bytes", b[n - 1].depth);
		json_put_int(o, "p99_bytes", p99);
		json_put_int(o, "min_bytes", b[0].depth);
	}
	json_put_int(o, "dropped", dropped);
	free(b);
	return o;
}

/* Does text hold the symbol as a whole word on some line? */
static const char *find_word_line(const char *text, const char *word)
{
	size_t wl = strlen(word);

	for (const char *p = text; p && (p = strstr(p, word)); p += wl) {
		bool left = p == text || isspace((unsigned char)p[-1]) ||
			    p[-1] == '/' || p[-1] == ':';
		bool right = !p[wl] || isspace((unsigned char)p[wl]);

		if (left && right) {
			while (p > text && p[-1] != '\n')
				p--;
			return p;
		}
	}
	return NULL;
}

char *stack_site_absent(const struct stack_site *s, const char *kprobe_events,
			const char *kallsyms, const char *agent_log,
			const char *plan)
{
	char *ev = xasprintf(STACK_PROBE_GROUP "/%s", s->name);
	char *what = xasprintf("'p:" STACK_PROBE_GROUP "/%s ", s->name);
	const char *line, *fail;
	char *why;

	line = kprobe_events ? find_word_line(kprobe_events, ev) : NULL;
	free(ev);
	if (line) {
		free(what);
		return NULL;
	}
	fail = agent_log ? strstr(agent_log, what) : NULL;
	if (plan && !strstr(plan, what + 1)) {
		free(what);
		return xasprintf(
			"not armed: the kernel's version or the topology's layers cannot have %s",
			s->symbol);
	}
	free(what);
	if (kallsyms && !find_word_line(kallsyms, s->symbol))
		why = xasprintf(
			"%s is not in the kernel's symbols (not built, module not loaded, or inlined)",
			s->symbol);
	else if (fail) {
		const char *c = strstr(fail, "': ");
		const char *nl = strchr(fail, '\n');

		why = xasprintf(
			"kprobe on %s refused: %.*s", s->symbol,
			c && (!nl || c < nl) ?
				(int)((nl ? nl : c + strlen(c)) - c - 3) :
				0,
			c ? c + 3 : "");
	} else
		why = xasprintf("no kprobe %s/%s in kprobe_events%s",
				STACK_PROBE_GROUP, s->name,
				kprobe_events ? "" : " (not fetched)");
	return why;
}
