/* SPDX-License-Identifier: GPL-2.0 */
#ifndef WBLAB_COLLECTORS_H
#define WBLAB_COLLECTORS_H

#include <json-c/json.h>

#include "agent/proto.h"
#include "util/strbuf.h"

/*
 * Collectors, host side: results.c calls collectors_metrics() for every
 * cell. The guest side (plan steps) is in collectors-plan.h.
 */

/*
 * The largest file a cell holds: the channel's cap on one file (the
 * console's kept head and tail are below it). A cell's files are read
 * (and trace.gz decompressed) only up to it, and only if they are
 * regular files, never through a symbolic link: wblab reparse reads
 * results directories that came from elsewhere.
 */
#define CELL_FILE_MAX PROTO_MAX_FILE
/* Seconds gzip may take to decompress trace.gz (256 MiB: about 2 s). */
#define CELL_GUNZIP_TIMEOUT 120

/* Host side: parse a cell's files into metrics (adds keys to metrics). */
void collectors_metrics(const char *cell_dir, json_object *metrics);

#endif
