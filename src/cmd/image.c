// SPDX-License-Identifier: GPL-2.0
/* wblab image build [--json] [NAME] | wblab image list [--json] */
#include <json-c/json.h>
#include <stdio.h>
#include <string.h>

#include "artifact/image.h"
#include "cmd/cmds.h"
#include "util/log.h"
#include "util/parse-options.h"

static const char *const image_usage[] = {
	"wblab image build [--json] [NAME]",
	"wblab image list [--json]",
	NULL,
};

static void print_json(json_object *o)
{
	puts(json_object_to_json_string_ext(
		o, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(o);
}

static int image_build(int argc, char **argv)
{
	static const char *const usage[] = {
		"wblab image build [--json] [NAME]", NULL
	};
	struct image_spec spec;
	struct image_artifact art;
	double t0 = now_mono();
	const char *name = SPEC_DEFAULT_IMAGE;
	bool built, json = false;
	int n, ret;
	struct option opts[] = {
		OPT_GROUP("Build guests/NAME.yaml (default " SPEC_DEFAULT_IMAGE
			  ") into the cache."),
		OPT_BOOL(0, "json", &json, "print the result as JSON"),
		OPT_END(),
	};

	n = parse_options(argc, argv, "wblab image build", opts, usage, 0);
	if (n > 1)
		return usage_error("wblab image build", "one NAME at most");
	if (n == 1)
		name = argv[0];
	if (image_spec_find(name, &spec))
		return 2;
	ret = image_ensure(&spec, &art, &built);
	if (!ret && json) {
		json_object *o = json_object_new_object();

		json_object_object_add(o, "name",
				       json_object_new_string(spec.name));
		json_object_object_add(
			o, "state",
			json_object_new_string(built ? "built" : "cached"));
		json_object_object_add(o, "hash",
				       json_object_new_string(art.hash));
		json_object_object_add(o, "path",
				       json_object_new_string(art.path));
		json_object_object_add(o, "seconds",
				       json_object_new_double(now_mono() - t0));
		print_json(o);
	} else if (!ret) {
		printf("%s %s %s (%.2f s)\n", spec.name,
		       built ? "built" : "cached", art.path, now_mono() - t0);
	}
	image_artifact_free(&art);
	image_spec_free(&spec);
	return ret ? 1 : 0;
}

static int image_list(int argc, char **argv)
{
	static const char *const usage[] = { "wblab image list [--json]",
					     NULL };
	struct spec_strlist names = { 0 };
	json_object *arr = NULL;
	bool json = false;
	struct option opts[] = {
		OPT_GROUP("List guest specs and whether they are cached."),
		OPT_BOOL(0, "json", &json, "print the list as JSON"),
		OPT_END(),
	};

	if (parse_options(argc, argv, "wblab image list", opts, usage, 0))
		return usage_error("wblab image list",
				   "unexpected argument '%s'", argv[0]);
	if (json)
		arr = json_object_new_array();
	spec_list_names("guests", &names);
	for (size_t i = 0; i < names.n; i++) {
		struct image_spec spec;
		struct image_artifact art;
		bool cached, bad = image_spec_find(names.v[i], &spec) != 0;
		json_object *o;

		cached = !bad && image_lookup(&spec, &art) == 0;
		if (!json && bad) {
			printf("%-16s (spec has errors)\n", names.v[i]);
			continue;
		}
		if (!json) {
			printf("%-16s %-8s %.12s %s\n", names.v[i],
			       cached ? "cached" : "missing", art.hash,
			       art.path);
		} else {
			o = json_object_new_object();
			json_object_object_add(
				o, "name", json_object_new_string(names.v[i]));
			json_object_object_add(
				o, "state",
				json_object_new_string(bad    ? "spec-error" :
						       cached ? "cached" :
								"missing"));
			if (!bad) {
				json_object_object_add(
					o, "hash",
					json_object_new_string(art.hash));
				json_object_object_add(
					o, "path",
					json_object_new_string(
						art.path ? art.path : ""));
			}
			json_object_array_add(arr, o);
		}
		if (!bad) {
			image_artifact_free(&art);
			image_spec_free(&spec);
		}
	}
	spec_strlist_free(&names);
	if (json)
		print_json(arr);
	return 0;
}

int cmd_image(int argc, char **argv)
{
	static const struct subcommand subs[] = {
		{ "build", image_build },
		{ "list", image_list },
		{ NULL, NULL },
	};
	struct option opts[] = {
		OPT_GROUP(
			"Guest root images: build one (debootstrap, once) or list them.\n"
			"'wblab image SUBCOMMAND --help' describes a subcommand."),
		OPT_END(),
	};

	return parse_subcommand(argc, argv, "wblab image", opts, image_usage,
				subs);
}
