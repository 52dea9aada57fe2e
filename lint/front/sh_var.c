/* SPDX-License-Identifier: MIT */
/* sh_var: the script's variables, and what assignments and exports do to them. */
#include "front/sh_var.h"

#include <stdint.h>
#include <stdlib.h>

#include "base/mem.h"
#include "base/strmap.h"
#include "front/sh_exp.h"
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

static struct sh_items *push_elem(struct sh_v *v)
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
		v->text = !v->nel ? "" : sh_exp_has_unres(&v->el[0]) ? NULL : sh_exp_items_text(s, &v->el[0]);
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
		*push_elem(v) = *val;
	}
	v->set = true;
	v->off = (uint32_t)off;
	sh_var_changed(s, v);
}

bool sh_var_asg_head(const struct sh *s, size_t p, struct sh_var_head *h)
{
	if (!sh_name_start(sh_at(s, p)))
		return false;
	size_t q = p;
	while (sh_name_char(sh_at(s, q)))
		q++;
	*h = (struct sh_var_head){.name = p, .name_len = q - p};
	if (sh_at(s, q) == '[') {
		size_t r = q + 1;
		while (r < s->n && !sh_in_set(s->t[r], "]\n"))
			r++;
		if (sh_at(s, r) != ']')
			return false;
		h->has_sub = true, h->sub = q + 1, h->sub_len = r - q - 1;
		q = r + 1;
	}
	if (sh_at(s, q) == '+')
		h->append = true, q++;
	if (sh_at(s, q) != '=')
		return false;
	h->value = q + 1;
	return true;
}

/* Save a variable before a prefix assignment changes it; the copy it keeps is its own. */
static void save_var(struct sh *s, struct sh_cmdst *c, size_t vi)
{
	if (c->nas == c->capas) {
		c->capas = c->capas ? c->capas * 2 : 4;
		c->as = mem_realloc(c->as, c->capas * sizeof(*c->as));
	}
	struct sh_v *v = &s->vars[vi];
	c->as[c->nas++] = (struct sh_asg){vi, *v};
	struct sh_items *old = v->el;
	size_t nel = v->nel;
	v->el = NULL, v->nel = v->capel = 0;
	for (size_t i = 0; i < nel; i++) {
		struct sh_items *e = push_elem(v);
		for (size_t k = 0; k < old[i].n && !e->cut; k++)
			sh_exp_put(s, e, old[i].v[k].off, old[i].v[k].c, old[i].v[k].k);
	}
}

void sh_var_restore(struct sh *s, struct sh_asg *a)
{
	struct sh_v *v = &s->vars[a->var];
	sh_var_free_elems(v);
	*v = a->saved;
	sh_var_changed(s, v);
}

/* ( ... ) at *pos, expanded before it replaces (or extends) the elements of vars[vi]. */
static int read_array(struct sh *s, size_t *pos, struct sh_v **vp, size_t vi, bool append)
{
	size_t p = *pos + 1, open = *pos;
	struct sh_fields fs = {0};
	for (;;) {
		while (p < s->n &&
		       (sh_is_blank(s->t[p]) || s->t[p] == '\n' || (s->t[p] == '\\' && sh_at(s, p + 1) == '\n')))
			p += s->t[p] == '\\' ? 2 : 1;
		if (p >= s->n) {
			sh_exp_free_fields(&fs);
			return sh_lex_fail(s, open, "unterminated array ( ... )");
		}
		char c = s->t[p];
		if (c == '#') {
			while (p < s->n && s->t[p] != '\n')
				p++;
			continue;
		}
		if (c == ')') {
			p++;
			break;
		}
		if (sh_is_meta(c)) {
			sh_exp_free_fields(&fs);
			return sh_lex_fail(s, p, "an operator inside an array ( ... )");
		}
		struct sh_items w = {0};
		int rc = sh_exp_scan(s, &p, X_WORD, 0, p, &w, NULL);
		if (!rc)
			sh_exp_split(s, &w, &fs);
		free(w.v);
		if (rc) {
			sh_exp_free_fields(&fs);
			return -1;
		}
	}
	struct sh_v *v = *vp = &s->vars[vi];
	if (!append)
		sh_var_free_elems(v);
	v->is_array = true;
	for (size_t i = 0; i < fs.n; i++) {
		if (v->nel >= SH_MAX_ARGS) {
			free(fs.v[i].it.v);
			continue;
		}
		*push_elem(v) = fs.v[i].it;
	}
	free(fs.v);
	*pos = p;
	return 0;
}

int sh_var_assignment(struct sh *s, size_t *pos, struct sh_cmdst *c, const struct sh_var_head *h)
{
	size_t p = h->value, vi = sh_var_get(s, s->t + h->name, h->name_len);
	if (!c->decl)
		save_var(s, c, vi);
	struct sh_v *v = &s->vars[vi];    /* for GCC: it cannot see that sh_lex_fail returns -1 */
	if (sh_at(s, p) == '(' && !h->has_sub) {
		if (read_array(s, &p, &v, vi, h->append) < 0)
			return -1;
	} else {
		struct sh_items w = {0}, val = {0};
		if (sh_exp_scan(s, &p, X_WORD, 0, p, &w, NULL) < 0) {
			free(w.v);
			return -1;
		}
		sh_exp_keep_value(s, &val, &w);
		free(w.v);
		v = &s->vars[vi];       /* ${X:=...} in the value may have moved the table */
		size_t idx = 0;
		bool idx_known = !h->has_sub || h->sub_len;
		for (size_t i = 0; h->has_sub && i < h->sub_len && idx_known; i++) {
			idx_known = sh_is_digit(s->t[h->sub + i]);
			if (idx < SH_MAX_ARGS)
				idx = idx * 10 + (size_t)(s->t[h->sub + i] - '0');
		}
		if (!idx_known) {
			free(val.v);    /* A[$i]=x: which element is unknown; A is left as it was */
			*pos = p;
			return 0;
		}
		if (h->has_sub) {
			v->is_array = true;
			if (idx < v->nel && !h->append) {
				free(v->el[idx].v);
				v->el[idx] = val;
			} else if (idx < v->nel) {
				sh_exp_put_el(s, &v->el[idx], &val, K_CH);
				free(val.v);
			} else if (v->nel < SH_MAX_ARGS) {
				*push_elem(v) = val;        /* no sparse arrays: a gap closes up */
			} else {
				free(val.v);
			}
		} else if (h->append && v->nel) {
			sh_exp_put_el(s, &v->el[0], &val, K_CH);
			free(val.v);
		} else {
			sh_var_assign_scalar(s, vi, &val, h->value);
		}
	}
	v->set = true;
	v->off = (uint32_t)h->value;
	sh_var_changed(s, v);
	if (c->decl_x && c->decl != D_UNSET)
		sh_var_export(s, vi, c->decl_x > 0);
	*pos = p;
	return 0;
}
