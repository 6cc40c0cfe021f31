// SPDX-License-Identifier: GPL-2.0
/*
 * Cell logic without a guest: the outcome table, the planner on the
 * shipped topologies, and the results writer on a real cell's files
 * (tests/data/cell-smoke).
 */
#include <check.h>
#include <dirent.h>
#include <json-c/json.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agent/proto.h"
#include "cell/cell.h"
#include "cell/outcome.h"
#include "cell/plan-int.h"
#include "cell/plan.h"
#include "cell/results.h"
#include "results/levers.h"
#include "util/fs.h"
#include "util/json.h"
#include "util/kallsyms.h"
#include "util/log.h"
#include "spec/layers.h"
#include "util/num.h"

#include "testdata.h"

static enum cell_outcome decide(const struct cell_facts *f)
{
	struct strbuf r = STRBUF_INIT;
	enum cell_outcome o = cell_outcome(f, &r);

	ck_assert_msg(r.len > 0, "outcome without a reason");
	strbuf_release(&r);
	return o;
}

START_TEST(outcome_table)
{
	struct cell_facts ok = { .hello = true,
				 .exited = true,
				 .agent_status = "ok",
				 .console_kind = "none" };
	struct cell_facts f;

	ck_assert_int_eq(decide(&ok), OUTCOME_OK);
	/* Host trouble is never a kernel outcome, whatever else happened. */
	f = ok;
	f.infra_error = true;
	f.console_crash = true;
	ck_assert_int_eq(decide(&f), OUTCOME_INFRA_ERROR);
	f = ok;
	f.agent_status = "setup-failed";
	f.fail_label = "raid";
	ck_assert_int_eq(decide(&f), OUTCOME_INFRA_ERROR);
	f = ok;
	f.agent_status = "workload-failed";
	ck_assert_int_eq(decide(&f), OUTCOME_WORKLOAD_FAILED);
	{
		/*
		 * A step its deadline stopped (--timeout 1 on smoke: fio's
		 * status 124) says so; any other status is a failure.
		 */
		struct strbuf r = STRBUF_INIT;

		f.fail_label = "fio";
		f.fail_rc = "124";
		ck_assert_int_eq(cell_outcome(&f, &r), OUTCOME_WORKLOAD_FAILED);
		ck_assert_str_eq(
			r.buf,
			"workload step fio stopped at its deadline (the workload's timeout)");
		strbuf_reset(&r);
		f.fail_rc = "1";
		cell_outcome(&f, &r);
		ck_assert_str_eq(r.buf, "workload step fio failed");
		strbuf_release(&r);
		f.fail_label = NULL;
		f.fail_rc = NULL;
	}
	/* A step that failed beside the kernel's hang report: the kernel's. */
	f.console_hang = true;
	f.console_title =
		"INFO: task kswapd0:54 blocked for more than 30 seconds.";
	ck_assert_int_eq(decide(&f), OUTCOME_HUNG);
	f = ok;
	f.console_crash = true;
	f.console_title = "BUG: stack guard page was hit in xfs_vm_writepage";
	ck_assert_int_eq(decide(&f), OUTCOME_CRASHED);
	f = (struct cell_facts){ .boot_timeout = true };
	ck_assert_int_eq(decide(&f), OUTCOME_BOOT_FAILED);
	/* Still booting at the timer: the host is too slow, not the kernel. */
	f.boot_progressing = true;
	ck_assert_int_eq(decide(&f), OUTCOME_INFRA_ERROR);
	f.console_crash = true;
	ck_assert_int_eq(decide(&f), OUTCOME_BOOT_FAILED);
	f = (struct cell_facts){ .stopped_early = true, .console_crash = true };
	ck_assert_int_eq(decide(&f), OUTCOME_BOOT_FAILED);
	f = (struct cell_facts){ .hello = true,
				 .run_timeout = true,
				 .timeout_phase = "workload" };
	/* A phase timer without the kernel's own hang report: the host's. */
	ck_assert_int_eq(decide(&f), OUTCOME_INFRA_ERROR);
	f.timeout_phase = "setup";
	ck_assert_int_eq(decide(&f), OUTCOME_INFRA_ERROR);
	f.console_hang = true;
	ck_assert_int_eq(decide(&f), OUTCOME_HUNG);
	f = (struct cell_facts){ .hello = true,
				 .deadline = true,
				 .timeout_phase = "collect" };
	ck_assert_int_eq(decide(&f), OUTCOME_INFRA_ERROR);
	f.console_hang = true;
	ck_assert_int_eq(decide(&f), OUTCOME_HUNG);
	f = (struct cell_facts){ .deadline = true };
	ck_assert_int_eq(decide(&f), OUTCOME_INFRA_ERROR);
	/* QEMU killed, paused or lost by the host: infra-error, never crashed or hung. */
	f = (struct cell_facts){ .hello = true,
				 .stopped_early = true,
				 .host_fault = "destroyed from outside" };
	ck_assert_int_eq(decide(&f), OUTCOME_INFRA_ERROR);
	f = (struct cell_facts){ .host_fault = "failed" };
	ck_assert_int_eq(decide(&f), OUTCOME_INFRA_ERROR);
	f = (struct cell_facts){ .hello = true,
				 .run_timeout = true,
				 .timeout_phase = "workload",
				 .host_fault = "paused on I/O error" };
	ck_assert_int_eq(decide(&f), OUTCOME_INFRA_ERROR);
	/* A kernel crash on the console stays a crash. */
	f.console_crash = true;
	f.console_title = "BUG: unable to handle page fault";
	ck_assert_int_eq(decide(&f), OUTCOME_CRASHED);
	f = (struct cell_facts){ .hello = true, .stopped_early = true };
	ck_assert_int_eq(decide(&f), OUTCOME_CRASHED);
	ck_assert_str_eq(outcome_name(OUTCOME_BOOT_FAILED), "boot-failed");
	ck_assert_str_eq(outcome_name(OUTCOME_INFRA_ERROR), "infra-error");
}
END_TEST

