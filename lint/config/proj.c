/* SPDX-License-Identifier: MIT */
/* proj: finding, reading and layering .cglint.yaml files (see proj.h). */
#define _DEFAULT_SOURCE /* realpath */
#include "config/proj.h"

#include <fnmatch.h>
#include <stdarg.h>
#include <stdio.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/mem.h"
#include "base/strmap.h"
#include "base/suggest.h"
#include "config/pack.h"
#include "input/fe_yaml.h"
#include "input/node.h"
#include "input/pyenv.h"
#include "input/read.h"
#include "input/text.h"

const char *const proj_keys[] = {"inherit", "target", "select", "ignore", "severity", "rules", "exclude",
				 "per-path", "python-path", "fail-on", NULL};
const char *const proj_target_keys[] = {"mcore", "bridge", "gpu", "te", NULL};
const char *const proj_part_keys[] = {"paths", "target", "select", "ignore", "severity", "fail-on", NULL};

/* A config's top level, or one per-path entry. */
struct part {
	const char **globs;             /* per-path only */
	size_t n_globs;
	int mcore, bridge, gpu_major, te;
	const char *gpu;
	const char **select, **ignore, **sev_ids;
	size_t n_select, n_ignore, n_sevs;
	bool has_select, has_fail_on;
	int fail_on;                    /* a severity or DIAG_FAIL_UNDECIDED, where has_fail_on */
	enum sev *sevs;
};

struct cfg {
	const char *path, *dir;         /* dir: resolved, no trailing '/' (but "/") */
	const struct cfg *parent;       /* inherit: true */
	struct part top;
	struct part *per;
	size_t n_per;
	const char **exclude;
	size_t n_exclude;
};

struct proj {
	struct arena *a;
	const char *cwd;                /* resolved: config paths are shown relative to it */
	struct diag_list *problems;
	struct pack *pack;
	struct strmap dirs;             /* folder -> index into cfg_of (SIZE_MAX: none) */
	const struct cfg **cfg_of;
	size_t n_dirs;
	const char **pack_paths;        /* a config's pack, resolved, and the folder it applies in */
	const char **pack_dirs;
	size_t n_packs;
	struct strmap settings;         /* input path -> index into cache */
	struct proj_settings *cache;
	size_t n_cache;
	const struct text_store *open;  /* texts read in place of config files (proj_set_open) */
	struct proj_file *files;        /* what was read: configs and their packs */
	size_t n_files;
};

struct proj *proj_new(struct arena *a, struct diag_list *problems, struct pack *p)
{
	struct proj *pj = arena_alloc(a, sizeof(*pj));
	*pj = (struct proj){.a = a, .problems = problems, .pack = p};
	char buf[PATH_MAX];
	pj->cwd = getcwd(buf, sizeof(buf)) ? arena_strdup(a, buf) : NULL;
	return pj;
}

void proj_free(struct proj *pj)
{
	if (!pj)
		return;
	strmap_release(&pj->dirs);
	strmap_release(&pj->settings);
	free(pj->cfg_of);
	free(pj->pack_paths);
	free(pj->pack_dirs);
	free(pj->cache);
	free(pj->files);
}

void proj_set_open(struct proj *pj, const struct text_store *open)
{
	pj->open = open;
}

const struct proj_file *proj_file(const struct proj *pj, size_t k)
{
	return pj && k < pj->n_files ? &pj->files[k] : NULL;
}

/* Record a file read for a config, before it is read (its text is set once it is). */
static size_t note_file(struct proj *pj, const char *shown, const char *abs)
{
	pj->files = mem_realloc(pj->files, (pj->n_files + 1) * sizeof(*pj->files));
	pj->files[pj->n_files] = (struct proj_file){shown, abs, NULL, 0};
	return pj->n_files++;
}

/* ---- paths ---- */

