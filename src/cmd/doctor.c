// SPDX-License-Identifier: GPL-2.0
/*
 * wblab doctor [--json] [--reprobe]: can this host run a cell? A table of
 * checks, each failure with what to do; exit 0 when a cell can run.
 */
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "artifact/cache.h"
#include "artifact/initramfs.h"
#include "artifact/kbuild.h"
#include "artifact/kernel.h"
#include "cmd/cmds.h"
#include "util/devnodes.h"
#include "util/fs.h"
#include "util/log.h"
#include "util/parse-options.h"
#include "util/run.h"
#include "spec/hosts.h"
#include "virt/probe.h"
#include "virt/virt.h"

struct check {
	const char *name;
	bool ok;
	bool fatal; /* a cell cannot run without it */
	char value[384];
	char fix[256];
};

#define MAX_CHECKS 32

static struct check checks[MAX_CHECKS];
static int nr_checks;

static struct check *add(const char *name, bool fatal)
{
	struct check *c = &checks[nr_checks++];

	c->name = name;
	c->fatal = fatal;
	c->ok = true;
	return c;
}

static void tool_version(const char *name, const char *const *argv, bool fatal,
			 const char *pkg)
{
	struct strbuf out = STRBUF_INIT;
	struct check *c = add(name, fatal);
	int rc = run_capture(argv, &out, &out);
	char *nl;

	nl = strchr(out.buf, '\n');
	if (nl)
		*nl = '\0';
	if (rc == 127 || rc < 0) {
		c->ok = false;
		snprintf(c->value, sizeof(c->value), "not found");
		snprintf(c->fix, sizeof(c->fix), "make deps (installs %s)",
			 pkg);
	} else {
		snprintf(c->value, sizeof(c->value), "%s", out.buf);
	}
	strbuf_release(&out);
}

/* The tools wblab runs, how to ask their version, and where they come from. */
static const struct tool {
	const char *name;
	const char *const argv[3];
	bool fatal;
	const char *pkg;
} tools[] = {
	{ "qemu",
	  { "qemu-system-x86_64", "--version" },
	  true,
	  "qemu-system-x86" },
	{ "qemu-img", { "qemu-img", "--version" }, true, "qemu-utils" },
	{ "debootstrap", { "debootstrap", "--version" }, true, "debootstrap" },
	{ "mkfs.ext4", { "mkfs.ext4", "-V" }, true, "e2fsprogs" },
	{ "depmod", { "depmod", "--version" }, true, "kmod" },
	{ "dpkg-deb", { "dpkg-deb", "--version" }, true, "dpkg" },
	{ "make", { "make", "--version" }, false, "make" },
	{ "gcc", { "gcc", "--version" }, false, "gcc" },
	{ "gnuplot", { "gnuplot", "--version" }, false, "gnuplot-nox" },
};

static void check_space(const char *name, const char *dir, int64_t want)
{
	struct check *c = add(name, true);
	int64_t free_b = fs_free_bytes(dir);

	snprintf(c->value, sizeof(c->value), "%s: %lld MiB free", dir,
		 (long long)(free_b >> 20));
	if (free_b >= 0 && free_b < want) {
		c->ok = false;
		snprintf(
			c->fix, sizeof(c->fix),
			"free space (%lld MiB needed) or point WBLAB_CACHE/--results elsewhere",
			(long long)(want >> 20));
	}
}

static void check_libvirt(virConnectPtr *conn, const char *uri)
{
	struct check *c = add("libvirt", true);
	struct strbuf err = STRBUF_INIT;
	unsigned long lv = 0, hv = 0;

	*conn = virt_connect(uri, &err);
	if (!*conn) {
		c->ok = false;
		snprintf(c->value, sizeof(c->value), "%s: cannot connect", uri);
		snprintf(c->fix, sizeof(c->fix), "%s", virt_connect_hint(uri));
	} else {
		virGetVersion(&lv, NULL, NULL);
		virConnectGetVersion(*conn, &hv);
		snprintf(c->value, sizeof(c->value),
			 "%s libvirt %lu.%lu.%lu, QEMU %lu.%lu.%lu", uri,
			 lv / 1000000, lv / 1000 % 1000, lv % 1000,
			 hv / 1000000, hv / 1000 % 1000, hv % 1000);
	}
	strbuf_release(&err);
}

/*
 * A domain started now, under the accelerator cells will use: the KVM
 * verdict is cached, and said "a cell can run" while every domain start
 * on the host failed. A remote host's paths are not ours: not booted.
 */
static void check_domain_start(virConnectPtr conn, const char *uri,
			       const char *accel,
			       const struct kernel_artifact *ka,
			       const char *initrd)
{
	struct check *c = add("domain start", true);
	struct strbuf why = STRBUF_INIT;

	if (hosts_uri_remote(uri)) {
		snprintf(c->value, sizeof(c->value),
			 "not tried on a remote host");
		return;
	}
	c->ok = domain_boots_now(conn, accel, ka, initrd, &why);
	snprintf(c->value, sizeof(c->value), "%s: %s", accel, why.buf);
	if (!c->ok)
		snprintf(c->fix, sizeof(c->fix),
			 "see the device-node lines above and libvirtd's log");
	strbuf_release(&why);
}

