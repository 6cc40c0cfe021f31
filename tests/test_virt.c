// SPDX-License-Identifier: GPL-2.0
/*
 * The domain XML writer escapes everything; the agent protocol checks
 * input; a guest takes only its own domain's lifecycle events.
 */
#include <check.h>
#include <libxml/parser.h>
#include <libxml/xpath.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "agent/proto.h"
#include "util/fs.h"
#include "util/log.h"
#include "util/strbuf.h"
#include "virt/domxml.h"
#include "virt/guest.h"
#include "virt/owner.h"
#include "virt/virt.h"

static char *xpath_str(xmlDocPtr doc, const char *expr)
{
	xmlXPathContextPtr ctx = xmlXPathNewContext(doc);
	xmlXPathObjectPtr r =
		xmlXPathEvalExpression((const xmlChar *)expr, ctx);
	char *s = NULL;

	if (r && r->type == XPATH_STRING)
		s = xstrdup((const char *)r->stringval);
	else if (r && r->nodesetval && r->nodesetval->nodeNr)
		s = (char *)xmlNodeGetContent(r->nodesetval->nodeTab[0]);
	xmlXPathFreeObject(r);
	xmlXPathFreeContext(ctx);
	return s;
}

/*
 * An owner that died but is not reaped yet (a zombie: its parent, a
 * wblab killed with SIGKILL, is gone too) is dead: before, kill(pid, 0)
 * and its unchanged start time said alive, and the reaper of a
 * `wblab bisect --resume` started at once left the killed step's domain
 * running (tests/jobs/e2e-nightly.sh step 6).
 */
START_TEST(zombie_owner_is_dead)
{
	int fd[2];
	struct owner o;
	siginfo_t si = { 0 };
	pid_t pid;

	ck_assert_int_eq(pipe(fd), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		owner_self(&o, "zombie");
		if (write(fd[1], &o, sizeof(o)) != sizeof(o))
			_exit(1);
		_exit(0);
	}
	close(fd[1]);
	ck_assert_int_eq(read(fd[0], &o, sizeof(o)), sizeof(o));
	close(fd[0]);
	ck_assert_int_eq(o.pid, pid);
	ck_assert(o.start > 0);
	/* until it has exited; WNOWAIT leaves it a zombie */
	ck_assert_int_eq(waitid(P_PID, pid, &si, WEXITED | WNOWAIT), 0);
	ck_assert(!owner_alive(&o));
	ck_assert_int_eq(waitpid(pid, NULL, 0), pid);
	ck_assert(!owner_alive(&o));
	/* and the living are alive */
	owner_self(&o, "self");
	ck_assert(owner_alive(&o));
}
END_TEST

