/* SPDX-License-Identifier: MIT */
/* py_mod: Python module names to files (see py_mod.h). */
#include "front/py/py_mod.h"

#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/mem.h"
#include "input/pyenv.h"

/* 'a/b/../c' -> 'a/c', 'x/./y' -> 'x/y', as text; leading '..' kept; "" -> ".". */
static const char *fold(struct arena *a, const char *path)
{
	bool abs = path[0] == '/';
	char *buf = arena_strdup(a, path);
	const char *parts[512];
	size_t n = 0, lead = 0;         /* 'lead': leading '..' that cannot fold */
	for (char *p = buf, *next; p; p = next) {
		char *sep = strchr(p, '/');
		next = sep ? sep + 1 : NULL;
		if (sep)
			*sep = '\0';
		if (!*p || !strcmp(p, "."))
			continue;
		if (!strcmp(p, "..")) {
			if (n > lead)
				n--;
			else if (!abs && n < 512)
				parts[n++] = p, lead++;
			continue;
		}
		if (n < 512)
			parts[n++] = p;
	}
	struct sbuf sb;
	sbuf_init(&sb);
	for (size_t k = 0; k < n; k++) {
		if (k || abs)
			sbuf_addc(&sb, '/');
		sbuf_adds(&sb, parts[k]);
	}
	const char *out = sb.buf && *sb.buf ? arena_strdup(a, sb.buf) : abs ? "/" : ".";
	sbuf_release(&sb);
	return out;
}

static bool is_file(const char *path)
{
	struct stat st;
	return !stat(path, &st) && S_ISREG(st.st_mode);
}

/* A folded path that climbs out of the working folder and back into it, as an import found by
 * walking up from a file does ('../../megatron/bridge/recipes/x.py' run from megatron/bridge),
 * without the detour ('recipes/x.py'): the name the file has as an input, so that its module is
 * the input's and its findings carry one path. Taken only where both name the same file (a
 * symbolic link on the way would make the text lie). */
static const char *shorten(struct arena *a, const char *path)
{
	char cwd[PATH_MAX];
	if (strncmp(path, "../", 3) || !getcwd(cwd, sizeof(cwd)))
		return path;
	size_t up = 0;
	const char *rest = path;
	for (; !strncmp(rest, "../", 3); rest += 3)
		up++;
	/* the folder 'up' levels above the working one, and the names under it down to it */
	const char *down[64];
	size_t depth = 0;
	for (char *p = cwd + strlen(cwd); depth < up && depth < 64 && p > cwd;) {
		char *slash = p;
		while (slash > cwd && *--slash != '/')
			;
		*p = '\0';
		down[depth++] = slash + 1;
		p = slash;
	}
	size_t kept = up;       /* each name the path goes down by that leads back toward the working folder */
	for (size_t k = depth; k-- > 0 && kept == k + 1;) {
		size_t n = strlen(down[k]);
		if (strncmp(rest, down[k], n) || rest[n] != '/')
			break;
		rest += n + 1;
		kept--;
	}
	if (kept == up)
		return path;
	struct sbuf sb;
	sbuf_init(&sb);
	for (size_t k = 0; k < kept; k++)
		sbuf_adds(&sb, "../");
	sbuf_adds(&sb, rest);
	struct stat was, now;
	bool same = !stat(path, &was) && !stat(sb.buf, &now) && was.st_dev == now.st_dev && was.st_ino == now.st_ino;
	const char *out = same ? arena_strdup(a, sb.buf) : path;
	sbuf_release(&sb);
	return out;
}

static bool is_dir(const char *path)
{
	struct stat st;
	return !stat(path, &st) && S_ISDIR(st.st_mode);
}