static int step_index(const char *plan, const char *needle)
{
	const char *p = strstr(plan, needle);

	return p ? (int)(p - plan) : -1;
}

/*
 * Under TCG the kernel takes PCI interrupt routing from the MP table
 * (acpi=noirq: the ACPI links' AML cost 0.3 s of a boot), with the
 * watchdogs' raised thresholds; under KVM neither.
 */
START_TEST(cmdline_by_accel)
{
	struct cell_spec c = { .accel = "tcg" };
	char *tcg, *kvm;

	tcg = cell_cmdline(&c);
	c.accel = "kvm";
	c.cmdline_extra = "wblab.fault=x";
	kvm = cell_cmdline(&c);
	ck_assert_ptr_nonnull(strstr(tcg, " no_timer_check acpi=noirq"));
	ck_assert_ptr_null(strstr(kvm, "acpi=noirq"));
	ck_assert_ptr_null(strstr(kvm, "watchdog_thresh"));
	ck_assert_ptr_nonnull(strstr(kvm, "wblab.mode=cell wblab.fault=x"));
	free(tcg);
	free(kvm);
}
END_TEST

/* Every shipped topology compiles; layers come up bottom-up and go top-down. */
START_TEST(plan_shipped_topologies)
{
	struct spec_strlist names = { 0 };
	struct workload_spec w = { .name = "t",
				   .fio = "[x]\nrw=write\n",
				   .timeout = 30 };

	spec_list_names("topologies", &names);
	ck_assert(names.n > 0);
	for (size_t i = 0; i < names.n; i++) {
		struct topology_spec t;
		struct strbuf p = STRBUF_INIT;
		struct plan_devs d = { 0 };
		struct plan_opts o = { .role = PLAN_MAIN,
				       .workload_timeout = 30,
				       .target_ip = "10.0.0.2" };

		ck_assert_int_eq(topology_spec_find(names.v[i], &t), 0);
		plan_compile(&t, &w, &o, &p, &d);
		ck_assert_int_ge(step_index(p.buf, "phase\tsetup"), 0);
		ck_assert_int_lt(step_index(p.buf, "phase\tsetup"),
				 step_index(p.buf, "get\tvmstat.before"));
		ck_assert_int_lt(step_index(p.buf, "get\tvmstat.before"),
				 step_index(p.buf, "phase\tworkload"));
		ck_assert_int_lt(step_index(p.buf, "run\tfio"),
				 step_index(p.buf, "get\tvmstat.after"));
		ck_assert_int_lt(step_index(p.buf, "phase\tcollect"),
				 step_index(p.buf, "phase\tteardown"));
		ck_assert_int_ge(
			step_index(p.buf, "capture\ttopology.txt\tlsblk"), 0);
		/* Every line splits into fields with a known verb. */
		for (char *line = p.buf; *line;) {
			char *nl = strchr(line, '\n');
			struct strvec f = STRVEC_INIT;

			ck_assert_ptr_nonnull(nl);
			*nl = '\0';
			ck_assert_int_ge(proto_split(line, &f), 2);
			ck_assert_msg(proto_verb(f.v[0]) >= 0, "verb %s",
				      f.v[0]);
			strvec_clear(&f);
			line = nl + 1;
		}
		strbuf_release(&p);
		plan_devs_free(&d);
		topology_spec_free(&t);
	}
	spec_strlist_free(&names);
}
END_TEST

/*
 * The allocator leaves and the stack tracer's filter name only what the
 * kernel that runs can have (6.10 renamed the allocators *_noprof); a
 * kernel of unknown version gets every name, as before.
 */
START_TEST(plan_stack_names_by_version)
{
	static const struct {
		int kver;
		bool old, new;
	} want[] = {
		{ KVER(6, 1), true, false },
		{ KVER(6, 12), false, true },
		{ 0, true, true },
	};
	struct workload_spec w = { .name = "t", .fio = "[j]\n", .timeout = 30 };
	struct topology_spec t;

	ck_assert_int_eq(topology_spec_find("ext4-disk", &t), 0);
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		struct plan_opts o = { .role = PLAN_MAIN,
				       .workload_timeout = 30,
				       .kver = want[i].kver };
		struct strbuf p = STRBUF_INIT;
		struct plan_devs d = { 0 };

		plan_compile(&t, &w, &o, &p, &d);
		ck_assert_int_eq(
			step_index(p.buf,
				   "p:wblab/__alloc_pages __alloc_pages ") >= 0,
			want[i].old);
		ck_assert_int_eq(
			step_index(
				p.buf,
				"stack_trace_filter\t__kmem_cache_alloc_node") >=
				0,
			want[i].old);
		ck_assert_int_eq(step_index(p.buf, "-e\t__kmalloc\t") >= 0,
				 want[i].old);
		ck_assert_int_eq(step_index(p.buf, "__alloc_pages_noprof") >= 0,
				 want[i].new);
		/* 6.12's ext4 and block devices have no ->writepage. */
		ck_assert_int_eq(step_index(p.buf, "p:wblab/ext4_writepage ") >=
					 0,
				 want[i].old);
		ck_assert_int_eq(
			step_index(
				p.buf,
				"stack_trace_filter\tkmem_cache_alloc_noprof") >=
				0,
			want[i].new);
		/* The sites every kernel has stay. */
		ck_assert_int_ge(step_index(p.buf, "p:wblab/submit_bio_noacct"),
				 0);
		/*
		 * A site's hist trigger is made paused while arming and
		 * continued at the workload's start: it counts from there.
		 */
		ck_assert_int_lt(step_index(p.buf, "size=4096:pause if"),
				 step_index(p.buf, "phase\tworkload"));
		ck_assert_int_gt(step_index(p.buf, "size=4096:cont if"),
				 step_index(p.buf, "phase\tworkload"));
		ck_assert_int_lt(step_index(p.buf, "size=4096:cont if"),
				 step_index(p.buf, "run\tfio"));
		ck_assert_int_lt(step_index(p.buf, "phase\tarm"),
				 step_index(p.buf, "size=4096:pause if"));
		ck_assert_int_ge(step_index(p.buf, "-e\tvirtqueue_notify"), 0);
		strbuf_release(&p);
		plan_devs_free(&d);
	}
	topology_spec_free(&t);
}
END_TEST