START_TEST(xml_escapes_hostile_names)
{
	static const char evil[] = "a<b>&c'd\"e";
	struct domain_config c = {
		.name = "wblab-<run>&'\"",
		.type = "qemu",
		.memory_mib = 512,
		.vcpus = 1,
		.kernel = "/k/<bz>&Image",
		.initrd = "/i'\"rd",
		.cmdline = "console=ttyS0 x=\"<y>\" & z",
		.console_log = evil,
		.channel_sock = "/s/<a>.sock",
	};
	struct strbuf xml = STRBUF_INIT;
	xmlDocPtr doc;
	char *v;

	c.disks[c.nr_disks++] = (struct domain_disk){ .path = "/d/<disk>&0",
						      .format = "raw",
						      .serial = "ser<&>'\"",
						      .readonly = true };
	c.disks[c.nr_disks++] = (struct domain_disk){
		"/d/1",		 "raw",		  "s1",
		false,		 .iops_sec = 200, .bytes_sec = 4 << 20,
		.queue_size = 8,
	};
	ck_assert_int_eq(domain_xml(&c, &xml), 0);
	ck_assert_ptr_null(strstr(xml.buf, "<run>"));
	ck_assert_ptr_null(strstr(xml.buf, "<bz>"));
	doc = xmlReadMemory(xml.buf, xml.len, "dom.xml", NULL, XML_PARSE_NONET);
	ck_assert_msg(doc != NULL, "not well-formed XML:\n%s", xml.buf);
#define EXPECT(path, want)                                                     \
	do {                                                                   \
		v = xpath_str(doc, path);                                      \
		ck_assert_msg(v && !strcmp(v, want), "%s: '%s' != '%s'", path, \
			      v ? v : "(null)", want);                         \
		free(v);                                                       \
	} while (0)
	EXPECT("/domain/name", "wblab-<run>&'\"");
	EXPECT("string(/domain/@type)", "qemu");
	EXPECT("/domain/os/kernel", "/k/<bz>&Image");
	EXPECT("/domain/os/initrd", "/i'\"rd");
	EXPECT("/domain/os/cmdline", "console=ttyS0 x=\"<y>\" & z");
	EXPECT("string(/domain/devices/serial/source/@path)", evil);
	EXPECT("string(/domain/devices/disk/source/@file)", "/d/<disk>&0");
	EXPECT("/domain/devices/disk/serial", "ser<&>'\"");
	EXPECT("/domain/devices/disk[2]/iotune/total_iops_sec", "200");
	EXPECT("/domain/devices/disk[2]/iotune/total_bytes_sec", "4194304");
	EXPECT("string(count(/domain/devices/disk[1]/iotune))", "0");
	EXPECT("string(/domain/devices/disk[2]/driver/@queue_size)", "8");
	EXPECT("string(count(/domain/devices/disk[1]/driver/@queue_size))",
	       "0");
	EXPECT("string(/domain/devices/channel/source/@path)", "/s/<a>.sock");
	EXPECT("string(/domain/devices/channel/target/@name)",
	       "org.wblab.agent");
	EXPECT("string(/domain/devices/memballoon/@model)", "none");
	EXPECT("/domain/on_crash", "destroy");
	EXPECT("string(/domain/memory/@unit)", "MiB");
	EXPECT("/domain/memory", "512");
#undef EXPECT
	ck_assert(strstr(xml.buf, "<readonly/>") != NULL);
	ck_assert(strstr(xml.buf, "<acpi/>") != NULL);
	xmlFreeDoc(doc);
	strbuf_release(&xml);
}
END_TEST

/* A remote host's domain: console and channel are libvirt's, not ours. */
START_TEST(xml_remote_ptys)
{
	struct domain_config c = {
		.name = "wblab-r",
		.type = "qemu",
		.memory_mib = 256,
		.vcpus = 1,
		.kernel = "/pool/k",
		.cmdline = "console=ttyS0",
	};
	struct strbuf xml = STRBUF_INIT;
	xmlDocPtr doc;
	char *v;

	ck_assert_int_eq(domain_xml(&c, &xml), 0);
	doc = xmlReadMemory(xml.buf, xml.len, "dom.xml", NULL, XML_PARSE_NONET);
	ck_assert_msg(doc != NULL, "not well-formed XML:\n%s", xml.buf);
	v = xpath_str(doc, "string(/domain/devices/serial/@type)");
	ck_assert_str_eq(v, "pty");
	free(v);
	/* virDomainOpenChannel takes unix channels only: no path of ours. */
	v = xpath_str(doc, "string(/domain/devices/channel/@type)");
	ck_assert_str_eq(v, "unix");
	free(v);
	v = xpath_str(doc, "string(/domain/devices/channel/source/@mode)");
	ck_assert_str_eq(v, "bind");
	free(v);
	v = xpath_str(doc, "string(/domain/devices/channel/source/@path)");
	ck_assert_str_eq(v, "");
	free(v);
	v = xpath_str(doc, "string(/domain/devices/channel/target/@name)");
	ck_assert_str_eq(v, "org.wblab.agent");
	free(v);
	/* Nothing by path on our side. */
	ck_assert_ptr_null(strstr(xml.buf, "path="));
	xmlFreeDoc(doc);
	strbuf_release(&xml);
}
END_TEST

START_TEST(network_xml_isolated)
{
	struct strbuf xml = STRBUF_INIT;

	ck_assert_int_eq(network_xml("wblab-net-<x>", "wbl0", "10.0.0.1",
				     "255.255.255.0", &xml),
			 0);
	ck_assert(strstr(xml.buf, "wblab-net-&lt;x&gt;") != NULL);
	ck_assert_ptr_null(strstr(xml.buf, "<forward"));
	strbuf_release(&xml);
}
END_TEST

