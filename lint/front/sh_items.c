/* SPDX-License-Identifier: MIT */
/* sh_items: values whose bytes know where they were typed. */
#include "front/sh_items.h"

#include "base/mem.h"

void sh_items_put(struct sh *s, struct sh_items *o, size_t off, char c, unsigned char k)
{
	if (o->n >= SH_MAX_VALUE || s->work >= SH_MAX_WORK) {
		if (s->work >= SH_MAX_WORK)
			s->over = true;
		if (o->cut)
			return;
		o->cut = true;
		c = 0, k = K_UNRES;
	} else {
		s->work++;
	}
	if (o->n == o->cap) {
		o->cap = o->cap ? o->cap * 2 : 16;
		o->v = mem_realloc(o->v, o->cap * sizeof(*o->v));
	}
	o->v[o->n++] = (struct sh_item){(uint32_t)off, c, k};
}

void sh_items_put_el(struct sh *s, struct sh_items *o, const struct sh_items *el, unsigned char k)
{
	for (size_t i = 0; i < el->n && !o->cut; i++)
		sh_items_put(s, o, el->v[i].off, el->v[i].c, el->v[i].k == K_UNRES ? K_UNRES : k);
}

void sh_items_keep(struct sh *s, struct sh_items *dst, const struct sh_items *src)
{
	for (size_t i = 0; i < src->n && !dst->cut; i++) {
		const struct sh_item *it = &src->v[i];
		if (it->k == K_CH || it->k == K_SPLIT)
			sh_items_put(s, dst, it->off, it->c, K_CH);
		else if (it->k == K_UNRES)
			sh_items_put(s, dst, it->off, 0, K_UNRES);
		else if (it->k == K_BRK)
			sh_items_put(s, dst, it->off, ' ', K_CH);
	}
}

bool sh_items_has_unres(const struct sh_items *it)
{
	for (size_t i = 0; i < it->n; i++)
		if (it->v[i].k == K_UNRES)
			return true;
	return false;
}

char *sh_items_text(struct sh *s, const struct sh_items *it)
{
	size_t n = 0;
	for (size_t i = 0; i < it->n; i++)
		n += it->v[i].k != K_UNRES;
	char *p = arena_alloc(s->a, n + 1);
	n = 0;
	for (size_t i = 0; i < it->n; i++)
		if (it->v[i].k != K_UNRES)
			p[n++] = it->v[i].c;
	s->work += n / 8;
	return p;
}
