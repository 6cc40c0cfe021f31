// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "agent/proto.h"
#include "util/fs.h"
#include "util/log.h"
#include "virt/guest.h"
#include "virt/virt.h"

#define MAX_GUESTS 16
#define GUEST_SEND_TIMEOUT 30 /* s: the plan is small */

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
	if (!name)
		return 0;
	for (int i = 0; i < MAX_GUESTS; i++) {
		struct guest *g = live[i];

		/* By UUID too: a retried cell reuses the name (virt.h). */
		if (!g || strcmp(g->name, name) || g->stopped ||
		    !virt_same_domain(g->dom, dom))
			continue;
		/* QEMU pauses a guest whose disk write failed (ENOSPC). */
		if (event == VIR_DOMAIN_EVENT_SUSPENDED &&
		    detail == VIR_DOMAIN_EVENT_SUSPENDED_IOERROR)
			g->paused_ioerror = true;
		if (event != VIR_DOMAIN_EVENT_STOPPED &&
		    event != VIR_DOMAIN_EVENT_SHUTDOWN)
			continue;
		g->stopped = true;
		g->stop_detail = detail;
		g->t_stop = now_mono();
		/*
		 * We had not destroyed it (our own destroy marks the guest
		 * stopped first): someone on the host did, or QEMU died.
		 * virsh destroy signals QEMU, which reports a shutdown "from
		 * the host"; a killed QEMU is a stop that "failed".
		 */
		if (event == VIR_DOMAIN_EVENT_SHUTDOWN &&
		    detail == VIR_DOMAIN_EVENT_SHUTDOWN_HOST)
			g->host_stop =
				"the domain was destroyed from outside wblab (libvirt: QEMU shut down on a signal from the host)";
		else if (event == VIR_DOMAIN_EVENT_STOPPED &&
			 detail == VIR_DOMAIN_EVENT_STOPPED_DESTROYED)
			g->host_stop =
				"the domain was destroyed from outside wblab (libvirt stop reason: destroyed)";
		else if (event == VIR_DOMAIN_EVENT_STOPPED &&
			 detail == VIR_DOMAIN_EVENT_STOPPED_FAILED)
			g->host_stop =
				"QEMU failed or was killed on the host (libvirt stop reason: failed)";
		g->stopped_by_host = g->host_stop != NULL;
		g->powered_off = event == VIR_DOMAIN_EVENT_SHUTDOWN &&
				 !g->stopped_by_host;
	}
	return 0;
}

static const char *accept_frame(void *arg, char type, const char *name,
				size_t len);
static void on_frame(void *arg, char type, const char *name, const char *data,
		     size_t len);
static void skip_frame(void *arg, char type, const char *name, size_t len,
		       const char *why);

static void close_cb(virConnectPtr conn, int reason, void *opaque)
{
	for (int i = 0; i < MAX_GUESTS; i++)
		if (live[i] && live[i]->conn == conn)
			live[i]->conn_lost = true;
}

const char *guest_host_fault(const struct guest *g)
{
	if (g->conn_lost)
		return "the libvirt connection was lost (libvirtd restarted or the host went away)";
	if (g->paused_ioerror)
		return "QEMU paused the guest on a host I/O error (host disk full?)";
	return g->stopped_by_host ? g->host_stop : NULL;
}

static bool any_host_fault(void)
{
	for (int i = 0; i < MAX_GUESTS; i++)
		if (live[i] && guest_host_fault(live[i]))
			return true;
	return false;
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
	g->con_fd = -1;
	g->con_watch = -1;
	strbuf_init(&g->exit_body, 0);
	frame_decoder_init(&g->dec);
	g->dec.accept = accept_frame;
	g->dec.on_frame = on_frame;
	g->dec.on_skip = skip_frame;
	g->dec.arg = g;
}

/*
 * A seed for the guest kernel's entropy pool, ahead of the plan (the agent
 * credits it): a guest with no RNG device otherwise has no ready CRNG, and
 * every libuuid caller in its setup (mkfs, mdadm) waits a second per UUID.
 * No seed if the host has none to give: the guest only waits.
 */
static void add_seed(struct strbuf *out)
{
	char seed[PROTO_SEED_BYTES];

	if (getrandom(seed, sizeof(seed), GRND_NONBLOCK) != sizeof(seed))
		return;
	strbuf_addf(out, PROTO_MAGIC " R %zu seed\n", sizeof(seed));
	strbuf_add(out, seed, sizeof(seed));
}

/*
 * The plan goes out with a deadline: a guest that stops reading its
 * channel must not hold the host, and SIGINT ends the wait.
 */