START_TEST(proto_headers)
{
	char type, name[PROTO_MAX_NAME + 1];
	size_t len;

	ck_assert_int_eq(
		proto_parse_header("WBL1 F 12 fio.json", &type, &len, name), 0);
	ck_assert_int_eq(type, 'F');
	ck_assert_uint_eq(len, 12);
	ck_assert_str_eq(name, "fio.json");
	/* The host's seed frame, ahead of the plan (agent/agent.c). */
	ck_assert_int_eq(
		proto_parse_header("WBL1 R 32 seed", &type, &len, name), 0);
	ck_assert_int_eq(type, 'R');
	ck_assert_uint_eq(len, 32);
	/* Untrusted guest bytes: path tricks, junk types, huge lengths. */
	ck_assert_int_ne(proto_parse_header("WBL1 F 1 ../etc/passwd", &type,
					    &len, name),
			 0);
	ck_assert_int_ne(
		proto_parse_header("WBL1 F 1 .hidden", &type, &len, name), 0);
	ck_assert_int_ne(proto_parse_header("WBL1 F 1 a/b", &type, &len, name),
			 0);
	ck_assert_int_ne(proto_parse_header("WBL1 Q 1 x", &type, &len, name),
			 0);
	ck_assert_int_ne(proto_parse_header("WBL1 F 99999999999 x", &type, &len,
					    name),
			 0);
	ck_assert_int_ne(proto_parse_header("WBL1 F -1 x", &type, &len, name),
			 0);
	ck_assert_int_ne(proto_parse_header("WBL2 F 1 x", &type, &len, name),
			 0);
	ck_assert_int_ne(proto_parse_header("WBL1 F 1 ", &type, &len, name), 0);
	ck_assert_int_ne(
		proto_parse_header(
			"WBL1 F 1 aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
			&type, &len, name),
		0);
}
END_TEST

START_TEST(proto_escape_roundtrip)
{
	static const char *const in[] = { "a\tb",	 "line1\nline2",
					  "back\\slash", "",
					  "plain",	 "\\t not a tab" };
	char line[512];
	struct strvec f = STRVEC_INIT;
	size_t off = 0, n;

	for (size_t i = 0; i < ARRAY_SIZE(in); i++) {
		if (i)
			line[off++] = '\t';
		off += proto_escape(line + off, in[i], strlen(in[i]));
	}
	line[off] = '\0';
	ck_assert_ptr_null(strchr(line, '\n'));
	n = proto_split(line, &f);
	ck_assert_int_eq(n, ARRAY_SIZE(in));
	for (size_t i = 0; i < ARRAY_SIZE(in); i++)
		ck_assert_str_eq(f.v[i], in[i]);
	ck_assert_ptr_null(f.v[n]);
	strvec_clear(&f);
	/* A backslash that ends a field stays; the TAB still separates. */
	n = proto_split("a\\\tb", &f);
	ck_assert_int_eq(n, 2);
	ck_assert_str_eq(f.v[0], "a\\");
	ck_assert_str_eq(f.v[1], "b");
	strvec_clear(&f);
}
END_TEST

/* A step has as many fields as its line: 500 are 500, none cut. */
START_TEST(proto_split_every_field)
{
	struct strbuf line = STRBUF_INIT;
	struct strvec f = STRVEC_INIT;

	strbuf_addstr(&line, "run\tpre\t60");
	for (int i = 0; i < 497; i++)
		strbuf_addf(&line, "\tw%d", i);
	ck_assert_int_eq(proto_split(line.buf, &f), 500);
	ck_assert_str_eq(f.v[499], "w496");
	ck_assert_ptr_null(f.v[500]);
	strvec_clear(&f);
	strbuf_release(&line);
}
END_TEST

/* One name table per enum, and the look-ups invert it. */
START_TEST(proto_names)
{
	unsigned int v;

	for (int i = 0; i < NR_VERBS; i++)
		ck_assert_int_eq(proto_verb(proto_verb_names[i]), i);
	for (int i = 0; i < NR_PHASES; i++)
		ck_assert_int_eq(proto_phase(proto_phase_names[i]), i);
	for (int i = 0; i < NR_STATUSES; i++)
		ck_assert_int_eq(proto_status(proto_status_names[i]), i);
	ck_assert_int_eq(proto_verb("sample"), -1);
	ck_assert_int_eq(proto_verb(NULL), -1);
	ck_assert_int_eq(proto_phase("Setup"), -1);
	ck_assert_int_eq(proto_uint("120", 86400, &v), 0);
	ck_assert_uint_eq(v, 120);
	ck_assert_int_eq(proto_uint("12x", 86400, &v), -1);
	ck_assert_int_eq(proto_uint("", 86400, &v), -1);
	ck_assert_int_eq(proto_uint("99999999999999999999", 86400, &v), -1);
	ck_assert_int_eq(proto_uint("86401", 86400, &v), -1);
}
END_TEST

