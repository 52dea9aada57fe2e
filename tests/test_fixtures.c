/* SPDX-License-Identifier: MIT */
/*
 * fixtures: every fixture under fixtures/ must produce exactly the diagnostics it declares
 * (fixtures/README.md), and the exit status that follows from them.
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <dirent.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "harness.h"

#define MAX_FIXTURES 2048

struct fx {
	char path[512];
};

static bool is_fixture(const char *dir, const char *name)
{
	if (strstr(name, ".ko.") || strstr(name, ".ok."))
		return true;
	size_t n = strlen(name);
	bool yaml = (n > 5 && !strcmp(name + n - 5, ".yaml")) || (n > 4 && !strcmp(name + n - 4, ".yml"));
	bool script = (n > 3 && !strcmp(name + n - 3, ".sh")) || (n > 7 && !strcmp(name + n - 7, ".sbatch"));
	bool source = n > 3 && !strcmp(name + n - 3, ".cu");
	bool python = n > 3 && !strcmp(name + n - 3, ".py");
	return (yaml || script || source || python) && strstr(dir, "/examples") && !strstr(name, ".data.");
}

static void collect(const char *dir, struct fx *out, size_t *n)
{
	DIR *d = opendir(dir);
	if (!d)
		return;
	for (struct dirent *de; (de = readdir(d));) {
		if (de->d_name[0] == '.')
			continue;
		char path[512];
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		struct stat st;
		if (stat(path, &st))
			continue;
		if (S_ISDIR(st.st_mode))
			collect(path, out, n);
		else if (is_fixture(dir, de->d_name) && *n < MAX_FIXTURES)
			snprintf(out[(*n)++].path, sizeof(out->path), "%s", path);
	}
	closedir(d);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

struct strs {
	char **v;
	size_t n;
};

static void add(struct strs *s, const char *str)
{
	s->v = realloc(s->v, (s->n + 1) * sizeof(*s->v));
	s->v[s->n++] = strdup(str);
}

static char *join(struct strs *s)
{
	if (s->n)
		qsort(s->v, s->n, sizeof(*s->v), cmp_str);
	size_t len = 1;
	for (size_t k = 0; k < s->n; k++)
		len += strlen(s->v[k]) + 1;
	char *out = calloc(1, len);
	for (size_t k = 0; k < s->n; k++) {
		strcat(out, s->v[k]);
		strcat(out, "\n");
		free(s->v[k]);
	}
	free(s->v);
	return out;
}

/* The text after a marker such as "expect:" in a '#' or '//' comment, or NULL. */
static const char *marker(const char *line, const char *name)
{
	const char *p = strstr(line, name);
	if (!p)
		return NULL;
	const char *c = p;
	while (c > line && c[-1] == ' ')
		c--;
	if (!(c > line && (c[-1] == '#' || (c - line >= 2 && c[-1] == '/' && c[-2] == '/'))))
		return NULL;
	return p + strlen(name);
}

