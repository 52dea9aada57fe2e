/* SPDX-License-Identifier: MIT */
/*
 * fix_py: a mechanical fix in a Python recipe's text. The diagnostic points at a key as fe_py
 * wrote it down -- an assignment's target (`cfg.rng.te_rng_tracker = False`), a constructor's
 * keyword (`RNGConfig(te_rng_tracker=False)`), a dict entry (`"NCCL_GRAPH_REGISTER": 0`) -- or
 * at the literal after one of those. Only a literal on that line is rewritten (True/False/None,
 * a number, a one-line string keeping its quote), in Python's spelling; a value that is not one
 * (a name, a call, `x or y`, an f-string, two strings run together) is left alone. In a chain
 * `a.x = b.y = False` the literal is every target's value: it is rewritten only when the rule's
 * fix wants that same value for each of them.
 */
#ifndef CGLINT_FIX_PY_H
#define CGLINT_FIX_PY_H

#include <stdbool.h>
#include <stddef.h>

struct arena;
struct diag;
struct fix_edit;

/* The edit that gives d->key (last name 'leaf') the text 'value' (the rule's autofix, YAML-spelled:
 * "true") on the diagnostic's line [line, line + n), which starts at byte 'base' of its file; false
 * when there is no literal it can safely rewrite or it already is that. */
bool fix_py_for(struct arena *a, const struct diag *d, const char *value, const char *line, size_t n,
		const char *leaf, size_t base, struct fix_edit *e);

#endif
