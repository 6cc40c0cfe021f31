/* SPDX-License-Identifier: GPL-2.0 */
#ifndef WBLAB_CELL_REPRO_INT_H
#define WBLAB_CELL_REPRO_INT_H

/* Shared by repro.c (reading the cell) and repro-text.c (the bundle's files). */
#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>

#include "results/cell.h"
#include "spec/specs.h"
#include "util/strbuf.h"

/* Caps on what a bundle reads from a results directory. */
#define REPRO_PLAN_MAX (4u << 20)
#define REPRO_XML_MAX (1u << 20)
#define REPRO_CONFIG_MAX (8u << 20)
#define REPRO_BUNDLE_MAX (1u << 20) /* bundle.json (run --repro) */

struct repro_ctx {
	char *run_dir, *cell_dir;
	char *out; /* the bundle being written (a temporary name) */
	struct cell_result *cell; /* cell.json (results/cell.h) */
	const struct run_result *run; /* run.json (the reader's) */
	json_object *bundle; /* bundle.json being built */
	struct topology_spec topo;
	bool have_topo, has_target, has_domain_xml, has_config;
	struct strbuf *err;
};

int repro_read_cell_file(const char *cell_dir, const char *name, size_t max,
			 struct strbuf *sb, struct strbuf *err);
int repro_write(const char *dir, const char *name, const struct strbuf *sb,
		int mode, struct strbuf *err);

/* kernel.txt, config, and bundle.json's kernel object. */
int repro_kernel(struct repro_ctx *x);
/* qemu.sh (and qemu-target.sh): the domain as a plain QEMU command. */
int repro_qemu(struct repro_ctx *x);
/* run-by-hand.sh: the cell with plain QEMU and socat (repro-hand.c). */
int repro_by_hand(struct repro_ctx *x);
/* signature.txt, bundle.json and README. */
int repro_texts(struct repro_ctx *x);

#endif
