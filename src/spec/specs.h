/* SPDX-License-Identifier: GPL-2.0 */
#ifndef WBLAB_SPECS_H
#define WBLAB_SPECS_H

#include <stdbool.h>
#include <stdint.h>

#include "spec/spec.h"

/*
 * The defaults where a spec or a command names none, spelt here only: the
 * guest image (guests/debian-12.yaml) and the kernel spec whose .config a
 * tree's build starts from (lab/kernels/6.1.yaml: run --tree, validate,
 * bisect, nightly; --config-from overrides it).
 */
#define SPEC_DEFAULT_IMAGE "debian-12"
#define SPEC_DEFAULT_CONFIG_FROM "6.1"

/* guests/<name>.yaml: a guest root image built with debootstrap. */
struct image_spec {
	char *name;
	char *path;
	char *description;
	char *suite;
	char *mirror;
	char *variant;
	char *agent; /* how the agent goes in: "initramfs" */
	uint64_t size; /* image size in bytes */
	struct spec_strlist packages;
};

/*
 * lab/kernels/<name>.yaml: a candidate kernel, either a prebuilt Debian
 * package (package:) or a tree built from source (source:, config:, patches:).
 */
struct kernel_spec {
	char *name;
	char *path;
	char *description;
	char *package; /* prebuilt: linux-image-...-unsigned */
	/*
	 * A Debian suite other than the host's (sid, experimental) and the
	 * exact version of package: and source: package: there: fetched
	 * through wblab's own apt configuration (artifact/debfetch.h), never
	 * installed on the host. NULL: the host's installed or apt-get
	 * download'ed package, as before.
	 */
	char *suite;
	char *version;
	char *source_package; /* source: linux-source-6.1 */
	char *source_git; /* source: a git tree by path */
	char *source_ref;
	char *config_base; /* defconfig */
	struct spec_strlist fragments; /* lab/configs/<f> or kernel's own */
	struct spec_strlist patches; /* lab/patches/<p>, in order */
	char *base; /* another kernel whose build this reuses */
	char *localversion; /* uname -r suffix naming the variant */
	/*
	 * Build in build/<tree>/ instead of build/<name>/ (specs made in code:
	 * every commit of one git tree shares a checkout and its O= tree).
	 */
	char *tree;
	/*
	 * A source kernel (lab/kernels) whose built O= tree the first build
	 * of a git source starts from (specs made in code: jobs/tree.c names
	 * --config-from's kernel). Not in the cache key: make rebuilds what
	 * differs, so the kernel is the same with or without it.
	 */
	char *seed;
};

enum layer_type {
	LAYER_DISK,
	LAYER_MD,
	LAYER_ISCSI_TARGET,
	LAYER_ISCSI_INITIATOR,
	LAYER_FS,
	LAYER_OVERLAY,
	LAYER_SWAP,
	LAYER_DM_DELAY,
	LAYER_ZRAM,
	LAYER_TYPES /* how many: every table of layer types has one row each */
};

/*
 * A disk's QEMU I/O throttle (libvirt <iotune>): every request costs one
 * of total_iops_sec and its bytes of total_bytes_sec, so under TCG, where
 * a host-backed disk makes seeks free, a small scattered request costs
 * time. 0: no limit.
 */
struct topo_iotune {
	long long total_iops_sec;
	uint64_t total_bytes_sec;
	/*
	 * The disk's virtqueue size (the disk layer's queue_size:, libvirt's
	 * <driver queue_size>), which virtio-blk takes as its queue depth:
	 * a short queue makes the writers, reclaim's pageout() among them,
	 * wait for a tag while QEMU's throttle holds the requests. 0: QEMU's
	 * default (256).
	 */
	long long queue_size;
};

/*
 * A dm-delay layer's stall (its stall: map): the device is suspended
 * (dm's DM_DEV_SUSPEND, without locking the filesystem) count times
 * during the workload, after_ms after its start, each time for
 * suspend_ms of suspended state, resumed for resume_ms between: bios
 * sent to it meanwhile wait in dm's deferred list, so no write completes
 * (a device that stalls rather than one that is slow; issue #26).
 * count 0: no stall.
 */
struct topo_stall {
	long long after_ms;
	long long suspend_ms;
	long long resume_ms;
	long long count;
};

struct topo_layer {
	char *name;
	char *type_name;
	enum layer_type type;
	int line;
	struct spec_strlist on; /* lower layers, by name */
	char *guest; /* "main" (default) or "target" */
	long long index; /* disk: which disk */
	struct topo_iotune iotune; /* disk: its throttle (zero: none) */
	long long level; /* md */
	char *chunk; /* md chunk, e.g. 64K */
	char *bitmap; /* md: "internal" or "none"; NULL: mdadm's default */
	char *backstore; /* iscsi-target: block or fileio */
	char *iqn;
	long long lun;
	char *acl; /* initiator IQN allowed */
	char *fstype; /* fs: xfs, ext4 or f2fs */
	struct spec_strlist mkfs; /* extra mkfs options */
	char *mount_opts;
	char *lower; /* overlay: fs layer names */
	char *upper;
	long long priority; /* swap: swapon -p, -1 for the kernel's default */
	long long delay_ms; /* dm-delay: how long each bio is held */
	struct topo_stall stall; /* dm-delay: suspended now and then */
	uint64_t size; /* zram: the device's disksize, bytes */
	char *algorithm; /* zram: its compressor; NULL: the kernel's default */
};

