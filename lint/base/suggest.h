/* SPDX-License-Identifier: MIT */
/* suggest: did-you-mean by edit distance (insertions, deletions, substitutions, transpositions). */
#ifndef CGLINT_SUGGEST_H
#define CGLINT_SUGGEST_H

#include <stddef.h>

/* What an edit costs, and what a look-alike substitution costs (a case change, O/0, l/1, I/1):
 * less, so that CG1O4 is nearer CG104 than CG124. */
#define SUGGEST_EDIT 2u
#define SUGGEST_LOOKALIKE 1u

/* Optimal-string-alignment distance in the costs above, or 'cap'+1 once it exceeds 'cap'
 * (strings over 255 bytes: cap+1). A cap of n whole edits is n * SUGGEST_EDIT. */
unsigned suggest_distance(const char *a, const char *b, unsigned cap);
/* The distance of 'word' to a candidate key 'cand' when it reads as a typo of it (one edit under
 * 9 characters, two under 16, three past that, by the candidate's length), else UINT_MAX. A typo
 * seldom hits both ends of a word: where neither end matches, no distance is computed, so a
 * table of hundreds of keys can be scanned. */
unsigned suggest_typo(const char *word, const char *cand);
/* The closest of 'cands' to 'word' within a distance that scales with length, or NULL. */
const char *suggest_closest(const char *word, const char *const *cands, size_t n);

#endif
