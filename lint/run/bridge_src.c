/* SPDX-License-Identifier: MIT */
/* bridge_src: the installed Megatron-Bridge's defaults against the packs' (see bridge_src.h). */
#include "run/bridge_src.h"

#include <stdlib.h>
#include <string.h>

#include "base/diag.h"
#include "base/mem.h"
#include "config/pack.h"
#include "config/target.h"
#include "front/py/fe_py.h"
#include "front/py/py_bridge.h"
#include "run/lint.h"
#include "run/unit.h"

/* "training/config.py:321" for a file under the release's root */
static const char *where(struct arena *a, const char *root, struct loc at)
{
	size_t n = strlen(root);
	const char *path = !strncmp(at.path, root, n) && at.path[n] == '/' ? at.path + n + 1 : at.path;
	return arena_printf(a, "%s:%u", path, at.line);
}

/* The defaults that could not be compared, by reason: "REASON (model.x, model.y and 3 more)". */
struct open {
	const char *why[64];
	const char *keys[64][3];
	size_t n_keys[64], n;
};

static void open_add(struct open *o, const char *why, const char *key)
{
	size_t g = 0;
	while (g < o->n && strcmp(o->why[g], why))
		g++;
	if (g == o->n && o->n < 64)
		o->why[o->n++] = why;
	if (g < o->n && o->n_keys[g] < 3)
		o->keys[g][o->n_keys[g]] = key;
	if (g < o->n)
		o->n_keys[g]++;
}

static void open_say(const struct open *o, struct sbuf *sb)
{
	for (size_t g = 0; g < o->n; g++) {
		sbuf_printf(sb, "%s%s (", g ? "; " : ": ", o->why[g]);
		for (size_t k = 0; k < o->n_keys[g] && k < 3; k++)
			sbuf_printf(sb, "%s%s", k ? ", " : "", o->keys[g][k]);
		if (o->n_keys[g] > 3)
			sbuf_printf(sb, " and %zu more", o->n_keys[g] - 3);
		sbuf_addc(sb, ')');
	}
}

void bridge_src_check(struct lint_run *r, struct loc at, const struct target *tg)
{
	const struct pack *p = r->pack;
	const char *from = arena_printf(r->arena, "%s/<cglint>.py", r->bridge_root);
	struct sbuf differ;
	sbuf_init(&differ);
	struct open *open = mem_alloc(sizeof(*open));
	size_t n_same = 0, n_differ = 0, n_open = 0;
	for (size_t k = 0; k < p->n_defaults; k++) {
		const struct pack_default *d = &p->defaults[k];
		const char *dot = strchr(d->key, '.'), *module, *cls;
		if (!dot || strchr(dot + 1, '.') || !pack_applies(&d->mcore, &d->bridge, tg))
			continue;
		const char *section = arena_strndup(r->arena, d->key, (size_t)(dot - d->key));
		if (!py_bridge_section_class(section, &module, &cls))
			continue;
		struct value v;
		struct loc fat;
		const char *why = NULL;
		int got = fe_py_class_field(r->py, from, module, cls, dot + 1, &v, &fat, &why);
		if (got <= 0 || v.kind == V_UNKNOWN) {
			open_add(open, got < 0 ? arena_printf(r->arena, "no class %s in %s", cls, module)
					       : !got ? arena_printf(r->arena, "%s has no default for it", cls)
					       : why ? why : "not a value cglint reads", d->key);
			n_open++;
			continue;
		}
		if (v.kind == d->val.kind && value_equal(&v, &d->val)) {
			n_same++;
			continue;
		}
		sbuf_printf(&differ, "%s%s = %s (%s), the packs %s", n_differ++ ? "; " : "", d->key,
			    value_string(r->arena, &v, false), where(r->arena, r->bridge_root, fat),
			    value_string(r->arena, &d->val, false));
	}
	char m[16], b[16];
	const char *t = arena_printf(r->arena, "MCore %s, Bridge %s", target_version_str(tg->mcore, m),
				     target_version_str(tg->bridge, b));
	if (r->opts->verbose) {
		struct sbuf line;
		sbuf_init(&line);
		open_say(open, &line);
		unit_say(r, "cglint: Megatron-Bridge at %s against the packs for %s: %zu defaults agree, %zu "
			 "differ, %zu not compared%s\n", r->bridge_root, t, n_same, n_differ, n_open,
			 line.buf ? line.buf : "");
		sbuf_release(&line);
	}
	if (n_differ)
		diag_input(&r->diags, "CG923", at, "the Megatron-Bridge this recipe imports (%s), with the Megatron "
			   "packages it imports, writes %zu %s other than the packs for the target (%s) "
			   "hold: %s; cglint reads the packs'", r->bridge_root, n_differ,
			   n_differ == 1 ? "default" : "defaults", t, differ.buf);
	sbuf_release(&differ);
	free(open);
}