/* A guest's test disks: how many, and the size of each (none: count 0). */
struct topo_disks {
	long long count;
	uint64_t size; /* bytes; 0 when count is 0 */
};

struct topology_spec {
	char *name;
	char *path;
	char *description;
	struct topo_disks disks; /* the cell's own guest */
	struct topo_disks target_disks; /* the target guest's (none: no target) */
	long long target_memory; /* MiB */
	char *mount; /* the layer workloads run on (default: last) */
	struct topo_layer *layers;
	size_t nr_layers;
};

/* workloads/<name>.yaml */
struct workload_spec {
	char *name;
	char *path;
	char *description;
	long long timeout; /* workload wall clock, seconds */
	long long memory; /* guest memory override, MiB (0 = default) */
	char *fio; /* fio job file; ${WBLAB_MOUNT} is the test mount */
	uint64_t hog_size; /* memory hog: anonymous bytes to touch (0 = none) */
	long long hog_hold; /* seconds the hog keeps its memory */
	long long hog_every; /* re-touch every so many seconds (0 = once) */
	uint64_t hog_churn; /* beside hog_size, bytes dropped and re-touched */
	long long hog_churn_ms; /* ... every so many milliseconds */
	char *memcg_max; /* run the workload in a memcg with this memory.max */
	char *lru_gen; /* "on"/"off": MGLRU set in setup; NULL: kernel default */
	/*
	 * A slab cache (bio-192) whose every allocation fails from just
	 * before the workload until just after it (cell/plan.c); NULL: none.
	 */
	char *failslab;
	/* Trace every page-cache insertion (collect/seek.c's offset join). */
	bool trace_page_cache;
	struct spec_strlist
		pre; /* guest commands (argv, split on spaces) before fio */
	/*
	 * The question the workload asks: the report rows (metric registry
	 * names) its Verdict block tests at alpha without a family penalty.
	 */
	struct spec_strlist primary;
};

/*
 * Loaders: fill *out from path (name is the spec's name); on error, print
 * every "file:line: field: message" to stderr and return -1.
 */
int image_spec_load(const char *path, const char *name, struct image_spec *out);
int kernel_spec_load(const char *path, const char *name,
		     struct kernel_spec *out);
int topology_spec_load(const char *path, const char *name,
		       struct topology_spec *out);
int workload_spec_load(const char *path, const char *name,
		       struct workload_spec *out);
/* The same loaders reporting into a strbuf instead of stderr (for tests). */
int topology_spec_load_err(const char *path, const char *name,
			   struct topology_spec *out, struct strbuf *err);
int workload_spec_load_err(const char *path, const char *name,
			   struct workload_spec *out, struct strbuf *err);
int kernel_spec_load_err(const char *path, const char *name,
			 struct kernel_spec *out, struct strbuf *err);

void image_spec_free(struct image_spec *s);
void kernel_spec_free(struct kernel_spec *s);
void topology_spec_free(struct topology_spec *s);
void workload_spec_free(struct workload_spec *s);

const struct topo_layer *topology_find(const struct topology_spec *t,
				       const char *name);
/* The throttle of a guest's ("main", "target") disk index; NULL: no layer. */
const struct topo_iotune *topology_disk_iotune(const struct topology_spec *t,
					       const char *guest,
					       long long index);
const struct topo_layer *topology_mount_layer(const struct topology_spec *t);
/* Does the workload's fio job or a pre: command name ${WBLAB_MOUNT}? */
bool workload_needs_mount(const struct workload_spec *w);
bool topology_has_target(const struct topology_spec *t);

/* Resolve a name and load it; print errors and known names; NULL on failure. */
int image_spec_find(const char *name, struct image_spec *out);
int kernel_spec_find(const char *name, struct kernel_spec *out);
/*
 * A module variant is a variant whose base is a prebuilt (package:)
 * kernel (artifact/kbuild-modules.c). Returns 1 with its base loaded in
 * base if s is one, else 0; free base either way.
 */
int kernel_spec_module_base(const struct kernel_spec *s,
			    struct kernel_spec *base);
/*
 * The rules of a module variant, one owner for the spec loader and the
 * build: calls bad(field, message, arg) for each rule s breaks (field is
 * the spec's: localversion, config, base); returns how many.
 */
int kernel_module_variant_check(
	const struct kernel_spec *s, const struct kernel_spec *base,
	void (*bad)(const char *field, const char *msg, void *arg), void *arg);
/*
 * A deep copy. Kernels made in code (a git tree at a commit, for bisect,
 * validate and nightly) have no file: whoever makes one hands it to the
 * matrix engine (matrix_opts.kernels), which looks there before
 * lab/kernels.
 */
void kernel_spec_copy(struct kernel_spec *dst, const struct kernel_spec *src);
/* 0 if name may name a kernel made in code ([A-Za-z0-9.-], no '_'). */
int kernel_spec_check_name(const char *name);
int topology_spec_find(const char *name, struct topology_spec *out);
int workload_spec_find(const char *name, struct workload_spec *out);

#endif