/* The resolved absolute path; for a file that does not exist (yet), its folder resolved. */
static char *resolve(struct arena *a, const char *path)
{
	char buf[PATH_MAX];
	if (realpath(path, buf))
		return arena_strdup(a, buf);
	const char *slash = strrchr(path, '/');
	const char *dir = slash ? arena_strndup(a, path, slash == path ? 1 : (size_t)(slash - path)) : ".";
	if (!realpath(dir, buf))
		return NULL;
	return arena_printf(a, "%s/%s", strcmp(buf, "/") ? buf : "", slash ? slash + 1 : path);
}

static const char *parent_dir(struct arena *a, const char *path)
{
	const char *slash = strrchr(path, '/');
	if (!slash || !strcmp(path, "/"))
		return NULL;
	return slash == path ? "/" : arena_strndup(a, path, (size_t)(slash - path));
}

/* 'path' relative to 'dir', or NULL when it is not inside. */
static const char *inside(const char *dir, const char *path)
{
	size_t n = strlen(dir);
	if (!strcmp(dir, "/"))
		return path + 1;
	if (strncmp(path, dir, n) || (path[n] != '/' && path[n] != '\0'))
		return NULL;
	return path[n] ? path + n + 1 : path + n;
}

/* ---- globs: fnmatch per path segment, '**' for any number of segments ---- */

struct segs {
	const char **p;
	size_t *n;
	size_t count;
};

/* Split at '/'; what follows a trailing '/' is no segment ("build/" is one). */
static struct segs split(const char *s)
{
	size_t cap = 1;
	for (const char *c = s; *c; c++)
		cap += *c == '/';
	struct segs g = {mem_alloc(cap * sizeof(*g.p)), mem_alloc(cap * sizeof(*g.n)), 0};
	while (*s) {
		const char *e = strchr(s, '/');
		size_t n = e ? (size_t)(e - s) : strlen(s);
		g.p[g.count] = s;
		g.n[g.count++] = n;
		s += n + (e != NULL);
	}
	return g;
}

static bool seg_match(const struct segs *pat, size_t i, const struct segs *path, size_t j)
{
	char ps[NAME_MAX + 1], ss[NAME_MAX + 1];
	if (pat->n[i] > NAME_MAX || path->n[j] > NAME_MAX)
		return false;
	memcpy(ps, pat->p[i], pat->n[i]);
	ps[pat->n[i]] = '\0';
	memcpy(ss, path->p[j], path->n[j]);
	ss[path->n[j]] = '\0';
	return !fnmatch(ps, ss, FNM_PERIOD);
}

/*
 * Whether pattern segments i.. match path segments j.., a pattern that runs out first naming a
 * folder above the path. Memoized over (i, j), so '**'-heavy patterns take polynomial time, not
 * the exponential time of backtracking. memo: 0 unknown, 1 no, 2 yes.
 */
static bool match_at(const struct segs *pat, size_t i, const struct segs *path, size_t j, unsigned char *memo)
{
	if (i == pat->count)
		return true;
	unsigned char *m = &memo[i * (path->count + 1) + j];
	if (*m)
		return *m == 2;
	bool ok;
	if (pat->n[i] == 2 && !strncmp(pat->p[i], "**", 2)) {
		ok = i + 1 == pat->count;
		for (size_t k = j; !ok && k <= path->count && (k < path->count || k == j); k++)
			ok = match_at(pat, i + 1, path, k, memo);
	} else {
		ok = j < path->count && seg_match(pat, i, path, j) && match_at(pat, i + 1, path, j + 1, memo);
	}
	*m = ok ? 2 : 1;
	return ok;
}

static bool match_segs(const char *pattern, const char *rel)
{
	struct segs pat = split(pattern), path = split(rel);
	unsigned char *memo = calloc((pat.count + 1) * (path.count + 1), 1);
	bool ok = memo && match_at(&pat, 0, &path, 0, memo);
	free(memo);
	free(pat.p);
	free(pat.n);
	free(path.p);
	free(path.n);
	return ok;
}

