/* SPDX-License-Identifier: MIT */
/* sh_asg: assignment words, expanded into variables. */
#include "front/sh_asg.h"

#include <stdint.h>
#include <stdlib.h>

#include "base/mem.h"
#include "front/sh_exp.h"
#include "front/sh_items.h"
#include "front/sh_lex.h"
#include "front/sh_var.h"

bool sh_asg_head(const struct sh *s, size_t p, struct sh_asg_head *h)
{
	if (!sh_name_start(sh_at(s, p)))
		return false;
	size_t q = p;
	while (sh_name_char(sh_at(s, q)))
		q++;
	*h = (struct sh_asg_head){.name = p, .name_len = q - p};
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
		struct sh_items *e = sh_var_push_elem(v);
		for (size_t k = 0; k < old[i].n && !e->cut; k++)
			sh_items_put(s, e, old[i].v[k].off, old[i].v[k].c, old[i].v[k].k);
	}
}

void sh_asg_restore(struct sh *s, struct sh_asg *a)
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
		*sh_var_push_elem(v) = fs.v[i].it;
	}
	free(fs.v);
	*pos = p;
	return 0;
}

int sh_asg_assign(struct sh *s, size_t *pos, struct sh_cmdst *c, const struct sh_asg_head *h)
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
		sh_items_keep(s, &val, &w);
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
				sh_items_put_el(s, &v->el[idx], &val, K_CH);
				free(val.v);
			} else if (v->nel < SH_MAX_ARGS) {
				*sh_var_push_elem(v) = val;        /* no sparse arrays: a gap closes up */
			} else {
				free(val.v);
			}
		} else if (h->append && v->nel) {
			sh_items_put_el(s, &v->el[0], &val, K_CH);
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