/*
 * 6.12 names the bounds of init_task's stack *_init_stack, not
 * *_init_task, and the lab's 6.12 has modules (the map may be partial):
 * its map still holds every probed symbol and one pair, so the guest does
 * not grep /proc/kallsyms (it did for every 6.12 cell before: an arm
 * phase 1.3 s longer under TCG).
 */
START_TEST(plan_ksyms_6_12_map)
{
	struct workload_spec w = { .name = "t", .fio = "[j]\n", .timeout = 30 };
	struct strbuf map = STRBUF_INIT, p = STRBUF_INIT, ks = STRBUF_INIT;
	struct plan_opts o = { .role = PLAN_MAIN,
			       .workload_timeout = 30,
			       .kver = KVER(6, 12),
			       .map_complete = false,
			       .host_ksyms = &ks };
	struct plan_devs d = { 0 };
	struct topology_spec t;

	testdata_read(&map, "kallsyms/6.12-System.map.sites");
	o.system_map = map.buf;
	ck_assert_int_eq(topology_spec_find("ext4-disk", &t), 0);
	plan_compile(&t, &w, &o, &p, &d);
	ck_assert_int_lt(step_index(p.buf, "/proc/kallsyms"), 0);
	ck_assert_ptr_nonnull(strstr(ks.buf, " T swap_writepage\n"));
	ck_assert_ptr_nonnull(strstr(ks.buf, " T __alloc_pages_noprof\n"));
	ck_assert_int_eq(ksyms_thread_size(ks.buf, ks.len), 16384);
	strbuf_release(&p);
	strbuf_release(&ks);
	strbuf_release(&map);
	plan_devs_free(&d);
	topology_spec_free(&t);
}
END_TEST

/*
 * With the kernel's System.map on the host, the guest does not read
 * /proc/kallsyms: the probed symbols' lines (and THREAD_SIZE's two) come
 * from the map, exact names only. A map that may lack a module's symbols
 * and misses one leaves the guest's capture in place.
 */
START_TEST(plan_ksyms_from_system_map)
{
	struct workload_spec w = { .name = "t", .fio = "[j]\n", .timeout = 30 };
	struct strbuf map = STRBUF_INIT;
	struct topology_spec t;

	testdata_read(&map, "kallsyms/6.1-System.map.sites");
	for (int complete = 1; complete >= 0; complete--) {
		struct strbuf p = STRBUF_INIT, ks = STRBUF_INIT;
		struct plan_opts o = { .role = PLAN_MAIN,
				       .workload_timeout = 30,
				       .kver = KVER(6, 1),
				       .system_map = map.buf,
				       .map_complete = complete,
				       .host_ksyms = &ks };
		struct plan_devs d = { 0 };

		/* raid1-ext4 arms raid1_make_request: not in this excerpt. */
		ck_assert_int_eq(topology_spec_find(complete ? "ext4-disk" :
							       "raid1-ext4",
						    &t),
				 0);
		plan_compile(&t, &w, &o, &p, &d);
		ck_assert_int_eq(step_index(p.buf, "/proc/kallsyms") >= 0,
				 !complete);
		if (complete) {
			ck_assert_ptr_nonnull(
				strstr(ks.buf, " T try_to_free_pages\n"));
			ck_assert_ptr_nonnull(
				strstr(ks.buf, " t balance_pgdat\n"));
			ck_assert_ptr_null(strstr(ks.buf, "do_try_to_free"));
			ck_assert_ptr_null(
				strstr(ks.buf, "generic_writepages"));
			ck_assert_int_eq(ksyms_thread_size(ks.buf, ks.len),
					 16384);
		} else {
			ck_assert_int_eq(ks.len, 0);
		}
		strbuf_release(&p);
		strbuf_release(&ks);
		plan_devs_free(&d);
		topology_spec_free(&t);
	}
	strbuf_release(&map);
}
END_TEST

/*
 * A site in a module only the topology's layers load is armed only where
 * a layer loads it (on a modular kernel it is missing otherwise); the
 * sites every guest has are always armed.
 */
START_TEST(plan_stack_sites_by_topology)
{
	static const struct {
		const char *topology;
		const char *armed, *absent;
	} want[] = {
		{ "ext4-disk", "ext4_writepage", "raid1_make_request" },
		{ "ext4-disk", "blkdev_writepage", "raid5_make_request" },
		{ "ext4-disk", "submit_bio_noacct", "xfs_vm_writepages" },
		{ "ext4-disk", "swap_writepage", "iscsi_queuecommand" },
		{ "xfs-disk", "xfs_vm_writepages", "f2fs_write_data_page" },
		{ "f2fs-disk", "f2fs_write_data_page", "xfs_vm_writepages" },
		{ "swap-raid1-iscsi", "raid1_make_request",
		  "raid5_make_request" },
		{ "swap-raid1-iscsi", "iscsi_queuecommand",
		  "xfs_vm_writepages" },
		{ "swap-raid1-iscsi", "scsi_queue_rq", "f2fs_write_data_page" },
		{ "overlay-raid-iscsi-xfs", "raid5_make_request",
		  "raid1_make_request" },
		{ "overlay-raid-iscsi-xfs", "xfs_vm_writepages",
		  "f2fs_write_data_page" },
		{ "raid1-ext4", "raid1_make_request", "scsi_queue_rq" },
	};
	struct workload_spec w = { .name = "t", .fio = "[j]\n", .timeout = 30 };

	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		struct plan_opts o = { .role = PLAN_MAIN,
				       .workload_timeout = 30,
				       .target_ip = "10.0.0.2",
				       .kver = KVER(6, 1) };
		struct strbuf p = STRBUF_INIT;
		struct plan_devs d = { 0 };
		struct topology_spec t;
		char probe[96];

		ck_assert_int_eq(topology_spec_find(want[i].topology, &t), 0);
		plan_compile(&t, &w, &o, &p, &d);
		snprintf(probe, sizeof(probe), "p:wblab/%s ", want[i].armed);
		ck_assert_msg(step_index(p.buf, probe) >= 0, "%s: %s",
			      want[i].topology, want[i].armed);
		snprintf(probe, sizeof(probe), "stack_hist.%s", want[i].armed);
		ck_assert_msg(step_index(p.buf, probe) >= 0, "%s: %s hist",
			      want[i].topology, want[i].armed);
		snprintf(probe, sizeof(probe), "/%s/", want[i].absent);
		ck_assert_msg(step_index(p.buf, probe) < 0, "%s: %s",
			      want[i].topology, want[i].absent);
		strbuf_release(&p);
		plan_devs_free(&d);
		topology_spec_free(&t);
	}
}
END_TEST

