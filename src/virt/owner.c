// SPDX-License-Identifier: GPL-2.0
/*
 * Owners of what a cell creates, and the reaper that removes what a dead
 * wblab (SIGKILL, OOM, a lost machine) left behind: running domains (a
 * target guest would otherwise serve iSCSI for a day), networks and
 * staging dirs full of disk images.
 */
#include <dirent.h>
#include <errno.h>
#include <libxml/parser.h>
#include <libxml/tree.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "artifact/cache.h"
#include "util/fs.h"
#include "util/log.h"
#include "util/str.h"
#include "util/strbuf.h"
#include "virt/owner.h"
#include "virt/vols.h"

/* Legacy objects (no owner recorded) older than this are nobody's. */
#define LEGACY_AGE (6 * 3600)

static unsigned long long proc_start(pid_t pid)
{
	char path[64], buf[1024];
	unsigned long long start = 0;
	char state = 0;
	FILE *f;
	char *p;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	if (!fgets(buf, sizeof(buf), f)) {
		fclose(f);
		return 0;
	}
	fclose(f);
	/* comm may hold spaces and parens: fields start after the last ')'. */
	p = strrchr(buf, ')');
	if (!p)
		return 0;
	/*
	 * state is field 3; starttime is field 22. A zombie (Z) or dead (X)
	 * process has no start: a wblab killed with its cells' workers stays
	 * a zombie until reparented and reaped, and a reaper that starts at
	 * once (wblab bisect --resume) took it for alive and left its
	 * domains running.
	 */
	if (sscanf(p + 2,
		   "%c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d %*d %*d %*d %*d %*d %llu",
		   &state, &start) != 2 ||
	    state == 'Z' || state == 'X')
		return 0;
	return start;
}

static void boot_id(char *buf, size_t len)
{
	struct strbuf sb = STRBUF_INIT;

	buf[0] = '\0';
	if (strbuf_read_file(&sb, "/proc/sys/kernel/random/boot_id") == 0)
		snprintf(buf, len, "%.*s", (int)strcspn(sb.buf, "\n"), sb.buf);
	strbuf_release(&sb);
}

void owner_self(struct owner *o, const char *run_id)
{
	memset(o, 0, sizeof(*o));
	o->pid = getpid();
	o->start = proc_start(o->pid);
	boot_id(o->boot_id, sizeof(o->boot_id));
	if (gethostname(o->host, sizeof(o->host) - 1) < 0)
		snprintf(o->host, sizeof(o->host), "?");
	snprintf(o->run_id, sizeof(o->run_id), "%s", run_id ? run_id : "");
}

bool owner_alive(const struct owner *o)
{
	struct owner me;

	owner_self(&me, NULL);
	if (strcmp(me.host, o->host) || strcmp(me.boot_id, o->boot_id))
		return true; /* not ours to judge */
	if (o->pid <= 0)
		return false;
	if (kill(o->pid, 0) < 0 && errno == ESRCH)
		return false;
	return proc_start(o->pid) == o->start;
}

static char *owner_path(const char *name)
{
	return xasprintf("%s/%s.owner", run_root(), name);
}

char *owner_text(const struct owner *o, const char *cell_id)
{
	return xasprintf(
		"pid=%d\nstart=%llu\nboot=%s\nhost=%s\nrun=%s\ncell=%s\n",
		(int)o->pid, o->start, o->boot_id, o->host, o->run_id,
		cell_id ? cell_id : "");
}

int owner_file_write(const char *name, const struct owner *o,
		     const char *cell_id)
{
	char *path = owner_path(name);
	char *text = owner_text(o, cell_id);
	int ret;

	mkdir_p(run_root(), 0755);
	ret = write_string_atomic(path, text);
	free(text);
	free(path);
	return ret;
}

void owner_file_remove(const char *name)
{
	char *path = owner_path(name);

	unlink(path);
	free(path);
}

static void set_field(struct owner *o, const char *k, const char *v)
{
	if (!strcmp(k, "pid"))
		o->pid = (pid_t)atoi(v);
	else if (!strcmp(k, "start"))
		o->start = strtoull(v, NULL, 10);
	else if (!strcmp(k, "boot"))
		snprintf(o->boot_id, sizeof(o->boot_id), "%s", v);
	else if (!strcmp(k, "host"))
		snprintf(o->host, sizeof(o->host), "%s", v);
	else if (!strcmp(k, "run"))
		snprintf(o->run_id, sizeof(o->run_id), "%s", v);
}

int owner_parse(char *text, struct owner *o)
{
	char *line, *save = NULL;

	memset(o, 0, sizeof(*o));
	for (line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char *eq = strchr(line, '=');

		if (eq) {
			*eq = '\0';
			set_field(o, line, eq + 1);
		}
	}
	return o->pid > 0 ? 0 : -1;
}