/*
 * gitignore-like: a pattern with no '/' (or only a trailing one) matches a file or folder name
 * at any depth, as if written "**\/name"; one with a '/' is anchored at the config's folder.
 * A pattern that matches a folder matches what it holds (match_segs).
 */
static bool glob_match(const char *pat, const char *rel)
{
	if (*pat == '/')
		return match_segs(pat + 1, rel);
	size_t n = strcspn(pat, "/");
	if (pat[n] && pat[n + 1])
		return match_segs(pat, rel);
	char any[NAME_MAX + 4] = "**/";
	if (n > NAME_MAX)
		return false;
	memcpy(any + 3, pat, n);
	any[n + 3] = '\0';
	return match_segs(any, rel);
}

static bool any_glob(const char *const *globs, size_t n, const char *rel)
{
	for (size_t k = 0; k < n; k++)
		if (glob_match(globs[k], rel))
			return true;
	return false;
}

/* ---- reading a config file ---- */

struct reader {
	struct proj *pj;
	const char *path;
	bool bad;
};

CG_PRINTF(3, 4)
static void bad(struct reader *rd, const struct node *n, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char msg[512];
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	diag_input(rd->pj->problems, "CG915", n ? n->loc : (struct loc){rd->path, 1, 1}, "%s", msg);
	rd->bad = true;
}

static bool check_keys(struct reader *rd, const struct node *map, const char *const *keys, const char *where)
{
	if (!map || map->kind != NODE_MAP) {
		bad(rd, map, "%s must be a mapping", where);
		return false;
	}
	size_t nk = 0;
	while (keys[nk])
		nk++;
	for (size_t k = 0; k < map->n; k++) {
		const struct node *key = map->items[2 * k];
		bool ok = false;
		for (size_t i = 0; keys[i] && !ok; i++)
			ok = !strcmp(key->scalar ? key->scalar : "", keys[i]);
		if (!ok) {
			const char *best = suggest_closest(key->scalar ? key->scalar : "", keys, nk);
			bad(rd, key, "unknown key '%s' in %s%s%s%s", key->scalar ? key->scalar : "?", where,
			    best ? "; did you mean '" : "", best ? best : "", best ? "'?" : "");
		}
	}
	return true;
}

/* A list of strings (a single string is a list of one). */
static const char **strings(struct reader *rd, const struct node *n, const char *what, size_t *count)
{
	*count = 0;
	if (!n)
		return NULL;
	size_t m = n->kind == NODE_SEQ ? n->n : 1;
	const char **out = arena_alloc(rd->pj->a, (m + 1) * sizeof(*out));
	for (size_t k = 0; k < m; k++) {
		const struct node *it = n->kind == NODE_SEQ ? n->items[k] : n;
		if (it->kind != NODE_SCALAR || !it->scalar || !*it->scalar) {
			bad(rd, it, "%s wants a list of strings", what);
			continue;
		}
		out[(*count)++] = it->scalar;
	}
	return out;
}

/* Rule patterns must name a rule: a typo would silently select or ignore nothing. */
static const char **rule_patterns(struct reader *rd, const struct node *n, const char *what, size_t *count)
{
	const char **pats = strings(rd, n, what, count);
	const struct pack *p = rd->pj->pack;
	for (size_t k = 0; k < *count; k++) {
		bool hit = false;
		for (size_t i = 0; i < p->n_rules && !hit; i++)
			hit = diag_matches(pats[k], p->rules[i]);
		if (!hit) {
			const char *best = pack_closest_rule(p, pats[k]);
			bad(rd, n->kind == NODE_SEQ ? n->items[k] : n, "no rule matches '%s' in %s%s%s%s", pats[k], what,
			    best ? "; did you mean '" : "", best ? best : "", best ? "'?" : "");
		}
	}
	return pats;
}

