// SPDX-License-Identifier: GPL-2.0
/* Spec loaders: the shipped specs load; bad input names file:line: field. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "spec/matrix.h"
#include "spec/specs.h"
#include "util/fs.h"
#include "util/log.h"

static char tmpdir[] = "/tmp/wblab-test-spec-XXXXXX";

static char *write_tmp(const char *name, const char *text)
{
	char *path = xasprintf("%s/%s", tmpdir, name);

	ck_assert_int_eq(write_string_atomic(path, text), 0);
	return path;
}

/* Load a topology from text; return the error text ("" if it loaded). */
static char *topo_errors(const char *text)
{
	char *path = write_tmp("t.yaml", text);
	struct topology_spec t;
	struct strbuf err = STRBUF_INIT;

	topology_spec_load_err(path, "t", &t, &err);
	topology_spec_free(&t);
	free(path);
	return strbuf_detach(&err, NULL);
}

#define ASSERT_ERR(text, expect)                                              \
	do {                                                                  \
		char *_e = topo_errors(text);                                 \
		ck_assert_msg(strstr(_e, expect), "want '%s' in: %s", expect, \
			      _e);                                            \
		free(_e);                                                     \
	} while (0)

static const char good_head[] = "description: test\n"
				"disks:\n  count: 2\n  size: 1G\n"
				"layers:\n";

/* good_head plus the layers x, in the calling test's strbuf s. */
#define LAYERS(x)                                                              \
	(strbuf_reset(&s), strbuf_addstr(&s, good_head), strbuf_addstr(&s, x), \
	 s.buf)

START_TEST(shipped_specs_load)
{
	static const char *const dirs[] = { "topologies", "workloads", "guests",
					    "lab/kernels" };

	for (size_t d = 0; d < ARRAY_SIZE(dirs); d++) {
		struct spec_strlist names = { 0 };

		spec_list_names(dirs[d], &names);
		ck_assert_msg(names.n > 0, "no specs in %s", dirs[d]);
		for (size_t i = 0; i < names.n; i++) {
			char *path = xasprintf("%s/%s/%s.yaml", wblab_home(),
					       dirs[d], names.v[i]);
			struct strbuf err = STRBUF_INIT;
			int ret = 0;

			if (d == 0) {
				struct topology_spec t;

				ret = topology_spec_load_err(path, names.v[i],
							     &t, &err);
				topology_spec_free(&t);
			} else if (d == 1) {
				struct workload_spec w;

				ret = workload_spec_load_err(path, names.v[i],
							     &w, &err);
				workload_spec_free(&w);
			} else if (d == 2) {
				struct image_spec s;

				ret = image_spec_load(path, names.v[i], &s);
				image_spec_free(&s);
			} else {
				struct kernel_spec k;

				ret = kernel_spec_load_err(path, names.v[i], &k,
							   &err);
				kernel_spec_free(&k);
			}
			ck_assert_msg(ret == 0, "%s: %s", path, err.buf);
			strbuf_release(&err);
			free(path);
		}
		spec_strlist_free(&names);
	}
}
END_TEST

START_TEST(topology_xfs_disk_fields)
{
	struct topology_spec t;
	char *path = xasprintf("%s/topologies/xfs-disk.yaml", wblab_home());

	ck_assert_int_eq(topology_spec_load(path, "xfs-disk", &t), 0);
	ck_assert_int_eq(t.disks.count, 1);
	ck_assert_uint_eq(t.disks.size, 4ULL << 30);
	ck_assert_uint_eq(t.nr_layers, 2);
	ck_assert_str_eq(t.layers[1].fstype, "xfs");
	ck_assert_str_eq(topology_mount_layer(&t)->name, "scratch");
	topology_spec_free(&t);
	free(path);
}
END_TEST

/* A disk's <iotune>: both limits read, a disk without one unlimited. */
START_TEST(topology_iotune_field)
{
	struct topology_spec t;
	struct strbuf err = STRBUF_INIT;
	const char *text =
		"description: x\ndisks: {count: 2, size: 1G}\nlayers:\n"
		"  - {name: d0, type: disk, index: 0, iotune: {total_iops_sec: 200, total_bytes_sec: 4M}}\n"
		"  - {name: d1, type: disk, index: 1}\n"
		"  - {name: f, type: fs, on: d0, fstype: ext4}\n";
	char *path = write_tmp("io.yaml", text);
	const struct topo_iotune *io;

	ck_assert_int_eq(topology_spec_load_err(path, "t", &t, &err), 0);
	io = topology_disk_iotune(&t, "main", 0);
	ck_assert_ptr_nonnull(io);
	ck_assert_int_eq(io->total_iops_sec, 200);
	ck_assert_uint_eq(io->total_bytes_sec, 4ULL << 20);
	io = topology_disk_iotune(&t, "main", 1);
	ck_assert_ptr_nonnull(io);
	ck_assert_int_eq(io->total_iops_sec, 0);
	ck_assert_uint_eq(io->total_bytes_sec, 0);
	ck_assert_ptr_null(topology_disk_iotune(&t, "target", 0));
	topology_spec_free(&t);
	strbuf_release(&err);
	free(path);
	ASSERT_ERR(
		"description: x\ndisks: {count: 1, size: 1G}\nlayers:\n"
		"  - {name: d, type: disk, index: 0, iotune: {total_iops_sec: 0}}\n",
		"t.yaml:4: layers[0].iotune.total_iops_sec: 0 is out of range");
	ASSERT_ERR(
		"description: x\ndisks: {count: 1, size: 1G}\nlayers:\n"
		"  - {name: d, type: disk, index: 0, iotune: {read_iops_sec: 9}}\n",
		"t.yaml:4: layers[0].iotune.read_iops_sec: unknown field");
}
END_TEST

