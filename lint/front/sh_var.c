/* SPDX-License-Identifier: MIT */
/* sh_var: the script's variables, and what assignments and exports do to them. */
#include "front/sh_var.h"

#include <stdint.h>
#include <stdlib.h>

#include "base/mem.h"
#include "base/strmap.h"
#include "front/sh_items.h"
#include "front/sh_lex.h"

/* ---- variables ---- */

struct sh_v *sh_var_find(struct sh *s, const char *name, size_t len)
{
	size_t k;
	return strmap_get(&s->index, name, len, &k) ? &s->vars[k] : NULL;
}

size_t sh_var_get(struct sh *s, const char *name, size_t len)
{
	size_t k;
	if (strmap_get(&s->index, name, len, &k))
		return k;
	if (s->nvars == s->capvars) {
		s->capvars = s->capvars ? s->capvars * 2 : 32;
		s->vars = mem_realloc(s->vars, s->capvars * sizeof(*s->vars));
	}
	s->vars[s->nvars] = (struct sh_v){.name = arena_strndup(s->a, name, len), .len = len};
	strmap_put(&s->index, s->vars[s->nvars].name, len, s->nvars);
	s->work += 4;
	return s->nvars++;
}

void sh_var_free_elems(struct sh_v *v)
{
	for (size_t i = 0; i < v->nel; i++)
		free(v->el[i].v);
	free(v->el);
	v->el = NULL;
	v->nel = v->capel = 0;
}

struct sh_items *sh_var_push_elem(struct sh_v *v)
{
	if (v->nel == v->capel) {
		v->capel = v->capel ? v->capel * 2 : 4;
		v->el = mem_realloc(v->el, v->capel * sizeof(*v->el));
	}
	v->el[v->nel] = (struct sh_items){0};
	return &v->el[v->nel++];
}

void sh_var_changed(struct sh *s, struct sh_v *v)
{
	v->cached = false;
	v->text = NULL;
	if (v->exported)
		s->env_gen++, s->snap_dirty = true;
}

void sh_var_export(struct sh *s, size_t vi, bool on)
{
	struct sh_v *v = &s->vars[vi];
	if (v->exported == on)
		return;
	v->exported = on;
	s->env_gen++;
	if (!on || v->listed)
		s->snap_dirty = true;
	if (on && !v->listed) {
		/* listed once: the order is that of first export */
		v->listed = true;
		if (s->nexp == s->capexp) {
			s->capexp = s->capexp ? s->capexp * 2 : 16;
			s->exp = mem_realloc(s->exp, s->capexp * sizeof(*s->exp));
		}
		s->exp[s->nexp++] = vi;
	}
}

const char *sh_var_text(struct sh *s, struct sh_v *v)
{
	if (!v->cached) {
		v->cached = true;
		v->text = !v->nel ? "" : sh_items_has_unres(&v->el[0]) ? NULL : sh_items_text(s, &v->el[0]);
	}
	return v->text;
}

struct loc sh_var_loc(const struct sh *s, const struct sh_v *v)
{
	return sh_lex_loc(s, v->nel && v->el[0].n ? v->el[0].v[0].off : v->off);
}

/* ---- assignments ---- */

void sh_var_assign_scalar(struct sh *s, size_t vi, const struct sh_items *val, size_t off)
{
	struct sh_v *v = &s->vars[vi];
	if (v->is_array && v->nel) {
		free(v->el[0].v);
		v->el[0] = *val;
	} else {
		sh_var_free_elems(v);
		*sh_var_push_elem(v) = *val;
	}
	v->set = true;
	v->off = (uint32_t)off;
	sh_var_changed(s, v);
}