static char *test_domain_xml(const char *name)
{
	return xasprintf("<domain type='test'><name>%s</name>"
			 "<memory>1024</memory><os><type>hvm</type></os>"
			 "</domain>",
			 name);
}

/* A listening unix socket at dir/chan, for guest_start's channel. */
static int listen_at(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	ck_assert_int_eq(listen(fd, 4), 0);
	return fd;
}

static bool is_stopped(void *arg)
{
	return ((struct guest *)arg)->stopped;
}

/*
 * A retried cell reuses its domain's name, and libvirtd may deliver the
 * previous attempt's stop event late (on_poweroff=destroy lags). That
 * event is not the new domain's: before, lifecycle_cb matched by name
 * and the new attempt was "destroyed from outside wblab" or "stopped
 * before the agent reported in". libvirt's own test driver queues the
 * events exactly so: the old domain's stop is still undelivered when the
 * new one starts.
 */
START_TEST(stale_stop_event_of_same_name)
{
	char dir[] = "/tmp/wblab-tv.XXXXXX";
	struct strbuf err = STRBUF_INIT;
	struct guest g0, g;
	virConnectPtr conn;
	virDomainPtr old;
	char *path, *xml0, *xml;
	int lfd;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	path = xasprintf("%s/chan", dir);
	lfd = listen_at(path);
	conn = virt_connect("test:///default", &err);
	ck_assert_msg(conn, "%s", err.buf);
	xml0 = test_domain_xml("wblab-tv-0");
	xml = test_domain_xml("wblab-tv");

	/* The first guest_start on conn registers for lifecycle events. */
	guest_init(&g0, "wblab-tv-0", path, dir);
	ck_assert_msg(!guest_start(&g0, conn, xml0, &err), "%s", err.buf);
	guest_release(&g0);

	/* The previous attempt's domain, stopped; its event not delivered. */
	old = virDomainCreateXML(conn, xml, 0);
	ck_assert_ptr_nonnull(old);
	ck_assert_int_eq(virDomainDestroy(old), 0);
	virDomainFree(old);

	guest_init(&g, "wblab-tv", path, dir);
	ck_assert_msg(!guest_start(&g, conn, xml, &err), "%s", err.buf);
	/*
	 * Events arrive in order: once a later domain's stop is in, the old
	 * one's has been delivered too. Wait for that, not for a time.
	 */
	guest_init(&g0, "wblab-tv-0", path, dir);
	ck_assert_msg(!guest_start(&g0, conn, xml0, &err), "%s", err.buf);
	ck_assert_int_eq(virDomainDestroy(g0.dom), 0);
	guest_loop(now_mono() + 60, is_stopped, &g0);
	ck_assert_msg(!g.stopped,
		      "the old domain's stop was taken for this one's: %s",
		      g.host_stop ? g.host_stop : "stopped");
	ck_assert(g0.stopped);
	guest_release(&g0);

	/* Its own stop still counts: destroyed behind wblab's back. */
	ck_assert_int_eq(virDomainDestroy(g.dom), 0);
	ck_assert_int_eq(guest_loop(now_mono() + 60, is_stopped, &g), 0);
	ck_assert(g.stopped_by_host);

	guest_release(&g);
	virConnectClose(conn);
	close(lfd);
	unlink(path);
	rmdir(dir);
	free(path);
	free(xml0);
	free(xml);
	strbuf_release(&err);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("virt");
	TCase *tc = tcase_create("xml+proto");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, zombie_owner_is_dead);
	tcase_add_test(tc, xml_escapes_hostile_names);
	tcase_add_test(tc, xml_remote_ptys);
	tcase_add_test(tc, network_xml_isolated);
	tcase_add_test(tc, proto_headers);
	tcase_add_test(tc, proto_escape_roundtrip);
	tcase_add_test(tc, proto_split_every_field);
	tcase_add_test(tc, proto_names);
	tcase_add_test(tc, stale_stop_event_of_same_name);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