/* A disk's queue_size: read beside its iotune, a power of two. */
START_TEST(topology_queue_size_field)
{
	struct topology_spec t;
	struct strbuf err = STRBUF_INIT;
	char *path = write_tmp(
		"qs.yaml",
		"description: x\ndisks: {count: 1, size: 1G}\nlayers:\n"
		"  - {name: d0, type: disk, index: 0, queue_size: 8}\n"
		"  - {name: f, type: fs, on: d0, fstype: ext4}\n");

	ck_assert_msg(!topology_spec_load_err(path, "t", &t, &err), "%s",
		      err.buf);
	ck_assert_int_eq(topology_disk_iotune(&t, "main", 0)->queue_size, 8);
	topology_spec_free(&t);
	strbuf_release(&err);
	free(path);
	ASSERT_ERR("description: x\ndisks: {count: 1, size: 1G}\nlayers:\n"
		   "  - {name: d, type: disk, index: 0, queue_size: 12}\n",
		   "t.yaml:4: layers[0].queue_size: 12 is not a power of two");
	ASSERT_ERR("description: x\ndisks: {count: 1, size: 1G}\nlayers:\n"
		   "  - {name: d, type: disk, index: 0, queue_size: 2}\n",
		   "t.yaml:4: layers[0].queue_size: 2 is out of range");
}
END_TEST

START_TEST(topology_errors)
{
	/* Each error names file:line: field. */
	ASSERT_ERR("description: x\nlayers: [\n", "t.yaml:");
	ASSERT_ERR(
		"description: x\nlayers:\n  - name: a\n    type: disk\n    index: 0\n",
		"t.yaml:1: disks: required field is missing");
	ASSERT_ERR(
		"description: x\ndisks:\n  count: 1\n  size: 1G\nbogus: 1\nlayers:\n  - {name: d, type: disk, index: 0}\n  - {name: f, type: fs, on: d, fstype: xfs}\n",
		"t.yaml:5: bogus: unknown field");
	ASSERT_ERR(
		"description: x\ndisks:\n  count: 1\n  size: lots\nlayers:\n  - {name: d, type: disk, index: 0}\n",
		"t.yaml:4: disks.size: 'lots' is not a size");
	ASSERT_ERR(
		"description: x\ndisks:\n  count: 99\n  size: 1G\nlayers:\n  - {name: d, type: disk, index: 0}\n",
		"disks.count: 99 is out of range");
}
END_TEST