START_TEST(plan_order_xfs_disk)
{
	struct topology_spec t;
	struct workload_spec w = { .name = "t",
				   .fio = "[j]\n",
				   .timeout = 30,
				   .hog_size = 64 << 20,
				   .memcg_max = "256M" };
	struct plan_opts o = { .role = PLAN_MAIN, .workload_timeout = 30 };
	struct strbuf p = STRBUF_INIT;
	struct plan_devs d = { 0 };

	ck_assert_int_eq(topology_spec_find("xfs-disk", &t), 0);
	plan_compile(&t, &w, &o, &p, &d);
	ck_assert_int_lt(
		step_index(p.buf, "mkfs.xfs\t-f\t@disk:wblab-disk0"),
		step_index(p.buf,
			   "mount\t-t\txfs\t@disk:wblab-disk0\t/mnt/scratch"));
	/* The mount point: the agent's mkdir, before the mount. */
	ck_assert_int_lt(step_index(p.buf, "mkdir\t/mnt/scratch\n"),
			 step_index(p.buf, "mount\t-t\txfs"));
	ck_assert_int_ge(step_index(p.buf, "env\tWBLAB_MOUNT\t/mnt/scratch"),
			 0);
	ck_assert_int_lt(step_index(p.buf, "cgroup\twblab\t256M"),
			 step_index(p.buf, "bg\thog"));
	ck_assert_int_lt(step_index(p.buf, "bg\thog"),
			 step_index(p.buf, "run\tfio"));
	ck_assert_int_ge(step_index(p.buf,
				    "try\tscratch\t120\tumount\t/mnt/scratch"),
			 0);
	ck_assert_str_eq(d.dev[1], "/mnt/scratch");
	strbuf_release(&p);
	plan_devs_free(&d);
	topology_spec_free(&t);
}
END_TEST

/*
 * A hog with every: gets its third argument (re-touch period); one without
 * keeps the two-argument step every shipped plan had before.
 */
START_TEST(plan_hog_every)
{
	struct topology_spec t;
	struct workload_spec w = { .name = "t",
				   .fio = "[j]\n",
				   .timeout = 30,
				   .hog_size = 32 << 20,
				   .hog_hold = 280,
				   .hog_every = 3 };
	struct plan_opts o = { .role = PLAN_MAIN, .workload_timeout = 30 };
	struct strbuf p = STRBUF_INIT;
	struct plan_devs d = { 0 };

	ck_assert_int_eq(topology_spec_find("ext4-disk", &t), 0);
	plan_compile(&t, &w, &o, &p, &d);
	ck_assert_int_ge(
		step_index(p.buf, "/run/wblab-agent\thog\t32\t280\t3\n"), 0);
	/* Its output comes back after fio, before the workload ends. */
	ck_assert_int_gt(step_index(p.buf,
				    "get\thog.out\t/tmp/wblab-bg-hog.out"),
			 step_index(p.buf, "run\tfio"));
	ck_assert_int_lt(step_index(p.buf,
				    "get\thog.out\t/tmp/wblab-bg-hog.out"),
			 step_index(p.buf, "phase\tcollect"));
	strbuf_release(&p);
	plan_devs_free(&d);
	w.hog_every = 0;
	plan_compile(&t, &w, &o, &p, &d);
	ck_assert_int_ge(step_index(p.buf, "/run/wblab-agent\thog\t32\t280\n"),
			 0);
	strbuf_release(&p);
	plan_devs_free(&d);
	topology_spec_free(&t);
}
END_TEST

/* f2fs: mkfs.f2fs -f -q, mounted as f2fs; overlay on f2fs on md on iSCSI. */
START_TEST(plan_f2fs)
{
	struct topology_spec t;
	struct workload_spec w = { .name = "t", .fio = "[j]\n", .timeout = 30 };
	struct plan_opts o = { .role = PLAN_MAIN,
			       .workload_timeout = 30,
			       .target_ip = "10.0.0.2" };
	struct strbuf p = STRBUF_INIT;
	struct plan_devs d = { 0 };

	ck_assert_int_eq(topology_spec_find("f2fs-disk", &t), 0);
	plan_compile(&t, &w, &o, &p, &d);
	ck_assert_int_ge(step_index(p.buf,
				    "\tmkfs.f2fs\t-f\t-q\t@disk:wblab-disk0\n"),
			 0);
	ck_assert_int_lt(
		step_index(p.buf, "\tmkfs.f2fs\t"),
		step_index(p.buf,
			   "mount\t-t\tf2fs\t@disk:wblab-disk0\t/mnt/scratch"));
	strbuf_release(&p);
	plan_devs_free(&d);
	topology_spec_free(&t);

	ck_assert_int_eq(topology_spec_find("overlay-raid-iscsi-f2fs", &t), 0);
	plan_compile(&t, &w, &o, &p, &d);
	ck_assert_int_lt(step_index(p.buf, "mdadm\t--create\t/dev/md0"),
			 step_index(p.buf, "mkfs.f2fs\t-f\t-q\t/dev/md0"));
	ck_assert_int_lt(step_index(p.buf,
				    "mount\t-t\tf2fs\t/dev/md0\t/mnt/base"),
			 step_index(p.buf, "mount\t-t\toverlay"));
	ck_assert_int_ge(step_index(p.buf, "env\tWBLAB_MOUNT\t/mnt/union"), 0);
	strbuf_release(&p);
	plan_devs_free(&d);
	topology_spec_free(&t);
}
END_TEST