static void read_target(struct reader *rd, const struct node *n, struct part *pt)
{
	if (!n || !check_keys(rd, n, proj_target_keys, "target"))
		return;
	const struct node *m = node_get(n, "mcore"), *b = node_get(n, "bridge"), *g = node_get(n, "gpu");
	if (m && (m->kind != NODE_SCALAR || target_parse_version(m->scalar, &pt->mcore)))
		bad(rd, m, "target.mcore wants a version like \"0.18\"");
	if (b && b->kind == NODE_SCALAR && !strcmp(b->scalar, "none"))
		pt->bridge = TARGET_NO_BRIDGE;
	else if (b && (b->kind != NODE_SCALAR || target_parse_version(b->scalar, &pt->bridge)))
		bad(rd, b, "target.bridge wants a version like \"0.5\", or none");
	if (g && (g->kind != NODE_SCALAR || target_parse_gpu(g->scalar, &pt->gpu_major)))
		bad(rd, g, "target.gpu wants an architecture like sm_90, h100 or b200");
	else if (g)
		pt->gpu = g->scalar;
	const struct node *te = node_get(n, "te");
	if (te && (te->kind != NODE_SCALAR || target_parse_te(te->scalar, &pt->te)))
		bad(rd, te, "target.te wants a Transformer Engine release like \"2.12\"");
	struct target t = {.mcore = pt->mcore, .bridge = pt->bridge};
	char why[256];
	if ((pt->mcore || pt->bridge) && target_resolve(&t, why, sizeof(why)))
		bad(rd, m ? m : b, "%s", why);
}

static void read_part(struct reader *rd, const struct node *n, struct part *pt)
{
	read_target(rd, node_get(n, "target"), pt);
	const struct node *sel = node_get(n, "select");
	pt->has_select = sel != NULL;
	pt->select = rule_patterns(rd, sel, "select", &pt->n_select);
	pt->ignore = rule_patterns(rd, node_get(n, "ignore"), "ignore", &pt->n_ignore);
	const struct node *fo = node_get(n, "fail-on");
	if (fo && (fo->kind != NODE_SCALAR || diag_fail_on_parse(fo->scalar, &pt->fail_on)))
		bad(rd, fo, "fail-on is error, warning, note or undecided");
	else
		pt->has_fail_on = fo != NULL;
	const struct node *sev = node_get(n, "severity");
	if (!sev)
		return;
	if (sev->kind != NODE_MAP) {
		bad(rd, sev, "severity wants a mapping of rules to error, warning, note or off");
		return;
	}
	pt->sev_ids = arena_alloc(rd->pj->a, (sev->n + 1) * sizeof(*pt->sev_ids));
	pt->sevs = arena_alloc(rd->pj->a, (sev->n + 1) * sizeof(*pt->sevs));
	const char **off = arena_alloc(rd->pj->a, (pt->n_ignore + sev->n + 1) * sizeof(*off));
	if (pt->n_ignore)
		memcpy(off, pt->ignore, pt->n_ignore * sizeof(*off));
	pt->ignore = off;
	for (size_t k = 0; k < sev->n; k++) {
		const struct node *key = sev->items[2 * k], *val = sev->items[2 * k + 1];
		struct node one = *key;
		size_t c;
		const char **id = rule_patterns(rd, &one, "severity", &c);
		enum sev s;
		if (val->kind == NODE_SCALAR && !strcmp(val->scalar, "off")) {
			if (c)
				off[pt->n_ignore++] = id[0];
		} else if (val->kind != NODE_SCALAR || diag_sev_parse(val->scalar, &s)) {
			bad(rd, val, "severity of %s is error, warning, note or off", key->scalar ? key->scalar : "?");
		} else if (c) {
			pt->sev_ids[pt->n_sevs] = id[0];
			pt->sevs[pt->n_sevs++] = s;
		}
	}
}

/* Whether folder 'dir' is a git work tree's root (.git a folder, or a file in a worktree). */
static bool repo_root(struct proj *pj, const char *dir)
{
	struct stat st;
	return lstat(arena_printf(pj->a, "%s/.git", strcmp(dir, "/") ? dir : ""), &st) == 0;
}