START_TEST(layer_errors)
{
	struct strbuf s = STRBUF_INIT;

	ASSERT_ERR(LAYERS("  - {name: d, type: tape}\n"),
		   "t.yaml:6: layers[0].type: unknown layer type 'tape'");
	ASSERT_ERR(
		LAYERS("  - {name: d, type: disk, index: 0}\n  - {name: f, type: fs, on: nope, fstype: xfs}\n"),
		"t.yaml:7: layers[1].on: no layer named 'nope'");
	ASSERT_ERR(
		LAYERS("  - {name: d, type: disk, index: 0}\n  - {name: f, type: fs, on: d, fstype: zfs}\n"),
		"layers[1].fstype: 'zfs' is not one of: xfs, ext4");
	ASSERT_ERR(LAYERS("  - {name: d, type: disk, index: 5}\n"),
		   "layers[0].index: disk 5 does not exist");
	ASSERT_ERR(
		LAYERS("  - {name: d, type: disk, index: 0}\n  - {name: d, type: disk, index: 1}\n"),
		"layers[1].name: duplicate layer name 'd'");
	ASSERT_ERR(
		LAYERS("  - {name: d, type: disk, index: 0}\n  - {name: e, type: disk, index: 1}\n  - {name: m, type: md, level: 5, on: [d, e]}\n  - {name: f, type: fs, on: m, fstype: xfs}\n"),
		"layers[2].on: RAID5 needs at least 3 members, has 2");
	ASSERT_ERR(
		LAYERS("  - {name: d, type: disk, index: 0}\n  - {name: e, type: disk, index: 1}\n  - {name: m, type: md, level: 4, on: [d, e]}\n"),
		"layers[2].level: md level 4 is not one of");
	ASSERT_ERR(
		LAYERS("  - {name: d, type: disk, index: 0}\n  - {name: f, type: fs, on: d, fstype: xfs}\n  - {name: g, type: fs, on: f, fstype: xfs}\n"),
		"layers[2].on: 'f' (fs) provides no block device for fs");
	ASSERT_ERR(
		LAYERS("  - {name: a, type: md, level: 1, on: [b, d]}\n  - {name: b, type: md, level: 1, on: [a, d]}\n  - {name: d, type: disk, index: 0}\n"),
		"is part of a cycle");
	ASSERT_ERR(
		LAYERS("  - {name: d, type: disk, index: 0}\n  - {name: i, type: iscsi-initiator, on: d}\n"),
		"layers[1].on: an iscsi-initiator logs in to an iscsi-target layer");
	ASSERT_ERR(
		LAYERS("  - {name: d, type: disk, index: 0}\n  - {name: t, type: iscsi-target, on: d, iqn: bad}\n"),
		"layers[1].iqn: 'bad' is not an IQN");
	ASSERT_ERR(
		LAYERS("  - {name: d, type: disk, index: 0}\n  - {name: f, type: fs, on: d, fstype: xfs}\n  - {name: o, type: overlay, lower: d, upper: f}\n"),
		"layers[2].lower: overlay dirs live on an fs layer, 'd' is disk");
	ASSERT_ERR(
		LAYERS("  - {name: d, type: disk, index: 0, guest: target}\n"),
		"layers[0].guest: layer in guest target but the topology has no target");
	ASSERT_ERR(
		LAYERS("  - {name: d, type: disk, index: 0}\n"),
		"layers: no fs, overlay, swap or top md layer in the main guest");
	/* An md array no layer is on is a top: fio names /dev/md0. */
	{
		char *e = topo_errors(LAYERS(
			"  - {name: d, type: disk, index: 0}\n"
			"  - {name: e, type: disk, index: 1}\n"
			"  - {name: r, type: md, level: 1, bitmap: none, on: [d, e]}\n"));

		ck_assert_msg(!*e, "md on top refused: %s", e);
		free(e);
	}
	ASSERT_ERR(LAYERS("  - {name: d, type: disk}\n"),
		   "layers[0].index: required field is missing");
	strbuf_release(&s);
}
END_TEST

/* swap and f2fs layers: what loads, and what is refused by name. */
START_TEST(swap_and_f2fs_layers)
{
	struct strbuf s = STRBUF_INIT;
	struct topology_spec t;
	char *path, *e;

	/* A swap-only stack needs no mount: it is for anonymous workloads. */
	e = topo_errors(LAYERS(
		"  - {name: d, type: disk, index: 0}\n  - {name: sw, type: swap, on: d, priority: 5}\n"));
	ck_assert_msg(!*e, "swap-only topology refused: %s", e);
	free(e);
	e = topo_errors(LAYERS(
		"  - {name: d, type: disk, index: 0}\n  - {name: f, type: fs, on: d, fstype: f2fs}\n"));
	ck_assert_msg(!*e, "f2fs refused: %s", e);
	free(e);
	ASSERT_ERR(
		LAYERS("  - {name: d, type: disk, index: 0}\n  - {name: sw, type: swap, on: d, priority: 40000}\n"),
		"t.yaml:7: layers[1].priority: 40000 is out of range");
	ASSERT_ERR(
		LAYERS("  - {name: d, type: disk, index: 0}\n  - {name: f, type: fs, on: d, fstype: ext4}\n  - {name: sw, type: swap, on: f}\n"),
		"layers[2].on: 'f' (fs) provides no block device for swap");
	ASSERT_ERR(
		LAYERS("  - {name: d, type: disk, index: 0}\n  - {name: e, type: disk, index: 1}\n  - {name: sw, type: swap, on: [d, e]}\n"),
		"layers[2].on: swap takes 1 lower layer, not 2");
	ASSERT_ERR(
		LAYERS("  - {name: d, type: disk, index: 0}\n  - {name: sw, type: swap, on: d}\n  - {name: f, type: fs, on: sw, fstype: xfs}\n"),
		"layers[2].on: 'sw' (swap) provides no block device for fs");
	ASSERT_ERR(
		LAYERS("  - {name: d, type: disk, index: 0}\n  - {name: sw, type: swap, on: d}\n  - {name: f, type: fs, on: d, fstype: xfs}\n"),
		"layers[2].on: 'd' is already used by layer 'sw' (a block device has one user)");
	ASSERT_ERR(
		LAYERS("  - {name: d, type: disk, index: 0}\n  - {name: sw, type: swap}\n"),
		"layers[1].on: required field is missing");
	ASSERT_ERR(
		LAYERS("  - {name: d, type: disk, index: 0}\n  - {name: sw, type: swapfile, on: d}\n"),
		"unknown layer type 'swapfile' (known: disk, md, iscsi-target, iscsi-initiator, fs, overlay, swap, dm-delay, zram)");
	strbuf_release(&s);

	/* The shipped swap stack: md RAID1 on two LUNs of the target guest. */
	path = xasprintf("%s/topologies/swap-raid1-iscsi.yaml", wblab_home());
	ck_assert_int_eq(topology_spec_load(path, "swap-raid1-iscsi", &t), 0);
	ck_assert_ptr_null(topology_mount_layer(&t));
	ck_assert(topology_has_target(&t));
	ck_assert_int_eq(topology_find(&t, "swap")->type, LAYER_SWAP);
	ck_assert_int_eq(topology_find(&t, "swap")->priority, -1);
	ck_assert_str_eq(topology_find(&t, "swap")->on.v[0], "raid");
	ck_assert_str_eq(topology_find(&t, "raid")->guest, "main");
	topology_spec_free(&t);
	free(path);
	path = xasprintf("%s/topologies/overlay-raid-iscsi-f2fs.yaml",
			 wblab_home());
	ck_assert_int_eq(
		topology_spec_load(path, "overlay-raid-iscsi-f2fs", &t), 0);
	ck_assert_str_eq(topology_find(&t, "base")->fstype, "f2fs");
	ck_assert_str_eq(topology_mount_layer(&t)->name, "union");
	topology_spec_free(&t);
	free(path);

	/* Which shipped workloads need a mount (swap-only stacks have none). */
	{
		static const struct {
			const char *name;
			bool mount;
		} wl[] = { { "dirty-flood", true },
			   { "smoke", true },
			   { "swap-memcg", false },
			   { "swap-direct", false },
			   { "shmem-memcg", false } };

		for (size_t i = 0; i < ARRAY_SIZE(wl); i++) {
			struct workload_spec w;

			ck_assert_int_eq(workload_spec_find(wl[i].name, &w), 0);
			ck_assert_msg(workload_needs_mount(&w) == wl[i].mount,
				      "%s", wl[i].name);
			workload_spec_free(&w);
		}
	}
	path = xasprintf("%s/topologies/f2fs-disk.yaml", wblab_home());
	ck_assert_int_eq(topology_spec_load(path, "f2fs-disk", &t), 0);
	ck_assert_str_eq(topology_mount_layer(&t)->name, "scratch");
	ck_assert_str_eq(topology_mount_layer(&t)->fstype, "f2fs");
	topology_spec_free(&t);
	free(path);
}
END_TEST

