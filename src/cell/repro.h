/* SPDX-License-Identifier: GPL-2.0 */
#ifndef WBLAB_CELL_REPRO_H
#define WBLAB_CELL_REPRO_H

#include <json-c/json.h>
#include <stdbool.h>

#include "util/strbuf.h"

struct cell_result;

/*
 * A reproducer bundle: a view of one finished cell (RUN/cells/CELL) as a
 * directory a maintainer can run, with or without wblab:
 *
 *   README          what the cell saw and the two ways to run it
 *   bundle.json     what wblab run --repro reads: kernel (name, cache
 *                   key, version, source, patches, bzImage SHA-256),
 *                   topology, workload, image, guest size, command line,
 *                   the signature
 *   kernel.txt      the kernel's identity for a human; config (its
 *                   .config) when the lab's cache has it
 *   plan.sh         the guest plan as shell (cell/reprosh.h); plan.txt as
 *                   the host sent it; plan-target.* for the target guest
 *   domain.xml      the libvirt domain XML the cell booted (cells that
 *                   saved it); qemu.sh an equivalent qemu-system-x86_64
 *                   command line (qemu-target.sh for the target guest)
 *   topology.yaml, workload.yaml, kernel.yaml   the lab's specs by name
 *   signature.txt   outcome, events, blocked tasks: what to look for
 *
 * The results directory is untrusted (it may come from elsewhere): the
 * cell is found and read through results/reader.h, files through
 * util/fs.h's capped regular-file reads, names checked before they name a
 * spec or a cache entry, and nothing goes through a shell.
 */

/* What a bundle asks a run to do (bundle.json), for wblab run --repro. */
struct repro_spec {
	char *kernel, *kernel_hash, *topology, *workload, *image;
	char *cmdline_extra;
	char *levers; /* the cell's noise levers (results/levers.h); NULL: defaults */
	int memory_mib, vcpus;
	json_object *signature; /* owned */
};

/*
 * Write the bundle of the cell at cell_dir (RUN/cells/CELL) to out_dir,
 * which must not exist. 0, or -1 with why in err (exit 2: bad input).
 */
int repro_bundle(const char *cell_dir, const char *out_dir, struct strbuf *err);

/* Read DIR/bundle.json. 0, or -1 with "DIR/bundle.json: why" in err. */
int repro_load(const char *dir, struct repro_spec *out, struct strbuf *err);
void repro_spec_free(struct repro_spec *s);

/*
 * A cell's signature: its outcome, the kinds of its console events (a
 * stall with its title: the wait sites), and for a cell that did not end
 * ok the wait site most of its blocked tasks share.
 */
json_object *repro_signature(const struct cell_result *cell);
/*
 * Does cell show the signature again? Every part must be there; why gets
 * the first part missing ("outcome ok, not workload-failed").
 */
bool repro_signature_match(json_object *sig, const struct cell_result *cell,
			   struct strbuf *why);
/* The signature in one line ("workload-failed; stall: ...; waits in X"). */
void repro_signature_line(json_object *sig, struct strbuf *out);

#endif
