/* SPDX-License-Identifier: MIT */
/* suggest: bounded edit distance for did-you-mean hints. */
#include "base/suggest.h"

#include <string.h>

#define SUGGEST_MAX_LEN 255

unsigned suggest_distance(const char *a, const char *b, unsigned cap)
{
	size_t la = strlen(a), lb = strlen(b);
	if (la > SUGGEST_MAX_LEN || lb > SUGGEST_MAX_LEN)
		return cap + 1;
	if ((la > lb ? la - lb : lb - la) > cap)
		return cap + 1;
	unsigned rows[3][SUGGEST_MAX_LEN + 1];
	unsigned *prev2 = rows[0], *prev = rows[1], *cur = rows[2];
	for (size_t j = 0; j <= lb; j++)
		prev[j] = (unsigned)j;
	for (size_t i = 1; i <= la; i++) {
		cur[0] = (unsigned)i;
		unsigned best = cur[0];
		for (size_t j = 1; j <= lb; j++) {
			unsigned cost = a[i - 1] != b[j - 1];
			unsigned d = prev[j] + 1;
			if (cur[j - 1] + 1 < d)
				d = cur[j - 1] + 1;
			if (prev[j - 1] + cost < d)
				d = prev[j - 1] + cost;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] && prev2[j - 2] + 1 < d)
				d = prev2[j - 2] + 1;
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
	unsigned cap = len < 4 ? 1 : len < 9 ? 2 : 3;
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