START_TEST(workload_errors)
{
	char *path =
		write_tmp("w.yaml", "description: x\ntimeout: 0\nfio: x\n");
	struct workload_spec w;
	struct strbuf err = STRBUF_INIT;

	ck_assert_int_ne(workload_spec_load_err(path, "w", &w, &err), 0);
	ck_assert_msg(strstr(err.buf, "w.yaml:2: timeout: 0 is out of range"),
		      "%s", err.buf);
	workload_spec_free(&w);
	free(path);
	strbuf_reset(&err);
	path = write_tmp("w.yaml", "description: x\ntimeout: 10\n");
	ck_assert_int_ne(workload_spec_load_err(path, "w", &w, &err), 0);
	ck_assert_msg(strstr(err.buf,
			     "fio: a workload needs fio:, hog: or pre:"),
		      "%s", err.buf);
	workload_spec_free(&w);
	free(path);
	strbuf_reset(&err);
	path = write_tmp("w.yaml",
			 "description: x\ntimeout: 10\nhog:\n  size: 1X\n");
	ck_assert_int_ne(workload_spec_load_err(path, "w", &w, &err), 0);
	ck_assert_msg(strstr(err.buf, "w.yaml:4: hog.size: '1X' is not a size"),
		      "%s", err.buf);
	workload_spec_free(&w);
	free(path);
	strbuf_reset(&err);
	/* primary: registry names, each item's own line; kept as spelled
	 * by the registry */
	path = write_tmp("w.yaml",
			 "description: x\ntimeout: 9\nfio: x\nprimary:\n"
			 "  - minor-faults\n  - wr-direct\n");
	ck_assert_int_ne(workload_spec_load_err(path, "w", &w, &err), 0);
	ck_assert_msg(strstr(err.buf, "w.yaml:6: primary[1]: unknown metric "
				      "'wr-direct'; did you mean "
				      "reclaim-wr-direct"),
		      "%s", err.buf);
	ck_assert_msg(!strstr(err.buf, "primary[0]"), "%s", err.buf);
	workload_spec_free(&w);
	free(path);
	strbuf_reset(&err);
	path = write_tmp("w.yaml",
			 "description: x\ntimeout: 9\nfio: x\n"
			 "primary: [minor-faults, reclaim-wr-direct]\n");
	ck_assert_msg(!workload_spec_load_err(path, "w", &w, &err), "%s",
		      err.buf);
	ck_assert_str_eq(w.primary.v[0], "Minor faults");
	ck_assert_str_eq(w.primary.v[1], "reclaim-wr-direct");
	workload_spec_free(&w);
	free(path);
	strbuf_release(&err);
}
END_TEST

/*
 * One disks shape for every guest, a size only with disks; memory with a
 * unit or as MiB in topologies, workloads and matrices alike.
 */
