// SPDX-License-Identifier: GPL-2.0
/* lab/hosts.yaml: a list of libvirt endpoints with their capacity. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "spec/hosts.h"
#include "spec/spec.h"
#include "util/log.h"

/*
 * What a URI may hold: RFC 3986's unreserved characters and the delimiters
 * a libvirt URI uses; no quotes, '$', '`', spaces or controls ("%20").
 */
#define URI_CHARS                    \
	"ABCDEFGHIJKLMNOPQRSTUVWXYZ" \
	"abcdefghijklmnopqrstuvwxyz" \
	"0123456789-._~:/?&;=@%+,[]"
/* A host part ([user@]host[:port]): no option to ssh (no leading '-'). */
#define URI_HOST_CHARS               \
	"ABCDEFGHIJKLMNOPQRSTUVWXYZ" \
	"abcdefghijklmnopqrstuvwxyz" \
	"0123456789-._:@[]"

#define H(field) offsetof(struct host_spec, field)

/* clang-format off */
static const struct spec_field host_fields[] = {
	{ .name = "name", .type = SPEC_STR, .offset = H(name), .required = true },
	{ .name = "uri", .type = SPEC_STR, .offset = H(uri), .required = true },
	{ .name = "cpus", .type = SPEC_INT, .offset = H(cpus), .min = 1, .max = 4096 },
	{ .name = "memory", .type = SPEC_MIB, .offset = H(memory), .min = 128, .max = 1LL << 24 },
	{ .name = "pool", .type = SPEC_STR, .offset = H(pool_path) },
	{ .name = "run_dir", .type = SPEC_STR, .offset = H(run_dir) },
	{ .name = "qemu_user", .type = SPEC_STR, .offset = H(qemu_user) },
	{ .name = "disabled", .type = SPEC_BOOL, .offset = H(disabled) },
	{ .name = "remote", .type = SPEC_BOOL, .offset = H(remote) },
	SPEC_END
};
/* clang-format on */

/* One host's values, each error at its line (the hosts before it read). */
static void host_check(struct spec_file *sf, yaml_node_t *n, const char *prefix,
		       const struct hosts_spec *hs, struct host_spec *h)
{
	struct strbuf why = STRBUF_INIT;

	if (!spec_valid_name(h->name))
		spec_error(sf, spec_map_get(sf, n, "name"), prefix,
			   "'%s' is not a name ([A-Za-z0-9._-]+)", h->name);
	for (size_t k = 0; k < hs->n; k++)
		if (!strcmp(hs->hosts[k].name, h->name))
			spec_error(sf, spec_map_get(sf, n, "name"), prefix,
				   "host '%s' is listed twice", h->name);
	if (hosts_uri_check(h->uri, &why))
		spec_error(sf, spec_map_get(sf, n, "uri"), prefix, "uri: %s",
			   why.buf);
	strbuf_release(&why);
	h->remote = h->remote || hosts_uri_remote(h->uri);
	/* Remote: every disk is a volume, there must be a pool. */
	if (h->remote && !h->pool_path)
		spec_error(
			sf, n, prefix,
			"a remote host (remote: true, or a URI with a hostname) needs a pool path");
	if ((h->pool_path && h->pool_path[0] != '/') ||
	    (h->run_dir && h->run_dir[0] != '/'))
		spec_error(sf, n, prefix,
			   "pool and run_dir must be absolute paths");
}

static int parse_hosts(struct spec_file *sf, yaml_node_t *v, const char *field,
		       void *obj)
{
	struct hosts_spec *hs = obj;
	int i = 0, bad = 0;

	if (!v || v->type != YAML_SEQUENCE_NODE) {
		spec_error(sf, v, field, "expected a list of {name, uri}");
		return -1;
	}
	for (yaml_node_item_t *it = v->data.sequence.items.start;
	     it < v->data.sequence.items.top; it++, i++) {
		struct host_spec h = { 0 };
		yaml_node_t *n = spec_node(sf, *it);
		char prefix[64];

		snprintf(prefix, sizeof(prefix), "%s[%d]", field, i);
		h.line = spec_line(n);
		if (spec_apply(sf, n, host_fields, &h, prefix)) {
			bad = 1;
			free(h.name);
			free(h.uri);
			free(h.pool_path);
			free(h.run_dir);
			free(h.qemu_user);
			continue;
		}
		host_check(sf, n, prefix, hs, &h);
		hs->hosts = xrealloc(hs->hosts, (hs->n + 1) * sizeof(h));
		hs->hosts[hs->n++] = h;
	}
	return bad ? -1 : 0;
}

bool hosts_uri_remote(const char *uri)
{
	const char *p = uri ? strstr(uri, "://") : NULL;

	/* qemu+ssh://box/system has one; qemu:///system does not. */
	return p && p[3] && p[3] != '/';
}

/*
 * The transports wblab supports. Not ext (its command= is the program
 * libvirt runs to carry the connection), nor a bare hostname (qemu://h/
 * is TLS: write qemu+tls), nor an alias from libvirt.conf (no "://").
 */
static const struct uri_transport {
	const char *scheme;
	bool remote; /* needs a host; without one it must have none */
} uri_transports[] = {
	{ "qemu", false },	 { "qemu+unix", false },   { "qemu+ssh", true },
	{ "qemu+libssh", true }, { "qemu+libssh2", true }, { "qemu+tls", true },
	{ "qemu+tcp", true },	 { "test", false },
};

/*
 * libvirt's URI parameters (docs/uri.rst) that start no program: a key or
 * certificate path, host key checking, authentication, daemon mode.
 * Refused among the rest: command (the ssh or ext program run here),
 * netcat (the program run on the remote side), socket (put into the
 * remote proxy's command line; qemu+unix takes it as a local path), name
 * (another URI for the remote side to open).
 */
