/* SPDX-License-Identifier: MIT */
/* check: built-in config checks that rules name with 'check:' (see checks.def). */
#ifndef CGLINT_CHECK_H
#define CGLINT_CHECK_H

struct judge;
struct rule;

#define CHECK(tag, name, fn) void fn(struct judge *j, const struct rule *r);
#include "config/checks.def"
#undef CHECK

#endif
