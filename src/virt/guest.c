// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "agent/proto.h"
#include "util/fs.h"
#include "util/log.h"
#include "virt/guest.h"
#include "virt/virt.h"

#define MAX_GUESTS 16
#define GUEST_MAX_BYTES (2ULL << 30)

static struct guest *live[MAX_GUESTS];
static int loop_timer = -1;

static void track(struct guest *g, bool on)
{
	for (int i = 0; i < MAX_GUESTS; i++) {
		if (on && !live[i]) {
			live[i] = g;
			return;
		}
		if (!on && live[i] == g)
			live[i] = NULL;
	}
}

static int lifecycle_cb(virConnectPtr conn, virDomainPtr dom, int event,
			int detail, void *opaque)
{
	const char *name = virDomainGetName(dom);

	/*
	 * A guest that powered itself off is done: its console is complete
	 * when QEMU reports the shutdown, and libvirt takes the domain down
	 * (on_poweroff=destroy) without us waiting ~2 s for QEMU to exit.
	 */
	if ((event != VIR_DOMAIN_EVENT_STOPPED &&
	     event != VIR_DOMAIN_EVENT_SHUTDOWN) || !name)
		return 0;
	for (int i = 0; i < MAX_GUESTS; i++) {
		if (live[i] && !strcmp(live[i]->name, name) &&
		    !live[i]->stopped) {
			live[i]->stopped = true;
			live[i]->powered_off = event == VIR_DOMAIN_EVENT_SHUTDOWN;
			live[i]->stop_detail = detail;
			live[i]->t_stop = now_mono();
		}
	}
	return 0;
}

void guest_init(struct guest *g, const char *name, const char *sock_path,
		const char *out_dir)
{
	memset(g, 0, sizeof(*g));
	g->name = xstrdup(name);
	g->sock_path = xstrdup(sock_path);
	g->out_dir = xstrdup(out_dir);
	g->fd = -1;
	g->watch = -1;
	strbuf_init(&g->in, 0);
	strbuf_init(&g->exit_body, 0);
}

static void send_plan(struct guest *g)
{
	char hdr[64];
	int n = snprintf(hdr, sizeof(hdr), PROTO_MAGIC " P %zu plan\n",
			 g->plan_len);
	struct strbuf out = STRBUF_INIT;
	size_t off = 0;

	strbuf_add(&out, hdr, n);
	strbuf_add(&out, g->plan, g->plan_len);
	while (off < out.len) {
		ssize_t w = write(g->fd, out.buf + off, out.len - off);

		if (w < 0 && (errno == EAGAIN || errno == EINTR)) {
			struct pollfd p = { g->fd, POLLOUT, 0 };

			poll(&p, 1, 1000);
			continue;
		}
		if (w <= 0) {
			warn("%s: cannot send the plan: %s", g->name,
			     strerror(errno));
			break;
		}
		off += w;
	}
	strbuf_release(&out);
}

static void copy_token(char *dst, size_t len, const char *src, size_t n)
{
	size_t k = 0;

	/* Guest bytes: keep printable ASCII only. */
	for (size_t i = 0; i < n && k + 1 < len; i++)
		if (src[i] > ' ' && src[i] < 127)
			dst[k++] = src[i];
	dst[k] = '\0';
}

static void on_frame(struct guest *g, char type, const char *name,
		     const char *data, size_t len)
{
	switch (type) {
	case 'H': {
		const char *r = memmem(data, len, "release=", 8);

		if (r) {
			const char *e = memchr(r, '\n', data + len - r);

			copy_token(g->release, sizeof(g->release), r + 8,
				   (e ? e : data + len) - (r + 8));
		}
		if (!g->hello) {
			g->hello = true;
			g->t_hello = now_mono();
			if (g->plan)
				send_plan(g);
		}
		break;
	}
	case 'S':
		copy_token(g->phase, sizeof(g->phase), data, len);
		if (!strcmp(g->phase, "setup"))
			g->t_setup = now_mono();
		else if (!strcmp(g->phase, "workload"))
			g->t_workload = now_mono();
		else if (!strcmp(g->phase, "collect"))
			g->t_collect = now_mono();
		break;
	case 'F': {
		char *path = xasprintf("%s/%s", g->out_dir, name);

		if (write_file_atomic(path, data, len, 0644) < 0)
			warn("%s: cannot write %s: %s", g->name, path,
			     strerror(errno));
		else if (!spec_strlist_has(&g->files, name))
			spec_strlist_add(&g->files, name);
		free(path);
		break;
	}
	case 'X':
		if (strcmp(name, "ok") && strcmp(name, "setup-failed") &&
		    strcmp(name, "workload-failed")) {
			g->proto_error = true;
			break;
		}
		snprintf(g->agent_status, sizeof(g->agent_status), "%s", name);
		strbuf_reset(&g->exit_body);
		strbuf_add(&g->exit_body, data, len);
		g->exited = true;
		g->t_exit = now_mono();
		break;
	default:
		g->proto_error = true;
	}
}

