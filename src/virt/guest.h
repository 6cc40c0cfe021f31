/* SPDX-License-Identifier: GPL-2.0 */
#ifndef WBLAB_GUEST_H
#define WBLAB_GUEST_H

#include <libvirt/libvirt.h>
#include <stdbool.h>

#include "agent/proto.h"
#include "spec/spec.h"
#include "util/strbuf.h"
#include "virt/capture.h"
#include "virt/frames.h"
#include "virt/gstream.h"

/* Caps on what the host takes from one guest (docs/results.md). */
#define GUEST_MAX_FILES 256
#define GUEST_MAX_BYTES (1ULL << 30)
#define GUEST_MAX_NOTES 64

/*
 * A running transient domain and the agent at the other end of its
 * channel. Everything is event driven: libvirt lifecycle events and the
 * channel socket wake the loop, never a poll of the domain state.
 */
struct guest {
	char *name;
	char *sock_path;
	char *out_dir; /* received files land here */
	const char *plan; /* sent when the agent says hello */
	size_t plan_len;
	virConnectPtr conn;
	char *conn_uri; /* to reconnect and clean up if conn is lost */
	virDomainPtr dom;
	int fd, watch;
	/* The serial console: a unix socket read into a capped capture. */
	char *console_sock, *console_path;
	int con_fd, con_watch;
	struct capture con;
	bool con_open;
	/* A remote host: console and channel are streams over conn. */
	bool remote;
	struct gstream con_s, chan_s;
	struct frame_decoder dec;
	size_t bytes_in, file_bytes, file_frames;
	struct spec_strlist expect; /* files the plan asked for */
	struct spec_strlist notes; /* files refused or capped, and why */
	char write_error[256]; /* a received file that could not be written */
	char proto_why[160];
	/* What happened, for the outcome. */
	bool started, hello, exited, stopped, proto_error;
	bool truncated; /* the channel ended inside a frame */
	bool powered_off; /* stopped by the guest's own poweroff */
	char release[128]; /* uname -r the agent reported */
	char agent_status[PROTO_MAX_NAME +
			  1]; /* ok | setup-failed | workload-failed */
	struct strbuf exit_body;
	char phase[32];
	struct spec_strlist files;
	double t_create, t_running, t_hello, t_exit, t_stop;
	double t_phase[NR_PHASES]; /* when each phase started, 0 if not */
	int stop_detail; /* virDomainEventStoppedDetailType */
	/*
	 * Host faults, each a reason for infra-error: QEMU stopped by
	 * someone else (virsh destroy, host OOM: libvirt says destroyed or
	 * failed), paused on an I/O error (host disk full), or the libvirt
	 * connection lost (libvirtd restarted).
	 */
	bool stopped_by_host, paused_ioerror, conn_lost;
	const char *host_stop; /* why stopped_by_host, as libvirt said it */
};

void guest_init(struct guest *g, const char *name, const char *sock_path,
		const char *out_dir);
/*
 * Read the serial console from QEMU's unix socket sock into path (capped,
 * see capture.h) instead of a file: call before guest_start.
 */
void guest_set_console(struct guest *g, const char *sock, const char *path);
/*
 * A guest on a remote host: its console (into path, capped as above) and
 * its agent channel come over the libvirt connection as streams, nothing
 * through a path on this machine. Call before guest_start.
 */
void guest_set_remote(struct guest *g, const char *path);
/*
 * After the guest stopped: did its last frame end partway (noted in
 * proto_why)? QEMU may keep the socket open, so EOF is not the test.
 */
bool guest_channel_cut(struct guest *g);
/*
 * Create the transient domain (paused, so no console byte is missed),
 * connect to its channel and console, and let it run.
 */
int guest_start(struct guest *g, virConnectPtr conn, const char *xml,
		struct strbuf *err);
/* Destroy if still running (idempotent). */
void guest_destroy(struct guest *g);
void guest_release(struct guest *g);
/* The host fault of g as one phrase, or NULL if none. */
const char *guest_host_fault(const struct guest *g);
/*
 * Run the event loop until done(arg) is true, the deadline (monotonic
 * seconds) passes, SIGINT/SIGTERM, or a host fault on a guest of this
 * process. Returns 0 done, 1 deadline, -1 interrupted, 2 host fault.
 */
int guest_loop(double deadline, bool (*done)(void *), void *arg);

#endif