/*
 * swap: mkswap and swapon once the md below is up, before the measured
 * window; swapoff at teardown before the md stops and iSCSI logs out.
 */
START_TEST(plan_swap_raid1_iscsi)
{
	struct topology_spec t;
	struct workload_spec w = { .name = "t",
				   .timeout = 30,
				   .hog_size = 64 << 20,
				   .memcg_max = "32M" };
	struct plan_opts o = { .role = PLAN_MAIN,
			       .workload_timeout = 30,
			       .target_ip = "10.0.0.2" };
	struct strbuf p = STRBUF_INIT;
	struct plan_devs d = { 0 };

	ck_assert_int_eq(topology_spec_find("swap-raid1-iscsi", &t), 0);
	plan_compile(&t, &w, &o, &p, &d);
	ck_assert_int_lt(
		step_index(p.buf,
			   "iscsiadm\t-m\tnode\t-T\tiqn.2026-12.org.wblab:s1"),
		step_index(
			p.buf,
			"mdadm\t--create\t/dev/md0\t--run\t--metadata=1.2\t--level=1"));
	ck_assert_int_lt(
		step_index(p.buf, "mdadm\t--create\t/dev/md0"),
		step_index(p.buf,
			   "run\tswap:mkswap\t120\tmkswap\t-f\t/dev/md0\n"));
	ck_assert_int_lt(
		step_index(p.buf, "\tmkswap\t-f\t/dev/md0\n"),
		step_index(p.buf, "run\tswap:swapon\t120\tswapon\t/dev/md0\n"));
	ck_assert_int_lt(step_index(p.buf, "\tswapon\t/dev/md0\n"),
			 step_index(p.buf, "get\tvmstat.before"));
	ck_assert_int_lt(step_index(p.buf, "get\tvmstat.after"),
			 step_index(p.buf,
				    "capture\ttopology.txt\t/proc/swaps"));
	ck_assert_int_lt(step_index(p.buf, "phase\tteardown"),
			 step_index(p.buf,
				    "try\tswap\t120\tswapoff\t/dev/md0\n"));
	ck_assert_int_lt(step_index(p.buf, "\tswapoff\t/dev/md0\n"),
			 step_index(p.buf,
				    "try\traid\t120\tmdadm\t--stop\t/dev/md0"));
	ck_assert_int_lt(step_index(p.buf, "\tmdadm\t--stop\t/dev/md0"),
			 step_index(p.buf,
				    "iscsiadm\t-m\tnode\t--logoutall=all"));
	/* No bitmap: mdadm's default, none at this size. */
	ck_assert_int_lt(step_index(p.buf, "--bitmap"), 0);
	/* No mount: no WBLAB_MOUNT, no findmnt. */
	ck_assert_int_lt(step_index(p.buf, "env\tWBLAB_MOUNT"), 0);
	ck_assert_int_lt(step_index(p.buf, "findmnt"), 0);
	ck_assert_str_eq(d.dev[topology_find(&t, "swap") - t.layers],
			 "/dev/md0");
	strbuf_release(&p);
	plan_devs_free(&d);
	topology_spec_free(&t);

	/* bitmap: internal reaches mdadm before the members. */
	ck_assert_int_eq(topology_spec_find("swap-raid1-iscsi-bitmap", &t), 0);
	plan_compile(&t, &w, &o, &p, &d);
	ck_assert_int_ge(step_index(p.buf, "\t--raid-devices=2\t--assume-clean"
					   "\t--bitmap=internal\t"),
			 0);
	ck_assert_int_lt(step_index(p.buf, "--bitmap=internal"),
			 step_index(p.buf, "run\tswap:mkswap"));
	strbuf_release(&p);
	plan_devs_free(&d);
	topology_spec_free(&t);

	/* The target guest serves the LUNs and knows nothing of swap. */
	o.role = PLAN_TARGET;
	ck_assert_int_eq(topology_spec_find("swap-raid1-iscsi", &t), 0);
	plan_compile(&t, &w, &o, &p, &d);
	ck_assert_int_ge(
		step_index(p.buf,
			   "targetcli\t/backstores/block\tcreate\tname=tgt1"),
		0);
	ck_assert_int_lt(step_index(p.buf, "swap"), 0);
	strbuf_release(&p);
	plan_devs_free(&d);
	topology_spec_free(&t);

	/* A priority goes to swapon -p. */
	ck_assert_int_eq(topology_spec_find("swap-disk", &t), 0);
	t.layers[1].priority = 7;
	o.role = PLAN_MAIN;
	plan_compile(&t, &w, &o, &p, &d);
	ck_assert_int_ge(
		step_index(p.buf, "\tswapon\t-p\t7\t@disk:wblab-disk0\n"), 0);
	strbuf_release(&p);
	plan_devs_free(&d);
	topology_spec_free(&t);
}
END_TEST

/*
 * dm-delay: the agent's helper makes the device over the disk (it needs
 * the guest's device size), the fs goes on /dev/mapper/NAME, and teardown
 * removes it after the unmount.
 */
/*
 * Every layer type has its loader's row (a type: name, fields) and one
 * planner's row with setup steps: a type added to enum layer_type and
 * missing a row fails here, not in a guest.
 */
START_TEST(layer_tables_complete)
{
	for (int type = 0; type < LAYER_TYPES; type++) {
		int rows = 0;

		ck_assert_msg(layer_kinds[type].name &&
				      layer_kinds[type].fields,
			      "layer type %d has no loader row", type);
		ck_assert_ptr_eq(layer_kind_named(layer_kinds[type].name),
				 &layer_kinds[type]);
		for (size_t i = 0; i < LAYER_TYPES; i++)
			rows += (int)plan_layer_table[i].type == type;
		ck_assert_msg(rows == 1, "layer type %s has %d planner rows",
			      layer_kinds[type].name, rows);
		ck_assert_ptr_nonnull(plan_layer_steps(type)->setup);
	}
}
END_TEST

