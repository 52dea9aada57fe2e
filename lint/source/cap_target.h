/* SPDX-License-Identifier: MIT */
/*
 * cap_target: the functions an indirect call of a walked function may reach (a function
 * pointer, a std::function, a lambda object, a table entry), below cap.c's walk of a region.
 */
#ifndef CGLINT_CAP_TARGET_H
#define CGLINT_CAP_TARGET_H

#include <stddef.h>

struct cap;
struct cap_frame;
struct sir_ev;

#define CAP_MAX_TARGETS 8

/* The functions the pointer, std::function or lambda object 'e' calls through may hold: what
 * it denotes through the calls followed, else every function the unit stores in it (assigned,
 * initialised with, set by an aggregate initializer, or, for a parameter of the region's own
 * function, passed by a caller). Writes their indices + 1 to 'v' (CAP_MAX_TARGETS at most) and
 * returns how many; 0 when the unit does not show one. */
size_t cap_target_of(const struct cap *c, const struct cap_frame *f, const struct sir_ev *e, int *v);

#endif
