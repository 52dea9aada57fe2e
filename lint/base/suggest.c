/* SPDX-License-Identifier: MIT */
/* suggest: bounded edit distance for did-you-mean hints. */
#include "base/suggest.h"

#include <ctype.h>
#include <limits.h>
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

/* Damerau-Levenshtein (adjacent swaps), computed only in the band of cells that can stay within
 * 'cap': a cell more than cap / SUGGEST_EDIT off the diagonal needs that many insertions. */
unsigned suggest_distance(const char *a, const char *b, unsigned cap)
{
	size_t la = strlen(a), lb = strlen(b), band = cap / SUGGEST_EDIT;
	const unsigned inf = cap + 1;
	if (la > SUGGEST_MAX_LEN || lb > SUGGEST_MAX_LEN)
		return inf;
	if ((la > lb ? la - lb : lb - la) > band)
		return inf;
	unsigned rows[3][SUGGEST_MAX_LEN + 2];
	unsigned *prev2 = rows[0], *prev = rows[1], *cur = rows[2];
	for (size_t j = 0; j <= lb + 1; j++)
		prev[j] = prev2[j] = j <= band ? (unsigned)j * SUGGEST_EDIT : inf;
	for (size_t i = 1; i <= la; i++) {
		size_t lo = i > band ? i - band : 1, hi = i + band < lb ? i + band : lb;
		cur[lo - 1] = lo == 1 && i <= band ? (unsigned)i * SUGGEST_EDIT : inf;
		cur[hi + 1] = inf;      /* read as prev[j] by the next row's last cell */
		unsigned best = cur[lo - 1];
		for (size_t j = lo; j <= hi; j++) {
			unsigned d = prev[j] + SUGGEST_EDIT, sub = prev[j - 1] + sub_cost(a[i - 1], b[j - 1]);
			if (cur[j - 1] + SUGGEST_EDIT < d)
				d = cur[j - 1] + SUGGEST_EDIT;
			if (sub < d)
				d = sub;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
			    prev2[j - 2] + SUGGEST_EDIT < d)
				d = prev2[j - 2] + SUGGEST_EDIT;
			cur[j] = d < inf ? d : inf;
			if (cur[j] < best)
				best = cur[j];
		}
		if (best > cap)
			return inf;
		unsigned *t = prev2;
		prev2 = prev;
		prev = cur;
		cur = t;
	}
	return prev[lb] > cap ? inf : prev[lb];
}

unsigned suggest_typo(const char *word, const char *cand)
{
	size_t len = strlen(cand), wlen = strlen(word);
	if (!wlen || !len || (word[0] != cand[0] && word[wlen - 1] != cand[len - 1]))
		return UINT_MAX;
	unsigned cap = (len < 9 ? 1 : len < 16 ? 2 : 3) * SUGGEST_EDIT;
	unsigned d = suggest_distance(word, cand, cap);
	return d <= cap ? d : UINT_MAX;
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
