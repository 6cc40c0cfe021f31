// SPDX-License-Identifier: GPL-2.0
/*
 * Reading a spec file into its YAML document (spec.h): a regular file
 * within SPEC_FILE_MAX, nested at most SPEC_MAX_DEPTH deep, then loaded.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "spec/spec.h"
#include "util/fs.h"
#include "util/log.h"

static void yaml_error(struct spec_file *sf, const yaml_parser_t *parser)
{
	strbuf_addf(&sf->errors, "%s:%zu: yaml: %s%s%s\n", sf->path,
		    parser->problem_mark.line + 1,
		    parser->problem ? parser->problem : "syntax error",
		    parser->context ? " " : "",
		    parser->context ? parser->context : "");
	sf->nr_errors++;
}

/*
 * The nesting of text, from libyaml's events: -1 with the error at the
 * first collection deeper than SPEC_MAX_DEPTH (or a syntax error), before
 * the rest is scanned.
 */
static int depth_ok(struct spec_file *sf, const char *text, size_t len)
{
	yaml_parser_t parser;
	yaml_event_t ev;
	int depth = 0, ret = 0;

	yaml_parser_initialize(&parser);
	yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
	for (bool end = false; !end && !ret;) {
		if (!yaml_parser_parse(&parser, &ev)) {
			yaml_error(sf, &parser);
			ret = -1;
			break;
		}
		end = ev.type == YAML_STREAM_END_EVENT;
		if (ev.type == YAML_SEQUENCE_START_EVENT ||
		    ev.type == YAML_MAPPING_START_EVENT)
			depth++;
		else if (ev.type == YAML_SEQUENCE_END_EVENT ||
			 ev.type == YAML_MAPPING_END_EVENT)
			depth--;
		if (depth > SPEC_MAX_DEPTH) {
			strbuf_addf(&sf->errors,
				    "%s:%zu: yaml: nested deeper than %d\n",
				    sf->path, ev.start_mark.line + 1,
				    SPEC_MAX_DEPTH);
			sf->nr_errors++;
			ret = -1;
		}
		yaml_event_delete(&ev);
	}
	yaml_parser_delete(&parser);
	return ret;
}

static int load(struct spec_file *sf, const char *text, size_t len)
{
	yaml_parser_t parser;
	int ok;

	if (depth_ok(sf, text, len))
		return -1;
	yaml_parser_initialize(&parser);
	yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
	ok = yaml_parser_load(&parser, &sf->doc);
	if (!ok)
		yaml_error(sf, &parser);
	yaml_parser_delete(&parser);
	if (!ok)
		return -1;
	sf->loaded = true;
	if (!yaml_document_get_root_node(&sf->doc)) {
		strbuf_addf(&sf->errors, "%s:1: yaml: empty document\n",
			    sf->path);
		sf->nr_errors++;
		return -1;
	}
	return 0;
}

static void start(struct spec_file *sf, const char *name)
{
	memset(sf, 0, sizeof(*sf));
	strbuf_init(&sf->errors, 0);
	sf->path = xstrdup(name);
}

int spec_open(struct spec_file *sf, const char *path)
{
	struct strbuf text = STRBUF_INIT;
	/* A spec is the operator's: a link to one is followed, to its end. */
	char *real = realpath(path, NULL);
	int ret = -1;

	start(sf, path);
	/* open_regular(): no FIFO or device; the size checked first */
	if (!real || read_file_capped(&text, real, SPEC_FILE_MAX)) {
		strbuf_addf(&sf->errors, "%s: cannot open: %s\n", path,
			    errno == EFBIG ? "larger than 4 MiB" :
					     open_regular_strerror(errno));
		sf->nr_errors++;
	} else {
		ret = load(sf, text.buf, text.len);
	}
	strbuf_release(&text);
	free(real);
	return ret;
}

int spec_open_string(struct spec_file *sf, const char *name, const char *text)
{
	start(sf, name);
	return load(sf, text, strlen(text));
}
