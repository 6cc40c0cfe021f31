// SPDX-License-Identifier: GPL-2.0
/*
 * plan-dump: everything the shipped specs become, as text, for
 * tools/same-output.sh to diff before and after a change that must not
 * change behaviour: the guest plan of every topology x workload x role
 * (what cell.c hands the agent, with the devices each layer became), the
 * fields of every topology, workload, kernel and matrix as loaded, and
 * the hosts and nightly files. Not a test: build/tests/plan-dump, run
 * from a checkout (WBLAB_HOME).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "cell/plan.h"
#include "spec/nightly.h"
#include "spec/hosts.h"
#include "spec/matrix.h"
#include "spec/specs.h"
#include "util/fs.h"
#include "util/log.h"
#include "util/strbuf.h"

/* cell.c's lab network addresses */
#define MAIN_IP "10.77.0.1"
#define TARGET_IP "10.77.0.2"

static void put_list(const char *what, const struct spec_strlist *l)
{
	printf("%s:", what);
	for (size_t i = 0; i < l->n; i++)
		printf(" [%s]", l->v[i]);
	putchar('\n');
}

static const char *s(const char *v)
{
	return v ? v : "(null)";
}

static void dump_topology(const struct topology_spec *t)
{
	printf("## topology %s\n", t->name);
	/* No disk has no size (the field was required once, now it is not). */
	printf("disks %lld x %" PRIu64 "\n", t->disks.count,
	       t->disks.count ? t->disks.size : 0);
	printf("target disks %lld x %" PRIu64 ", memory %lld MiB\n",
	       t->target_disks.count,
	       t->target_disks.count ? t->target_disks.size : 0,
	       t->target_memory);
	printf("mount %s\n", s(t->mount));
	for (size_t i = 0; i < t->nr_layers; i++) {
		const struct topo_layer *l = &t->layers[i];

		printf("layer %s %s line %d guest %s index %lld level %lld "
		       "chunk %s backstore %s iqn %s lun %lld acl %s fstype %s "
		       "mount_opts %s lower %s upper %s priority %lld\n",
		       l->name, l->type_name, l->line, s(l->guest), l->index,
		       l->level, s(l->chunk), s(l->backstore), s(l->iqn),
		       l->lun, s(l->acl), s(l->fstype), s(l->mount_opts),
		       s(l->lower), s(l->upper), l->priority);
		put_list("  on", &l->on);
		put_list("  mkfs", &l->mkfs);
	}
}

static void dump_workload(const struct workload_spec *w)
{
	printf("## workload %s\n", w->name);
	printf("timeout %lld memory %lld MiB hog %" PRIu64
	       " hold %lld every %lld memcg_max %s lru_gen %s\n",
	       w->timeout, w->memory, w->hog_size, w->hog_hold, w->hog_every,
	       s(w->memcg_max), s(w->lru_gen));
	put_list("pre", &w->pre);
	printf("fio:\n%s\n", s(w->fio));
}

static void dump_plan(const struct topology_spec *t,
		      const struct workload_spec *w, enum plan_role role)
{
	bool tgt = topology_has_target(t);
	struct plan_opts o = {
		.role = role,
		.workload_timeout = (int)w->timeout,
		.target_ip = TARGET_IP,
		.own_ip = tgt ? (role == PLAN_TARGET ? TARGET_IP : MAIN_IP) :
				NULL
	};
	struct strbuf p = STRBUF_INIT;
	struct plan_devs d = { 0 };

	plan_compile(t, w, &o, &p, &d);
	printf("## plan %s %s %s\n", t->name, w->name,
	       role == PLAN_MAIN ? "main" : "target");
	fwrite(p.buf, 1, p.len, stdout);
	for (size_t i = 0; i < d.nr; i++)
		printf("dev %s %s\n", t->layers[i].name, s(d.dev[i]));
	strbuf_release(&p);
	plan_devs_free(&d);
}

static void dump_kernel(const struct kernel_spec *k)
{
	printf("## kernel %s\n", k->name);
	printf("package %s source_package %s source_git %s source_ref %s "
	       "config_base %s base %s localversion %s tree %s\n",
	       s(k->package), s(k->source_package), s(k->source_git),
	       s(k->source_ref), s(k->config_base), s(k->base),
	       s(k->localversion), s(k->tree));
	put_list("fragments", &k->fragments);
	put_list("patches", &k->patches);
}

