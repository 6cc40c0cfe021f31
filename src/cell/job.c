// SPDX-License-Identifier: GPL-2.0
/* The job file a matrix worker runs one cell from. */
#include <errno.h>
#include <json-c/json.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "artifact/kernel.h"
#include "cell/cell.h"
#include "cell/job.h"
#include "spec/specs.h"
#include "util/json.h"
#include "util/log.h"
#include "virt/virt.h"

enum jtype { J_STR, J_INT, J_BOOL };

#define J(t, f, name)                                 \
	{                                             \
		name, t, offsetof(struct cell_job, f) \
	}

/* One table for both directions. */
static const struct {
	const char *name;
	enum jtype type;
	size_t off;
} fields[] = {
	J(J_STR, run_id, "run"),
	J(J_STR, cell_id, "cell"),
	J(J_STR, cell_dir, "cell_dir"),
	J(J_STR, kernel, "kernel"),
	J(J_STR, kernel_dir, "kernel_dir"),
	J(J_STR, topology, "topology"),
	J(J_STR, workload, "workload"),
	J(J_INT, rep, "rep"),
	J(J_INT, memory_mib, "memory_mib"),
	J(J_INT, vcpus, "vcpus"),
	J(J_STR, image, "image"),
	J(J_STR, initrd, "initrd"),
	J(J_STR, bzimage, "bzimage"),
	J(J_STR, modules_img, "modules_img"),
	J(J_STR, accel, "accel"),
	J(J_STR, uri, "uri"),
	J(J_STR, host, "host"),
	J(J_STR, run_dir, "run_dir"),
	J(J_STR, qemu_user, "qemu_user"),
	J(J_INT, slot, "slot"),
	J(J_INT, attempt, "attempt"),
	J(J_INT, boot_timeout, "boot_timeout_s"),
	J(J_INT, workload_timeout, "workload_timeout_s"),
	J(J_INT, deadline, "deadline_s"),
	J(J_BOOL, keep, "keep"),
	J(J_BOOL, remote, "remote"),
	J(J_STR, cmdline_extra, "cmdline_extra"),
	J(J_STR, levers, "levers"),
	J(J_STR, infra_error, "infra_error"),
};

int cell_job_write(const char *path, const struct cell_job *j)
{
	json_object *o = json_object_new_object();
	int ret;

	for (size_t i = 0; i < ARRAY_SIZE(fields); i++) {
		const void *p = (const char *)j + fields[i].off;
		json_object *v = NULL;

		if (fields[i].type == J_STR && *(char *const *)p)
			v = json_object_new_string(*(char *const *)p);
		else if (fields[i].type == J_INT)
			v = json_object_new_int(*(const int *)p);
		else if (fields[i].type == J_BOOL)
			v = json_object_new_boolean(*(const bool *)p);
		if (v)
			json_object_object_add(o, fields[i].name, v);
	}
	ret = json_write_atomic(path, o);
	json_object_put(o);
	return ret;
}

int cell_job_read(const char *path, struct cell_job *j, struct strbuf *err)
{
	json_object *o = json_object_from_file(path);

	memset(j, 0, sizeof(*j));
	if (!o || !json_object_is_type(o, json_type_object)) {
		strbuf_addf(err, "%s: not a job file: %s", path,
			    json_util_get_last_err());
		json_object_put(o);
		return -1;
	}
	for (size_t i = 0; i < ARRAY_SIZE(fields); i++) {
		void *p = (char *)j + fields[i].off;
		json_object *v;

		if (!json_object_object_get_ex(o, fields[i].name, &v))
			continue;
		if (fields[i].type == J_STR)
			*(char **)p = xstrdup(json_object_get_string(v));
		else if (fields[i].type == J_INT)
			*(int *)p = json_object_get_int(v);
		else
			*(bool *)p = json_object_get_boolean(v);
	}
	json_object_put(o);
	if (!j->run_id || !j->cell_id || !j->cell_dir || !j->topology ||
	    !j->workload || !j->kernel || !j->uri) {
		strbuf_addf(
			err,
			"%s: run, cell, cell_dir, kernel, topology, workload and uri are required",
			path);
		cell_job_free(j);
		return -1;
	}
	return 0;
}

void cell_job_free(struct cell_job *j)
{
	for (size_t i = 0; i < ARRAY_SIZE(fields); i++)
		if (fields[i].type == J_STR)
			free(*(char **)((char *)j + fields[i].off));
	memset(j, 0, sizeof(*j));
}

static void override(char **slot, const char *path)
{
	if (path && *path) {
		free(*slot);
		*slot = xstrdup(path);
	}
}

int cell_job_run(const struct cell_job *j)
{
	struct topology_spec topo;
	struct workload_spec wl;
	struct kernel_artifact ka = { 0 };
	struct strbuf err = STRBUF_INIT;
	struct cell_run_result r;
	virConnectPtr conn = NULL;
	const char *infra = j->infra_error && *j->infra_error ? j->infra_error :
								NULL;
	bool have_kernel = false;
	struct virt_host_facts facts;
	struct levers lv;
	int ret;

	if (topology_spec_find(j->topology, &topo) ||
	    workload_spec_find(j->workload, &wl))
		return -1;
	if (levers_parse(j->levers, &lv, &err) && !infra)
		infra = err.buf; /* a job file not of this wblab */
	if (j->run_dir && *j->run_dir)
		setenv("WBLAB_RUNDIR", j->run_dir, 1);
	if (j->qemu_user && *j->qemu_user)
		setenv("WBLAB_QEMU_USER", j->qemu_user, 1);
	if (!infra && j->kernel_dir && *j->kernel_dir) {
		have_kernel = kernel_artifact_load(j->kernel_dir, &ka) == 0;
		if (!have_kernel)
			infra = "the kernel artifact vanished from the cache";
		override(&ka.bzimage, j->bzimage);
		override(&ka.modules_img, j->modules_img);
	}
	virt_install_signal_handlers();
	if (!infra) {
		conn = virt_connect(j->uri, &err);
		if (!conn)
			infra = err.buf;
	}
	{
		struct cell_spec c = {
			.run_id = j->run_id,
			.cell_id = j->cell_id,
			.cell_dir = j->cell_dir,
			.kernel = have_kernel ? &ka : NULL,
			.topo = &topo,
			.wl = &wl,
			.rep = j->rep,
			.image = j->image,
			.initrd = j->initrd,
			.accel = j->accel,
			.memory_mib = j->memory_mib,
			.vcpus = j->vcpus,
			.boot_timeout = j->boot_timeout,
			.workload_timeout = j->workload_timeout,
			.keep = j->keep,
			.infra_error = infra,
			.cmdline_extra = j->cmdline_extra,
			.levers = lv,
			.host = j->host,
			.uri = j->uri,
			.slot = j->slot,
			.attempt = j->attempt,
			.deadline = j->deadline,
			.remote = j->remote,
			.facts = conn ? &facts : NULL,
		};

		if (conn)
			virt_host_facts(conn, &facts);

		ret = cell_run(conn, &c, &r);
	}
	if (conn)
		virConnectClose(conn);
	kernel_artifact_free(&ka);
	topology_spec_free(&topo);
	workload_spec_free(&wl);
	strbuf_release(&err);
	return ret;
}