START_TEST(disks_and_memory)
{
	static const char fs[] =
		"layers:\n  - {name: d, type: disk, index: 0, guest: target}\n"
		"  - {name: t, type: iscsi-target, guest: target, on: d, iqn: iqn.2026-12.x:y}\n"
		"  - {name: i, type: iscsi-initiator, on: t}\n"
		"  - {name: f, type: fs, on: i, fstype: xfs}\n";
	char *text, *path, *e;
	struct topology_spec t;
	struct workload_spec w;
	struct matrix_spec m;
	struct strbuf err = STRBUF_INIT;

	/* no disks, no size; the target's disks as the main guest's */
	text = xasprintf("description: x\ndisks: {count: 0}\n"
			 "target:\n  disks: {count: 2, size: 1G}\n"
			 "  memory: 1G\n%s",
			 fs);
	path = write_tmp("t.yaml", text);
	ck_assert_msg(!topology_spec_load_err(path, "t", &t, &err), "%s",
		      err.buf);
	ck_assert_int_eq(t.disks.count, 0);
	ck_assert_int_eq(t.target_disks.count, 2);
	ck_assert_uint_eq(t.target_disks.size, 1ULL << 30);
	ck_assert_int_eq(t.target_memory, 1024);
	ck_assert(topology_has_target(&t));
	topology_spec_free(&t);
	free(path);
	free(text);
	ASSERT_ERR("description: x\ndisks: {count: 1}\nlayers:\n"
		   "  - {name: d, type: disk, index: 0}\n"
		   "  - {name: f, type: fs, on: d, fstype: xfs}\n",
		   "t.yaml:2: disks.size: 1 disks need a size");
	/* the old target shape says where the disks go now */
	e = xasprintf("description: x\ndisks: {count: 0}\n"
		      "target:\n  disks: 1\n  size: 4G\n%s",
		      fs);
	ASSERT_ERR(e, "t.yaml:4: target.disks: expected a mapping");
	ASSERT_ERR(e, "t.yaml:5: target.size: unknown field");
	free(e);
	e = xasprintf("description: x\ndisks: {count: 0}\n"
		      "target:\n  disks: {count: 0}\n%s",
		      fs);
	ASSERT_ERR(e, "t.yaml:4: target.disks.count: a target guest serves");
	free(e);
	e = xasprintf("description: x\ndisks: {count: 0}\n"
		      "target:\n  disks: {count: 1, size: 1G}\n"
		      "  memory: 1500K\n%s",
		      fs);
	ASSERT_ERR(e, "t.yaml:5: target.memory: '1500K' is not a whole "
		      "number of MiB");
	free(e);
	/* a workload's and a matrix's memory: MiB, or with a unit */
	path = write_tmp("w.yaml", "description: x\ntimeout: 9\nfio: x\n"
				   "memory: 2G\n");
	ck_assert_msg(!workload_spec_load_err(path, "w", &w, &err), "%s",
		      err.buf);
	ck_assert_int_eq(w.memory, 2048);
	workload_spec_free(&w);
	free(path);
	path = write_tmp("w.yaml", "description: x\ntimeout: 9\nfio: x\n"
				   "memory: 768\n");
	ck_assert_msg(!workload_spec_load_err(path, "w", &w, &err), "%s",
		      err.buf);
	ck_assert_int_eq(w.memory, 768);
	workload_spec_free(&w);
	free(path);
	path = write_tmp("w.yaml", "description: x\ntimeout: 9\nfio: x\n"
				   "memory: 64M\n");
	ck_assert_int_ne(workload_spec_load_err(path, "w", &w, &err), 0);
	ck_assert_msg(strstr(err.buf, "w.yaml:4: memory: 64M is out of range "
				      "[128, 1048576] MiB"),
		      "%s", err.buf);
	workload_spec_free(&w);
	free(path);
	strbuf_reset(&err);
	path = write_tmp("m.yaml",
			 "description: x\nkernels: [a]\ntopologies: [b]\n"
			 "workloads: [c]\nguests:\n  - {memory: 1G, vcpus: 1}\n"
			 "  - {memory: 512, vcpus: 2}\n");
	ck_assert_msg(!matrix_spec_load(path, "m", &m, &err), "%s", err.buf);
	ck_assert_int_eq(m.sizes[0].memory, 1024);
	ck_assert_int_eq(m.sizes[1].memory, 512);
	ck_assert_str_eq(m.image, SPEC_DEFAULT_IMAGE);
	matrix_spec_free(&m);
	free(path);
	strbuf_release(&err);
}
END_TEST

/*
 * The defaults (spec/specs.h, the one place they are spelt) name shipped
 * specs: the image a matrix, a run or a job takes when it names none, and
 * the kernel whose .config a tree's build starts from.
 */
