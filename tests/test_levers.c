// SPDX-License-Identifier: GPL-2.0
/*
 * The noise levers (results/levers.h): the table's text form, and what
 * each lever makes of a cell's domain (cell/tune.c -> virt/domxml.c),
 * read back with libxml2's parser and XPath, and of its files on the host
 * (drop-host-cache), and its plan (warmup).
 */
#include <check.h>
#include <fcntl.h>
#include <libxml/parser.h>
#include <libxml/xpath.h>
#include <libxml/xpathInternals.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cell/plan-warmup.h"
#include "cell/plan.h"
#include "cell/tune.h"
#include "decide/verdict.h"
#include "results/levers.h"
#include "jobs/pool.h"
#include "matrix/matrix.h"
#include "report/report.h"
#include "spec/matrix.h"
#include "util/fs.h"
#include "util/json.h"
#include "util/log.h"
#include "util/strbuf.h"
#include "virt/domxml.h"

#include "testdata.h"

#define QEMU_NS "http://libvirt.org/schemas/domain/qemu/1.0"

/* A two-disk, two-vCPU domain as a cell has it, before the levers. */
static void base_config(struct domain_config *dc)
{
	memset(dc, 0, sizeof(*dc));
	dc->name = "wblab-t-c";
	dc->type = "qemu";
	dc->memory_mib = 512;
	dc->vcpus = 2;
	dc->kernel = "/k/bzImage";
	dc->cmdline = "console=ttyS0";
	dc->console_sock = "/s/con.sock";
	dc->channel_sock = "/s/agent.sock";
	dc->disks[0] = (struct domain_disk){ .path = "/s/root.qcow2",
					     .format = "qcow2",
					     .serial = "wblab-root" };
	dc->disks[1] = (struct domain_disk){ .path = "/s/disk0.img",
					     .format = "raw",
					     .serial = "wblab-disk0" };
	dc->nr_disks = 2;
}

/* The domain XML of the levers text on a host with these online CPUs. */
static xmlDocPtr domain_for(const char *text, const char *accel,
			    const int *online, int n, int want)
{
	struct domain_config dc;
	struct strbuf xml = STRBUF_INIT, err = STRBUF_INIT;
	struct levers l;
	xmlDocPtr doc = NULL;

	base_config(&dc);
	ck_assert_int_eq(levers_parse(text, &l, &err), 0);
	ck_assert_int_eq(cell_tune_domain(&l, accel, online, n, &dc, &err),
			 want);
	if (want)
		goto out;
	ck_assert_int_eq(domain_xml(&dc, &xml), 0);
	doc = xmlReadMemory(xml.buf, (int)xml.len, "domain.xml", NULL,
			    XML_PARSE_NONET);
	ck_assert_ptr_nonnull(doc);
out:
	strbuf_release(&xml);
	strbuf_release(&err);
	return doc;
}

/* XPath over the domain, with the qemu: namespace known. */
static xmlXPathObjectPtr eval(xmlDocPtr doc, const char *expr)
{
	xmlXPathContextPtr ctx = xmlXPathNewContext(doc);
	xmlXPathObjectPtr r;

	xmlXPathRegisterNs(ctx, (const xmlChar *)"qemu",
			   (const xmlChar *)QEMU_NS);
	r = xmlXPathEvalExpression((const xmlChar *)expr, ctx);
	xmlXPathFreeContext(ctx);
	ck_assert_ptr_nonnull(r);
	return r;
}

static void expect_str(xmlDocPtr doc, const char *expr, const char *want)
{
	xmlXPathObjectPtr r = eval(doc, expr);

	ck_assert_int_eq(r->type, XPATH_STRING);
	ck_assert_msg(!strcmp((const char *)r->stringval, want),
		      "%s: '%s', want '%s'", expr, r->stringval, want);
	xmlXPathFreeObject(r);
}

static void expect_num(xmlDocPtr doc, const char *expr, double want)
{
	xmlXPathObjectPtr r = eval(doc, expr);

	ck_assert_int_eq(r->type, XPATH_NUMBER);
	ck_assert_msg(r->floatval == want, "%s: %g, want %g", expr, r->floatval,
		      want);
	xmlXPathFreeObject(r);
}

