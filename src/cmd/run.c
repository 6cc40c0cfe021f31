// SPDX-License-Identifier: GPL-2.0
/*
 * wblab run --kernel K [--kernel K2 ...] --topology T --workload W [-n N]
 *           [--results DIR] [--memory MiB] [--timeout S] [--json] ...
 * Resolves the specs, makes sure image, kernels and initramfs are cached,
 * decides the acceleration, then runs the cells (reps interleaved across
 * kernels, so A/B cells share the host's conditions) and records them.
 */
#include <dirent.h>
#include <errno.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "artifact/cache.h"
#include "artifact/image.h"
#include "artifact/initramfs.h"
#include "artifact/kbuild.h"
#include "artifact/kernel.h"
#include "cell/cell.h"
#include "cell/results.h"
#include "cmd/cmds.h"
#include "util/fs.h"
#include "util/log.h"
#include "util/parse-options.h"
#include "virt/probe.h"
#include "virt/virt.h"

#define MAX_KERNELS 8

struct run_args {
	const char *kernels[MAX_KERNELS];
	int nr_kernels;
	const char *topology, *workload, *results, *image, *accel, *uri;
	const char *cmdline_extra;
	int reps, memory, vcpus, timeout, boot_timeout;
	bool json, keep;
	struct strvec kernel_names; /* --kernel, in order */
};

static const char *const run_usage[] = {
	"wblab run --kernel K [--kernel K2...] --topology T --workload W [options]",
	NULL,
};

static const char *const accel_choices[] = { "auto", "kvm", "tcg", NULL };

static int parse_args(int argc, char **argv, struct run_args *a)
{
	long long memory = 0;
	struct option opts[] = {
		OPT_GROUP("What to run"),
		OPT_STRLIST(
			'k', "kernel", &a->kernel_names, "K",
			"kernel spec (lab/kernels/K.yaml); give it again for A/B"),
		OPT_STRING('t', "topology", &a->topology, "T",
			   "storage topology (topologies/T.yaml)"),
		OPT_STRING('w', "workload", &a->workload, "W",
			   "workload (workloads/W.yaml)"),
		OPT_INT('n', NULL, &a->reps, "N", 1, 1000,
			"repetitions per kernel, interleaved across kernels"),
		OPT_GROUP("The guest"),
		OPT_SIZE(
			'm', "memory", &memory, "MiB", 1 << 20, 128, 1 << 20,
			"guest memory, MiB or with K/M/G; if not given the workload's, else 1024"),
		OPT_INT(0, "vcpus", &a->vcpus, "N", 1, 64, "guest vCPUs"),
		OPT_DURATION(0, "timeout", &a->timeout, "S", 1, 7 * 86400,
			     "workload wall clock; if not given the workload's"),
		OPT_DURATION(0, "boot-timeout", &a->boot_timeout, "S", 1, 86400,
			     "deadline for the agent's hello"),
		OPT_STRING(0, "image", &a->image, "NAME", "guest root image"),
		OPT_CHOICE(
			0, "accel", &a->accel, "HOW", accel_choices,
			"auto probes KVM and falls back to TCG; $WBLAB_ACCEL sets the default"),
		OPT_STRING(0, "cmdline-extra", &a->cmdline_extra, "S",
			   "append S to the guest kernel command line"),
		OPT_GROUP("Where"),
		OPT_STRING('r', "results", &a->results, "DIR",
			   "results directory"),
		OPT_STRING(0, "uri", &a->uri, "URI",
			   "libvirt URI; $WBLAB_URI sets the default"),
		OPT_BOOL(0, "keep", &a->keep,
			 "keep each cell's overlay and disks"),
		OPT_BOOL(0, "json", &a->json, "print run.json to stdout"),
		OPT_END(),
	};
	const char *env_accel = getenv("WBLAB_ACCEL");
	int n;

	*a = (struct run_args){ .results = "results",
				.image = "debian-12",
				.accel = "auto",
				.uri = virt_default_uri(),
				.reps = 1,
				.vcpus = 2,
				.boot_timeout = 120 };
	strvec_init(&a->kernel_names);
	/* WBLAB_ACCEL is a default, checked like the option itself. */
	for (const char *const *c = accel_choices; env_accel && *c; c++)
		if (!strcmp(env_accel, *c))
			a->accel = *c;
	if (env_accel && strcmp(a->accel, env_accel))
		return usage_error(
			"wblab run",
			"WBLAB_ACCEL: '%s' is not one of auto, kvm, tcg",
			env_accel);
	n = parse_options(argc, argv, "wblab run", opts, run_usage, 0);
	if (n)
		return usage_error("wblab run", "unexpected argument '%s'",
				   argv[0]);
	if (!a->kernel_names.nr || !a->topology || !a->workload)
		return usage_error(
			"wblab run",
			"--kernel, --topology and --workload are required");
	if (a->kernel_names.nr > MAX_KERNELS)
		return usage_error("wblab run", "--kernel: at most %d kernels",
				   MAX_KERNELS);
	for (size_t i = 0; i < a->kernel_names.nr; i++)
		a->kernels[a->nr_kernels++] = a->kernel_names.v[i];
	a->memory = (int)memory;
	return 0;
}

