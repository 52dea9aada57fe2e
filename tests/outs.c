/* SPDX-License-Identifier: MIT */
/* outs: the project the output suites run in, and their readers (see outs.h). */
#define _XOPEN_SOURCE 700       /* realpath */
#include "outs.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config/target.h"

char outs_dir[sizeof(harness_dir) + 8];
char outs_outside[PATH_MAX];
char outs_root[PATH_MAX];

void outs_setup(void)
{
	harness_init_bare();
	snprintf(outs_dir, sizeof(outs_dir), "%s/proj", harness_dir);
	harness_system("mkdir -p '%s/.git' '%s/outside' && cp -R '%s/examples' '%s/examples'", outs_dir, harness_dir,
		       CGLINT_FIXTURES, outs_dir);
	cr_assert_not_null(realpath(outs_dir, outs_root));
	char o[PATH_MAX];
	snprintf(o, sizeof(o), "%s/outside", harness_dir);
	cr_assert_not_null(realpath(o, outs_outside));
}

void outs_teardown(void)
{
	cr_assert_eq(chdir("/"), 0);
	harness_fini();
}

void outs_put(const char *name, const char *text)
{
	free(harness_write(outs_dir, name, text, strlen(text)));
}

json_t *outs_at(json_t *j, const char *path)
{
	char copy[256];
	snprintf(copy, sizeof(copy), "%s", path);
	for (char *save, *tok = strtok_r(copy, ".", &save); tok && j; tok = strtok_r(NULL, ".", &save))
		j = json_is_array(j) ? json_array_get(j, strtoul(tok, NULL, 10)) : json_object_get(j, tok);
	return j;
}

const char *outs_str(json_t *j, const char *path)
{
	const char *s = json_string_value(outs_at(j, path));
	return s ? s : "(missing)";
}

long long outs_num(json_t *j, const char *path)
{
	json_t *v = outs_at(j, path);
	return json_is_integer(v) ? json_integer_value(v) : -999;
}

char *outs_print(const struct out_format *fmt, const struct diag_list *l, bool color)
{
	static const struct target tgt = {.mcore = 190, .bridge = 60};
	char *buf;
	size_t n;
	struct out_ctx o = {.f = open_memstream(&buf, &n), .color = color, .target = &tgt};
	out_print(fmt, &o, l);
	fclose(o.f);
	return buf;
}