START_TEST(parse_and_text)
{
	struct strbuf err = STRBUF_INIT;
	struct levers l;
	char *t;

	ck_assert_int_eq(levers_parse("", &l, &err), 0);
	t = levers_text(&l);
	ck_assert_str_eq(t, "default");
	free(t);
	ck_assert_int_eq(levers_parse("cache=directsync,pin=on", &l, &err), 0);
	/* Table order, whatever order they were given in. */
	t = levers_text(&l);
	ck_assert_str_eq(t, "pin=on,cache=directsync");
	free(t);
	t = levers_label(&l);
	ck_assert_str_eq(t, "pin-on.cache-directsync");
	free(t);
	/* A default given explicitly is the default. */
	ck_assert_int_eq(levers_parse("pin=off", &l, &err), 0);
	t = levers_text(&l);
	ck_assert_str_eq(t, "default");
	free(t);
	ck_assert_int_eq(levers_parse("pin=yes", &l, &err), -1);
	ck_assert_ptr_nonnull(
		strstr(err.buf, "pin: 'yes' is not one of off, on"));
	strbuf_reset(&err);
	ck_assert_int_eq(levers_parse("pinning=on", &l, &err), -1);
	ck_assert_ptr_nonnull(strstr(err.buf, "NAME one of pin, cache"));
	strbuf_reset(&err);
	ck_assert_int_eq(levers_parse("pin=on,pin=off", &l, &err), -1);
	ck_assert_ptr_nonnull(strstr(err.buf, "pin is given twice"));
	strbuf_reset(&err);
	/* QEMU refuses io=native without O_DIRECT. */
	ck_assert_int_eq(levers_parse("cache=writeback", &l, &err), -1);
	ck_assert_ptr_nonnull(strstr(err.buf, "aio=native needs"));
	strbuf_reset(&err);
	ck_assert_int_eq(levers_parse("cache=writeback,aio=threads", &l, &err),
			 0);
	strbuf_release(&err);
}
END_TEST

/* The defaults write the domain every cell had before the levers. */
START_TEST(xml_defaults_unchanged)
{
	static const int online[] = { 0, 1 };
	xmlDocPtr doc = domain_for("", "tcg", online, 2, 0);

	expect_num(doc, "count(/domain/devices/disk)", 2);
	expect_num(doc,
		   "count(/domain/devices/disk/driver[@cache='none' and "
		   "@io='native' and not(@iothread)])",
		   2);
	expect_num(doc, "count(/domain/cputune)", 0);
	expect_num(doc, "count(/domain/iothreads)", 0);
	expect_num(doc, "count(//qemu:commandline)", 0);
	xmlFreeDoc(doc);
}
END_TEST

START_TEST(xml_cache_and_aio)
{
	static const int online[] = { 0, 1 };
	xmlDocPtr doc = domain_for("cache=directsync,aio=io_uring", "tcg",
				   online, 2, 0);

	/* Every disk, the root overlay too. */
	expect_num(doc,
		   "count(/domain/devices/disk/driver[@cache="
		   "'directsync' and @io='io_uring'])",
		   2);
	xmlFreeDoc(doc);
	doc = domain_for("cache=writeback,aio=threads", "tcg", online, 2, 0);
	expect_num(doc,
		   "count(/domain/devices/disk/driver[@cache="
		   "'writeback' and @io='threads'])",
		   2);
	xmlFreeDoc(doc);
}
END_TEST

START_TEST(xml_iothread)
{
	static const int online[] = { 0, 1 };
	xmlDocPtr doc = domain_for("iothread=on", "tcg", online, 2, 0);

	expect_str(doc, "string(/domain/iothreads)", "1");
	expect_num(doc, "count(/domain/devices/disk/driver[@iothread='1'])", 2);
	/* Not pinned: no <cputune>, so no iothreadpin either. */
	expect_num(doc, "count(/domain/cputune)", 0);
	xmlFreeDoc(doc);
}
END_TEST