struct run_state {
	struct run_args a;
	char run_id[64];
	char *run_dir;
	char started[32];
	struct kernel_spec kspec[MAX_KERNELS];
	struct kernel_artifact kart[MAX_KERNELS];
	char *initrd[MAX_KERNELS];
	char *kerr[MAX_KERNELS];
	struct topology_spec topo;
	struct workload_spec wl;
	struct image_spec ispec;
	struct image_artifact image;
	char *infra; /* run-wide infrastructure failure */
	struct accel_verdict accel;
	virConnectPtr conn;
	json_object *cells;
	struct strbuf host;
	int nr_infra;
};

static void make_run_id(char *buf, size_t len)
{
	time_t t = time(NULL);
	struct tm tm;
	char ts[32];

	gmtime_r(&t, &tm);
	strftime(ts, sizeof(ts), "%Y%m%d-%H%M%S", &tm);
	snprintf(buf, len, "%s-%04x", ts, (unsigned int)(getpid() & 0xffff));
}

static int load_specs(struct run_state *s)
{
	int bad = 0;

	for (int i = 0; i < s->a.nr_kernels; i++)
		bad |= kernel_spec_find(s->a.kernels[i], &s->kspec[i]) != 0;
	bad |= topology_spec_find(s->a.topology, &s->topo) != 0;
	bad |= workload_spec_find(s->a.workload, &s->wl) != 0;
	bad |= image_spec_find(s->a.image, &s->ispec) != 0;
	if (!bad && s->wl.fio && !topology_mount_layer(&s->topo)) {
		error("workload %s runs fio but topology %s has no mount (add an fs layer)",
		      s->wl.name, s->topo.name);
		bad = 1;
	}
	return bad ? -1 : 0;
}

/* Artifacts: failures here are the lab's, recorded as infra-error cells. */
static void prepare_artifacts(struct run_state *s)
{
	struct strbuf err = STRBUF_INIT;
	char *agent = agent_binary_path();

	if (image_ensure(&s->ispec, &s->image, NULL))
		s->infra = xasprintf("guest image %s could not be built",
				     s->ispec.name);
	for (int i = 0; i < s->a.nr_kernels; i++) {
		if (kernel_ensure(&s->kspec[i], &s->kart[i])) {
			s->kerr[i] = xasprintf(
				"kernel %s could not be fetched or built",
				s->kspec[i].name);
			continue;
		}
		s->initrd[i] = initramfs_ensure(&s->kart[i], agent);
		if (!s->initrd[i])
			s->kerr[i] =
				xasprintf("initramfs for %s could not be built",
					  s->kspec[i].name);
	}
	s->conn = virt_connect(s->a.uri, &err);
	if (!s->conn && !s->infra)
		s->infra = strbuf_detach(&err, NULL);
	strbuf_release(&err);
	free(agent);
}

/*
 * Staging dirs of cells whose wblab died (crash, SIGKILL) hold overlays
 * and disks. One whose domain is gone and that is over an hour old is
 * nobody's: parallel runs' cells have live domains or fresh dirs.
 */
static void remove_stale_staging(virConnectPtr conn)
{
	DIR *d = opendir(run_root());
	struct dirent *de;
	time_t now = time(NULL);

	while (conn && d && (de = readdir(d))) {
		char *path;
		struct stat st;
		virDomainPtr dom;

		if (strncmp(de->d_name, "wblab-", 6))
			continue;
		path = xasprintf("%s/%s", run_root(), de->d_name);
		dom = virDomainLookupByName(conn, de->d_name);
		if (dom)
			virDomainFree(dom);
		else if (!stat(path, &st) && now - st.st_mtime > 3600 &&
			 !rm_rf(path))
			info("removed stale staging dir %s", path);
		free(path);
	}
	if (d)
		closedir(d);
}

static void decide_accel(struct run_state *s)
{
	int k = -1;

	for (int i = 0; i < s->a.nr_kernels && k < 0; i++)
		if (!s->kerr[i])
			k = i;
	if (!s->conn || k < 0) {
		snprintf(s->accel.accel, sizeof(s->accel.accel), "%s",
			 strcmp(s->a.accel, "kvm") ? "tcg" : "kvm");
		return;
	}
	accel_decide(s->conn, s->a.uri, s->a.accel, &s->kart[k], s->initrd[k],
		     &s->accel);
	if (!strcmp(s->accel.accel, "tcg") && strcmp(s->a.accel, "tcg"))
		warn("using TCG (software emulation), not KVM: %s%s",
		     s->accel.reason,
		     s->accel.cached ?
			     " (cached verdict; wblab doctor --reprobe re-checks)" :
			     "");
}

