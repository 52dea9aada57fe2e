/* SPDX-License-Identifier: MIT */
/*
 * sh_items: a value as items (front/sh.h), each byte remembering where it was typed, and the
 * marks for what could not be resolved. Variables store them (sh_var), expansion builds them
 * (sh_exp). Every item added counts against the script's budget (SH_MAX_WORK).
 */
#ifndef CGLINT_SH_ITEMS_H
#define CGLINT_SH_ITEMS_H

#include <stdbool.h>

#include "front/sh.h"

/* Append one item (c is 0 for a mark). */
void sh_items_put(struct sh *s, struct sh_items *o, size_t off, char c, unsigned char k);
/* Copy a stored value; its bytes become kind k, its marks stay marks. */
void sh_items_put_el(struct sh *s, struct sh_items *o, const struct sh_items *el, unsigned char k);
/* An expansion as a variable keeps it: no splitting, "${A[@]}" joined with spaces. */
void sh_items_keep(struct sh *s, struct sh_items *dst, const struct sh_items *src);
bool sh_items_has_unres(const struct sh_items *it);
/* The bytes of 'it' without its marks, in the arena. */
char *sh_items_text(struct sh *s, const struct sh_items *it);

#endif