static void dump_matrix(const struct matrix_spec *m)
{
	printf("## matrix %s\n", m->name);
	put_list("kernels", &m->kernels);
	put_list("topologies", &m->topologies);
	put_list("workloads", &m->workloads);
	printf("reps %lld image %s\n", m->reps, s(m->image));
	for (size_t i = 0; i < m->nr_sizes; i++)
		printf("size %lld MiB %lld vcpus\n", m->sizes[i].memory,
		       m->sizes[i].vcpus);
	for (size_t i = 0; i < m->nr_thresholds; i++)
		printf("threshold %s %g %s\n", m->thresholds[i].metric,
		       m->thresholds[i].change_pct, m->thresholds[i].bad);
}

static void dump_hosts(void)
{
	char *path = xasprintf("%s/lab/hosts.yaml", wblab_home());
	struct hosts_spec h = { 0 };

	printf("## hosts\n");
	if (hosts_spec_load(path, &h, NULL))
		printf("(does not load)\n");
	for (size_t i = 0; i < h.n; i++)
		/* in bytes, as hosts.yaml held it before memory was MiB */
		printf("host %s %s cpus %lld memory %llu"
		       " pool %s run_dir %s qemu_user %s disabled %d\n",
		       h.hosts[i].name, h.hosts[i].uri, h.hosts[i].cpus,
		       (unsigned long long)h.hosts[i].memory << 20,
		       s(h.hosts[i].pool_path), s(h.hosts[i].run_dir),
		       s(h.hosts[i].qemu_user), h.hosts[i].disabled);
	hosts_spec_free(&h);
	free(path);
}

static void dump_nightly(void)
{
	char *path = xasprintf("%s/lab/nightly.yaml", wblab_home());
	struct nightly_spec n = { 0 };

	printf("## nightly\n");
	if (nightly_spec_load(path, &n, NULL))
		printf("(does not load)\n");
	printf("description %s\nmatrix %s results %s mail_to %s mail_from %s\n",
	       s(n.description), s(n.matrix), s(n.results), s(n.mail_to),
	       s(n.mail_from));
	put_list("sendmail", &n.sendmail);
	for (size_t i = 0; i < n.nr_trees; i++)
		printf("tree %s path %s ref %s url %s\n", n.trees[i].name,
		       n.trees[i].path, s(n.trees[i].ref), s(n.trees[i].url));
	nightly_spec_free(&n);
	free(path);
}

int main(void)
{
	struct spec_strlist tn = { 0 }, wn = { 0 }, kn = { 0 }, mn = { 0 };
	struct topology_spec *t;
	struct workload_spec *w;
	int bad = 0;

	spec_list_names("topologies", &tn);
	spec_list_names("workloads", &wn);
	spec_list_names("lab/kernels", &kn);
	spec_list_names("lab/matrices", &mn);
	t = xzalloc((tn.n + 1) * sizeof(*t));
	w = xzalloc((wn.n + 1) * sizeof(*w));
	for (size_t i = 0; i < tn.n; i++) {
		if (topology_spec_find(tn.v[i], &t[i]))
			return 1;
		dump_topology(&t[i]);
	}
	for (size_t i = 0; i < wn.n; i++) {
		if (workload_spec_find(wn.v[i], &w[i]))
			return 1;
		dump_workload(&w[i]);
	}
	for (size_t i = 0; i < tn.n; i++)
		for (size_t j = 0; j < wn.n; j++) {
			dump_plan(&t[i], &w[j], PLAN_MAIN);
			if (topology_has_target(&t[i]))
				dump_plan(&t[i], &w[j], PLAN_TARGET);
		}
	for (size_t i = 0; i < kn.n; i++) {
		struct kernel_spec k = { 0 };

		if (kernel_spec_find(kn.v[i], &k))
			bad = 1;
		else
			dump_kernel(&k);
		kernel_spec_free(&k);
	}
	for (size_t i = 0; i < mn.n; i++) {
		struct matrix_spec m = { 0 };

		if (matrix_spec_find(mn.v[i], &m))
			bad = 1;
		else
			dump_matrix(&m);
		matrix_spec_free(&m);
	}
	dump_hosts();
	dump_nightly();
	for (size_t i = 0; i < tn.n; i++)
		topology_spec_free(&t[i]);
	for (size_t i = 0; i < wn.n; i++)
		workload_spec_free(&w[i]);
	free(t);
	free(w);
	spec_strlist_free(&tn);
	spec_strlist_free(&wn);
	spec_strlist_free(&kn);
	spec_strlist_free(&mn);
	return bad;
}