START_TEST(default_names_are_shipped)
{
	struct image_spec img;
	struct kernel_spec k;

	ck_assert_int_eq(image_spec_find(SPEC_DEFAULT_IMAGE, &img), 0);
	ck_assert_str_eq(img.name, SPEC_DEFAULT_IMAGE);
	image_spec_free(&img);
	ck_assert_int_eq(kernel_spec_find(SPEC_DEFAULT_CONFIG_FROM, &k), 0);
	ck_assert_str_eq(k.name, SPEC_DEFAULT_CONFIG_FROM);
	/* a config of its own (jobs/tree.c config_like()) */
	ck_assert_ptr_null(k.base);
	ck_assert_ptr_null(k.package);
	ck_assert_ptr_nonnull(k.config_base);
	kernel_spec_free(&k);
}
END_TEST

START_TEST(sizes_and_names)
{
	uint64_t v;

	ck_assert_int_eq(spec_parse_size("4096", &v), 0);
	ck_assert_uint_eq(v, 4096);
	ck_assert_int_eq(spec_parse_size("512M", &v), 0);
	ck_assert_uint_eq(v, 512ULL << 20);
	ck_assert_int_eq(spec_parse_size("2GiB", &v), 0);
	ck_assert_uint_eq(v, 2ULL << 30);
	ck_assert_int_ne(spec_parse_size("-1", &v), 0);
	ck_assert_int_ne(spec_parse_size("1Q", &v), 0);
	ck_assert_int_ne(spec_parse_size("99999999999999999999T", &v), 0);
	ck_assert(spec_valid_name("debian-6.1"));
	ck_assert(!spec_valid_name("../etc"));
	ck_assert(!spec_valid_name("a b"));
	ck_assert(!spec_valid_name(""));
}
END_TEST

/* dm-delay: a block layer over one block layer, its delay required. */
START_TEST(dm_delay_layer)
{
	struct strbuf s = STRBUF_INIT;
	struct topology_spec t;
	char *path, *e;

	e = topo_errors(LAYERS(
		"  - {name: d, type: disk, index: 0}\n  - {name: dl, type: dm-delay, on: d, delay_ms: 5}\n"
		"  - {name: f, type: fs, on: dl, fstype: ext4}\n"));
	ck_assert_msg(!*e, "dm-delay refused: %s", e);
	free(e);
	ASSERT_ERR(
		LAYERS("  - {name: d, type: disk, index: 0}\n  - {name: dl, type: dm-delay, on: d}\n  - {name: f, type: fs, on: dl, fstype: ext4}\n"),
		"t.yaml:7: layers[1].delay_ms: required field is missing");
	ASSERT_ERR(
		LAYERS("  - {name: d, type: disk, index: 0}\n  - {name: dl, type: dm-delay, on: d, delay_ms: -1}\n  - {name: f, type: fs, on: dl, fstype: ext4}\n"),
		"t.yaml:7: layers[1].delay_ms: -1 is out of range [0, 60000]");
	ASSERT_ERR(
		LAYERS("  - {name: d, type: disk, index: 0}\n  - {name: e, type: disk, index: 1}\n  - {name: dl, type: dm-delay, on: [d, e], delay_ms: 1}\n  - {name: f, type: fs, on: dl, fstype: ext4}\n"),
		"t.yaml:8: layers[2].on: dm-delay takes 1 lower layer, not 2");
	ASSERT_ERR(
		LAYERS("  - {name: d, type: disk, index: 0}\n  - {name: f, type: fs, on: d, fstype: ext4}\n  - {name: dl, type: dm-delay, on: f, delay_ms: 1}\n"),
		"layers[2].on: 'f' (fs) provides no block device for dm-delay");
	ASSERT_ERR(
		LAYERS("  - {name: d, type: disk, index: 0}\n  - {name: dl, type: dm-delay, on: d, delay_ms: 1, level: 5}\n  - {name: f, type: fs, on: dl, fstype: ext4}\n"),
		"t.yaml:7: layers[1].level: unknown field");
	strbuf_release(&s);

	/* The shipped control: ext4 on dm-delay on the 4 MiB/s disk. */
	path = xasprintf("%s/topologies/ext4-oom-4m-dmdelay.yaml",
			 wblab_home());
	ck_assert_int_eq(topology_spec_load(path, "ext4-oom-4m-dmdelay", &t),
			 0);
	ck_assert_int_eq(topology_find(&t, "delay")->type, LAYER_DM_DELAY);
	ck_assert_int_eq(topology_find(&t, "delay")->delay_ms, 1);
	ck_assert_str_eq(topology_find(&t, "delay")->on.v[0], "disk0");
	ck_assert_str_eq(topology_mount_layer(&t)->on.v[0], "delay");
	ck_assert_int_eq(topology_disk_iotune(&t, "main", 0)->queue_size, 8);
	ck_assert_int_eq(topology_find(&t, "delay")->stall.count, 0);
	topology_spec_free(&t);
	free(path);
}
END_TEST

/*
 * A zram layer: a block device of size bytes with no on:, one a guest
 * (the plan names it /dev/zram0); the shipped swap-zram loads.
 */
