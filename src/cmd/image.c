// SPDX-License-Identifier: GPL-2.0
/* wblab image build [NAME] | wblab image list */
#include <stdio.h>
#include <string.h>

#include "artifact/image.h"
#include "cmd/cmds.h"
#include "util/log.h"

static const char image_usage[] =
	"usage: wblab image build [NAME]   build guests/NAME.yaml (default debian-12)\n"
	"       wblab image list           list guest specs and whether they are cached\n";

static int image_cmd_build(const char *name)
{
	struct image_spec spec;
	struct image_artifact art;
	double t0 = now_mono();
	bool built;
	int ret;

	ret = image_spec_find(name, &spec);
	if (ret)
		return 2;
	ret = image_ensure(&spec, &art, &built);
	if (!ret)
		printf("%s %s %s (%.2f s)\n", spec.name,
		       built ? "built" : "cached", art.path, now_mono() - t0);
	image_artifact_free(&art);
	image_spec_free(&spec);
	return ret ? 1 : 0;
}

static int image_cmd_list(void)
{
	struct spec_strlist names = { 0 };

	spec_list_names("guests", &names);
	for (size_t i = 0; i < names.n; i++) {
		struct image_spec spec;
		struct image_artifact art;
		bool cached;

		if (image_spec_find(names.v[i], &spec)) {
			printf("%-16s (spec has errors)\n", names.v[i]);
			continue;
		}
		cached = image_lookup(&spec, &art) == 0;
		printf("%-16s %-8s %.12s %s\n", names.v[i],
		       cached ? "cached" : "missing", art.hash, art.path);
		image_artifact_free(&art);
		image_spec_free(&spec);
	}
	spec_strlist_free(&names);
	return 0;
}

int cmd_image(int argc, char **argv)
{
	if (argc >= 2 && !strcmp(argv[1], "build") && argc <= 3)
		return image_cmd_build(argc == 3 ? argv[2] : "debian-12");
	if (argc == 2 && !strcmp(argv[1], "list"))
		return image_cmd_list();
	if (argc == 2 && !strcmp(argv[1], "--help")) {
		fputs(image_usage, stdout);
		return 0;
	}
	fputs(image_usage, stderr);
	return 2;
}
