/* SPDX-License-Identifier: MIT */
/* harness: running the cglint binary from tests. */
#define _DEFAULT_SOURCE /* mkdtemp */
#include "harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

/* Everything 'f' holds, NUL-terminated (malloc'd). */
static char *read_all(FILE *f)
{
	size_t cap = 4096, len = 0;
	char *buf = malloc(cap);
	size_t got;
	while ((got = fread(buf + len, 1, cap - len - 1, f)) > 0) {
		len += got;
		if (cap - len < 2)
			buf = realloc(buf, cap *= 2);
	}
	buf[len] = '\0';
	return buf;
}

/* Run 'cmd' through /bin/sh; its stdout to '*out' (or dropped), its exit status (-1: a signal). */
static int capture(const char *cmd, char **out)
{
	FILE *p = popen(cmd, "r");
	if (!p)
		return -1;
	char *buf = read_all(p);
	int st = pclose(p);
	if (out)
		*out = buf;
	else
		free(buf);
	if (!WIFEXITED(st))
		return -1;
	return WEXITSTATUS(st);
}

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

char *harness_write(const char *dir, const char *name, const char *data, size_t len)
{
	size_t n = strlen(dir) + strlen(name) + 2;
	char *path = malloc(n);
	snprintf(path, n, "%s/%s", dir, name);
	FILE *f = fopen(path, "wb");
	if (f) {
		fwrite(data, 1, len, f);
		fclose(f);
	}
	return path;
}

char *harness_read(const char *dir, const char *name)
{
	size_t n = strlen(dir) + strlen(name) + 2;
	char *path = malloc(n);
	snprintf(path, n, "%s/%s", dir, name);
	FILE *f = fopen(path, "rb");
	free(path);
	if (!f)
		return NULL;
	char *buf = read_all(f);
	fclose(f);
	return buf;
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

bool harness_tmpdir(char *dir, size_t size, const char *name)
{
	snprintf(dir, size, "/tmp/cglint-%s-XXXXXX", name);
	if (!mkdtemp(dir))
		return false;
	free(harness_write(dir, ".cglint.yaml", "# no search above the test tree\n", 32));
	return true;
}

int harness_rmdir(const char *dir)
{
	size_t n = strlen(dir) + 16;
	char *cmd = malloc(n);
	snprintf(cmd, n, "rm -rf '%s'", dir);
	int rc = system(cmd);
	free(cmd);
	return rc;
}