/* Whether 'real' (resolved) lies in folder 'root' (resolved). */
static bool under(const char *real, const char *root)
{
	size_t n = strlen(root);
	return root[0] && !strncmp(real, root, n) && (real[n] == '/' || !strcmp(root, "/"));
}

/*
 * What a project config may name as a rule pack: files in the git repository that holds it, or
 * in the user's own config folder. A repository's config is untrusted input in CI (a pull
 * request's), and a pack's lines come back in error messages.
 */
static bool trusted_pack(struct proj *pj, const char *dir, const char *real)
{
	const char *root = NULL;
	for (const char *d = dir; d && !root; d = parent_dir(pj->a, d))
		if (repo_root(pj, d))
			root = d;
	if (!root)
		return true;    /* no repository: no pull request's files either */
	const char *xdg = getenv("XDG_CONFIG_HOME"), *home = getenv("HOME");
	const char *user = xdg && *xdg ? arena_printf(pj->a, "%s/cglint", xdg)
			 : home && *home ? arena_printf(pj->a, "%s/.config/cglint", home) : NULL;
	const char *root_real = resolve(pj->a, root), *user_real = user ? resolve(pj->a, user) : NULL;
	return (root_real && under(real, root_real)) || (user_real && under(real, user_real));
}

static void load_packs(struct reader *rd, struct cfg *c, const struct node *n)
{
	size_t count;
	const char **files = strings(rd, n, "rules", &count);
	for (size_t k = 0; k < count; k++) {
		const char *p = files[k][0] == '/' ? files[k] : arena_printf(rd->pj->a, "%s/%s", c->dir, files[k]);
		struct proj *pj = rd->pj;
		const char *real = resolve(pj->a, p);
		if (!real)
			real = p;
		if (real[0] == '/' && !trusted_pack(pj, c->dir, real)) {
			bad(rd, n->kind == NODE_SEQ ? n->items[k] : n,
			    "rule pack '%s' is outside this repository: a .cglint.yaml names packs inside it (or in "
			    "~/.config/cglint) only; pass --rules to use it", files[k]);
			continue;
		}
		/* a pack is loaded once per session (a --fix re-run or the language server lints
		 * again); two configs naming it share it, each for its own folder */
		if (!pack_has_rules_from(pj->pack, real)) {
			char *text;
			size_t len;
			size_t before = pj->problems->n;
			size_t f = note_file(pj, real, real);
			if (read_path(pj->problems, pj->a, real, &text, &len) == 0) {
				pj->files[f].text = text, pj->files[f].len = len;
				pack_load(pj->pack, pj->problems, real, text, len);
			}
			rd->bad |= pj->problems->n > before;
		}
		pj->pack_paths = mem_realloc(pj->pack_paths, (pj->n_packs + 1) * sizeof(*pj->pack_paths));
		pj->pack_dirs = mem_realloc(pj->pack_dirs, (pj->n_packs + 1) * sizeof(*pj->pack_dirs));
		pj->pack_paths[pj->n_packs] = real;
		pj->pack_dirs[pj->n_packs++] = c->dir;
	}
}

static const struct cfg *find(struct proj *pj, const char *dir);

