/* SPDX-License-Identifier: MIT */
/* sh_cmd: the launch commands a script runs, each with the environment it runs with. */
#include "front/sh_cmd.h"

#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "front/fe_sh.h"
#include "front/sh_asg.h"
#include "front/sh_items.h"
#include "front/sh_exp.h"
#include "front/sh_lex.h"
#include "front/sh_var.h"

void sh_cmd_free(struct sh_cmdst *c)
{
	free(c->w);
	free(c->as);
	free(c->inl);
	*c = (struct sh_cmdst){0};
}

bool sh_cmd_at_start(const struct sh_cmdst *c)
{
	return !c->has_cmd && !c->nas && !c->nw && !c->decl;
}

void sh_cmd_start(struct sh *s, struct sh_cmdst *c)
{
	c->has_cmd = true;
	if (!c->nas)
		return;
	c->inl = mem_alloc(c->nas * sizeof(*c->inl));
	for (size_t i = 0; i < c->nas; i++) {
		struct sh_v *v = &s->vars[c->as[i].var];
		if (!v->is_array)
			c->inl[c->ninl++] = (struct sh_var){v->name, sh_var_text(s, v), sh_var_loc(s, v)};
	}
	for (size_t i = c->nas; i-- > 0;)
		sh_asg_restore(s, &c->as[i]);
	c->nas = 0;
}

void sh_cmd_add_word(struct sh *s, struct sh_cmdst *c, const struct sh_field *f)
{
	if (c->nw >= SH_MAX_ARGS) {
		c->w[c->nw - 1].unresolved = true;
		return;
	}
	if (c->nw == c->capw) {
		c->capw = c->capw ? c->capw * 2 : 16;
		c->w = mem_realloc(c->w, c->capw * sizeof(*c->w));
	}
	s->work += 4;
	c->w[c->nw++] = (struct sh_word){sh_items_text(s, &f->it), sh_lex_loc(s, f->off), f->unres};
}

static bool in_env(const struct sh_v *v)
{
	return v->exported && v->set && !v->is_array;
}

static void rebuild_snapshot(struct sh *s)
{
	size_t from = s->snap_nexp, k = 0;
	if (!s->snap_ok || s->snap_dirty)
		from = 0, s->nsnap = 0, s->capsnap = 0;     /* earlier commands keep the old array */
	for (size_t i = from; i < s->nexp; i++)
		k += in_env(&s->vars[s->exp[i]]);
	if (s->nsnap + k > s->capsnap) {
		struct sh_var *old = s->snap;
		s->capsnap = 2 * (s->nsnap + k) + 16;
		s->snap = arena_alloc(s->a, s->capsnap * sizeof(*s->snap));
		if (s->nsnap)
			memcpy(s->snap, old, s->nsnap * sizeof(*s->snap));
		s->work += 4 * s->nsnap;
	}
	for (size_t i = from; i < s->nexp; i++) {
		struct sh_v *v = &s->vars[s->exp[i]];
		if (in_env(v))
			s->snap[s->nsnap++] = (struct sh_var){v->name, sh_var_text(s, v), sh_var_loc(s, v)};
	}
	s->work += 4 * k;
	s->snap_nexp = s->nexp;
	s->snap_gen = s->env_gen;
	s->snap_ok = true;
	s->snap_dirty = false;
}

void sh_cmd_end(struct sh *s, struct sh_cmdst *c)
{
	if (!c->has_cmd) {
		/* assignments alone: they stay */
		for (size_t i = 0; i < c->nas; i++)
			sh_var_free_elems(&c->as[i].saved);
	} else if (!c->discard && !c->decl && c->nw) {
		struct sh_cmd cmd = {.argc = c->nw, .loc = c->w[0].loc};
		cmd.argv = arena_alloc(s->a, c->nw * sizeof(*cmd.argv));
		memcpy(cmd.argv, c->w, c->nw * sizeof(*cmd.argv));
		if (!s->snap_ok || s->snap_gen != s->env_gen)
			rebuild_snapshot(s);
		cmd.env = s->snap, cmd.n_env = s->nsnap;
		if (c->ninl) {
			cmd.n_env = s->nsnap + c->ninl;
			cmd.env = arena_alloc(s->a, cmd.n_env * sizeof(*cmd.env));
			if (s->nsnap)
				memcpy(cmd.env, s->snap, s->nsnap * sizeof(*cmd.env));
			memcpy(cmd.env + s->nsnap, c->inl, c->ninl * sizeof(*cmd.env));
			s->work += 4 * cmd.n_env;
		}
		if (s->ncmds == s->capcmds) {
			s->capcmds = s->capcmds ? s->capcmds * 2 : 16;
			s->cmds = mem_realloc(s->cmds, s->capcmds * sizeof(*s->cmds));
		}
		s->cmds[s->ncmds++] = cmd;
		s->work += 4;
	}
	sh_cmd_free(c);
}