/* NAME.py or NAME/__init__.py under 'dir' ('rel' with '/' for '.'; "" is the package 'dir'). */
static const char *module_in(struct arena *a, const char *dir, const char *rel)
{
	if (!*rel) {
		const char *init = fold(a, arena_printf(a, "%s/__init__.py", dir));
		return is_file(init) ? shorten(a, init) : NULL;
	}
	const char *py = fold(a, arena_printf(a, "%s/%s.py", dir, rel));
	if (is_file(py))
		return shorten(a, py);
	const char *init = fold(a, arena_printf(a, "%s/%s/__init__.py", dir, rel));
	return is_file(init) ? shorten(a, init) : NULL;
}

int py_mod_bridge_release(struct arena *a, const char *module, const char **root)
{
	const char *at = strstr(module, "megatron/bridge/");
	if (!at || (at > module && at[-1] != '/'))
		return 0;
	*root = at == module ? "." : arena_strndup(a, module, (size_t)(at - module - 1));
	const char *info = arena_printf(a, "%s/megatron/bridge/package_info.py", *root);
	FILE *f = fopen(info, "r");
	if (!f)
		return 0;
	char line[256];
	int major = -1, minor = -1, v;
	for (int n = 0; n < 200 && fgets(line, sizeof(line), f); n++) {
		if (sscanf(line, "MAJOR = %d", &v) == 1)
			major = v;
		else if (sscanf(line, "MINOR = %d", &v) == 1)
			minor = v;
	}
	fclose(f);
	return major < 0 || minor < 0 || minor > 99 ? 0 : major * 1000 + minor * 10;
}

static const char *find_in(struct arena *a, const char *from, const char *name, unsigned level)
{
	const char *slash = strrchr(from, '/');
	const char *dir = slash ? (slash == from ? "/" : arena_strndup(a, from, (size_t)(slash - from))) : ".";
	char *rel = arena_strdup(a, name);
	for (char *p = rel; *p; p++)
		if (*p == '.')
			*p = '/';
	if (level > 0) {
		const char *base = dir;
		for (unsigned k = 1; k < level; k++)
			base = arena_printf(a, "%s/..", base);
		return module_in(a, base, rel);
	}
	if (!*rel)
		return NULL;
	/* the top package's folder must be there: one stat a level for the rest of the tree */
	const char *top = arena_strndup(a, rel, strcspn(rel, "/"));
	const char *base = dir;
	for (unsigned up = 0; up < PY_MOD_MAX_UP; up++) {
		const char *folded = fold(a, base);
		/* the folder itself, then its src/ (a project's src layout, which pyright also searches):
		 * a script in Bridge's scripts/ or examples/ imports the package from ../src */
		for (int src = 0; src < 2; src++) {
			const char *at = src ? arena_printf(a, "%s/src", folded) : folded;
			if (!is_dir(arena_printf(a, "%s/%s", at, top)) && !is_file(arena_printf(a, "%s/%s.py", at, top)))
				continue;
			const char *m = module_in(a, at, rel);
			if (m)
				return m;
		}
		if (!strcmp(folded, "/"))
			break;
		base = arena_printf(a, "%s/..", base);
	}
	/* then where Python looks: the environment's search path (pyenv.h) */
	size_t n;
	const char *const *dirs = pyenv_path(&n);
	for (size_t k = 0; k < n; k++) {
		if (!is_dir(arena_printf(a, "%s/%s", dirs[k], top)) && !is_file(arena_printf(a, "%s/%s.py", dirs[k], top)))
			continue;
		const char *m = module_in(a, dirs[k], rel);
		if (m)
			return m;
	}
	return NULL;
}

/* find_in's file, in the spelling of 'from': a file named "./x.py"
 * (a folder walked as ".") imports "./y.py", as the walk names y.py, not "y.py" (fold drops
 * "./"), so that a module that is also an input is the same module, by its name. */
const char *py_mod_find(struct arena *a, const char *from, const char *name, unsigned level)
{
	const char *m = find_in(a, from, name, level);
	return m && !strncmp(from, "./", 2) && m[0] != '/' && strncmp(m, "../", 3) ? arena_join(a, ".", "/", m) : m;
}