START_TEST(xml_pin)
{
	static const int two[] = { 0, 1 }, four[] = { 0, 1, 2, 3 },
			 holes[] = { 0, 2, 5, 6, 8 }, one[] = { 3 };
	xmlDocPtr doc = domain_for("pin=on", "tcg", two, 2, 0);

	/* No CPU left for the emulator: the last one. */
	expect_num(doc, "count(/domain/cputune/vcpupin)", 2);
	expect_str(doc, "string(/domain/cputune/vcpupin[@vcpu='0']/@cpuset)",
		   "0");
	expect_str(doc, "string(/domain/cputune/vcpupin[@vcpu='1']/@cpuset)",
		   "1");
	expect_str(doc, "string(/domain/cputune/emulatorpin/@cpuset)", "1");
	expect_num(doc, "count(/domain/cputune/iothreadpin)", 0);
	xmlFreeDoc(doc);
	/* The CPUs no vCPU has, as a range; the iothread with them. */
	doc = domain_for("pin=on,iothread=on", "tcg", four, 4, 0);
	expect_str(doc, "string(/domain/cputune/emulatorpin/@cpuset)", "2-3");
	expect_str(doc,
		   "string(/domain/cputune/iothreadpin[@iothread='1']/@cpuset)",
		   "2-3");
	xmlFreeDoc(doc);
	/* Online CPUs with holes: by number, never by position. */
	doc = domain_for("pin=on", "tcg", holes, 5, 0);
	expect_str(doc, "string(/domain/cputune/vcpupin[@vcpu='1']/@cpuset)",
		   "2");
	expect_str(doc, "string(/domain/cputune/emulatorpin/@cpuset)", "5-6,8");
	xmlFreeDoc(doc);
	/* More vCPUs than CPUs: round robin. */
	doc = domain_for("pin=on", "tcg", one, 1, 0);
	expect_str(doc, "string(/domain/cputune/vcpupin[@vcpu='1']/@cpuset)",
		   "3");
	expect_str(doc, "string(/domain/cputune/emulatorpin/@cpuset)", "3");
	xmlFreeDoc(doc);
}
END_TEST

START_TEST(xml_icount)
{
	static const int two[] = { 0, 1 };
	xmlDocPtr doc = domain_for("clock=icount", "tcg", two, 2, 0);
	xmlXPathObjectPtr r;

	r = eval(doc, "/domain/qemu:commandline/qemu:arg/@value");
	ck_assert_ptr_nonnull(r->nodesetval);
	ck_assert_int_eq(r->nodesetval->nodeNr, 2);
	{
		xmlChar *a0 = xmlNodeGetContent(r->nodesetval->nodeTab[0]);
		xmlChar *a1 = xmlNodeGetContent(r->nodesetval->nodeTab[1]);

		ck_assert_str_eq((char *)a0, "-icount");
		ck_assert_str_eq((char *)a1, "shift=0,sleep=off");
		xmlFree(a0);
		xmlFree(a1);
	}
	xmlXPathFreeObject(r);
	xmlFreeDoc(doc);
	/* icount is TCG's: under KVM the cell cannot run it. */
	ck_assert_ptr_null(domain_for("clock=icount", "kvm", two, 2, -1));
}
END_TEST

/* How many of a file's pages are in the page cache. */
static size_t resident(const char *path)
{
	int fd = open(path, O_RDONLY);
	struct stat st;
	unsigned char vec[64];
	size_t n = 0;
	void *m;

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(fstat(fd, &st), 0);
	m = mmap(NULL, st.st_size, PROT_READ, MAP_SHARED, fd, 0);
	ck_assert_ptr_ne(m, MAP_FAILED);
	ck_assert_int_eq(mincore(m, st.st_size, vec), 0);
	for (size_t i = 0; i < (size_t)(st.st_size + 4095) / 4096; i++)
		n += vec[i] & 1;
	munmap(m, st.st_size);
	close(fd);
	return n;
}

