/* SPDX-License-Identifier: MIT */
/*
 * engine: judges one lint unit's facts for one target, in the real code's order: defaults
 * (when assumed), then the pack's normalization steps in pack order (each leaving a note),
 * then every applicable rule, reporting through the diag funnel.
 */
#ifndef CGLINT_ENGINE_H
#define CGLINT_ENGINE_H

#include <stdbool.h>
#include <stddef.h>

#include "base/loc.h"
#include "base/value.h"
#include "config/judge.h"

struct arena;
struct diag_list;
struct facts;
struct pack;
struct rule;
struct target;

/* What normalization did, for --verbose: "model.cuda_graph_impl: 'none' -> 'local' (MC-03)". */
struct engine_note {
	struct loc loc;
	const char *text;
};

struct engine_notes {
	struct engine_note *items;
	size_t n, cap;
};

struct engine {
	const struct pack *pack;
	struct judge unit;              /* the unit's target, facts and diagnostics (judge.h) */
	struct engine_notes *notes;     /* may be NULL */
};

void engine_run(struct engine *e);
/* Append a note ('text' is borrowed). */
void engine_note_add(struct engine_notes *n, struct loc loc, const char *text);
void engine_notes_release(struct engine_notes *n);

#endif
