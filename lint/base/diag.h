/* SPDX-License-Identifier: MIT */
/*
 * diag: the one funnel. Every check, front-end and input problem reports through
 * diag_report()/diag_input(); selection (--select/--ignore) happens here and nowhere else.
 * Checks decide, the funnel records, output formats print.
 *
 * The list owns its diagnostics; their strings live in the list's arena. Rules are borrowed
 * from their owner (the rule packs), which must outlive the list.
 */
#ifndef CGLINT_DIAG_H
#define CGLINT_DIAG_H

#include <stdbool.h>
#include <stddef.h>

#include "base/loc.h"
#include "base/mem.h"

struct arena;
struct rule;

enum sev { SEV_NOTE, SEV_WARNING, SEV_ERROR };

/* Why a finding is not reported: kept aside for the formats that show suppressed findings (SARIF).
 * DIAG_OPEN is a check that could not be decided: its verdict depends on a key no input makes
 * known. It is no finding (it never fails a run) and never silent: the run counts it, -v, JSON and
 * SARIF (kind "open") list it. */
enum diag_supp { DIAG_SUPP_NONE, DIAG_SUPP_INLINE, DIAG_SUPP_BASELINE, DIAG_OPEN };

/*
 * What the funnel knows of a rule. Every rule starts with one (config/pack.h), so the funnel
 * selects, sorts and records rules without knowing where they come from.
 */
struct diag_rule {
	const char *id, *name;
	enum sev sev;           /* the default; .cglint.yaml may override it per finding */
	const char *fix;        /* the fix hint, may be NULL */
};

/* The rule table the funnel looks input problems (CG9xx) up in, registered by its owner. */
struct diag_rules {
	const void *owner;
	const struct rule *(*find)(const void *owner, const char *id);  /* NULL when none */
	/* Where a rule sits in the owner's table, and the rule at a place: a rule pack holds one
	 * rule per version range under one id, and a list that crosses to a process forked from
	 * this one (diag_wire.h) keeps which. May be NULL: then ids alone, the first of each. */
	unsigned (*index)(const void *owner, const struct rule *r);
	const struct rule *(*at)(const void *owner, unsigned k);        /* NULL past the end */
};

/* A secondary position: a call chain step, where a capture began. */
struct diag_note {
	struct loc loc;
	const char *message;
};

struct diag {
	const struct rule *rule;
	enum sev sev;
	struct loc loc;
	const char *message;
	const char *fix;        /* may be NULL */
	const char *mirrors;    /* source line mirrored for the run's target, may be NULL */
	const char *key;        /* the config key it points at (for fixes), may be NULL */
	const char *fingerprint; /* 16 hex digits that survive line moves (post.h), NULL before */
	const struct diag_note *notes;  /* in the list's arena (or one that outlives it) */
	size_t n_notes;
	enum diag_supp supp;            /* DIAG_SUPP_NONE for a reported finding */
	const char *supp_reason;        /* the directive's "-- reason", or the baseline file; may be NULL */
	const char *unit;               /* the recipe function a Python finding is about (its message
					 * ends " (in UNIT)"), or NULL */
};

/* Rule-id patterns: an exact id ("CG104"), a prefix ("CG1", "CG10"), a name, or "ALL". */
struct diag_filter {
	const char **select;
	size_t n_select;
	const char **ignore;
	size_t n_ignore;
};

struct diag_list {
	struct arena *arena;
	const struct diag_rules *rules;
	const struct diag_filter *filter;
	struct diag *items;
	size_t n, cap;
	bool input_error;       /* an input could not be read or parsed: exit status 2 */
};

void diag_init(struct diag_list *l, struct arena *a, const struct diag_rules *rules, const struct diag_filter *f);
void diag_release(struct diag_list *l);

bool diag_selected(const struct diag_filter *f, const struct rule *r);
/* Whether one pattern (id, id prefix, name or ALL; ids and ALL in any case) names the rule. */
bool diag_matches(const char *pattern, const struct rule *r);
/* Drop the diagnostics for which keep() is false, keeping order; returns how many went. */
size_t diag_filter_out(struct diag_list *l, size_t from, bool (*keep)(struct diag *d, void *ctx), void *ctx);
/* Returns the new diagnostic (to attach notes to), or NULL when selection drops it. */
struct diag *diag_report(struct diag_list *l, const struct rule *r, struct loc loc, const char *message,
			 const char *fix, const char *mirrors);
/* Append a copy of 'd' as it is (no selection): the list of suppressed findings. */
void diag_push(struct diag_list *l, const struct diag *d);
/* Move src's diagnostics to the end of dst (strings stay where they are). */
void diag_move(struct diag_list *dst, struct diag_list *src);
/* An input problem by id (CG9xx); the rule must exist in the list's rules. */
void diag_input(struct diag_list *l, const char *id, struct loc loc, const char *fmt, ...) CG_PRINTF(4, 5);
void diag_sort(struct diag_list *l);
size_t diag_count_at_least(const struct diag_list *l, enum sev s);

const char *diag_sev_name(enum sev s);
int diag_sev_parse(const char *s, enum sev *out);

/* --fail-on and .cglint.yaml fail-on: a severity, or DIAG_FAIL_UNDECIDED, below note: every
 * finding fails, and so does a check no input decided (DIAG_OPEN). */
#define DIAG_FAIL_UNDECIDED (-1)
/* "error", "warning", "note" or "undecided" into *out; -1 for another word. */
int diag_fail_on_parse(const char *s, int *out);
/* Whether a finding of severity 's' fails a run whose fail-on is 'fail_on'. */
static inline bool diag_fails(enum sev s, int fail_on)
{
	return (int)s >= fail_on;
}

#endif