START_TEST(zram_layer)
{
	struct strbuf s = STRBUF_INIT;
	struct topology_spec t;
	char *path, *e;

	e = topo_errors(LAYERS(
		"  - {name: z, type: zram, size: 64M, algorithm: lz4}\n  - {name: sw, type: swap, on: z}\n"));
	ck_assert_msg(!*e, "zram refused: %s", e);
	free(e);
	ASSERT_ERR(
		LAYERS("  - {name: z, type: zram}\n  - {name: sw, type: swap, on: z}\n"),
		"t.yaml:6: layers[0].size: required field is missing");
	ASSERT_ERR(
		LAYERS("  - {name: z, type: zram, size: 4K}\n  - {name: sw, type: swap, on: z}\n"),
		"t.yaml:6: layers[0].size:");
	ASSERT_ERR(
		LAYERS("  - {name: z, type: zram, size: 64M, algorithm: '-x'}\n  - {name: sw, type: swap, on: z}\n"),
		"t.yaml:6: layers[0].algorithm:");
	ASSERT_ERR(
		LAYERS("  - {name: d, type: disk, index: 0}\n  - {name: z, type: zram, size: 64M, on: d}\n  - {name: sw, type: swap, on: z}\n"),
		"t.yaml:7: layers[1].on: unknown field");
	ASSERT_ERR(
		LAYERS("  - {name: z, type: zram, size: 64M}\n  - {name: y, type: zram, size: 64M}\n  - {name: sw, type: swap, on: z}\n  - {name: sx, type: swap, on: y}\n"),
		"t.yaml:7: layers[1].type: guest main has a zram layer already, 'z'");
	/* One swap on it: a block device has one user. */
	ASSERT_ERR(
		LAYERS("  - {name: z, type: zram, size: 64M}\n  - {name: sw, type: swap, on: z}\n  - {name: f, type: fs, on: z, fstype: ext4}\n"),
		"layers[2].on: 'z' is already used by layer 'sw'");
	strbuf_release(&s);

	path = xasprintf("%s/topologies/swap-zram.yaml", wblab_home());
	ck_assert_int_eq(topology_spec_load(path, "swap-zram", &t), 0);
	ck_assert_int_eq(topology_find(&t, "zram0")->type, LAYER_ZRAM);
	ck_assert_uint_eq(topology_find(&t, "zram0")->size, 512ULL << 20);
	ck_assert_ptr_null(topology_find(&t, "zram0")->algorithm);
	ck_assert_ptr_null(topology_mount_layer(&t));
	topology_spec_free(&t);
	free(path);
}
END_TEST

/* A dm-delay layer's stall: the schedule read, each bound checked. */
START_TEST(dm_delay_stall)
{
	struct strbuf s = STRBUF_INIT;
	const struct topo_stall *st;
	struct topology_spec t;
	char *path;

	ASSERT_ERR(
		LAYERS("  - {name: d, type: disk, index: 0}\n  - {name: dl, type: dm-delay, on: d, delay_ms: 1, stall: {suspend_ms: 500, resume_ms: 500}}\n  - {name: f, type: fs, on: dl, fstype: ext4}\n"),
		"t.yaml:7: layers[1].stall.count: required field is missing");
	ASSERT_ERR(
		LAYERS("  - {name: d, type: disk, index: 0}\n  - {name: dl, type: dm-delay, on: d, delay_ms: 1, stall: {suspend_ms: 50, resume_ms: 500, count: 1}}\n  - {name: f, type: fs, on: dl, fstype: ext4}\n"),
		"t.yaml:7: layers[1].stall.suspend_ms: 50 is out of range [100, 60000]");
	ASSERT_ERR(
		LAYERS("  - {name: d, type: disk, index: 0}\n  - {name: dl, type: dm-delay, on: d, delay_ms: 1, stall: {suspend_ms: 500, resume_ms: 500, count: 101}}\n  - {name: f, type: fs, on: dl, fstype: ext4}\n"),
		"t.yaml:7: layers[1].stall.count: 101 is out of range [1, 100]");
	ASSERT_ERR(
		LAYERS("  - {name: d, type: disk, index: 0}\n  - {name: dl, type: dm-delay, on: d, delay_ms: 1, stall: {suspend_ms: 500, resume_ms: 500, count: 1, every_ms: 9}}\n  - {name: f, type: fs, on: dl, fstype: ext4}\n"),
		"t.yaml:7: layers[1].stall.every_ms: unknown field");
	/* Only a dm device can be suspended: a disk has no stall:. */
	ASSERT_ERR(
		LAYERS("  - {name: d, type: disk, index: 0, stall: {suspend_ms: 500, resume_ms: 500, count: 1}}\n  - {name: f, type: fs, on: d, fstype: ext4}\n"),
		"t.yaml:6: layers[0].stall: unknown field");
	ASSERT_ERR(
		"description: x\ndisks: {count: 1, size: 1G}\ntarget: {disks: {count: 1, size: 1G}}\nlayers:\n"
		"  - {name: d, type: disk, index: 0, guest: target}\n"
		"  - {name: dl, type: dm-delay, on: d, delay_ms: 1, guest: target, stall: {suspend_ms: 500, resume_ms: 500, count: 1}}\n"
		"  - {name: t, type: iscsi-target, on: dl, guest: target, iqn: iqn.2026-12.org.wblab:t}\n"
		"  - {name: i, type: iscsi-initiator, on: t}\n  - {name: f, type: fs, on: i, fstype: ext4}\n",
		"t.yaml:6: layers[1].stall: a stall runs beside the workload, in guest main, not target");
	strbuf_release(&s);

	/* The shipped topology: ext4-oom-4m-dmdelay's stack, stalling. */
	path = xasprintf("%s/topologies/ext4-oom-4m-stall.yaml", wblab_home());
	ck_assert_int_eq(topology_spec_load(path, "ext4-oom-4m-stall", &t), 0);
	st = &topology_find(&t, "delay")->stall;
	ck_assert_int_eq(st->after_ms, 3000);
	ck_assert_int_eq(st->suspend_ms, 8000);
	ck_assert_int_eq(st->resume_ms, 4000);
	ck_assert_int_eq(st->count, 3);
	ck_assert_int_eq(topology_find(&t, "delay")->delay_ms, 0);
	ck_assert_int_eq(topology_disk_iotune(&t, "main", 0)->queue_size, 8);
	topology_spec_free(&t);
	free(path);
}
END_TEST