/* The host's CPU model and size, for reports' header (run.json host). */
static void host_hw(json_object *host)
{
	char line[256], model[200] = "";
	FILE *f = fopen("/proc/cpuinfo", "r");
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	long long pages = sysconf(_SC_PHYS_PAGES);
	long long mib = pages * sysconf(_SC_PAGESIZE) / (1024 * 1024);

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "model name : %199[^\n]", model) == 1)
			break;
	if (f)
		fclose(f);
	json_object_object_add(host, "cpu", json_object_new_string(model));
	json_object_object_add(host, "cpus", json_object_new_int(cpus));
	json_object_object_add(host, "memory_mib", json_object_new_int64(mib));
}

static json_object *run_json(struct run_state *s, const char *finished)
{
	json_object *o = json_object_new_object();
	json_object *spec = json_object_new_object();
	json_object *host = json_object_new_object();
	json_object *kernels = json_object_new_array();
	struct utsname u;
	unsigned long lv = 0, hv = 0;

	uname(&u);
	virGetVersion(&lv, NULL, NULL);
	if (s->conn)
		virConnectGetVersion(s->conn, &hv);
	for (int i = 0; i < s->a.nr_kernels; i++)
		json_object_array_add(kernels,
				      json_object_new_string(s->a.kernels[i]));
	json_object_object_add(spec, "kernels", kernels);
	json_object_object_add(spec, "topology",
			       json_object_new_string(s->a.topology));
	json_object_object_add(spec, "workload",
			       json_object_new_string(s->a.workload));
	json_object_object_add(spec, "image",
			       json_object_new_string(s->a.image));
	json_object_object_add(spec, "reps", json_object_new_int(s->a.reps));
	json_object_object_add(spec, "memory_mib",
			       json_object_new_int(s->a.memory));
	json_object_object_add(spec, "vcpus", json_object_new_int(s->a.vcpus));
	json_object_object_add(spec, "timeout_s",
			       json_object_new_int(s->a.timeout));
	json_object_object_add(host, "hostname",
			       json_object_new_string(u.nodename));
	json_object_object_add(host, "kernel",
			       json_object_new_string(u.release));
	json_object_object_add(host, "libvirt_uri",
			       json_object_new_string(s->a.uri));
	json_object_object_add(host, "libvirt_version",
			       json_object_new_int64(lv));
	json_object_object_add(host, "qemu_version", json_object_new_int64(hv));
	json_object_object_add(host, "accel",
			       json_object_new_string(s->accel.accel));
	json_object_object_add(host, "accel_reason",
			       json_object_new_string(s->accel.reason));
	json_object_object_add(
		host, "image",
		json_object_new_string(s->image.path ? s->image.path : ""));
	host_hw(host);
	json_object_object_add(o, "run", json_object_new_string(s->run_id));
	json_object_object_add(o, "started",
			       json_object_new_string(s->started));
	json_object_object_add(o, "finished",
			       json_object_new_string(finished ? finished :
								 ""));
	json_object_object_add(o, "spec", spec);
	json_object_object_add(o, "host", host);
	json_object_object_add(o, "cells", json_object_get(s->cells));
	return o;
}

static void save_run(struct run_state *s, const char *finished)
{
	json_object *o = run_json(s, finished);
	char *path = xasprintf("%s/run.json", s->run_dir);

	if (json_write_atomic(path, o))
		error("cannot write %s: %s", path, strerror(errno));
	free(path);
	json_object_put(o);
}

