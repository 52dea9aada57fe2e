/* SPDX-License-Identifier: MIT */
/*
 * cap_words: how the capture checks' messages read, their {placeholders} filled from a
 * struct cap_words (cap.h), below cap.c's reports.
 */
#ifndef CGLINT_CAP_WORDS_H
#define CGLINT_CAP_WORDS_H

struct cap;
struct cap_words;
struct sir_ev;

/* The rule message 'tmpl' with its {placeholders} filled in from 'w', in c's arena. */
const char *cap_words_fill(const struct cap *c, const char *tmpl, const struct cap_words *w);
/* How a call reads in a message: "cudaMemcpy", "launch of kernel 'k'", "cudaMalloc (in macro
 * CHECK)". */
const char *cap_words_api(const struct cap *c, const struct sir_ev *e);

#endif