/*
 * The zram layer (swap-zram, as shipped): /dev/zram0 sized before mkswap
 * uses it, its zramctl line captured after the workload, reset after
 * swapoff; cell.json's layer entry carries its size.
 */
START_TEST(plan_zram)
{
	struct topology_spec t;
	struct workload_spec w;
	struct plan_opts o = { .role = PLAN_MAIN, .workload_timeout = 150 };
	struct strbuf p = STRBUF_INIT;
	struct plan_devs d = { 0 };
	json_object *lj = json_object_new_object();
	const struct topo_layer *z;

	ck_assert_int_eq(topology_spec_find("swap-zram", &t), 0);
	ck_assert_int_eq(workload_spec_find("swap-memcg", &w), 0);
	plan_compile(&t, &w, &o, &p, &d);
	ck_assert_int_lt(
		step_index(p.buf, "try\tzram:modprobe\t120\tmodprobe\tzram\n"),
		step_index(
			p.buf,
			"run\tzram0\t120\tzramctl\t--size\t536870912\t/dev/zram0\n"));
	ck_assert_int_lt(
		step_index(p.buf, "\tzramctl\t--size\t536870912\t/dev/zram0\n"),
		step_index(p.buf,
			   "run\tswap:mkswap\t120\tmkswap\t-f\t/dev/zram0\n"));
	ck_assert_int_lt(step_index(p.buf, "\tfio\t"), 0);
	ck_assert_int_lt(
		step_index(p.buf, "phase\tworkload"),
		step_index(
			p.buf,
			"capture\ttopology.txt\tzramctl\tzramctl\t--bytes\n"));
	ck_assert_int_lt(
		step_index(p.buf, "try\tswap\t120\tswapoff\t/dev/zram0\n"),
		step_index(p.buf,
			   "try\tzram0\t120\tzramctl\t--reset\t/dev/zram0\n"));
	z = topology_find(&t, "zram0");
	ck_assert_str_eq(d.dev[z - t.layers], "/dev/zram0");
	plan_layer_record(lj, z);
	ck_assert_str_eq(json_object_to_json_string_ext(lj,
							JSON_C_TO_STRING_PLAIN),
			 "{\"size\":536870912}");
	json_object_put(lj);
	strbuf_release(&p);
	plan_devs_free(&d);
	workload_spec_free(&w);
	topology_spec_free(&t);
}
END_TEST

START_TEST(plan_dm_delay)
{
	struct topology_spec t;
	struct workload_spec w = { .name = "t",
				   .fio = "[x]\nrw=write\n",
				   .timeout = 30 };
	struct plan_opts o = { .role = PLAN_MAIN, .workload_timeout = 30 };
	struct strbuf p = STRBUF_INIT;
	struct plan_devs d = { 0 };

	ck_assert_int_eq(topology_spec_find("ext4-oom-4m-dmdelay", &t), 0);
	plan_compile(&t, &w, &o, &p, &d);
	ck_assert_int_ge(
		step_index(
			p.buf,
			"run\tdelay\t120\t/run/wblab-agent\tdm-delay\tdelay\t@disk:wblab-disk0\t1\n"),
		0);
	ck_assert_int_lt(
		step_index(p.buf, "\tdm-delay\tdelay\t@disk:wblab-disk0"),
		step_index(p.buf,
			   "run\tdelay\t120\tdmsetup\tmknodes\tdelay\n"));
	ck_assert_int_lt(
		step_index(p.buf, "\tdmsetup\tmknodes\tdelay\n"),
		step_index(p.buf, "\tmkfs.ext4\t-F\t-q\t/dev/mapper/delay\n"));
	ck_assert_int_ge(
		step_index(
			p.buf,
			"capture\ttopology.txt\tdmsetup table\tdmsetup\ttable\n"),
		0);
	ck_assert_int_lt(
		step_index(p.buf, "try\tscratch\t120\tumount\t/mnt/scratch\n"),
		step_index(p.buf, "try\tdelay\t120\tdmsetup\tremove\tdelay\n"));
	ck_assert_str_eq(d.dev[topology_find(&t, "delay") - t.layers],
			 "/dev/mapper/delay");
	strbuf_release(&p);
	plan_devs_free(&d);
	topology_spec_free(&t);
}
END_TEST

/*
 * A dm-delay layer's stall: (ext4-oom-4m-stall with oom-premature, as
 * shipped): the dm-stall helper starts before the memcg is made (so that
 * it is outside it), runs beside the hog and fio, and after fio the plan
 * waits for it, resumes the device in case it was killed while suspended,
 * and takes its times, all before the collect phase reads anything.
 */