/* 'path' as shown, 'abs' the same file in its resolved folder: the key of an open text. */
static struct cfg *read_cfg(struct proj *pj, const char *path, const char *abs, const char *dir)
{
	struct cfg *c = arena_alloc(pj->a, sizeof(*c));
	c->path = path;
	c->dir = dir;
	struct reader rd = {pj, path, false};
	char *buf;
	size_t len;
	struct node *root = NULL;
	const char *open;
	size_t f = note_file(pj, path, abs);
	if (text_get(pj->open, abs, &open, &len))
		buf = arena_strndup(pj->a, open, len);  /* the run may outlive the open text */
	else if (read_path(pj->problems, pj->a, path, &buf, &len))
		return c;       /* reported; the file applies with nothing set */
	pj->files[f].text = buf, pj->files[f].len = len;
	if (fe_yaml_parse(pj->a, pj->problems, path, buf, len, &root))
		return c;       /* reported; the file applies with nothing set */
	if (!root)
		return c;
	if (!check_keys(&rd, root, proj_keys, "the project config"))
		return c;
	const struct node *inh = node_get(root, "inherit");
	if (inh && !(node_is_scalar(inh, "true") || node_is_scalar(inh, "false")))
		bad(&rd, inh, "inherit is true or false");
	load_packs(&rd, c, node_get(root, "rules"));       /* before rule names are checked */
	read_part(&rd, root, &c->top);
	c->exclude = strings(&rd, node_get(root, "exclude"), "exclude", &c->n_exclude);
	size_t n_py;
	const char **py = strings(&rd, node_get(root, "python-path"), "python-path", &n_py);
	for (size_t k = 0; k < n_py; k++)    /* folders of the run's Python search path (pyenv.h) */
		pyenv_add(py[k][0] == '/' ? py[k] : arena_printf(pj->a, "%s/%s", c->dir, py[k]));
	const struct node *per = node_get(root, "per-path");
	if (per && per->kind != NODE_SEQ) {
		bad(&rd, per, "per-path wants a list of {paths: [...], ...} entries");
	} else if (per) {
		c->per = arena_alloc(pj->a, (per->n + 1) * sizeof(*c->per));
		for (size_t k = 0; k < per->n; k++) {
			const struct node *e = per->items[k];
			if (!check_keys(&rd, e, proj_part_keys, "a per-path entry"))
				continue;
			struct part *pt = &c->per[c->n_per++];
			pt->globs = strings(&rd, node_get(e, "paths"), "paths", &pt->n_globs);
			if (!pt->n_globs)
				bad(&rd, e, "a per-path entry wants paths: [globs]");
			read_part(&rd, e, pt);
		}
	}
	if (inh && node_is_scalar(inh, "true")) {
		const char *up = parent_dir(pj->a, dir);
		c->parent = up ? find(pj, up) : NULL;
	}
	return c;
}

/* The config that applies in 'dir' (resolved): its own file, else its parent's. */
static const struct cfg *find(struct proj *pj, const char *dir)
{
	size_t k;
	if (strmap_get(&pj->dirs, dir, strlen(dir), &k))
		return pj->cfg_of[k];
	const struct cfg *c = NULL;
	static const char *const names[] = {".cglint.yaml", ".cglint.yml"};
	const char *file = NULL;
	struct stat st;
	for (size_t i = 0; i < 2 && !file; i++) {
		const char *p = arena_printf(pj->a, "%s/%s", strcmp(dir, "/") ? dir : "", names[i]);
		const char *open;
		size_t n;
		if (lstat(p, &st) == 0 || text_get(pj->open, p, &open, &n))
			file = p;       /* whatever it is: a dangling link or a loop is an error, not absent */
	}
	/* record the folder first: a loop through inherit then ends at this entry */
	pj->cfg_of = mem_realloc(pj->cfg_of, (pj->n_dirs + 1) * sizeof(*pj->cfg_of));
	pj->cfg_of[pj->n_dirs] = NULL;
	size_t me = pj->n_dirs++;
	strmap_put(&pj->dirs, dir, strlen(dir), me);
	if (file) {
		const char *rel = pj->cwd ? inside(pj->cwd, file) : NULL;
		c = read_cfg(pj, rel && *rel ? rel : file, file, dir);
	} else if (!repo_root(pj, dir)) {
		const char *up = parent_dir(pj->a, dir);
		c = up ? find(pj, up) : NULL;
	}       /* else the repository's root: a config above it does not reach into the repository */
	pj->cfg_of[me] = c;
	return c;
}

static const struct cfg *cfg_for(struct proj *pj, const char *path, const char **real)
{
	*real = resolve(pj->a, path);
	if (!*real)
		return NULL;
	const char *dir = parent_dir(pj->a, *real);
	return dir ? find(pj, dir) : NULL;
}

