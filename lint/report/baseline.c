/* SPDX-License-Identifier: MIT */
/* baseline: reading, matching and writing known findings (see baseline.h). */
#define _DEFAULT_SOURCE /* realpath */
#include "report/baseline.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "base/diag.h"
#include "base/mem.h"
#include "base/strmap.h"
#include "config/pack.h"
#include "input/read.h"
#include "report/fix.h"

struct baseline {
	char *root;                     /* the baseline file's folder, resolved */
	char *reason;                   /* "recorded in the baseline FILE", for what it suppresses */
	struct strmap index;            /* "path\nrule\nfingerprint" -> entry */
	size_t *left;                   /* per entry: findings it may still match */
	char **keys;
	size_t n;
};

static char *folder_of(const char *path)
{
	char *copy = mem_strdup(path), *slash = strrchr(copy, '/');
	if (!slash)
		strcpy(copy, ".");
	else if (slash == copy)
		slash[1] = '\0';
	else
		*slash = '\0';
	char *real = realpath(copy, NULL);
	free(copy);
	return real;
}

/* A finding's path relative to the baseline's folder ("../x.yaml" when beside it); as written
 * when it does not resolve. */
static char *relative(const char *root, const char *path)
{
	char *real = realpath(path, NULL);
	if (!real || !root)
		return free(real), mem_strdup(path);
	/* the longest common folder, then one ".." per folder of root below it */
	size_t common = 0;
	for (size_t k = 0; root[k] && root[k] == real[k]; k++)
		if (root[k] == '/')
			common = k;
	size_t rn = strlen(root);
	if (!strncmp(real, root, rn) && (real[rn] == '/' || rn == 1))
		common = rn == 1 ? 0 : rn;
	struct sbuf sb;
	sbuf_init(&sb);
	for (size_t k = common; rn > 1 && k < rn; k++)
		if (root[k] == '/')
			sbuf_adds(&sb, "../");
	sbuf_adds(&sb, real + common + (real[common] == '/'));
	char *rel = mem_strdup(sb.buf);
	sbuf_release(&sb);
	free(real);
	return rel;
}

static char *key_of(const char *path, const char *rule, const char *fp)
{
	size_t n = strlen(path) + strlen(rule) + strlen(fp) + 3;
	char *k = mem_alloc(n);
	snprintf(k, n, "%s\n%s\n%s", path, rule, fp);
	return k;
}

static void add(struct baseline *b, char *key)
{
	size_t k;
	if (strmap_get(&b->index, key, strlen(key), &k)) {
		b->left[k]++;
		free(key);
		return;
	}
	b->keys = mem_realloc(b->keys, (b->n + 1) * sizeof(*b->keys));
	b->left = mem_realloc(b->left, (b->n + 1) * sizeof(*b->left));
	b->keys[b->n] = key;
	b->left[b->n] = 1;
	strmap_put(&b->index, key, strlen(key), b->n++);
}

void baseline_free(struct baseline *b)
{
	if (!b)
		return;
	for (size_t k = 0; k < b->n; k++)
		free(b->keys[k]);
	free(b->keys);
	free(b->left);
	free(b->root);
	free(b->reason);
	strmap_release(&b->index);
	free(b);
}

struct baseline *baseline_read(const char *path, struct arena *a, struct diag_list *problems)
{
	char *text;
	size_t len;
	if (read_path(problems, a, path, &text, &len))
		return NULL;
	json_error_t err;
	json_t *doc = json_loadb(text, len, JSON_REJECT_DUPLICATES, &err);
	json_t *items = doc ? json_object_get(doc, "findings") : NULL;
	json_t *version = doc ? json_object_get(doc, "version") : NULL;
	if (!doc || !json_is_array(items) || !json_is_integer(version) || json_integer_value(version) != 1) {
		diag_input(problems, "CG916", (struct loc){path, doc ? 1 : (unsigned)err.line, doc ? 1 : (unsigned)err.column},
			   "not a cglint baseline: %s", doc ? "it wants {\"version\": 1, \"findings\": [...]}" : err.text);
		json_decref(doc);
		return NULL;
	}
	struct baseline *b = mem_alloc(sizeof(*b));
	b->root = folder_of(path);
	size_t rn = strlen(path) + 32;
	b->reason = mem_alloc(rn);
	snprintf(b->reason, rn, "recorded in the baseline %s", path);
	size_t k;
	json_t *it;
	json_array_foreach(items, k, it) {
		const char *p = json_string_value(json_object_get(it, "path"));
		const char *r = json_string_value(json_object_get(it, "rule"));
		const char *f = json_string_value(json_object_get(it, "fingerprint"));
		if (!p || !r || !f) {
			diag_input(problems, "CG916", (struct loc){path, 1, 1},
				   "finding %zu lacks a string path, rule or fingerprint", k + 1);
			json_decref(doc);
			baseline_free(b);
			return NULL;
		}
		add(b, key_of(p, r, f));
	}
	json_decref(doc);
	return b;
}

struct apply_ctx {
	const struct baseline *b;
	size_t *left;
	struct diag_list *aside;
};

static bool keep(struct diag *d, void *ctx)
{
	struct apply_ctx *c = ctx;
	if (!d->fingerprint || !d->loc.path)
		return true;
	char *rel = relative(c->b->root, d->loc.path);
	char *key = key_of(rel, d->rule->head.id, d->fingerprint);
	size_t k;
	bool hit = strmap_get(&c->b->index, key, strlen(key), &k) && c->left[k];
	if (hit) {
		c->left[k]--;
		d->supp = DIAG_SUPP_BASELINE;
		d->supp_reason = c->b->reason;
		diag_push(c->aside, d);
	}
	free(rel);
	free(key);
	return !hit;
}

size_t baseline_apply(const struct baseline *b, struct diag_list *l, struct diag_list *aside)
{
	struct apply_ctx c = {b, mem_alloc((b->n + 1) * sizeof(size_t)), aside};
	if (b->n)
		memcpy(c.left, b->left, b->n * sizeof(size_t));
	size_t gone = diag_filter_out(l, 0, keep, &c);
	free(c.left);
	return gone;
}

int baseline_write(const char *path, const struct diag_list *l)
{
	char *root = folder_of(path);
	json_t *items = json_array();
	for (size_t k = 0; k < l->n; k++) {
		const struct diag *d = &l->items[k];
		if (!d->fingerprint || !d->loc.path)
			continue;
		char *rel = relative(root, d->loc.path);
		json_array_append_new(items, json_pack("{s:s, s:s, s:s, s:s}", "path", rel, "rule", d->rule->head.id,
						       "fingerprint", d->fingerprint, "message", d->message ? d->message : ""));
		free(rel);
	}
	free(root);
	json_t *doc = json_pack("{s:i, s:s, s:o}", "version", 1, "tool", "cglint", "findings", items);
	char *text = json_dumps(doc, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	json_decref(doc);
	if (!text) {
		errno = ENOMEM;
		return -1;
	}
	size_t n = strlen(text);
	text = mem_realloc(text, n + 2);
	text[n++] = '\n';
	int rc = fix_write(path, text, n, NULL);
	free(text);
	return rc;
}