START_TEST(plan_dm_stall)
{
	struct topology_spec t;
	struct workload_spec w;
	struct plan_opts o = { .role = PLAN_MAIN, .workload_timeout = 80 };
	struct strbuf p = STRBUF_INIT;
	struct plan_devs d = { 0 };
	int start, cgroup, fio, wait, resume, get, collect;

	ck_assert_int_eq(topology_spec_find("ext4-oom-4m-stall", &t), 0);
	ck_assert_int_eq(workload_spec_find("oom-premature", &w), 0);
	plan_compile(&t, &w, &o, &p, &d);
	start = step_index(p.buf,
			   "bg\tstall-delay\t/run/wblab-agent\tdm-stall\t"
			   "delay\t3000\t8000\t4000\t3\n");
	cgroup = step_index(p.buf, "cgroup\twblab\t256M\n");
	fio = step_index(p.buf, "\tfio\t--output-format=json");
	wait = step_index(p.buf, "wait\tstall-delay\t80\n");
	resume = step_index(p.buf, "try\tdelay\t120\tdmsetup\tresume\t"
				   "--noudevsync\tdelay\n");
	get = step_index(p.buf, "get\tstall-delay.tsv\t" AGENT_BG_OUT(
					"stall-delay") "\n");
	collect = step_index(p.buf, "phase\tcollect\n");
	ck_assert_int_ge(start, 0);
	ck_assert_int_gt(cgroup, start);
	ck_assert_int_gt(fio, cgroup);
	ck_assert_int_gt(wait, fio);
	ck_assert_int_gt(resume, wait);
	ck_assert_int_gt(get, resume);
	ck_assert_int_gt(collect, get);
	/* The same stack without a stall: no helper. */
	strbuf_release(&p);
	plan_devs_free(&d);
	topology_spec_free(&t);
	ck_assert_int_eq(topology_spec_find("ext4-oom-4m-dmdelay", &t), 0);
	plan_compile(&t, &w, &o, &p, &d);
	ck_assert_int_lt(step_index(p.buf, "dm-stall"), 0);
	ck_assert_int_lt(step_index(p.buf, "stall-delay"), 0);
	strbuf_release(&p);
	plan_devs_free(&d);
	topology_spec_free(&t);
	workload_spec_free(&w);
}
END_TEST

/* A pre: command of 100 words reaches the plan whole, ${WBLAB_MOUNT} filled. */
START_TEST(plan_pre_step_not_cut)
{
	struct topology_spec t;
	struct workload_spec w = { .name = "t", .fio = "[j]\n", .timeout = 30 };
	struct plan_opts o = { .role = PLAN_MAIN, .workload_timeout = 30 };
	struct strbuf p = STRBUF_INIT, cmd = STRBUF_INIT, want = STRBUF_INIT;
	struct plan_devs d = { 0 };

	strbuf_addstr(&cmd, "touch");
	strbuf_addstr(&want, "run\tpre\t30\ttouch");
	for (int i = 0; i < 99; i++) {
		strbuf_addf(&cmd, " ${WBLAB_MOUNT}/f%d", i);
		strbuf_addf(&want, "\t/mnt/scratch/f%d", i);
	}
	strbuf_addch(&want, '\n');
	spec_strlist_add(&w.pre, cmd.buf);
	ck_assert_int_eq(topology_spec_find("xfs-disk", &t), 0);
	plan_compile(&t, &w, &o, &p, &d);
	ck_assert_msg(strstr(p.buf, want.buf), "no 100-word pre step in:\n%s",
		      p.buf);
	strbuf_release(&p);
	strbuf_release(&cmd);
	strbuf_release(&want);
	plan_devs_free(&d);
	spec_strlist_free(&w.pre);
	topology_spec_free(&t);
}
END_TEST

/*
 * The planner writes nothing into the shared topology: the main guest's
 * plan is the same whether or not the target's was compiled first, and
 * each plan's devices are its own.
 */
START_TEST(plan_is_pure)
{
	struct topology_spec t;
	struct workload_spec w = { .name = "t", .fio = "[j]\n", .timeout = 30 };
	struct plan_opts om = { .role = PLAN_MAIN,
				.workload_timeout = 30,
				.target_ip = "10.0.0.2" };
	struct plan_opts ot = { .role = PLAN_TARGET, .workload_timeout = 30 };
	struct strbuf alone = STRBUF_INIT, tgt = STRBUF_INIT,
		      after = STRBUF_INIT;
	struct plan_devs da = { 0 }, dt = { 0 }, dm = { 0 };
	const struct topology_spec *ct = &t;
	size_t md;

	ck_assert_int_eq(topology_spec_find("swap-raid1-iscsi", &t), 0);
	plan_compile(ct, &w, &om, &alone, &da);
	plan_compile(ct, &w, &ot, &tgt, &dt);
	plan_compile(ct, &w, &om, &after, &dm);
	ck_assert_str_eq(alone.buf, after.buf);
	md = topology_find(&t, "raid") - t.layers;
	ck_assert_str_eq(dm.dev[md], "/dev/md0");
	ck_assert_ptr_null(dt.dev[md]); /* the target guest has no md */
	strbuf_release(&alone);
	strbuf_release(&tgt);
	strbuf_release(&after);
	plan_devs_free(&da);
	plan_devs_free(&dt);
	plan_devs_free(&dm);
	topology_spec_free(&t);
}
END_TEST