static void send_plan(struct guest *g)
{
	char hdr[64];
	int n = snprintf(hdr, sizeof(hdr), PROTO_MAGIC " P %zu plan\n",
			 g->plan_len);
	struct strbuf out = STRBUF_INIT;
	double deadline = now_mono() + GUEST_SEND_TIMEOUT;
	size_t off = 0;

	add_seed(&out);
	strbuf_add(&out, hdr, n);
	strbuf_add(&out, g->plan, g->plan_len);
	/* Over a stream the event loop sends what the host does not take now. */
	if (g->remote && gstream_send(&g->chan_s, out.buf, out.len) < 0) {
		g->proto_error = true;
		snprintf(g->proto_why, sizeof(g->proto_why),
			 "cannot send the plan: %.130s", g->chan_s.why);
	}
	while (!g->remote && off < out.len) {
		ssize_t w = write(g->fd, out.buf + off, out.len - off);

		if (w < 0 && (errno == EAGAIN || errno == EINTR)) {
			struct pollfd p = { g->fd, POLLOUT, 0 };

			if (virt_interrupted() || now_mono() > deadline) {
				g->proto_error = true;
				snprintf(g->proto_why, sizeof(g->proto_why),
					 "the plan could not be sent (%s)",
					 virt_interrupted() ? "interrupted" :
							      "timed out");
				break;
			}
			poll(&p, 1, 200);
			continue;
		}
		if (w <= 0) {
			warn("%s: cannot send the plan: %s", g->name,
			     strerror(errno));
			g->proto_error = true;
			snprintf(g->proto_why, sizeof(g->proto_why),
				 "cannot send the plan: %s", strerror(errno));
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

static void note(struct guest *g, const char *fmt, const char *name,
		 const char *why)
{
	char *s;

	if (g->notes.n >= GUEST_MAX_NOTES)
		return;
	s = xasprintf(fmt, name, why);
	spec_strlist_add(&g->notes, s);
	free(s);
}

/* Which frames are buffered: files the plan asked for, within caps. */
static const char *accept_frame(void *arg, char type, const char *name,
				size_t len)
{
	struct guest *g = arg;

	if (type != 'F')
		return NULL;
	if (!spec_strlist_has(&g->expect, name))
		return "not a file the plan asked for";
	/* A name may come twice (a get of a file the out dir also sends). */
	if (++g->file_frames > GUEST_MAX_FILES)
		return "over the cap on the number of files";
	if (len > PROTO_MAX_FILE)
		return "over the per-file size cap";
	if (g->file_bytes + len > GUEST_MAX_BYTES)
		return "over the cap on all files' bytes";
	g->file_bytes += len;
	return NULL;
}

static void skip_frame(void *arg, char type, const char *name, size_t len,
		       const char *why)
{
	struct guest *g = arg;
	char what[PROTO_MAX_NAME + 48];

	snprintf(what, sizeof(what), "%s (%zu bytes)", name, len);
	warn("%s: refused %c frame %s: %s", g->name, type, what, why);
	note(g, "file %s refused: %s", what, why);
}

static void on_file(struct guest *g, const char *name, const char *data,
		    size_t len)
{
	char *path = xasprintf("%s/%s", g->out_dir, name);

	if (write_file_atomic(path, data, len, 0644) < 0) {
		warn("%s: cannot write %s: %s", g->name, path, strerror(errno));
		/* The first failure names the cell's infra error. */
		if (!g->write_error[0])
			snprintf(g->write_error, sizeof(g->write_error),
				 "cannot write %s (%zu bytes): %s", name, len,
				 strerror(errno));
	} else if (!spec_strlist_has(&g->files, name)) {
		spec_strlist_add(&g->files, name);
	}
	free(path);
}

static void on_frame(void *arg, char type, const char *name, const char *data,
		     size_t len)
{
	struct guest *g = arg;

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
	case 'S': {
		int ph;

		copy_token(g->phase, sizeof(g->phase), data, len);
		ph = proto_phase(g->phase);
		if (ph >= 0 && !g->t_phase[ph])
			g->t_phase[ph] = now_mono();
		break;
	}
	case 'F':
		on_file(g, name, data, len);
		break;
	case 'X':
		if (proto_status(name) < 0) {
			g->proto_error = true;
			snprintf(g->proto_why, sizeof(g->proto_why),
				 "unknown agent exit status '%s'", name);
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
		snprintf(g->proto_why, sizeof(g->proto_why),
			 "unexpected frame type %c", type);
	}
}

/* Bytes from the agent's channel, a socket's or a stream's. */
static void channel_bytes(void *arg, const char *buf, size_t n)
{
	struct guest *g = arg;

	g->bytes_in += n;
	if (g->proto_error || g->dec.error)
		return;
	if (frame_feed(&g->dec, buf, n) < 0) {
		g->proto_error = true;
		snprintf(g->proto_why, sizeof(g->proto_why), "%s", g->dec.why);
		warn("%s: malformed data on the agent channel (%s); ignoring the rest",
		     g->name, g->dec.why);
	}
}

static void channel_cb(int watch, int fd, int events, void *opaque)
{
	struct guest *g = opaque;
	char buf[65536];

	for (;;) {
		ssize_t n = read(fd, buf, sizeof(buf));

		if (n > 0) {
			channel_bytes(g, buf, (size_t)n);
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n == 0 || (n < 0 && errno != EAGAIN)) {
			virEventRemoveHandle(g->watch);
			g->watch = -1;
			/* A frame cut off by the guest's end is a reason too. */
			guest_channel_cut(g);
		}
		break;
	}
}

bool guest_channel_cut(struct guest *g)
{
	if (!g->truncated && !g->proto_error && !frame_idle(&g->dec)) {
		g->truncated = true;
		snprintf(
			g->proto_why, sizeof(g->proto_why),
			"the channel ended inside a %c frame (%zu of %zu bytes)",
			g->dec.in_body ? g->dec.type : '?', g->dec.got,
			g->dec.len);
	}
	return g->truncated;
}

void guest_set_console(struct guest *g, const char *sock, const char *path)
{
	free(g->console_sock);
	free(g->console_path);
	g->console_sock = xstrdup(sock);
	g->console_path = xstrdup(path);
}

void guest_set_remote(struct guest *g, const char *path)
{
	free(g->console_path);
	g->console_path = xstrdup(path);
	g->remote = true;
}

static void console_bytes(void *arg, const char *buf, size_t n)
{
	capture_write(&((struct guest *)arg)->con, buf, n);
}

/* Read what the console socket has; false at its end. */
static bool console_read(struct guest *g)
{
	char buf[65536];

	for (;;) {
		ssize_t n = read(g->con_fd, buf, sizeof(buf));

		if (n > 0) {
			capture_write(&g->con, buf, n);
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		return n < 0 && errno == EAGAIN;
	}
}

static void console_cb(int watch, int fd, int events, void *opaque)
{
	struct guest *g = opaque;

	if (!console_read(g) && g->con_watch >= 0) {
		virEventRemoveHandle(g->con_watch);
		g->con_watch = -1;
	}
}

static int unix_connect(const char *path, double wait_s, struct strbuf *err)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	double end = now_mono() + wait_s;
	int fd;

	if (strlen(path) >= sizeof(sa.sun_path)) {
		strbuf_addf(err, "socket path too long: %s", path);
		return -1;
	}
	strcpy(sa.sun_path, path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	while (fd >= 0 && connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		if (now_mono() > end) {
			strbuf_addf(err, "cannot connect to %s: %s", path,
				    strerror(errno));
			close(fd);
			return -1;
		}
		usleep(20000);
	}
	return fd;
}

static int connect_console(struct guest *g, struct strbuf *err)
{
	if (!g->console_sock && !g->remote)
		return 0;
	size_t head = CONSOLE_HEAD_MAX, tail = CONSOLE_TAIL_MAX;
	const char *env = getenv("WBLAB_CONSOLE_CAP");

	/*
	 * "HEAD,TAIL" bytes, for the flood test only: QEMU's UART sends ~30
	 * KB/s, so a guest needs most of an hour to reach the real caps.
	 */
	if (env) {
		unsigned long long h, t;

		if (sscanf(env, "%llu,%llu", &h, &t) == 2 && h <= head &&
		    t <= tail) {
			head = h;
			tail = t;
		}
	}
	if (capture_open(&g->con, g->console_path, head, tail) < 0) {
		strbuf_addf(err, "cannot create %s: %s", g->console_path,
			    strerror(errno));
		return -1;
	}
	g->con_open = true;
	if (g->remote)
		return gstream_open(&g->con_s, g->dom, NULL, console_bytes, g,
				    err);
	g->con_fd = unix_connect(g->console_sock, 5, err);
	if (g->con_fd < 0)
		return -1;
	g->con_watch = virEventAddHandle(g->con_fd, VIR_EVENT_HANDLE_READABLE,
					 console_cb, g, NULL);
	return g->con_watch < 0 ? -1 : 0;
}

/*
 * At the cell's end, read what is left in the console socket and finish
 * the capture. A destroyed QEMU closes the socket at once; a guest that
 * powered itself off has printed its last line before QEMU reported the
 * shutdown, so what is readable within a moment is all there is: with
 * quiet, 50 ms without a byte ends the wait (a fixed 0.3 s was 0.3 s of
 * every cell's host-side cost), and the reading after the destroy takes
 * whatever QEMU still held.
 */
static void console_finish(struct guest *g, double wait_s, bool quiet)
{
	double end = now_mono() + wait_s;

	/* A stream: the event loop delivers the rest until its EOF. */
	while (g->con_s.open && !g->conn_lost && now_mono() < end) {
		virEventUpdateTimeout(loop_timer,
				      (int)((end - now_mono()) * 1000) + 1);
		if (virEventRunDefaultImpl() < 0)
			break;
	}
	gstream_close(&g->con_s);
	if (g->con_fd >= 0) {
		while (console_read(g) && now_mono() < end) {
			struct pollfd p = { g->con_fd, POLLIN, 0 };

			if (!poll(&p, 1, 50) && quiet)
				break;
		}
		if (g->con_watch >= 0)
			virEventRemoveHandle(g->con_watch);
		g->con_watch = -1;
		close(g->con_fd);
		g->con_fd = -1;
	}
	if (g->con_open && !g->con.closed && capture_close(&g->con) < 0 &&
	    !g->write_error[0])
		snprintf(g->write_error, sizeof(g->write_error),
			 "cannot write the console log %s: %s", g->console_path,
			 strerror(g->con.err));
}

static int connect_channel(struct guest *g, struct strbuf *err)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	double end = now_mono() + 5;

	if (g->remote)
		return gstream_open(&g->chan_s, g->dom, PROTO_CHANNEL,
				    channel_bytes, g, err);
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
		virConnectRegisterCloseCallback(conn, close_cb, NULL, NULL);
	}
	if (loop_timer < 0)
		loop_timer = virEventAddTimeout(-1, loop_timer_cb, NULL, NULL);
	g->conn = conn;
	free(g->conn_uri);
	g->conn_uri = virConnectGetURI(conn);
	track(g, true);
	g->t_create = now_mono();
	g->dom = virDomainCreateXML(
		conn, xml,
		g->console_sock || g->remote ? VIR_DOMAIN_START_PAUSED : 0);
	if (!g->dom) {
		strbuf_addf(err, "libvirt cannot start domain %s: %s", g->name,
			    virt_last_error());
		track(g, false);
		return -1;
	}
	g->started = true;
	if (connect_console(g, err) || connect_channel(g, err))
		return -1;
	if ((g->console_sock || g->remote) && virDomainResume(g->dom) < 0) {
		strbuf_addf(err, "libvirt cannot resume domain %s: %s", g->name,
			    virt_last_error());
		return -1;
	}
	g->t_running = now_mono();
	return 0;
}

void guest_destroy(struct guest *g)
{
	if (!g->dom)
		return;
	/*
	 * A guest that powered off has printed its last: read what is in the
	 * console socket first. Then the domain goes even if libvirt has not
	 * taken it down yet (on_poweroff=destroy can lag by seconds, and a
	 * retry of the cell reuses its name).
	 */
	if (g->powered_off)
		console_finish(g, 0.3, true);
	if (g->conn_lost)
		virt_destroy_by_name(g->conn_uri, g->name);
	else if (virDomainIsActive(g->dom) == 1)
		virDomainDestroy(g->dom);
	if (!g->stopped) {
		g->stopped = true;
		g->t_stop = now_mono();
		g->stop_detail = VIR_DOMAIN_EVENT_STOPPED_DESTROYED;
	}
	virDomainFree(g->dom);
	g->dom = NULL;
	console_finish(g, 5, false);
}

void guest_release(struct guest *g)
{
	guest_destroy(g);
	track(g, false);
	if (g->watch >= 0)
		virEventRemoveHandle(g->watch);
	if (g->fd >= 0)
		close(g->fd);
	gstream_close(&g->chan_s);
	/* Removed handles are freed on the next loop iteration. */
	if (loop_timer >= 0) {
		virEventUpdateTimeout(loop_timer, 0);
		virEventRunDefaultImpl();
	}
	console_finish(g, 0, false);
	free(g->console_sock);
	free(g->console_path);
	frame_decoder_release(&g->dec);
	strbuf_release(&g->exit_body);
	spec_strlist_free(&g->files);
	spec_strlist_free(&g->expect);
	spec_strlist_free(&g->notes);
	free(g->name);
	free(g->sock_path);
	free(g->out_dir);
	free(g->conn_uri);
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
		if (any_host_fault())
			return 2;
		if (left <= 0)
			return 1;
		virEventUpdateTimeout(loop_timer, (int)(left * 1000) + 1);
		if (virEventRunDefaultImpl() < 0)
			return -1;
	}
}