static const char *const uri_params[] = {
	"keyfile", "known_hosts", "known_hosts_verify", "sshauth", "no_verify",
	"no_tty",  "pkipath",	  "tls_priority",	"mode",	   "proxy",
};

static bool uri_param_ok(const char *name, size_t len, bool unix_socket)
{
	if (unix_socket && len == 6 && !memcmp(name, "socket", 6))
		return true;
	for (size_t i = 0; i < ARRAY_SIZE(uri_params); i++)
		if (strlen(uri_params[i]) == len &&
		    !memcmp(uri_params[i], name, len))
			return true;
	return false;
}

/* The query: NAME=VALUE pairs split on '&' or ';', as libvirt splits it. */
static int uri_query_check(const char *q, bool unix_socket, struct strbuf *why)
{
	while (*q) {
		size_t len = strcspn(q, "&;");
		size_t name = strcspn(q, "=&;");

		if (!uri_param_ok(q, name, unix_socket)) {
			strbuf_addf(
				why,
				"parameter '%.*s' is refused (command, netcat, socket and name run programs or reach them; wblab allows keyfile, known_hosts, known_hosts_verify, sshauth, no_verify, no_tty, pkipath, tls_priority, mode, proxy)",
				(int)name, q);
			return -1;
		}
		q += len + (q[len] != '\0');
	}
	return 0;
}

static const struct uri_transport *uri_transport_of(const char *uri, size_t len)
{
	for (size_t i = 0; i < ARRAY_SIZE(uri_transports); i++)
		if (strlen(uri_transports[i].scheme) == len &&
		    !memcmp(uri_transports[i].scheme, uri, len))
			return &uri_transports[i];
	return NULL;
}

/* [user@]host[:port], neither part an option to ssh. */
static bool uri_host_ok(const char *host, size_t len)
{
	const char *at = memchr(host, '@', len);

	return strspn(host, URI_HOST_CHARS) >= len &&
	       (!len || host[0] != '-') && (!at || at[1] != '-');
}

/* The driver's path: qemu's daemon is /system or /session. */
static bool uri_path_ok(const struct uri_transport *t, const char *path,
			size_t len)
{
	if (!strcmp(t->scheme, "test"))
		return len > 1 && path[0] == '/';
	return (len == 7 && !memcmp(path, "/system", 7)) ||
	       (len == 8 && !memcmp(path, "/session", 8));
}

int hosts_uri_check(const char *uri, struct strbuf *why)
{
	const char *sep = uri ? strstr(uri, "://") : NULL;
	const struct uri_transport *t;
	const char *host, *path, *query;

	if (!uri || !*uri || uri[strspn(uri, URI_CHARS)]) {
		strbuf_addf(why,
			    "not a libvirt URI (letters, digits and %s only)",
			    URI_CHARS + 62);
		return -1;
	}
	t = sep ? uri_transport_of(uri, sep - uri) : NULL;
	if (!t) {
		strbuf_addf(
			why,
			"'%.*s' is not a transport wblab supports (qemu:///system, qemu:///session, qemu+ssh, qemu+libssh, qemu+libssh2, qemu+tls, qemu+tcp, qemu+unix, test:///)",
			sep ? (int)(sep - uri) : (int)strlen(uri), uri);
		return -1;
	}
	host = sep + 3;
	path = host + strcspn(host, "/?");
	query = path + strcspn(path, "?");
	if (!uri_host_ok(host, path - host)) {
		strbuf_addf(why, "host '%.*s' is not a host name",
			    (int)(path - host), host);
		return -1;
	}
	if ((path > host) != t->remote || *path != '/') {
		strbuf_addf(
			why, "%s %s", t->scheme,
			t->remote ?
				"needs a host (qemu+ssh://HOST/system)" :
				"takes no host (for a remote host: qemu+tls://HOST/system)");
		return -1;
	}
	if (!uri_path_ok(t, path, query - path)) {
		strbuf_addf(why, "path '%.*s' is not /system or /session",
			    (int)(query - path), path);
		return -1;
	}
	return *query ? uri_query_check(query + 1,
					!strcmp(t->scheme, "qemu+unix"), why) :
			0;
}

static const struct spec_field hosts_fields[] = { { .name = "hosts",
						    .type = SPEC_MAP,
						    .required = true,
						    .parse = parse_hosts },
						  SPEC_END };

static int hosts_check(struct spec_file *sf, void *obj)
{
	struct hosts_spec *hs = obj;
	size_t enabled = 0;

	for (size_t i = 0; i < hs->n; i++)
		enabled += !hs->hosts[i].disabled;
	if (!enabled)
		spec_error(sf, spec_map_get(sf, spec_root(sf), "hosts"),
			   "hosts", "no enabled host");
	return 0;
}

int hosts_spec_load(const char *path, struct hosts_spec *out,
		    struct strbuf *err)
{
	memset(out, 0, sizeof(*out));
	out->path = xstrdup(path);
	return spec_load_file(path, hosts_fields, out, err, hosts_check);
}

void hosts_spec_single(struct hosts_spec *out, const char *uri)
{
	memset(out, 0, sizeof(*out));
	out->hosts = xzalloc(sizeof(*out->hosts));
	out->hosts[0].name = xstrdup("local");
	out->hosts[0].uri = xstrdup(uri);
	out->n = 1;
}

void hosts_spec_free(struct hosts_spec *h)
{
	for (size_t i = 0; i < h->n; i++) {
		free(h->hosts[i].name);
		free(h->hosts[i].uri);
		free(h->hosts[i].pool_path);
		free(h->hosts[i].run_dir);
		free(h->hosts[i].qemu_user);
	}
	free(h->hosts);
	free(h->path);
	memset(h, 0, sizeof(*h));
}