START_TEST(drop_host_cache_own_files_only)
{
	char dir[] = "/tmp/wblab-test-levers-XXXXXX";
	char *disk, *fifo, *kernel;
	struct domain_config dc;
	struct strbuf err = STRBUF_INIT;
	char buf[4096] = { 1 };
	int fd;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	disk = xasprintf("%s/disk0.img", dir);
	kernel = xasprintf("%s/bzImage", dir);
	fifo = xasprintf("%s/fifo", dir);
	/* Files that are in the page cache: written, then synced. */
	for (int f = 0; f < 2; f++) {
		fd = open(f ? kernel : disk, O_WRONLY | O_CREAT, 0600);
		for (int i = 0; i < 16; i++)
			ck_assert_int_eq(write(fd, buf, sizeof(buf)), 4096);
		fsync(fd);
		close(fd);
	}
	ck_assert_int_eq(mkfifo(fifo, 0600), 0);
	ck_assert_uint_gt(resident(disk), 0);
	base_config(&dc);
	dc.disks[0].path = disk;
	dc.disks[1].path = fifo; /* never a non-regular file: left alone */
	dc.kernel = kernel;
	ck_assert_int_eq(cell_tune_drop_cache(&dc, NULL, &err), 2);
	/* The kernel may drop lazily on a busy host; DONTNEED is immediate
	 * for clean unmapped pages, which these are. */
	ck_assert_uint_eq(resident(disk), 0);
	ck_assert_uint_eq(resident(kernel), 0);
	/* A missing file is an error naming it. */
	dc.disks[1].path = "/nonexistent/wblab-disk";
	ck_assert_int_eq(cell_tune_drop_cache(&dc, NULL, &err), -1);
	ck_assert_ptr_nonnull(strstr(err.buf, "/nonexistent/wblab-disk"));
	strbuf_release(&err);
	rm_rf(dir);
	free(disk);
	free(kernel);
	free(fifo);
}
END_TEST

/* warmup=on: the workload's fio job, bounded, before its pre: steps. */
START_TEST(plan_warmup_before_pre)
{
	struct topology_spec t;
	struct workload_spec w;
	struct plan_opts o = { .role = PLAN_MAIN, .workload_timeout = 60 };
	struct strbuf off = STRBUF_INIT, on = STRBUF_INIT;
	struct plan_devs devs = { 0 };
	const char *warm, *pre, *cg;

	ck_assert_int_eq(topology_spec_find("ext4-disk", &t), 0);
	ck_assert_int_eq(workload_spec_find("dirty-flood", &w), 0);
	plan_compile(&t, &w, &o, &off, &devs);
	plan_devs_free(&devs);
	ck_assert_ptr_null(strstr(off.buf, "wblab-warmup"));
	o.warmup = true;
	plan_compile(&t, &w, &o, &on, &devs);
	plan_devs_free(&devs);
	warm = strstr(on.buf, "--runtime=3");
	pre = strstr(on.buf, "fallocate");
	cg = strstr(on.buf, "wblab-warmup\t64M");
	ck_assert_ptr_nonnull(warm);
	ck_assert_ptr_nonnull(pre);
	ck_assert_ptr_nonnull(cg);
	ck_assert(cg < warm);
	ck_assert(warm < pre);
	/* Its own output: fio.json stays the measured run's. */
	ck_assert_ptr_nonnull(strstr(on.buf, "/tmp/wblab-warmup.json"));
	strbuf_release(&off);
	strbuf_release(&on);
	topology_spec_free(&t);
	workload_spec_free(&w);
}
END_TEST

