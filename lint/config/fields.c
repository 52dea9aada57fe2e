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

static bool set_holds(const struct pack_names *s, const struct target *tg, bool extra)
{
	if (s->option)
		return target_in_range(&s->mcore, tg->mcore, false) && (!s->extra || extra);
	return target_in_range(&s->bridge, tg->bridge, true);
}

struct nearest {
	const struct pack *p;
	const struct target *tg;
	bool extra;
	const char *word;
	unsigned best;
	char *out;
};

static void consider(void *ctx, size_t set, const char *name, size_t len)
{
	struct nearest *n = ctx;
	char cand[128];
	if (len >= sizeof(cand) || name[0] == '_' || !set_holds(&n->p->names[set], n->tg, n->extra))
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
	size_t sets[16];
	size_t n = pack_names_find(p, sec, name, len, sets, 16);
	for (size_t k = 0; k < n; k++)
		if (set_holds(&p->names[sets[k]], tg, extra))
			return FIELD_KNOWN;
	*out = (struct field_info){.name = name};
	for (size_t k = 0; k < n; k++) {
		const struct pack_names *s = &p->names[sets[k]];
		size_t used = strlen(out->elsewhere);
		if (s->option && s->extra && !extra)
			continue;       /* the entry point does not add it */
		if (used)
			snprintf(out->elsewhere + used, sizeof(out->elsewhere) - used, ", ");
		used = strlen(out->elsewhere);
		target_range_list(s->option ? &s->mcore : &s->bridge, !s->option, out->elsewhere + used,
				  (unsigned)(sizeof(out->elsewhere) - used));
	}
	char word[128];
	if (len < sizeof(word)) {
		memcpy(word, name, len);
		word[len] = '\0';
		struct nearest near = {p, tg, extra, word, UINT_MAX, out->near};
		pack_names_each(p, sec, consider, &near);
	}
	return FIELD_ABSENT;
}

enum field_verdict fields_key(const struct pack *p, const struct target *tg, const char *key, struct field_info *out)
{
	static const char *const own[] = {"env", "args", "runtime", "perf", "recipe"};     /* cglint's namespaces */
	if (tg->bridge == TARGET_NO_BRIDGE || !pack_names_has_section(p, ""))
		return FIELD_UNJUDGED;
	const char *dot = strchr(key, '.');
	size_t slen = dot ? (size_t)(dot - key) : strlen(key);
	for (size_t k = 0; k < sizeof(own) / sizeof(own[0]); k++)
		if (strlen(own[k]) == slen && !strncmp(key, own[k], slen))
			return FIELD_UNJUDGED;
	/* env_vars before Bridge 0.6 is CG203's to say */
	if (key[0] == '_' || (slen == 8 && !strncmp(key, "env_vars", 8)))
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
	if (!flen || field[0] == '_' || !pack_names_has_section(p, sec))
		return FIELD_UNJUDGED;
	return judge(p, tg, sec, field, flen, false, out);
}

enum field_verdict fields_mlm_flag(const struct pack *p, const struct target *tg, const char *flag, bool extra,
				   struct field_info *out)
{
	if (!pack_names_has_section(p, MLM) || strncmp(flag, "--", 2))
		return FIELD_UNJUDGED;
	return judge(p, tg, MLM, flag, strlen(flag), extra, out);
}
