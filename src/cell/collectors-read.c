// SPDX-License-Identifier: GPL-2.0
/*
 * Reading a cell's files for the collectors (cell/collectors-int.h):
 * capped reads, trace.gz, the agent's reasons, collector errors and the
 * numbers a parser refused. The unit's leaf.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cell/collectors-int.h"
#include "util/fs.h"
#include "util/gz.h"
#include "util/log.h"
#include "util/run.h"

int coll_read_file(const char *dir, const char *name, struct strbuf *sb)
{
	char *path = xasprintf("%s/%s", dir, name);
	int ret;

	ret = read_file_capped(sb, path, CELL_FILE_MAX);
	free(path);
	return ret;
}

int coll_read_kv(const char *dir, const char *name, struct kvset *set)
{
	struct strbuf sb = STRBUF_INIT;
	int ret = coll_read_file(dir, name, &sb);

	if (!ret)
		kvset_parse(set, sb.buf, sb.len);
	strbuf_release(&sb);
	return ret;
}

/* The agent's reason for a failed put or get on path, from agent.log. */
char *coll_agent_failure(const char *agent_log, const char *what)
{
	const char *p = agent_log ? strstr(agent_log, what) : NULL;
	const char *nl;

	if (!p)
		return NULL;
	while (p > agent_log && p[-1] != '\n')
		p--;
	nl = strchr(p, '\n');
	return xstrndup(p, nl ? (size_t)(nl - p) : strlen(p));
}

void coll_error(json_object *errs, const char *name, const char *agent_log,
		const char *what, const char *fallback)
{
	char *why = coll_agent_failure(agent_log, what);

	json_object_object_add(errs, name,
			       json_object_new_string(why ? why : fallback));
	free(why);
}

/*
 * The numbers a parser refused (util/num.h): "number FILE" names the
 * first, "FILE:LINE: 'VALUE': why", and how many there were. What they
 * were part of is left out, never read as 0. Releases ns.
 */
void coll_number_errors(json_object *errs, struct numsrc *ns)
{
	char *key, *why;

	if (!ns->nr_bad)
		goto out;
	key = xasprintf("number %s", ns->first_file ? ns->first_file : "?");
	why = ns->nr_bad > 1 ?
		      xasprintf("%s (%u bad numbers)", ns->first, ns->nr_bad) :
		      xstrdup(ns->first);
	if (!json_object_object_get_ex(errs, key, NULL))
		json_object_object_add(errs, key, json_object_new_string(why));
	free(key);
	free(why);
out:
	numsrc_release(ns);
}

double coll_num(json_object *o, const char *key)
{
	json_object *v;

	return o && json_object_object_get_ex(o, key, &v) ?
		       json_object_get_double(v) :
		       0;
}

json_object *coll_at(json_object *o, const char *a, const char *b)
{
	json_object *v = NULL, *w = NULL;

	if (!json_object_object_get_ex(o, a, &v))
		return NULL;
	return b && json_object_object_get_ex(v, b, &w) ? w : b ? NULL : v;
}

char *coll_file_or_null(const char *dir, const char *name)
{
	struct strbuf sb = STRBUF_INIT;

	if (coll_read_file(dir, name, &sb)) {
		strbuf_release(&sb);
		return NULL;
	}
	return strbuf_detach(&sb, NULL);
}

/*
 * The raw trace is kept as trace.gz; parse whichever is there. A trace.gz
 * is decompressed only up to CELL_FILE_MAX bytes and for at most
 * CELL_GUNZIP_TIMEOUT seconds (a gzip bomb in a results directory); one
 * that fails is noted as "file NAME.gz".
 */
int coll_read_gz(const char *dir, const char *name, struct strbuf *sb,
		 bool *compress, json_object *errs)
{
	char *path = xasprintf("%s/%s.gz", dir, name);
	const char *argv[] = { "gzip", "-dc", NULL };
	char in[64];
	struct run_opts o = { .out = sb,
			      .quiet = 1,
			      .in_path = in,
			      .timeout = CELL_GUNZIP_TIMEOUT,
			      .max_capture = CELL_FILE_MAX };
	int fd, ret = -1;

	*compress = !coll_read_file(dir, name, sb);
	if (*compress)
		goto out;
	/* gzip would follow a link: it reads the file we checked instead. */
	fd = open_regular(path, CELL_FILE_MAX);
	if (fd < 0)
		goto out;
	snprintf(in, sizeof(in), "/proc/self/fd/%d", fd);
	ret = run_argv(argv, &o);
	close(fd);
	if (ret) {
		char *k = xasprintf("file %s.gz", name);
		char *v = xasprintf(
			"%s.gz: %s, not read", name,
			ret == 125 ?
				"decompresses to more than the cap of a file" :
			ret == 124 ?
				"decompression timed out" :
				"gzip failed (not gzip data, or cut short)");

		json_object_object_add(errs, k, json_object_new_string(v));
		free(k);
		free(v);
		strbuf_reset(sb);
		ret = -1;
	}
out:
	free(path);
	return *compress ? 0 : ret;
}

int coll_read_trace(const char *dir, struct strbuf *sb, bool *compress,
		    json_object *errs)
{
	return coll_read_gz(dir, "trace", sb, compress, errs);
}

/*
 * Raw traces are kept compressed (util/gz.h, as gzip -n) once parsed.
 * Links are refused at both ends: a results directory may be someone
 * else's. A stale NAME.gz (only the file just read is current) is removed
 * first.
 */
void coll_compress(const char *dir, const char *name)
{
	char *path = xasprintf("%s/%s", dir, name);
	char *gz = xasprintf("%s.gz", path);

	if ((unlink(gz) < 0 && errno != ENOENT) || gz_compress_file(path))
		warn("cannot compress %s: %s", path, strerror(errno));
	free(gz);
	free(path);
}