int owner_file_read(const char *path, struct owner *o)
{
	struct strbuf sb = STRBUF_INIT;
	int ret = -1;

	memset(o, 0, sizeof(*o));
	if (strbuf_read_file(&sb, path) == 0)
		ret = owner_parse(sb.buf, o);
	strbuf_release(&sb);
	return ret;
}

/* The owner recorded in a domain's <metadata>; -1 if none. */
static int domain_owner(virDomainPtr dom, struct owner *o)
{
	char *xml = virDomainGetMetadata(dom, VIR_DOMAIN_METADATA_ELEMENT,
					 OWNER_XMLNS, 0);
	static const char *const keys[] = { "pid", "start", "boot", "host",
					    "run" };
	xmlDocPtr doc;
	xmlNodePtr root;

	memset(o, 0, sizeof(*o));
	if (!xml)
		return -1;
	doc = xmlReadMemory(xml, strlen(xml), "owner.xml", NULL,
			    XML_PARSE_NONET | XML_PARSE_NOERROR |
				    XML_PARSE_NOWARNING);
	free(xml);
	root = doc ? xmlDocGetRootElement(doc) : NULL;
	for (size_t i = 0; root && i < ARRAY_SIZE(keys); i++) {
		xmlChar *v = xmlGetProp(root, (const xmlChar *)keys[i]);

		if (v)
			set_field(o, keys[i], (const char *)v);
		xmlFree(v);
	}
	xmlFreeDoc(doc);
	return o->pid > 0 ? 0 : -1;
}

/* "wblab-X-target" and "wblab-X-net" belong to cell domain "wblab-X". */
static char *base_name(const char *name)
{
	size_t len = strlen(name);

	if (len > 7 && !strcmp(name + len - 7, "-target"))
		len -= 7;
	else if (len > 4 && !strcmp(name + len - 4, "-net"))
		len -= 4;
	return xstrndup(name, len);
}

/*
 * 1 dead, 0 alive, -1 unknown: from the owner file here, else from the
 * owner volume in the host's pool (a remote cell's tag), if pool.
 */
static int base_owner_dead(const char *base, virStoragePoolPtr pool)
{
	char *path = owner_path(base);
	struct strbuf sb = STRBUF_INIT;
	struct owner o;
	int ret = owner_file_read(path, &o) ? -1 : !owner_alive(&o);

	free(path);
	if (ret < 0 && pool) {
		char *tag = xasprintf("%s" VOLS_OWNER, base);

		if (vols_get(pool, tag, &sb) == 0 &&
		    owner_parse(sb.buf, &o) == 0)
			ret = !owner_alive(&o);
		free(tag);
	}
	strbuf_release(&sb);
	return ret;
}

/* "wblab-YYYYMMDD-HHMMSS-..." older than LEGACY_AGE? */
static bool legacy_old(const char *name)
{
	struct tm tm = { 0 };
	const char *p;

	if (!skip_prefix(name, "wblab-", &p) ||
	    !strptime(p, "%Y%m%d-%H%M%S", &tm))
		return false;
	return time(NULL) - timegm(&tm) > LEGACY_AGE;
}

static void remove_staging(const char *base)
{
	char *p = xasprintf("%s/%s", run_root(), base);
	char *t = xasprintf("%s/%s-target", run_root(), base);

	rm_rf(p);
	rm_rf(t);
	owner_file_remove(base);
	free(p);
	free(t);
}

static int reap_domains(virConnectPtr conn)
{
	virDomainPtr *doms = NULL;
	int n = virConnectListAllDomains(conn, &doms, 0), reaped = 0;

	for (int i = 0; i < n; i++) {
		const char *name = virDomainGetName(doms[i]);
		struct owner o;

		if (name && starts_with(name, "wblab-") &&
		    domain_owner(doms[i], &o) == 0 && !owner_alive(&o)) {
			char *base = base_name(name);

			if (virDomainIsActive(doms[i]) == 1)
				virDomainDestroy(doms[i]);
			else
				virDomainUndefine(doms[i]);
			info("destroyed domain %s (its wblab, pid %d of run %s, is gone)",
			     name, (int)o.pid, o.run_id);
			/* The target guest and network go when the cell does. */
			reaped++;
			free(base);
		}
		virDomainFree(doms[i]);
	}
	free(doms);
	return reaped;
}

static bool domain_exists(virConnectPtr conn, const char *name)
{
	virDomainPtr d = virDomainLookupByName(conn, name);

	if (d)
		virDomainFree(d);
	return d != NULL;
}