/* ---- layering ---- */

static void push_all(struct arena *a, const char ***arr, size_t *n, const char *const *add, size_t m)
{
	if (!m)
		return;
	const char **out = arena_alloc(a, (*n + m) * sizeof(*out));
	if (*n)
		memcpy(out, *arr, *n * sizeof(*out));
	memcpy(out + *n, add, m * sizeof(*out));
	*arr = out;
	*n += m;
}

static void apply(struct arena *a, const struct part *pt, struct proj_settings *s)
{
	if (pt->mcore)
		s->mcore = pt->mcore;
	if (pt->bridge)
		s->bridge = pt->bridge;
	if (pt->gpu) {
		s->gpu = pt->gpu;
		s->gpu_major = pt->gpu_major;
	}
	if (pt->te)
		s->te = pt->te;
	if (pt->has_fail_on) {
		s->has_fail_on = true;
		s->fail_on = pt->fail_on;
	}
	if (pt->has_select) {
		s->filter.select = pt->select;
		s->filter.n_select = pt->n_select;
	}
	push_all(a, &s->filter.ignore, &s->filter.n_ignore, pt->ignore, pt->n_ignore);
	if (pt->n_sevs) {
		size_t n = s->n_sevs;
		push_all(a, &s->sev_ids, &n, pt->sev_ids, pt->n_sevs);
		enum sev *sevs = arena_alloc(a, n * sizeof(*sevs));
		if (s->n_sevs)
			memcpy(sevs, s->sevs, s->n_sevs * sizeof(*sevs));
		memcpy(sevs + s->n_sevs, pt->sevs, pt->n_sevs * sizeof(*sevs));
		s->sevs = sevs;
		s->n_sevs = n;
	}
}

static void layer(struct arena *a, const struct cfg *c, const char *real, struct proj_settings *s)
{
	if (c->parent)
		layer(a, c->parent, real, s);
	apply(a, &c->top, s);
	const char *rel = inside(c->dir, real);
	for (size_t k = 0; k < c->n_per && rel; k++)
		if (any_glob(c->per[k].globs, c->per[k].n_globs, rel))
			apply(a, &c->per[k], s);
}

bool proj_settings(struct proj *pj, const char *path, struct proj_settings *out)
{
	size_t k;
	if (strmap_get(&pj->settings, path, strlen(path), &k)) {
		*out = pj->cache[k];
		return out->config != NULL;
	}
	const char *real;
	const struct cfg *c = cfg_for(pj, path, &real);
	struct proj_settings s = {0};
	if (c) {
		layer(pj->a, c, real, &s);
		s.config = c->path;
	}
	pj->cache = mem_realloc(pj->cache, (pj->n_cache + 1) * sizeof(*pj->cache));
	pj->cache[pj->n_cache] = s;
	const char *key = arena_strdup(pj->a, path);
	strmap_put(&pj->settings, key, strlen(key), pj->n_cache++);
	*out = s;
	return c != NULL;
}

bool proj_excluded(struct proj *pj, const char *path)
{
	const char *real;
	for (const struct cfg *c = cfg_for(pj, path, &real); c; c = c->parent) {
		const char *rel = inside(c->dir, real);
		if (rel && *rel && any_glob(c->exclude, c->n_exclude, rel))
			return true;
	}
	return false;
}

bool proj_rule_applies(struct proj *pj, const struct rule *r, const char *path)
{
	if (!pj->n_packs || !r->defined.path)
		return true;
	bool from_config = false;
	const char *real = NULL;
	for (size_t k = 0; k < pj->n_packs; k++) {
		if (strcmp(pj->pack_paths[k], r->defined.path))
			continue;
		from_config = true;
		if (!real && !(real = resolve(pj->a, path)))
			return false;
		if (inside(pj->pack_dirs[k], real))
			return true;
	}
	return !from_config;
}