/* cell.json's levers, and an older cell's (none) read as the legacy. */
START_TEST(cell_key_legacy_and_sanitised)
{
	json_object *cell = json_object_new_object();
	struct strbuf err = STRBUF_INIT;
	struct levers l;
	char *k, *b;

	k = levers_cell_key(cell);
	ck_assert_str_eq(k, "pin=off,cache=none,aio=native,iothread=off,"
			    "drop-host-cache=off,warmup=off,clock=wall");
	b = levers_key_brief(k);
	ck_assert_str_eq(b, "");
	free(k);
	free(b);
	ck_assert_int_eq(levers_parse("clock=icount,warmup=on", &l, &err), 0);
	json_object_object_add(cell, "levers", levers_json(&l));
	k = levers_cell_key(cell);
	b = levers_key_brief(k);
	ck_assert_str_eq(b, "warmup=on,clock=icount");
	free(k);
	free(b);
	/* A value from elsewhere is kept, but only as a safe word. */
	json_object_object_add(json_path(cell, "levers"), "pin",
			       json_object_new_string("a b<c>"));
	k = levers_cell_key(cell);
	ck_assert_ptr_nonnull(strstr(k, "pin=a?b?c?,"));
	free(k);
	json_object_put(cell);
	strbuf_release(&err);
}
END_TEST

/* levers: in a matrix: every setting in every block, interleaved. */
START_TEST(matrix_levers_interleaved)
{
	char path[] = "/tmp/wblab-test-levers-XXXXXX.yaml";
	static const char yaml[] =
		"description: t\nkernels: [a, b]\ntopologies: [ext4-disk]\n"
		"workloads: [dirty-flood]\nreps: 3\n"
		"levers: [\"\", \"pin=on\", \"cache=directsync\"]\n";
	struct matrix_spec m;
	struct matrix_plan p;
	struct strbuf err = STRBUF_INIT;
	int fd = mkstemps(path, 5);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, yaml, sizeof(yaml) - 1),
			 (int)sizeof(yaml) - 1);
	close(fd);
	ck_assert_int_eq(matrix_spec_load(path, "t", &m, &err), 0);
	ck_assert_int_eq((int)m.levers.n, 3);
	matrix_expand(&m, 7, 1, 3, &p);
	ck_assert_uint_eq(p.n, 18);
	for (size_t b = 0; b < 3; b++) {
		/* A block: both kernels under every setting, side by side. */
		int seen[2][3] = { { 0 } };

		for (size_t i = 6 * b; i < 6 * b + 6; i++) {
			const struct matrix_cell *c = &p.cells[i];
			int k = !strcmp(c->kernel, "b");
			int l = !strcmp(c->levers, "default")	       ? 0 :
				!strcmp(c->levers, "pin=on")	       ? 1 :
				!strcmp(c->levers, "cache=directsync") ? 2 :
									 -1;

			ck_assert_int_ge(l, 0);
			ck_assert_int_eq(c->block, (int)b);
			seen[k][l]++;
			ck_assert_ptr_nonnull(
				strstr(c->id, l == 0 ? "_default_" :
					      l == 1 ? "_pin-on_" :
						       "_cache-directsync_"));
		}
		for (int k = 0; k < 2; k++)
			for (int l = 0; l < 3; l++)
				ck_assert_int_eq(seen[k][l], 1);
	}
	/* Shuffled within blocks: not one setting's cells all first. */
	{
		bool differs = false;

		for (size_t b = 1; b < 3; b++)
			differs |= strcmp(p.cells[6 * b].levers,
					  p.cells[0].levers) != 0 ||
				   strcmp(p.cells[6 * b + 1].levers,
					  p.cells[1].levers) != 0;
		ck_assert(differs);
	}
	matrix_plan_free(&p);
	matrix_spec_free(&m);
	unlink(path);
	strbuf_release(&err);
}
END_TEST

/*
 * The captured A/B run (tests/data/report/ab) with half its cells marked
 * as run with pin=on: the report splits them into a group of their own,
 * never one population with the others, and says so in the title.
 */
