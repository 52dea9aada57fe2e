/* SPDX-License-Identifier: MIT */
/* fields: a key or a flag against the target's name sets (see fields.h). */
#include "config/fields.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "base/suggest.h"
#include "config/pack.h"
#include "config/target.h"

#define MLM "megatron-lm"

static bool hit_holds(const struct pack_name_hit *h, const struct target *tg, bool extra)
{
	if (h->option)
		return target_in_range(h->range, tg->mcore, false) && (!h->extra || extra);
	return target_in_range(h->range, tg->bridge, true);
}

static bool any_holds(const struct pack_name_hit *h, size_t n, const struct target *tg, bool extra)
{
	for (size_t k = 0; k < n; k++)
		if (hit_holds(&h[k], tg, extra))
			return true;
	return false;
}

struct nearest {
	const struct target *tg;
	bool extra;
	const char *word;
	size_t wlen;
	unsigned best;
	char *out;
};

static void consider(void *ctx, const char *name, size_t len, struct pack_names_item it)
{
	struct nearest *n = ctx;
	struct pack_name_hit hits[16];
	char cand[128];
	/* suggest_typo's own first test, before the copy: most names fail it */
	if (len >= sizeof(cand) || name[0] == '_' || (name[0] != n->word[0] && name[len - 1] != n->word[n->wlen - 1]) ||
	    !any_holds(hits, pack_names_hits(it, hits, 16), n->tg, n->extra))
		return;
	memcpy(cand, name, len);
	cand[len] = '\0';
	unsigned d = suggest_typo(n->word, cand);
	if (d < n->best) {
		n->best = d;
		memcpy(n->out, cand, len + 1);
	}
}

static enum field_verdict judge(const struct pack *p, const struct target *tg, const char *sec, const char *name,
				size_t len, bool extra, struct field_info *out)
{
	struct pack_name_hit hits[16];
	int n = pack_names_find(p, sec, name, len, hits, 16);
	if (n < 0)
		return FIELD_UNJUDGED;  /* no set covers the section: a dict field, a value, no table */
	if (any_holds(hits, (size_t)n, tg, extra))
		return FIELD_KNOWN;
	*out = (struct field_info){.name = name};
	for (int k = 0; k < n; k++) {
		size_t used = strlen(out->elsewhere);
		if (hits[k].option && hits[k].extra && !extra)
			continue;       /* the entry point does not add it */
		if (used)
			snprintf(out->elsewhere + used, sizeof(out->elsewhere) - used, ", ");
		used = strlen(out->elsewhere);
		target_range_list(hits[k].range, !hits[k].option, out->elsewhere + used,
				  (unsigned)(sizeof(out->elsewhere) - used));
	}
	char word[128];
	if (len && len < sizeof(word)) {
		memcpy(word, name, len);
		word[len] = '\0';
		struct nearest near = {tg, extra, word, len, UINT_MAX, out->near};
		/* a typo changes the length by three at most (suggest_typo) */
		pack_names_each(p, sec, len > 3 ? len - 3 : 0, len + 3, consider, &near);
	}
	return FIELD_ABSENT;
}

enum field_verdict fields_key(const struct pack *p, const struct target *tg, const char *key, struct field_info *out)
{
	/* cglint's own namespaces, and env_vars (before Bridge 0.6 it is CG203's to say) */
	static const struct { const char *s; size_t n; } own[] = {
		{"env", 3}, {"args", 4}, {"runtime", 7}, {"perf", 4}, {"recipe", 6}, {"env_vars", 8}};
	const char *dot = strchr(key, '.');
	size_t slen = dot ? (size_t)(dot - key) : strlen(key);
	if (tg->bridge == TARGET_NO_BRIDGE || key[0] == '_' || !slen)   /* ".x": no name to judge */
		return FIELD_UNJUDGED;
	for (size_t k = 0; k < sizeof(own) / sizeof(own[0]); k++)
		if (own[k].n == slen && !memcmp(key, own[k].s, slen))
			return FIELD_UNJUDGED;
	enum field_verdict v = judge(p, tg, "", key, slen, false, out);
	if (v != FIELD_KNOWN || !dot)
		return v;
	char sec[64];
	if (slen >= sizeof(sec))
		return FIELD_UNJUDGED;
	memcpy(sec, key, slen);
	sec[slen] = '\0';
	const char *field = dot + 1;
	size_t flen = strcspn(field, ".");
	/* a section holding a dict, or a value (mixed_precision: "bf16_mixed"), has no name set */
	if (!flen || field[0] == '_')
		return FIELD_UNJUDGED;
	return judge(p, tg, sec, field, flen, false, out);
}

int fields_section_vote(const struct pack *p, const struct target *tg, const char *key)
{
	char top[64];
	size_t len = strcspn(key, ".");
	if (!len || len >= sizeof(top))
		return 0;
	memcpy(top, key, len);
	top[len] = '\0';
	struct field_info fi;
	enum field_verdict v = fields_key(p, tg, top, &fi);
	return v == FIELD_KNOWN ? 1 : v == FIELD_ABSENT ? -1 : 0;
}

enum field_verdict fields_mlm_flag(const struct pack *p, const struct target *tg, const char *flag, bool extra,
				   struct field_info *out)
{
	if (strncmp(flag, "--", 2))
		return FIELD_UNJUDGED;
	return judge(p, tg, MLM, flag, strlen(flag), extra, out);
}
