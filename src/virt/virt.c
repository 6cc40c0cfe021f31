// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <libvirt/virterror.h>

#include "spec/hosts.h"
#include "util/log.h"
#include "virt/virt.h"

static volatile sig_atomic_t interrupted;
static int wake_pipe[2] = { -1, -1 };

const char *virt_default_uri(void)
{
	const char *env = getenv("WBLAB_URI");

	return env && *env ? env : "qemu:///system";
}

/* libvirt prints errors itself by default; wblab reports them in context. */
static void quiet_errors(void *data, virErrorPtr err)
{
}

const char *virt_last_error(void)
{
	virErrorPtr e = virGetLastError();

	return e && e->message ? e->message : "unknown libvirt error";
}

static void wake_cb(int watch, int fd, int events, void *opaque)
{
	char buf[64];

	while (read(fd, buf, sizeof(buf)) > 0)
		;
}

virConnectPtr virt_connect(const char *uri, struct strbuf *err)
{
	static bool loop_ready;
	struct strbuf why = STRBUF_INIT;
	virConnectPtr conn;

	if (!loop_ready) {
		virSetErrorFunc(NULL, quiet_errors);
		if (virEventRegisterDefaultImpl() < 0) {
			strbuf_addf(err,
				    "cannot set up the libvirt event loop: %s",
				    virt_last_error());
			return NULL;
		}
		if (pipe2(wake_pipe, O_CLOEXEC | O_NONBLOCK) == 0)
			virEventAddHandle(wake_pipe[0],
					  VIR_EVENT_HANDLE_READABLE, wake_cb,
					  NULL, NULL);
		loop_ready = true;
	}
	/*
	 * The last line against a URI that runs a program (ext's or ssh's
	 * command=): whatever it came from (a job file, a caller that did
	 * not check), libvirt never gets it.
	 */
	if (hosts_uri_check(uri, &why)) {
		strbuf_addf(err, "libvirt URI %s refused: %s", uri ? uri : "",
			    why.buf);
		strbuf_release(&why);
		return NULL;
	}
	strbuf_release(&why);
	conn = virConnectOpen(uri);
	if (!conn)
		strbuf_addf(err, "cannot connect to libvirt at %s: %s (%s)",
			    uri, virt_last_error(), virt_connect_hint(uri));
	return conn;
}

/*
 * What to do when a connection fails. A non-root user whose connection to
 * a running libvirtd is refused needs permission, not 'make services'
 * (which it cannot run either): doctor used to say the latter.
 */
const char *virt_connect_hint(const char *uri)
{
	bool local = !uri || !strncmp(uri, "qemu:///", 8);
	bool running = !access("/run/libvirt/libvirt-sock", F_OK) ||
		       !access("/var/run/libvirt/libvirt-sock", F_OK);

	if (local && running && geteuid())
		return "libvirtd runs, but this user may not use it: run wblab as root, or add the user to the libvirt group and use qemu:///system through it";
	if (local && !running)
		return "libvirtd is not running: 'make services' (as root) starts it";
	return "is libvirtd running there? 'make services' starts it";
}

int virt_destroy_prefix(virConnectPtr conn, const char *prefix)
{
	virDomainPtr *doms = NULL;
	int n = virConnectListAllDomains(conn, &doms,
					 VIR_CONNECT_LIST_DOMAINS_ACTIVE);
	size_t plen = strlen(prefix);
	int killed = 0;

	for (int i = 0; i < n; i++) {
		const char *name = virDomainGetName(doms[i]);

		if (name && !strncmp(name, prefix, plen) &&
		    virDomainDestroy(doms[i]) == 0)
			killed++;
		virDomainFree(doms[i]);
	}
	free(doms);
	return killed;
}

bool virt_same_domain(virDomainPtr a, virDomainPtr b)
{
	unsigned char ua[VIR_UUID_BUFLEN], ub[VIR_UUID_BUFLEN];

	return a && virDomainGetUUID(a, ua) == 0 &&
	       virDomainGetUUID(b, ub) == 0 && !memcmp(ua, ub, sizeof(ua));
}

int virt_destroy_by_name(const char *uri, const char *name)
{
	struct strbuf why = STRBUF_INIT;
	int bad = !uri || hosts_uri_check(uri, &why);
	virConnectPtr c = NULL;
	double end = now_mono() + 60;
	virDomainPtr d;
	virNetworkPtr n;

	strbuf_release(&why);
	while (!bad && !(c = virConnectOpen(uri)) && now_mono() < end)
		sleep(1);
	if (!c)
		return -1;
	d = virDomainLookupByName(c, name);
	if (d) {
		if (virDomainIsActive(d) == 1)
			virDomainDestroy(d);
		virDomainFree(d);
	}
	n = virNetworkLookupByName(c, name);
	if (n) {
		virNetworkDestroy(n);
		virNetworkFree(n);
	}
	virConnectClose(c);
	return 0;
}

/* The text of the first <tag> after from in xml, bounded by len. */
static void xml_text(const char *xml, const char *from, const char *tag,
		     char *buf, size_t len)
{
	const char *p = xml ? strstr(xml, from) : NULL;
	size_t tl = strlen(tag);

	buf[0] = '\0';
	p = p ? strstr(p, tag) : NULL;
	if (p)
		snprintf(buf, len, "%.*s", (int)strcspn(p + tl, "<"), p + tl);
}

void virt_host_facts(virConnectPtr conn, struct virt_host_facts *f)
{
	char *caps = virConnectGetCapabilities(conn);
	char *host = virConnectGetHostname(conn);

	memset(f, 0, sizeof(*f));
	/* <host><cpu><arch/><model>Skylake-Client-IBRS</model>... */
	xml_text(caps, "<host>", "<model>", f->cpu_model, sizeof(f->cpu_model));
	snprintf(f->hostname, sizeof(f->hostname), "%s", host ? host : "");
	virConnectGetVersion(conn, &f->qemu_version);
	virConnectGetLibVersion(conn, &f->libvirt_version);
	free(caps);
	free(host);
}

static void on_signal(int sig)
{
	int saved = errno;

	interrupted = 1;
	if (wake_pipe[1] >= 0 && write(wake_pipe[1], "x", 1) < 0) {
		/* the loop will see the flag on its next timer */
	}
	errno = saved;
}

void virt_install_signal_handlers(void)
{
	struct sigaction sa = { .sa_handler = on_signal };

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}

bool virt_interrupted(void)
{
	return interrupted;
}
