// SPDX-License-Identifier: GPL-2.0
/* lab/hosts.yaml: a list of libvirt endpoints with their capacity. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "spec/hosts.h"
#include "spec/spec.h"
#include "util/log.h"

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
		if (!spec_valid_name(h.name))
			spec_error(sf, spec_map_get(sf, n, "name"), prefix,
				   "'%s' is not a name ([A-Za-z0-9._-]+)",
				   h.name);
		for (size_t k = 0; k < hs->n; k++)
			if (!strcmp(hs->hosts[k].name, h.name))
				spec_error(sf, spec_map_get(sf, n, "name"),
					   prefix, "host '%s' is listed twice",
					   h.name);
		h.remote = h.remote || hosts_uri_remote(h.uri);
		/* Remote: every disk is a volume, there must be a pool. */
		if (h.remote && !h.pool_path)
			spec_error(
				sf, n, prefix,
				"a remote host (remote: true, or a URI with a hostname) needs a pool path");
		if ((h.pool_path && h.pool_path[0] != '/') ||
		    (h.run_dir && h.run_dir[0] != '/'))
			spec_error(sf, n, prefix,
				   "pool and run_dir must be absolute paths");
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