START_TEST(results_writer_on_real_cell)
{
	static const char *const files[] = { "fio.json", "vmstat.before",
					     "vmstat.after", "console.log",
					     NULL };
	char dir[] = "/tmp/wblab-test-cell-XXXXXX";
	struct topology_spec t;
	struct workload_spec w = { .name = "smoke" };
	struct kernel_artifact k = { .name = "debian-6.1",
				     .version = "6.1.0-57-amd64",
				     .origin = "prebuilt",
				     .hash = "abc" };
	struct cell_spec c = { .run_id = "r1",
			       .cell_id = "c1",
			       .cell_dir = dir,
			       .kernel = &k,
			       .wl = &w,
			       .rep = 2,
			       .accel = "tcg",
			       .memory_mib = 1024,
			       .vcpus = 2 };
	struct cell_run_result r = { .outcome = OUTCOME_OK,
				     .reason = "workload completed" };
	struct plan_devs devs = { 0 };
	struct console_report con;
	struct guest g;
	json_object *o;
	char *path;
	DIR *d;
	struct dirent *de;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	testdata_copy(dir, "cell-smoke", files);
	ck_assert_int_eq(topology_spec_find("xfs-disk", &t), 0);
	c.topo = &t;
	guest_init(&g, "wblab-r1-c1", "/nonexistent", dir);
	g.hello = g.exited = true;
	strcpy(g.agent_status, "ok");
	strbuf_addstr(&g.exit_body, "phase=\nlabel=\nrc=0\n\n");
	g.t_create = 100;
	g.t_hello = 105;
	/* Phases as the agent announced them; this plan had no warm-up. */
	g.t_phase[PHASE_SETUP] = 105.5;
	g.t_phase[PHASE_ARM] = 108;
	g.t_phase[PHASE_WORKLOAD] = 109;
	g.t_phase[PHASE_COLLECT] = 125;
	g.t_phase[PHASE_TEARDOWN] = 127.5;
	g.t_exit = 128;
	g.t_stop = 130;
	console_report_init(&con);
	/* The devices are whatever the caller hands over. */
	devs.nr = t.nr_layers;
	devs.dev = xzalloc(t.nr_layers * sizeof(*devs.dev));
	devs.dev[1] = xstrdup("/mnt/handed");
	/* Every lever's setting is recorded, the defaults too. */
	{
		struct strbuf lerr = STRBUF_INIT;

		ck_assert_int_eq(levers_parse("pin=on,cache=directsync",
					      &c.levers, &lerr),
				 0);
		strbuf_release(&lerr);
	}
	ck_assert_int_eq(
		results_write_cell(&c, &r, &g, &con, "2026-12-03T00:00:00Z",
				   "console=ttyS0 wblab.test=1", &devs),
		0);
	plan_devs_free(&devs);

	path = xasprintf("%s/cell.json", dir);
	o = json_object_from_file(path);
	ck_assert_ptr_nonnull(o);
	ck_assert_str_eq(json_object_get_string(json_path(o, "outcome")), "ok");
	ck_assert_str_eq(json_object_get_string(json_path(o, "kernel.name")),
			 "debian-6.1");
	{
		char *key = levers_cell_key(o);

		ck_assert_str_eq(
			json_object_get_string(json_path(o, "levers.pin")),
			"on");
		ck_assert_str_eq(
			json_object_get_string(json_path(o, "levers.clock")),
			"wall");
		ck_assert_str_eq(key, "pin=on,cache=directsync,aio=native,"
				      "iothread=off,drop-host-cache=off,"
				      "warmup=off,clock=wall");
		free(key);
	}
	ck_assert_int_eq(json_object_get_int(json_path(o, "rep")), 2);
	/* results.c writes the command line it is handed, nothing else. */
	ck_assert_str_eq(json_object_get_string(json_path(o, "kernel.cmdline")),
			 "console=ttyS0 wblab.test=1");
	ck_assert_str_eq(
		json_object_get_string(json_path(o, "topology.layers.1.dev")),
		"/mnt/handed");
	ck_assert(!json_object_object_get_ex(json_path(o, "topology.layers.0"),
					     "dev", NULL));
	ck_assert_str_eq(json_object_get_string(json_path(o, "topology.mount")),
			 "/mnt/scratch");
	ck_assert_double_eq_tol(
		json_object_get_double(json_path(o, "timings.boot_s")), 5,
		1e-9);
	ck_assert_double_eq_tol(
		json_object_get_double(json_path(o, "timings.total_s")), 30,
		1e-9);
	/* Each phase to the next that started; the last to the exit. */
	{
		static const struct {
			const char *key;
			double want;
		} ph[] = { { "timings.setup_s", 2.5 },
			   { "timings.warmup_s", 0 },
			   { "timings.arm_s", 1 },
			   { "timings.workload_s", 16 },
			   { "timings.collect_s", 2.5 },
			   { "timings.teardown_s", 0.5 },
			   { "timings.poweroff_s", 2 } };

		for (size_t i = 0; i < ARRAY_SIZE(ph); i++)
			ck_assert_msg(fabs(json_object_get_double(
						   json_path(o, ph[i].key)) -
					   ph[i].want) < 1e-9,
				      "%s", ph[i].key);
	}
	/* Figures from the real files: 128 MiB written then read by fio. */
	ck_assert_str_eq(
		json_object_get_string(json_path(o, "metrics.fio.0.job")),
		"write");
	ck_assert_int_eq(json_object_get_int64(
				 json_path(o, "metrics.fio.0.write.io_kib")),
			 131072);
	ck_assert_int_eq(json_object_get_int64(
				 json_path(o, "metrics.fio.1.read.io_kib")),
			 131072);
	ck_assert_int_eq(json_object_get_int64(json_path(
				 o, "metrics.vmstat_delta.nr_dirtied")),
			 65564 - 24);
	ck_assert_int_eq(json_object_get_int64(
				 json_path(o, "metrics.vmstat_delta.pgpgout")),
			 264847 - 2584);
	ck_assert_int_eq(
		json_object_get_int64(json_path(o, "metrics.allocstall")), 0);
	json_object_put(o);
	free(path);
	/* Temp-then-rename: nothing half-written is left behind. */
	d = opendir(dir);
	while ((de = readdir(d)))
		ck_assert_msg(!strstr(de->d_name, ".tmp."), "left %s",
			      de->d_name);
	closedir(d);
	console_report_free(&con);
	g.t_create = 0;
	frame_decoder_release(&g.dec);
	strbuf_release(&g.exit_body);
	free(g.name);
	free(g.sock_path);
	free(g.out_dir);
	topology_spec_free(&t);
	rm_rf(dir);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("cell");
	TCase *tc = tcase_create("cell");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, outcome_table);
	tcase_add_test(tc, cmdline_by_accel);
	tcase_add_test(tc, plan_shipped_topologies);
	tcase_add_test(tc, plan_stack_names_by_version);
	tcase_add_test(tc, plan_stack_sites_by_topology);
	tcase_add_test(tc, plan_ksyms_from_system_map);
	tcase_add_test(tc, plan_ksyms_6_12_map);
	tcase_add_test(tc, plan_order_xfs_disk);
	tcase_add_test(tc, plan_hog_every);
	tcase_add_test(tc, plan_f2fs);
	tcase_add_test(tc, plan_swap_raid1_iscsi);
	tcase_add_test(tc, layer_tables_complete);
	tcase_add_test(tc, plan_zram);
	tcase_add_test(tc, plan_dm_delay);
	tcase_add_test(tc, plan_dm_stall);
	tcase_add_test(tc, plan_pre_step_not_cut);
	tcase_add_test(tc, plan_is_pure);
	tcase_add_test(tc, results_writer_on_real_cell);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
