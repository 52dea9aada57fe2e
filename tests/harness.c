/* SPDX-License-Identifier: MIT */
/* harness: what the Criterion suites share (see harness.h). */
#define _GNU_SOURCE /* asprintf, vasprintf, mkdtemp */
#include "harness.h"

#include <criterion/criterion.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>

char harness_dir[64];

/* Everything 'f' holds, NUL-terminated (malloc'd); its length to '*len' unless NULL. */
static char *read_all(FILE *f, size_t *len)
{
	size_t cap = 4096, n = 0;
	char *buf = malloc(cap);
	size_t got;
	while ((got = fread(buf + n, 1, cap - n - 1, f)) > 0) {
		n += got;
		if (cap - n < 2)
			buf = realloc(buf, cap *= 2);
	}
	buf[n] = '\0';
	if (len)
		*len = n;
	return buf;
}

/* Run 'cmd' through /bin/sh; its stdout to '*out' (or dropped), its exit status (-1: a signal). */
static int capture(const char *cmd, char **out)
{
	FILE *p = popen(cmd, "r");
	if (!p)
		return -1;
	char *buf = read_all(p, NULL);
	int st = pclose(p);
	if (out)
		*out = buf;
	else
		free(buf);
	if (!WIFEXITED(st))
		return -1;
	return WEXITSTATUS(st);
}

/* DIR/NAME, or NAME where DIR is NULL (malloc'd). */
static char *join(const char *dir, const char *name)
{
	char *path;
	if (!dir)
		return strdup(name);
	cr_assert_neq(asprintf(&path, "%s/%s", dir, name), -1);
	return path;
}

/* ---- running cglint ---- */

int harness_run(const char *dir, const char *args, char **out)
{
	size_t n = strlen(dir) + strlen(args) + strlen(CGLINT_BIN) + 64;
	char *cmd = malloc(n);
	snprintf(cmd, n, "cd '%s' && '%s' 2>/dev/null %s", dir, CGLINT_BIN, args);
	int rc = capture(cmd, out);
	free(cmd);
	return rc;
}

int harness_sh(const char *dir, const char *script, char **out)
{
	/* the script travels in the environment, so its quotes need no escaping */
	size_t n = strlen(dir) + strlen(CGLINT_BIN) + 160;
	char *pre = malloc(n);
	snprintf(pre, n, "cd '%s' && export CGLINT='%s' && cglint() { \"$CGLINT\" \"$@\"; } && ", dir, CGLINT_BIN);
	char *full = malloc(strlen(pre) + strlen(script) + 1);
	strcpy(full, pre);
	strcat(full, script);
	setenv("HARNESS_SCRIPT", full, 1);
	int rc = capture("bash -c \"$HARNESS_SCRIPT\"", out);
	unsetenv("HARNESS_SCRIPT");
	free(pre);
	free(full);
	return rc;
}

int harness_run_json(const char *dir, const char *args, json_t **doc)
{
	size_t n = strlen(args) + 32;
	char *a = malloc(n);
	snprintf(a, n, "--format json %s", args);
	char *out = NULL;
	int rc = harness_run(dir, a, &out);
	free(a);
	json_error_t err;
	*doc = out ? json_loads(out, 0, &err) : NULL;
	free(out);
	return rc;
}

int harness_run_in(const char *cwd, const char *args, char **out, char **err)
{
	char *where = *cwd ? harness_path(cwd) : strdup(harness_dir);
	char *errf = harness_path(".stderr"), *a, *o = NULL;
	cr_assert_neq(asprintf(&a, "%s 2>'%s'", args, errf), -1);
	int rc = harness_run(where, a, &o);
	cr_assert_neq(rc, -1, "cglint %s died on a signal", args);
	if (out)
		*out = o;
	else
		free(o);
	if (err)
		*err = harness_read(NULL, errf, NULL);
	free(a);
	free(errf);
	free(where);
	return rc;
}