/* Read the fixture's args and expectations; returns the expected exit status. */
static int read_expectations(const char *path, char *args, size_t args_size, struct strs *want)
{
	FILE *f = fopen(path, "rb");
	cr_assert_not_null(f, "cannot open %s", path);
	char line[4096];
	unsigned lineno = 0;
	bool input_error = false, error = false;
	args[0] = '\0';
	while (fgets(line, sizeof(line), f)) {
		lineno++;
		line[strcspn(line, "\r\n")] = '\0';
		const char *a = marker(line, "cglint-args:");
		if (a)
			snprintf(args, args_size, "%s", a);
		const char *env = marker(line, "cglint-env:");
		if (env) {      /* each fixture runs in its own process: the setting ends with it */
			char *copy = strdup(env);
			for (char *tok = strtok(copy, " "); tok; tok = strtok(NULL, " ")) {
				char *eq = strchr(tok, '=');
				cr_assert_not_null(eq, "%s:%u: cglint-env wants NAME=VALUE, not '%s'", path, lineno, tok);
				*eq = '\0';
				setenv(tok, eq + 1, 1);
			}
			free(copy);
		}
		const char *other = marker(line, "expect-other:");
		const char *e = other ? other : marker(line, "expect:");
		if (!e)
			continue;
		char *copy = strdup(e);
		for (char *tok = strtok(copy, ","); tok; tok = strtok(NULL, ",")) {
			char where[400] = "", sev[32], rule[32], key[512];
			/* expect-other's PATH:LINE may hold spaces ("<command line>:1"): read from the right */
			char *rs = strrchr(tok, ' '), *ss = NULL;
			while (rs && rs > tok && rs[1] == '\0') {
				*rs = '\0';
				rs = strrchr(tok, ' ');
			}
			if (other && rs) {
				*rs = '\0';
				ss = strrchr(tok, ' ');
				*rs = ' ';
			}
			if (other ? !ss || sscanf(rs, " %31s", rule) != 1 || sscanf(ss, " %31s", sev) != 1
				  : sscanf(tok, " %31s %31s", sev, rule) != 2)
				cr_assert_fail("%s:%u: malformed expectation '%s'", path, lineno, tok);
			if (other) {
				const char *w = tok;
				while (*w == ' ')
					w++;
				snprintf(where, sizeof(where), "%.*s", (int)(ss - w), w);
			}
			if (other)
				snprintf(key, sizeof(key), "%s %s %s", where, sev, rule);
			else
				snprintf(key, sizeof(key), "%u %s %s", lineno, sev, rule);
			add(want, key);
			error |= !strcmp(sev, "error");
			input_error |= !strcmp(sev, "error") && !strncmp(rule, "CG9", 3);
		}
		free(copy);
	}
	fclose(f);
	return input_error ? 2 : error ? 1 : 0;
}

ParameterizedTestParameters(fixtures, exact)
{
	struct fx *all = calloc(MAX_FIXTURES, sizeof(*all));
	size_t n = 0;
	collect(CGLINT_FIXTURES, all, &n);
	struct fx *params = cr_malloc(n * sizeof(*params));
	memcpy(params, all, n * sizeof(*params));
	free(all);
	return cr_make_param_array(struct fx, params, n);
}

ParameterizedTest(struct fx *f, fixtures, exact)
{
	char args[2048], dir[512], tmp[512], base[512], cmd[4096];
	struct strs want = {0}, got = {0};
	int want_rc = read_expectations(f->path, args, sizeof(args), &want);
	snprintf(dir, sizeof(dir), "%s", f->path);
	snprintf(tmp, sizeof(tmp), "%s", f->path);
	snprintf(base, sizeof(base), "%s", basename(tmp));   /* basename() may modify its argument */
	snprintf(cmd, sizeof(cmd), "%s -- '%s'", args, base);
	json_t *doc;
	int rc = harness_run_json(dirname(dir), cmd, &doc);
	cr_assert_not_null(doc, "%s: cglint printed no JSON (exit %d)", f->path, rc);
	size_t i;
	json_t *d;
	json_array_foreach(json_object_get(doc, "diagnostics"), i, d)
	{
		const char *path = json_string_value(json_object_get(d, "path"));
		char key[600];
		long line = (long)json_integer_value(json_object_get(d, "line"));
		const char *sev = json_string_value(json_object_get(d, "severity"));
		const char *rule = json_string_value(json_object_get(d, "rule"));
		if (path && !strcmp(path, base))
			snprintf(key, sizeof(key), "%ld %s %s", line, sev, rule);
		else
			snprintf(key, sizeof(key), "%s:%ld %s %s", path ? path : "?", line, sev, rule);
		add(&got, key);
	}
	json_decref(doc);
	char *w = join(&want), *g = join(&got);
	cr_expect_str_eq(g, w, "%s: diagnostics differ\n--- expected\n%s--- got\n%s", f->path, w, g);
	cr_expect_eq(rc, want_rc, "%s: exit status %d, expected %d", f->path, rc, want_rc);
	free(w);
	free(g);
}

Test(fixtures, there_are_fixtures)
{
	struct fx *all = calloc(MAX_FIXTURES, sizeof(*all));
	size_t n = 0;
	collect(CGLINT_FIXTURES, all, &n);
	free(all);
	cr_assert_gt(n, 20, "found only %zu fixtures under %s", n, CGLINT_FIXTURES);
}