static void run_cells(struct run_state *s, sqlite3 *db)
{
	for (int rep = 1; rep <= s->a.reps; rep++) {
		for (int k = 0; k < s->a.nr_kernels; k++) {
			char *id = xasprintf("%s_%s_%s_%d", s->kspec[k].name,
					     s->topo.name, s->wl.name, rep);
			char *dir = xasprintf("%s/cells/%s", s->run_dir, id);
			unsigned int mem = s->a.memory	? s->a.memory :
					   s->wl.memory ? s->wl.memory :
							  1024;
			struct cell_spec c = {
				.run_id = s->run_id,
				.cell_id = id,
				.cell_dir = dir,
				.kernel = s->kerr[k] ? NULL : &s->kart[k],
				.topo = &s->topo,
				.wl = &s->wl,
				.rep = rep,
				.image = s->image.path,
				.initrd = s->initrd[k],
				.accel = s->accel.accel,
				.memory_mib = mem,
				.vcpus = s->a.vcpus,
				.boot_timeout = s->a.boot_timeout,
				.workload_timeout = s->a.timeout ?
							    s->a.timeout :
							    s->wl.timeout,
				.keep = s->a.keep,
				.cmdline_extra = s->a.cmdline_extra,
				.infra_error = s->infra ? s->infra : s->kerr[k],
			};
			struct cell_result r;
			json_object *cj = json_object_new_object();
			char started[32];

			if (virt_interrupted())
				c.infra_error =
					"interrupted before the cell started";
			now_iso8601(started, sizeof(started));
			info("cell %s: starting (%s, %u MiB)", id, c.accel,
			     mem);
			/* No cell.json (results disk full): recorded nowhere. */
			if (cell_run(s->conn, &c, &r)) {
				error("cell %s: %s, but its cell.json could not be written; not recorded",
				      id, outcome_name(r.outcome));
				s->nr_infra++;
				json_object_put(cj);
				free(id);
				free(dir);
				continue;
			}
			info("cell %s: %s (%s) in %.1f s", id,
			     outcome_name(r.outcome), r.reason, r.total_s);
			s->nr_infra += r.outcome == OUTCOME_INFRA_ERROR;
			json_object_object_add(cj, "id",
					       json_object_new_string(id));
			json_object_object_add(
				cj, "kernel",
				json_object_new_string(s->kspec[k].name));
			json_object_object_add(cj, "rep",
					       json_object_new_int(rep));
			json_object_object_add(
				cj, "outcome",
				json_object_new_string(
					outcome_name(r.outcome)));
			json_object_object_add(
				cj, "dir",
				json_object_new_string(dir +
						       strlen(s->run_dir) + 1));
			json_object_array_add(s->cells, cj);
			save_run(s, NULL);
			if (db)
				results_db_cell(db, s->run_id, id,
						s->kspec[k].name,
						c.kernel ? c.kernel->hash : "",
						s->topo.name, s->wl.name, rep,
						outcome_name(r.outcome),
						started, r.total_s, r.boot_s);
			free(id);
			free(dir);
		}
	}
}

static void free_state(struct run_state *s)
{
	for (int i = 0; i < s->a.nr_kernels; i++) {
		kernel_spec_free(&s->kspec[i]);
		kernel_artifact_free(&s->kart[i]);
		free(s->initrd[i]);
		free(s->kerr[i]);
	}
	topology_spec_free(&s->topo);
	workload_spec_free(&s->wl);
	image_spec_free(&s->ispec);
	image_artifact_free(&s->image);
	json_object_put(s->cells);
	if (s->conn)
		virConnectClose(s->conn);
	free(s->infra);
	free(s->run_dir);
	strbuf_release(&s->host);
}

int cmd_run(int argc, char **argv)
{
	struct run_state *s = xzalloc(sizeof(*s));
	char finished[32];
	sqlite3 *db;
	int ret;

	ret = parse_args(argc, argv, &s->a);
	if (ret)
		goto out_free;
	if (load_specs(s)) {
		ret = 2;
		goto out;
	}
	virt_install_signal_handlers();
	now_iso8601(s->started, sizeof(s->started));
	make_run_id(s->run_id, sizeof(s->run_id));
	s->run_dir = xasprintf("%s/%s", s->a.results, s->run_id);
	if (mkdir_p(s->run_dir, 0755) < 0) {
		error("cannot create %s: %s", s->run_dir, strerror(errno));
		ret = 1;
		goto out;
	}
	s->cells = json_object_new_array();
	prepare_artifacts(s);
	remove_stale_staging(s->conn);
	decide_accel(s);
	info("run %s: %d kernel(s) x %s x %s x %d rep(s), results in %s",
	     s->run_id, s->a.nr_kernels, s->topo.name, s->wl.name, s->a.reps,
	     s->run_dir);
	db = results_db_open(s->a.results);
	save_run(s, NULL);
	run_cells(s, db);
	now_iso8601(finished, sizeof(finished));
	save_run(s, finished);
	if (db) {
		results_db_run(db, s->run_id, s->started, finished,
			       s->accel.accel, "localhost");
		results_db_close(db);
	}
	if (s->conn) {
		/* Nothing of this run may outlive it. */
		char *prefix = xasprintf("wblab-%s-", s->run_id);

		if (virt_destroy_prefix(s->conn, prefix))
			warn("destroyed domains of run %s left running",
			     s->run_id);
		free(prefix);
	}
	if (s->a.json) {
		json_object *o = run_json(s, finished);

		puts(json_object_to_json_string_ext(
			o, JSON_C_TO_STRING_PRETTY |
				   JSON_C_TO_STRING_NOSLASHESCAPE));
		json_object_put(o);
	}
	ret = s->nr_infra || virt_interrupted() ? 1 : 0;
out:
	free_state(s);
out_free:
	strvec_clear(&s->a.kernel_names);
	free(s);
	return ret;
}