char *harness_lint(const char *cwd, const char *args, int *rc, char **err)
{
	char *out, *a;
	cr_assert_neq(asprintf(&a, "--format concise %s", args), -1);
	*rc = harness_run_in(cwd, a, &out, err);
	free(a);
	char *h = harness_heads(out);
	free(out);
	return h;
}

void harness_expect_lint(const char *cwd, const char *args, int want_rc, const char *want)
{
	int rc;
	char *got = harness_lint(cwd, args, &rc, NULL);
	cr_expect_str_eq(got, want, "\n--- got:\n%s\n--- wanted:\n%s", got, want);
	cr_expect_eq(rc, want_rc, "cglint %s: exit %d, expected %d", args, rc, want_rc);
	free(got);
}

void harness_system(const char *fmt, ...)
{
	char *cmd;
	va_list ap;
	va_start(ap, fmt);
	int n = vasprintf(&cmd, fmt, ap);
	va_end(ap);
	cr_assert_neq(n, -1);
	cr_assert_eq(system(cmd), 0, "%s", cmd);
	free(cmd);
}

char *harness_heads(const char *text)
{
	char *out = calloc(1, strlen(text) + 1);
	for (const char *p = text; *p;) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) + 1 : strlen(p);
		if (*p != ' ')
			strncat(out, p, n);
		p += n;
	}
	return out;
}

/* ---- temporary folders ---- */

bool harness_tmpdir(char *dir, size_t size, const char *name, unsigned what)
{
	snprintf(dir, size, "/tmp/cglint-%s-XXXXXX", name);
	if (!mkdtemp(dir))
		return false;
	if (what & HARNESS_CONFIG)
		free(harness_write(dir, ".cglint.yaml", "# no search above the test tree\n", 32));
	if (what & HARNESS_GIT) {
		char *git = join(dir, ".git");
		int rc = mkdir(git, 0755);
		free(git);
		return rc == 0;
	}
	return true;
}

int harness_rmdir(const char *dir)
{
	char *cmd;
	cr_assert_neq(asprintf(&cmd, "chmod -R u+rwx '%s'; rm -rf '%s'", dir, dir), -1);
	int rc = system(cmd);
	free(cmd);
	return rc;
}

/* The test's folder, named for its suite. */
static void init(unsigned what)
{
	cr_assert(harness_tmpdir(harness_dir, sizeof(harness_dir), criterion_current_suite->name, what));
}

void harness_init(void)
{
	init(HARNESS_CONFIG);
}

void harness_init_git(void)
{
	init(HARNESS_GIT);
}

void harness_init_bare(void)
{
	init(HARNESS_BARE);
}

void harness_fini(void)
{
	cr_expect_eq(harness_rmdir(harness_dir), 0);
}

/* ---- files ---- */

char *harness_path(const char *name)
{
	return join(harness_dir, name);
}

char *harness_write(const char *dir, const char *name, const char *data, size_t len)
{
	char *path = join(dir, name);
	/* the folders on the way; those that are there already make mkdir fail, as they may */
	for (char *s = strchr(path + strlen(dir) + 1, '/'); s; s = strchr(s + 1, '/')) {
		*s = '\0';
		mkdir(path, 0755);
		*s = '/';
	}
	FILE *f = fopen(path, "wb");
	cr_assert_not_null(f, "cannot write %s", path);
	cr_assert_eq(fwrite(data, 1, len, f), len, "cannot write %s", path);
	cr_assert_eq(fclose(f), 0, "cannot write %s", path);
	return path;
}

void harness_put(const char *name, const char *text)
{
	free(harness_write(harness_dir, name, text, strlen(text)));
}

char *harness_try_read(const char *dir, const char *name, size_t *len)
{
	char *path = join(dir, name);
	FILE *f = fopen(path, "rb");
	free(path);
	if (!f)
		return NULL;
	char *buf = read_all(f, len);
	fclose(f);
	return buf;
}

char *harness_read(const char *dir, const char *name, size_t *len)
{
	char *buf = harness_try_read(dir, name, len);
	cr_assert_not_null(buf, "cannot read %s%s%s", dir ? dir : "", dir ? "/" : "", name);
	return buf;
}
