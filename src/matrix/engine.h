/* SPDX-License-Identifier: GPL-2.0 */
#ifndef WBLAB_MATRIX_ENGINE_H
#define WBLAB_MATRIX_ENGINE_H

/*
 * The engine's insides, shared by engine.c (specs, artifacts, the run),
 * slots.c (the workers), record.c (run.json), cells.c, hosts.c, upload.c.
 */
#include <json-c/json.h>
#include <libvirt/libvirt.h>
#include <sqlite3.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "artifact/image.h"
#include "artifact/kernel.h"
#include "matrix/matrix.h"
#include "matrix/progress.h"
#include "spec/hosts.h"
#include "spec/specs.h"
#include "virt/probe.h"

struct cell_result;
struct results_run;

/* QEMU's own memory next to the guest's (TCG translation cache, devices). */
#define QEMU_OVERHEAD_MIB 256
/* Host memory left to the host and the other users of this machine. */
#define HOST_RESERVE_MIB 2048
/* Below this free space in the results dir no new cell starts. */
#define RESULTS_MIN_FREE (64LL << 20)
struct engine_kernel {
	struct kernel_spec spec;
	struct kernel_artifact art;
	char *initrd;
	char *err; /* why its cells cannot run */
	bool ok;
};

/* Artifacts as volumes in a host's wblab pool. */
struct engine_vols {
	char *bzimage, *initrd, *modules;
};

struct engine_host {
	const struct host_spec *spec;
	int index;
	virConnectPtr conn;
	bool up;
	char *down_reason;
	int cpus, used_cpus, running;
	long long mem_mib, used_mib;
	bool *slots; /* [cpus]: busy */
	struct accel_verdict accel;
	struct engine_vols *vols; /* [kernels], NULL: local paths */
	char *image; /* volume path of the root image, NULL: local */
};

enum cell_state { CELL_PENDING, CELL_RUNNING, CELL_DONE };

struct engine_state {
	enum cell_state state;
	pid_t pid;
	int host, slot, attempt, last_host;
	int first_attempt; /* this invocation's first: retries count from it */
	long long mib;
	double t_start, t_term;
	double not_before; /* a retry waits until then (now_mono()) */
	bool term_sent, kill_sent;
};

struct engine {
	struct matrix_opts o;
	struct matrix_spec m;
	struct matrix_plan plan;
	struct matrix_run *r;
	struct engine_kernel *k; /* [m.kernels.n] */
	struct topology_spec *topo; /* [m.topologies.n] */
	struct workload_spec *wl; /* [m.workloads.n] */
	struct image_spec ispec;
	struct image_artifact image;
	char *infra; /* run-wide infrastructure failure */
	struct hosts_spec hs;
	struct engine_host *hosts;
	size_t nh;
	struct engine_state *st; /* [r->n] */
	int nr_running;
	struct progress prog;
	char started[32];
	sqlite3 *db;
	int lock_fd;
	char *exe;
	bool resuming;
	struct results_run *record; /* run.json read back (resume) */
	char *results_owned;
	int db_errors; /* records wblab.db refused: the run fails */
};

/*
 * A new run directory in results (made if need be): an id
 * YYYYmmdd-HHMMSS-RRRR whose directory mkdir(2) creates, never one that
 * exists (another run's, started in the same second), tried again if so
 * (mkdir_stamped()). 0 with run_id and *run_dir set, or -1 with errno
 * (*run_dir NULL).
 */
int engine_new_run_dir(const char *results, char *run_id, size_t len,
		       char **run_dir);
/* record.c: run.json as it stands, and written (-1 when the disk is full) */
json_object *engine_run_json(struct engine *e, const char *finished);
int engine_save_run(struct engine *e, const char *finished);

/* slots.c: the workers */
/* SIGCHLD wakes the loop (a self-pipe); installed once. */
void engine_install_sigchld(void);
/* This wblab's own executable, which the workers run (to free). */
char *engine_self_exe(void);
/* Run the cells until none is left to start or running. */
void engine_loop(struct engine *e);
void host_down(struct engine *e, struct engine_host *h, const char *why);

/* hosts.c */
void host_up(struct engine *e, struct engine_host *h);
void hosts_up(struct engine *e);
void host_json(const struct engine *e, json_object *host);
json_object *hosts_json(const struct engine *e);
int free_slot(const struct engine_host *h);
bool host_fits(const struct engine *e, const struct engine_host *h, size_t ci);
bool any_host_up(const struct engine *e);
struct engine_host *pick_host(struct engine *e, size_t ci);
void check_host(struct engine *e, struct engine_host *h);
int load_hosts(struct engine *e);

/* cells.c */
int read_cell_json(struct matrix_cell_result *cr, struct cell_result **out);
bool results_disk_ok(struct engine *e);
/*
 * How to go on after the run stopped: "resume with: wblab matrix run
 * --resume DIR" when DIR has its run.json, else that nothing was recorded
 * (a run started on a full disk has nothing to resume). A static string.
 */
const char *engine_resume_hint(const struct engine *e);
void record_lost_worker(struct engine *e, size_t ci, const char *why);
void clean_after_worker(struct engine *e, size_t ci);
void set_aside(struct engine *e, size_t ci);
void db_cell(struct engine *e, size_t ci, const struct cell_result *cj);
json_object *cells_json(const struct engine *e);
size_t adopt_finished(struct engine *e);
long long cell_memory(const struct engine *e, size_t ci);
long long cell_footprint(const struct engine *e, size_t ci);
int name_index(const struct spec_strlist *l, const char *name);
const struct engine_kernel *first_kernel(const struct engine *e);

/* record.c: the run's record in run.json, and reading it back. */
void engine_copy_spec(struct matrix_spec *dst, const struct matrix_spec *src);
json_object *engine_spec_json(const struct engine *e);
json_object *engine_plan_json(const struct engine *e);
/* Fill e->m, e->plan, run id, dir, seed and started from run_dir/run.json. */
int engine_load_run(struct engine *e, const char *run_dir);
void engine_plan_append(struct matrix_plan *p, struct matrix_plan *more);

/* upload.c: artifacts into a host's wblab pool (virStorageVolUpload). */
int engine_upload(struct engine *e, struct engine_host *h);
void engine_host_free(struct engine *e, struct engine_host *h);

#endif
