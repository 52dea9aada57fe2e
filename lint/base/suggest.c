/* SPDX-License-Identifier: MIT */
/* suggest: bounded edit distance for did-you-mean hints. */
#include "base/suggest.h"

#include <ctype.h>
#include <string.h>

#define SUGGEST_MAX_LEN 255

/* A character as it reads: case, and O/0, l/1, I/1 (ids typed from a printout), folded away. */
static int glyph(char c)
{
	int g = tolower((unsigned char)c);
	return g == 'o' ? '0' : g == 'l' || g == 'i' ? '1' : g;
}

/* What putting 'x' where 'y' stands costs: nothing, a look-alike, or a whole edit. */
static unsigned sub_cost(char x, char y)
{
	return x == y ? 0 : glyph(x) == glyph(y) ? SUGGEST_LOOKALIKE : SUGGEST_EDIT;
}

unsigned suggest_distance(const char *a, const char *b, unsigned cap)
{
	size_t la = strlen(a), lb = strlen(b);
	if (la > SUGGEST_MAX_LEN || lb > SUGGEST_MAX_LEN)
		return cap + 1;
	if ((la > lb ? la - lb : lb - la) * SUGGEST_EDIT > cap)
		return cap + 1;
	unsigned rows[3][SUGGEST_MAX_LEN + 1];
	unsigned *prev2 = rows[0], *prev = rows[1], *cur = rows[2];
	for (size_t j = 0; j <= lb; j++)
		prev[j] = (unsigned)j * SUGGEST_EDIT;
	for (size_t i = 1; i <= la; i++) {
		cur[0] = (unsigned)i * SUGGEST_EDIT;
		unsigned best = cur[0];
		for (size_t j = 1; j <= lb; j++) {
			unsigned d = prev[j] + SUGGEST_EDIT, sub = prev[j - 1] + sub_cost(a[i - 1], b[j - 1]);
			if (cur[j - 1] + SUGGEST_EDIT < d)
				d = cur[j - 1] + SUGGEST_EDIT;
			if (sub < d)
				d = sub;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
			    prev2[j - 2] + SUGGEST_EDIT < d)
				d = prev2[j - 2] + SUGGEST_EDIT;
			cur[j] = d;
			if (d < best)
				best = d;
		}
		if (best > cap)
			return cap + 1;
		unsigned *t = prev2;
		prev2 = prev;
		prev = cur;
		cur = t;
	}
	return prev[lb] > cap ? cap + 1 : prev[lb];
}

const char *suggest_closest(const char *word, const char *const *cands, size_t n)
{
	size_t len = strlen(word);
	/* short words need a near miss; long ones tolerate a few typos */
	unsigned cap = (len < 4 ? 1 : len < 9 ? 2 : 3) * SUGGEST_EDIT;
	const char *best = NULL;
	unsigned best_d = cap + 1;
	for (size_t k = 0; k < n; k++) {
		unsigned d = suggest_distance(word, cands[k], cap);
		if (d < best_d && strcmp(word, cands[k])) {
			best = cands[k];
			best_d = d;
		}
	}
	return best;
}