START_TEST(report_splits_by_levers)
{
	struct report_opts o = REPORT_OPTS_INIT;
	struct strbuf err = STRBUF_INIT, mail = STRBUF_INIT;
	char *dir = testdata_path("report/ab");
	struct report r;
	size_t groups;

	report_init(&r, &o);
	ck_assert_msg(!report_load_run(&r, dir, &err), "%s", err.buf);
	ck_assert_int_eq(report_build(&r, &err), 0);
	groups = r.nr_groups;
	for (size_t i = 0; i < r.nr_cells; i += 2) {
		free(r.cells[i]->levers);
		r.cells[i]->levers =
			xstrdup("pin=on,cache=none,aio=native,iothread=off,"
				"drop-host-cache=off,warmup=off,clock=wall");
	}
	ck_assert_int_eq(report_build(&r, &err), 0);
	ck_assert_uint_eq(r.nr_groups, 2 * groups);
	report_mail(&r, &mail);
	ck_assert_ptr_nonnull(strstr(mail.buf, "MiB guest / levers pin=on"));
	ck_assert_ptr_nonnull(strstr(mail.buf, "Levers: pin=on cache=none"));
	ck_assert_ptr_nonnull(strstr(mail.buf, "Levers: pin=off cache=none"));
	report_release(&r);
	strbuf_release(&err);
	strbuf_release(&mail);
	free(dir);
}
END_TEST

/* decide --by topology: one kernel on two topologies is the A/B. */
START_TEST(pool_by_topology_sides)
{
	struct pool p = POOL_INIT;
	const char *k0;

	testdata_pool(&p, NULL, "report/ab");
	ck_assert_uint_gt(p.n, 0);
	k0 = p.v[0].cell->kernel.name;
	pool_by_topology(&p);
	for (size_t i = 0; i < p.n; i++) {
		const char *t = p.v[i].cell->topology;
		const char *k = p.v[i].cell->kernel.name;

		ck_assert_str_eq(p.v[i].kernel, t);
		ck_assert_int_eq(strncmp(p.v[i].group, k, strlen(k)), 0);
		ck_assert_int_eq(p.v[i].group[strlen(k)], '/');
	}
	ck_assert_uint_gt(pool_count(&p, p.v[0].cell->topology, NULL), 0);
	ck_assert_ptr_nonnull(k0);
	pool_free(&p);
}
END_TEST

/*
 * bench/noise's figure: the smallest change n cells a side could show at
 * the spread of these. SciPy (noncentral t, equal n and sd, alpha 0.05,
 * power 0.8): delta = 2.024439 sd at n = 5, 1.406927 sd at n = 9.
 */
START_TEST(sdc_at_n_against_scipy)
{
	static const double a[] = { 1, 2, 3, 4, 5 };
	double sd = sqrt(2.5);

	ck_assert_double_eq_tol(verdict_sdc_n(MTEST_WELCH, 1, a, 5, 5, 0.05,
					      0.8),
				2.024439 * sd, 1e-3);
	ck_assert_double_eq_tol(verdict_sdc_n(MTEST_WELCH, 1, a, 5, 9, 0.05,
					      0.8),
				1.406927 * sd, 1e-3);
	/* The cells as they are: verdict_sdc() of the same values. */
	ck_assert_double_eq_tol(
		verdict_sdc_n(MTEST_WELCH, 1, a, 5, 5, 0.05, 0.8),
		verdict_sdc(MTEST_WELCH, 1, a, 5, a, 5, 0.05, 0.8), 1e-12);
	ck_assert(isnan(verdict_sdc_n(MTEST_WELCH, 1, a, 1, 9, 0.05, 0.8)));
}
END_TEST

int main(void)
{
	Suite *s = suite_create("levers");
	TCase *tc = tcase_create("levers");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, parse_and_text);
	tcase_add_test(tc, xml_defaults_unchanged);
	tcase_add_test(tc, xml_cache_and_aio);
	tcase_add_test(tc, xml_iothread);
	tcase_add_test(tc, xml_pin);
	tcase_add_test(tc, xml_icount);
	tcase_add_test(tc, drop_host_cache_own_files_only);
	tcase_add_test(tc, plan_warmup_before_pre);
	tcase_add_test(tc, cell_key_legacy_and_sanitised);
	tcase_add_test(tc, matrix_levers_interleaved);
	tcase_add_test(tc, report_splits_by_levers);
	tcase_add_test(tc, pool_by_topology_sides);
	tcase_add_test(tc, sdc_at_n_against_scipy);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