/*
 * md's bitmap: unset is mdadm's default (the shipped swap-raid1-iscsi),
 * internal or none otherwise; RAID0 takes none only.
 */
START_TEST(md_bitmap_field)
{
	struct strbuf s = STRBUF_INIT;
	struct topology_spec t;
	char *path, *e;

	e = topo_errors(LAYERS(
		"  - {name: d, type: disk, index: 0}\n  - {name: e, type: disk, index: 1}\n"
		"  - {name: m, type: md, level: 0, on: [d, e], bitmap: none}\n"
		"  - {name: f, type: fs, on: m, fstype: xfs}\n"));
	ck_assert_msg(!*e, "RAID0 with bitmap none refused: %s", e);
	free(e);
	ASSERT_ERR(
		LAYERS("  - {name: d, type: disk, index: 0}\n  - {name: e, type: disk, index: 1}\n"
		       "  - {name: m, type: md, level: 1, on: [d, e], bitmap: external}\n"
		       "  - {name: f, type: fs, on: m, fstype: xfs}\n"),
		"t.yaml:8: layers[2].bitmap: 'external' is not one of: none, internal");
	ASSERT_ERR(
		LAYERS("  - {name: d, type: disk, index: 0}\n  - {name: e, type: disk, index: 1}\n"
		       "  - {name: m, type: md, level: 0, on: [d, e], bitmap: internal}\n"
		       "  - {name: f, type: fs, on: m, fstype: xfs}\n"),
		"t.yaml:8: layers[2].bitmap: RAID0 has no write-intent bitmap, only none");
	ASSERT_ERR(
		LAYERS("  - {name: d, type: disk, index: 0}\n  - {name: s, type: swap, on: d, bitmap: internal}\n"),
		"t.yaml:7: layers[1].bitmap: unknown field");
	strbuf_release(&s);

	path = xasprintf("%s/topologies/swap-raid1-iscsi-bitmap.yaml",
			 wblab_home());
	ck_assert_int_eq(
		topology_spec_load(path, "swap-raid1-iscsi-bitmap", &t), 0);
	ck_assert_str_eq(topology_find(&t, "raid")->bitmap, "internal");
	topology_spec_free(&t);
	free(path);
	path = xasprintf("%s/topologies/swap-raid1-iscsi.yaml", wblab_home());
	ck_assert_int_eq(topology_spec_load(path, "swap-raid1-iscsi", &t), 0);
	ck_assert_ptr_null(topology_find(&t, "raid")->bitmap);
	topology_spec_free(&t);
	free(path);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("spec");
	TCase *tc = tcase_create("loaders");
	SRunner *sr;
	int failed;

	if (!mkdtemp(tmpdir))
		return 1;
	tcase_add_test(tc, shipped_specs_load);
	tcase_add_test(tc, topology_xfs_disk_fields);
	tcase_add_test(tc, topology_errors);
	tcase_add_test(tc, topology_iotune_field);
	tcase_add_test(tc, topology_queue_size_field);
	tcase_add_test(tc, layer_errors);
	tcase_add_test(tc, swap_and_f2fs_layers);
	tcase_add_test(tc, dm_delay_layer);
	tcase_add_test(tc, dm_delay_stall);
	tcase_add_test(tc, zram_layer);
	tcase_add_test(tc, md_bitmap_field);
	tcase_add_test(tc, workload_errors);
	tcase_add_test(tc, sizes_and_names);
	tcase_add_test(tc, default_names_are_shipped);
	tcase_add_test(tc, disks_and_memory);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	rm_rf(tmpdir);
	return failed ? 1 : 0;
}
