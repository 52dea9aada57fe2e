/* SPDX-License-Identifier: MIT */
/* suggest: did-you-mean by edit distance (insertions, deletions, substitutions, transpositions). */
#ifndef CGLINT_SUGGEST_H
#define CGLINT_SUGGEST_H

#include <stddef.h>

/* Optimal-string-alignment distance, or 'cap'+1 once it exceeds 'cap' (strings over 255 bytes: cap+1). */
unsigned suggest_distance(const char *a, const char *b, unsigned cap);
/* The closest of 'cands' to 'word' within a distance that scales with length, or NULL. */
const char *suggest_closest(const char *word, const char *const *cands, size_t n);

#endif
