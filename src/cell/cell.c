// SPDX-License-Identifier: GPL-2.0
/*
 * One cell's lifecycle: prepare (overlay, disks, plan, XML), boot, watch
 * (boot, phase and grace timers), collect (console, files) and classify.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agent/proto.h"
#include "artifact/cache.h"
#include "cell/cell.h"
#include "cell/plan.h"
#include "cell/results.h"
#include "collect/console.h"
#include "util/fs.h"
#include "util/log.h"
#include "util/run.h"
#include "virt/domxml.h"
#include "virt/guest.h"
#include "virt/virt.h"

#define SETUP_TIMEOUT 600	/* s: building the storage stack */
#define COLLECT_TIMEOUT 180	/* s: snapshots, captures, teardown */
#define POWEROFF_GRACE 15	/* s: late console output after the exit */

char *cell_domain_name(const char *run_id, const char *cell_id)
{
	return xasprintf("wblab-%s-%s", run_id, cell_id);
}

struct cell_ctx {
	const struct cell_spec *c;
	char *dom_name;
	char *stage;		/* run_root()/<dom_name> */
	struct guest g;
	struct strbuf err;
	struct cell_facts facts;
};

static int make_disk(const char *path, uint64_t size, struct strbuf *err)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

	if (fd < 0 || ftruncate(fd, size) < 0) {
		strbuf_addf(err, "cannot create disk %s: %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	close(fd);
	return 0;
}

static int prepare(struct cell_ctx *x, struct domain_config *dc,
		   struct strbuf *plan, struct strbuf *xml)
{
	const struct cell_spec *c = x->c;
	char *overlay = xasprintf("%s/root.qcow2", x->stage);
	const char *qimg[] = { "qemu-img", "create", "-q", "-f", "qcow2", "-F",
			       "raw", "-b", c->image, overlay, NULL };
	struct plan_opts po = { .role = PLAN_MAIN,
				.workload_timeout = c->workload_timeout };
	struct strbuf out = STRBUF_INIT;
	int64_t need = c->topo->disk_size * c->topo->disk_count;

	rm_rf(x->stage);
	if (cache_make_dir(x->stage) || cache_check_space(x->stage, need / 4 + (256 << 20))) {
		strbuf_addf(&x->err, "cannot prepare %s (disk full?)", x->stage);
		goto fail;
	}
	chown_to_qemu(x->stage);
	if (run_capture(qimg, &out, &out)) {
		strbuf_addf(&x->err, "qemu-img create %s failed: %s", overlay, out.buf);
		goto fail;
	}
	dc->disks[dc->nr_disks++] = (struct domain_disk){ xstrdup(overlay), "qcow2",
							  "wblab-root", false };
	if (c->kernel->modules_img)
		dc->disks[dc->nr_disks++] = (struct domain_disk){
			c->kernel->modules_img, "raw", "wblab-modules", true };
	for (long long i = 0; i < c->topo->disk_count; i++) {
		char *p = xasprintf("%s/disk%lld.img", x->stage, i);

		if (make_disk(p, c->topo->disk_size, &x->err))
			goto fail;
		dc->disks[dc->nr_disks++] = (struct domain_disk){
			p, "raw", xasprintf("wblab-disk%lld", i), false };
	}
	plan_compile(c->topo, c->wl, &po, plan);
	write_file_atomic(xasprintf("%s/plan.txt", c->cell_dir), plan->buf,
			  plan->len, 0644);
	if (domain_xml(dc, xml)) {
		strbuf_addstr(&x->err, "cannot write the domain XML");
		goto fail;
	}
	strbuf_release(&out);
	free(overlay);
	return 0;
fail:
	strbuf_release(&out);
	free(overlay);
	return -1;
}

static bool agent_hello(void *arg)
{
	struct guest *g = arg;

	return g->hello || g->stopped;
}

struct phase_watch {
	struct guest *g;
	char seen[32];
};

static bool phase_changed_or_done(void *arg)
{
	struct phase_watch *w = arg;

	if (strcmp(w->seen, w->g->phase))
		return true;
	return w->g->exited || w->g->stopped;
}

static bool domain_stopped(void *arg)
{
	return ((struct guest *)arg)->stopped;
}

/* Watch the guest through its phases, each with its own timer. */
static void watch(struct cell_ctx *x)
{
	struct guest *g = &x->g;
	struct cell_facts *f = &x->facts;
	const struct cell_spec *c = x->c;
	int ret;

	ret = guest_loop(g->t_create + c->boot_timeout, agent_hello, g);
	if (ret < 0)
		goto interrupted;
	if (!g->hello) {
		f->boot_timeout = ret == 1;
		return;
	}
	while (!g->exited && !g->stopped) {
		struct phase_watch pw = { .g = g };
		int limit = !strcmp(g->phase, "workload") ? c->workload_timeout + 60 :
			    !strcmp(g->phase, "collect") ||
			    !strcmp(g->phase, "teardown") ? COLLECT_TIMEOUT :
			    SETUP_TIMEOUT;

		snprintf(pw.seen, sizeof(pw.seen), "%s", g->phase);
		ret = guest_loop(now_mono() + limit, phase_changed_or_done, &pw);
		if (ret < 0)
			goto interrupted;
		if (ret == 1) {
			f->run_timeout = true;
			f->timeout_phase = g->phase[0] ? g->phase : "setup";
			return;
		}
	}
	if (g->exited && !g->stopped)
		guest_loop(now_mono() + POWEROFF_GRACE, domain_stopped, g);
	return;
interrupted:
	f->infra_error = true;
	f->infra_detail = "interrupted (SIGINT/SIGTERM): domain destroyed";
}

static const char *exit_field(struct guest *g, const char *key, char *buf, size_t len)
{
	const char *body = g->exit_body.buf;
	size_t klen = strlen(key);

	for (const char *p = body; p && *p && *p != '\n'; p = strchr(p, '\n')) {
		if (*p == '\n')
			p++;
		if (!strncmp(p, key, klen) && p[klen] == '=') {
			size_t n = strcspn(p + klen + 1, "\n");

			snprintf(buf, len, "%.*s", (int)n, p + klen + 1);
			return buf;
		}
		if (!strchr(p, '\n'))
			break;
	}
	return NULL;
}

static void classify(struct cell_ctx *x, struct cell_result *r,
		     struct console_report *con)
{
	struct cell_facts *f = &x->facts;
	struct guest *g = &x->g;
	struct strbuf reason = STRBUF_INIT;
	static char phase[32], label[128];

	f->hello = g->hello;
	f->exited = g->exited;
	f->agent_status = g->agent_status;
	f->fail_phase = exit_field(g, "phase", phase, sizeof(phase));
	f->fail_label = exit_field(g, "label", label, sizeof(label));
	f->stopped_early = g->stopped && !g->exited;
	f->proto_error = g->proto_error;
	f->console_kind = con->kind;
	for (size_t i = 0; i < con->nr_events; i++) {
		const char *k = con->events[i].kind;

		if (console_kind_is_crash(k) && !f->console_crash) {
			f->console_crash = true;
			f->console_title = con->events[i].title;
		}
		if ((!strcmp(k, "hung_task") || !strcmp(k, "soft_lockup") ||
		     !strcmp(k, "rcu_stall")) && !f->console_hang) {
			f->console_hang = true;
			if (!f->console_title)
				f->console_title = con->events[i].title;
		}
	}
	r->outcome = cell_outcome(f, &reason);
	snprintf(r->reason, sizeof(r->reason), "%s", reason.buf);
	strbuf_release(&reason);
}

static void collect_console(struct cell_ctx *x, struct console_report *con)
{
	char *src = xasprintf("%s/console.log", x->stage);
	char *dst = xasprintf("%s/console.log", x->c->cell_dir);

	console_report_init(con);
	if (path_exists(src)) {
		if (copy_file(src, dst, 0644) < 0)
			warn("cannot copy %s: %s", src, strerror(errno));
		else if (console_parse_file(dst, con) < 0)
			warn("cannot parse %s", dst);
	} else {
		write_string_atomic(dst, "");
	}
	free(src);
	free(dst);
}

int cell_run(virConnectPtr conn, const struct cell_spec *c, struct cell_result *r)
{
	struct cell_ctx x = { .c = c };
	struct domain_config dc = { 0 };
	struct strbuf plan = STRBUF_INIT, xml = STRBUF_INIT;
	struct console_report con;
	char *cmdline = NULL, *sock = NULL, *console = NULL;
	char started[32];
	int ret;

	memset(r, 0, sizeof(*r));
	strbuf_init(&x.err, 0);
	now_iso8601(started, sizeof(started));
	x.dom_name = cell_domain_name(c->run_id, c->cell_id);
	x.stage = xasprintf("%s/%s", run_root(), x.dom_name);
	mkdir_p(c->cell_dir, 0755);
	sock = xasprintf("%s/agent.sock", x.stage);
	console = xasprintf("%s/console.log", x.stage);
	guest_init(&x.g, x.dom_name, sock, c->cell_dir);

	if (c->infra_error || !c->kernel) {
		strbuf_addstr(&x.err, c->infra_error ? c->infra_error : "no kernel");
		goto infra;
	}
	cmdline = xasprintf("console=ttyS0,115200 panic=-1 wblab.mode=cell%s%s",
			    c->cmdline_extra ? " " : "",
			    c->cmdline_extra ? c->cmdline_extra : "");
	dc = (struct domain_config){
		.name = x.dom_name, .type = !strcmp(c->accel, "kvm") ? "kvm" : "qemu",
		.memory_mib = c->memory_mib, .vcpus = c->vcpus,
		.kernel = c->kernel->bzimage, .initrd = c->initrd,
		.cmdline = cmdline, .console_log = console, .channel_sock = sock,
	};
	if (prepare(&x, &dc, &plan, &xml))
		goto infra;
	x.g.plan = plan.buf;
	x.g.plan_len = plan.len;
	if (guest_start(&x.g, conn, xml.buf, &x.err))
		goto infra;
	watch(&x);
	goto collect;
infra:
	x.facts.infra_error = true;
	x.facts.infra_detail = x.err.buf;
collect:
	guest_destroy(&x.g);
	collect_console(&x, &con);
	classify(&x, r, &con);
	r->total_s = x.g.t_stop > x.g.t_create ? x.g.t_stop - x.g.t_create : 0;
	r->boot_s = x.g.hello ? x.g.t_hello - x.g.t_create : 0;
	r->workload_s = x.g.t_workload && x.g.t_collect ?
			x.g.t_collect - x.g.t_workload : 0;
	snprintf(r->release, sizeof(r->release), "%s", x.g.release);
	ret = results_write_cell(c, r, &x.g, &con, started);
	console_report_free(&con);
	if (!c->keep)
		rm_rf(x.stage);
	guest_release(&x.g);
	for (int i = 0; i < dc.nr_disks; i++) {
		if (dc.disks[i].path != (c->kernel ? c->kernel->modules_img : NULL))
			free((char *)dc.disks[i].path);
		if (strcmp(dc.disks[i].serial, "wblab-root") &&
		    strcmp(dc.disks[i].serial, "wblab-modules"))
			free((char *)dc.disks[i].serial);
	}
	strbuf_release(&plan);
	strbuf_release(&xml);
	strbuf_release(&x.err);
	free(x.dom_name);
	free(x.stage);
	free(cmdline);
	free(sock);
	free(console);
	return ret;
}