static int reap_networks(virConnectPtr conn, virStoragePoolPtr pool)
{
	virNetworkPtr *nets = NULL;
	int n = virConnectListAllNetworks(conn, &nets, 0), reaped = 0;

	for (int i = 0; i < n; i++) {
		const char *name = virNetworkGetName(nets[i]);
		char *base = name ? base_name(name) : NULL;
		char *tgt = base ? xasprintf("%s-target", base) : NULL;
		int dead = base ? base_owner_dead(base, pool) : 0;

		if (name && starts_with(name, "wblab-") &&
		    !domain_exists(conn, base) && !domain_exists(conn, tgt) &&
		    (dead == 1 || (dead < 0 && legacy_old(name)))) {
			virNetworkDestroy(nets[i]);
			info("destroyed network %s (no owner left)", name);
			reaped++;
		}
		free(base);
		free(tgt);
		virNetworkFree(nets[i]);
	}
	free(nets);
	return reaped;
}

/* Staging dirs and owner files of owners that are gone. */
static int reap_staging(virConnectPtr conn)
{
	DIR *d = opendir(run_root());
	struct dirent *de;
	int reaped = 0;

	while (d && (de = readdir(d))) {
		char *base, *path, *tgt;
		struct stat st;
		int dead;
		size_t len = strlen(de->d_name);

		if (!starts_with(de->d_name, "wblab-"))
			continue;
		base = len > 6 && !strcmp(de->d_name + len - 6, ".owner") ?
			       xstrndup(de->d_name, len - 6) :
			       base_name(de->d_name);
		path = xasprintf("%s/%s", run_root(), de->d_name);
		tgt = xasprintf("%s-target", base);
		dead = base_owner_dead(base, NULL);
		if (!domain_exists(conn, base) && !domain_exists(conn, tgt) &&
		    (dead == 1 ||
		     /* Legacy: no owner, domain gone, over an hour old. */
		     (dead < 0 && !stat(path, &st) &&
		      time(NULL) - st.st_mtime > 3600))) {
			remove_staging(base);
			rm_rf(path);
			info("removed stale staging %s", path);
			reaped++;
		}
		free(base);
		free(path);
		free(tgt);
	}
	if (d)
		closedir(d);
	return reaped;
}

/* The cell domain a volume "<domain>--<what>" or "<cell>.owner" is of. */
static char *vol_base(const char *vol)
{
	const char *sep = NULL, *p = vol;
	size_t len = strlen(vol), olen = strlen(VOLS_OWNER);
	char *dom, *base;

	while ((p = strstr(p, VOLS_SEP)))
		sep = p++;
	if (sep)
		len = (size_t)(sep - vol);
	else if (len > olen && !strcmp(vol + len - olen, VOLS_OWNER))
		len -= olen;
	else
		return NULL;
	dom = xstrndup(vol, len);
	base = base_name(dom);
	free(dom);
	return base;
}

/*
 * A remote cell's volumes whose owner is dead (by its owner volume), or,
 * untagged, whose run started over LEGACY_AGE ago; never while a domain
 * of the cell exists. The owner tag goes last, with the cell's last one.
 */
static int reap_volumes(virConnectPtr conn, virStoragePoolPtr pool)
{
	char **names;
	int n = vols_list(pool, "wblab-", &names), reaped = 0;

	for (int pass = 0; pass < 2; pass++) {
		for (int i = 0; i < n; i++) {
			char *base = names[i] ? vol_base(names[i]) : NULL;
			char *tgt = base ? xasprintf("%s-target", base) : NULL;
			size_t len = names[i] ? strlen(names[i]) : 0;
			bool tag = base && len > strlen(VOLS_OWNER) &&
				   !strcmp(names[i] + len - strlen(VOLS_OWNER),
					   VOLS_OWNER);
			int dead = base ? base_owner_dead(base, pool) : 0;

			if (base && tag == (pass == 1) &&
			    !domain_exists(conn, base) &&
			    !domain_exists(conn, tgt) &&
			    (dead == 1 || (dead < 0 && legacy_old(base))) &&
			    vols_delete_prefix(pool, names[i]) > 0) {
				info("deleted volume %s (its wblab is gone)",
				     names[i]);
				reaped++;
			}
			free(base);
			free(tgt);
		}
	}
	for (int i = 0; i < n; i++)
		free(names[i]);
	free(names);
	return reaped;
}

int owner_reap(virConnectPtr conn)
{
	struct strbuf err = STRBUF_INIT;
	virStoragePoolPtr pool;
	int n;

	if (!conn)
		return 0;
	/* No pool (a local host without one) is no error here. */
	pool = vols_pool(conn, &err);
	strbuf_release(&err);
	n = reap_domains(conn);
	n += reap_networks(conn, pool);
	if (pool)
		n += reap_volumes(conn, pool);
	n += reap_staging(conn);
	if (pool)
		virStoragePoolFree(pool);
	return n;
}