/* Decode as many whole frames as the buffer holds. */
static void drain_frames(struct guest *g)
{
	size_t off = 0;

	while (!g->proto_error) {
		char *nl =
			memchr(g->in.buf + off, '\n',
			       g->in.len - off < 256 ? g->in.len - off : 256);
		char hdr[257], type, name[PROTO_MAX_NAME + 1];
		size_t hlen, len;

		if (!nl) {
			if (g->in.len - off >= 256)
				g->proto_error = true;
			break;
		}
		hlen = nl - (g->in.buf + off);
		memcpy(hdr, g->in.buf + off, hlen);
		hdr[hlen] = '\0';
		if (proto_parse_header(hdr, &type, &len, name)) {
			g->proto_error = true;
			break;
		}
		if (g->in.len - off - hlen - 1 < len)
			break;
		on_frame(g, type, name, nl + 1, len);
		off += hlen + 1 + len;
	}
	if (g->proto_error)
		warn("%s: malformed data on the agent channel; ignoring the rest",
		     g->name);
	memmove(g->in.buf, g->in.buf + off, g->in.len - off);
	g->in.len -= off;
	g->in.buf[g->in.len] = '\0';
}

static void channel_cb(int watch, int fd, int events, void *opaque)
{
	struct guest *g = opaque;
	char buf[65536];

	for (;;) {
		ssize_t n = read(fd, buf, sizeof(buf));

		if (n > 0) {
			g->bytes_in += n;
			if (g->proto_error || g->bytes_in > GUEST_MAX_BYTES) {
				g->proto_error = true;
				continue;
			}
			strbuf_add(&g->in, buf, n);
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n == 0 || (n < 0 && errno != EAGAIN)) {
			virEventRemoveHandle(g->watch);
			g->watch = -1;
		}
		break;
	}
	drain_frames(g);
}

static int connect_channel(struct guest *g, struct strbuf *err)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	double end = now_mono() + 5;

	if (strlen(g->sock_path) >= sizeof(sa.sun_path)) {
		strbuf_addf(err, "socket path too long: %s", g->sock_path);
		return -1;
	}
	strcpy(sa.sun_path, g->sock_path);
	g->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	while (connect(g->fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		if (now_mono() > end) {
			strbuf_addf(
				err,
				"cannot connect to the agent channel %s: %s",
				g->sock_path, strerror(errno));
			return -1;
		}
		usleep(20000);
	}
	g->watch = virEventAddHandle(g->fd, VIR_EVENT_HANDLE_READABLE,
				     channel_cb, g, NULL);
	return g->watch < 0 ? -1 : 0;
}

static void loop_timer_cb(int timer, void *opaque)
{
}

int guest_start(struct guest *g, virConnectPtr conn, const char *xml,
		struct strbuf *err)
{
	static virConnectPtr registered;

	if (registered != conn) {
		if (virConnectDomainEventRegisterAny(
			    conn, NULL, VIR_DOMAIN_EVENT_ID_LIFECYCLE,
			    VIR_DOMAIN_EVENT_CALLBACK(lifecycle_cb), NULL,
			    NULL) < 0) {
			strbuf_addf(err,
				    "cannot register for domain events: %s",
				    virt_last_error());
			return -1;
		}
		registered = conn;
	}
	if (loop_timer < 0)
		loop_timer = virEventAddTimeout(-1, loop_timer_cb, NULL, NULL);
	g->conn = conn;
	track(g, true);
	g->t_create = now_mono();
	g->dom = virDomainCreateXML(conn, xml, 0);
	if (!g->dom) {
		strbuf_addf(err, "libvirt cannot start domain %s: %s", g->name,
			    virt_last_error());
		track(g, false);
		return -1;
	}
	g->started = true;
	g->t_running = now_mono();
	return connect_channel(g, err);
}

void guest_destroy(struct guest *g)
{
	if (!g->dom)
		return;
	if (!g->powered_off && virDomainIsActive(g->dom) == 1)
		virDomainDestroy(g->dom);
	if (!g->stopped) {
		g->stopped = true;
		g->t_stop = now_mono();
		g->stop_detail = VIR_DOMAIN_EVENT_STOPPED_DESTROYED;
	}
	virDomainFree(g->dom);
	g->dom = NULL;
}

void guest_release(struct guest *g)
{
	guest_destroy(g);
	track(g, false);
	if (g->watch >= 0)
		virEventRemoveHandle(g->watch);
	if (g->fd >= 0)
		close(g->fd);
	/* Removed handles are freed on the next loop iteration. */
	if (loop_timer >= 0) {
		virEventUpdateTimeout(loop_timer, 0);
		virEventRunDefaultImpl();
	}
	strbuf_release(&g->in);
	strbuf_release(&g->exit_body);
	spec_strlist_free(&g->files);
	free(g->name);
	free(g->sock_path);
	free(g->out_dir);
	memset(g, 0, sizeof(*g));
	g->fd = -1;
	g->watch = -1;
}

int guest_loop(double deadline, bool (*done)(void *), void *arg)
{
	for (;;) {
		double left = deadline - now_mono();

		if (done(arg))
			return 0;
		if (virt_interrupted())
			return -1;
		if (left <= 0)
			return 1;
		virEventUpdateTimeout(loop_timer, (int)(left * 1000) + 1);
		if (virEventRunDefaultImpl() < 0)
			return -1;
	}
}