static void check_accel(virConnectPtr conn, const char *uri, bool reprobe)
{
	struct check *c = add("acceleration", false);
	struct kernel_spec ks;
	struct kernel_artifact ka;
	struct accel_verdict v;
	char *agent = agent_binary_path(), *initrd = NULL;

	if (!conn) {
		snprintf(c->value, sizeof(c->value), "unknown (no libvirt)");
		c->ok = false;
		goto out;
	}
	if (kernel_spec_find("debian-6.1", &ks) || kernel_ensure(&ks, &ka)) {
		c->ok = false;
		snprintf(c->value, sizeof(c->value),
			 "cannot probe: no debian-6.1 kernel");
		snprintf(c->fix, sizeof(c->fix),
			 "wblab kernel build debian-6.1");
		goto out;
	}
	initrd = initramfs_ensure(&ka, agent);
	if (reprobe) {
		setenv("WBLAB_REPROBE", "1", 1);
	}
	accel_decide(conn, uri, "auto", &ka, initrd, &v);
	snprintf(c->value, sizeof(c->value), "%s: %s%s", v.accel, v.reason,
		 v.cached ? " (cached)" : "");
	if (!strcmp(v.accel, "tcg"))
		snprintf(
			c->fix, sizeof(c->fix),
			"cells run under TCG (slower, still real); KVM needs a host where guests boot under it");
	check_domain_start(conn, uri, v.accel, &ka, initrd);
	kernel_artifact_free(&ka);
	kernel_spec_free(&ks);
out:
	free(agent);
	free(initrd);
}

/*
 * The device nodes a domain start needs: a regular file at /dev/null
 * (what renaming over it leaves) fails every domain start on the host
 * with an error that does not name it. Looked at on every run, never
 * cached.
 */
static void check_devnodes(void)
{
	struct strbuf why = STRBUF_INIT;

	for (unsigned int i = 0; i < nr_host_devnodes; i++) {
		const struct devnode *n = &host_devnodes[i];
		struct check *c = add(n->path, n->required);

		strbuf_reset(&why);
		c->ok = devnode_ok("", n, &why);
		snprintf(c->value, sizeof(c->value), "%s", why.buf);
		if (c->ok && !n->required && strstr(why.buf, "absent"))
			c->ok = false; /* a warning: some cells need it */
		if (!c->ok)
			snprintf(c->fix, sizeof(c->fix), "as root: %s", n->fix);
	}
	strbuf_release(&why);
}

static void check_agent(void)
{
	struct check *c = add("guest agent", true);
	char *agent = agent_binary_path();

	snprintf(c->value, sizeof(c->value), "%s", agent);
	if (!path_exists(agent)) {
		c->ok = false;
		snprintf(c->fix, sizeof(c->fix), "make");
	}
	free(agent);
}

int cmd_doctor(int argc, char **argv)
{
	bool json = false, reprobe = false;
	const char *uri = virt_default_uri();
	virConnectPtr conn = NULL;
	int bad = 0;

	static const char *const usage[] = {
		"wblab doctor [--json] [--reprobe] [--uri URI]", NULL
	};
	struct option opts[] = {
		OPT_BOOL(0, "json", &json, "print the checks as JSON"),
		OPT_BOOL(0, "reprobe", &reprobe,
			 "probe KVM again instead of using the cached verdict"),
		OPT_STRING(0, "uri", &uri, "URI",
			   "libvirt URI; $WBLAB_URI sets the default"),
		OPT_END(),
	};

	if (parse_options(argc, argv, "wblab doctor", opts, usage, 0))
		return usage_error("wblab doctor", "unexpected argument '%s'",
				   argv[0]);
	log_quiet = json;
	check_devnodes();
	check_libvirt(&conn, uri);
	for (size_t i = 0; i < ARRAY_SIZE(tools); i++)
		tool_version(tools[i].name, tools[i].argv, tools[i].fatal,
			     tools[i].pkg);
	check_agent();
	check_space("cache disk", cache_root(), 4LL << 30);
	check_space("results disk", "results", 256LL << 20);
	check_accel(conn, uri, reprobe);
	if (conn)
		virConnectClose(conn);

	for (int i = 0; i < nr_checks; i++)
		bad |= checks[i].fatal && !checks[i].ok;
	if (json) {
		json_object *o = json_object_new_object();
		json_object *arr = json_object_new_array();

		for (int i = 0; i < nr_checks; i++) {
			json_object *c = json_object_new_object();

			json_object_object_add(
				c, "check",
				json_object_new_string(checks[i].name));
			json_object_object_add(
				c, "ok", json_object_new_boolean(checks[i].ok));
			json_object_object_add(
				c, "fatal",
				json_object_new_boolean(checks[i].fatal));
			json_object_object_add(
				c, "value",
				json_object_new_string(checks[i].value));
			json_object_object_add(
				c, "fix",
				json_object_new_string(checks[i].fix));
			json_object_array_add(arr, c);
		}
		json_object_object_add(o, "checks", arr);
		json_object_object_add(o, "can_run_cell",
				       json_object_new_boolean(!bad));
		puts(json_object_to_json_string_ext(
			o, JSON_C_TO_STRING_PRETTY |
				   JSON_C_TO_STRING_NOSLASHESCAPE));
		json_object_put(o);
	} else {
		printf("%-14s %-4s %s\n", "CHECK", "OK", "VALUE");
		for (int i = 0; i < nr_checks; i++) {
			printf("%-14s %-4s %s\n", checks[i].name,
			       checks[i].ok    ? "yes" :
			       checks[i].fatal ? "NO" :
						 "warn",
			       checks[i].value);
			if (checks[i].fix[0])
				printf("%-14s      -> %s\n", "", checks[i].fix);
		}
		printf("\n%s\n",
		       bad ? "a cell cannot run here: fix the NO lines" :
			     "a cell can run here");
	}
	return bad ? 1 : 0;
}
