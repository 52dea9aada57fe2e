/* SPDX-License-Identifier: MIT */
/* target: version parsing, ranges and the release map of catalogue §0.1. */
#include "config/target.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Terminated by 0. Extend together with the release map below. */
const int target_mcore_supported[] = {150, TARGET_MCORE_DEV, 160, 170, 180, 190, TARGET_MCORE_PIN, TARGET_MAIN, 0};
const int target_bridge_supported[] = {20, 30, 40, 50, 60, TARGET_MAIN, 0};

/* The development targets' snapshots (shared/reference/upstream-snapshots.md); a newer snapshot
 * moves them, with the packs (docs/adding-a-release.md). */
static const struct branch {
	int v;
	bool bridge;
	const char *name, *repo, *commit, *date;
} branches[] = {
	{TARGET_MAIN, false, "main", "Megatron-LM", "d98e8a64ddf34856e74b24714e3bedb2f5a39553", "2026-08-22"},
	{TARGET_MCORE_PIN, false, "main@2a75ac12", "Megatron-LM", "2a75ac12c54ba6a42b34024756820bf819a2e25f",
	 "2026-08-13"},
	{TARGET_MAIN, true, "main", "Megatron-Bridge", "067f987df03b8355b03192d88d70f1709fedf51a", "2026-08-22"},
};

/* Bridge release -> MCore it ships as its 3rdparty submodule (catalogue §0.1). */
static const struct { int bridge, mcore; } release_map[] = {
	{20, TARGET_MCORE_DEV}, /* v0.2.x: core_dev_r0.15.0 (0d8e0714cd / cba6b0ed0f) */
	{30, 160},              /* v0.3.x: core_v0.16.x */
	{40, 170},              /* v0.4.x: core_v0.17.x */
	{50, 180},              /* v0.5.x: core_v0.18.x */
	{60, 190},              /* v0.6.0: main at cd4afffa64, CUDA-graph code as core_v0.19.0 */
	{TARGET_MAIN, TARGET_MCORE_PIN}, /* main: its 3rdparty/Megatron-LM submodule */
};

int target_bridge_mcore(int bridge)
{
	for (size_t i = 0; i < sizeof(release_map) / sizeof(release_map[0]); i++)
		if (release_map[i].bridge == bridge)
			return release_map[i].mcore;
	return 0;
}

int target_default_bridge(int mcore)
{
	for (size_t i = 0; i < sizeof(release_map) / sizeof(release_map[0]); i++)
		if (release_map[i].mcore == mcore)
			return release_map[i].bridge;
	return TARGET_NO_BRIDGE;
}

int target_nearest_bridge(int mcore)
{
	size_t n = sizeof(release_map) / sizeof(release_map[0]);
	for (size_t i = 0; i < n; i++)      /* ascending */
		if (release_map[i].mcore >= mcore)
			return release_map[i].bridge;
	return release_map[n - 1].bridge;
}

/* The MCore development branch Bridge 0.2 ships goes by several names. */
static const char *const dev_names[] = {"dev", "core_dev", "0.15-dev", "core_dev_r0.15.0", "0.16.0rc0"};

int target_parse_te(const char *s, int *out)
{
	return isdigit((unsigned char)*s) ? target_parse_version(s, out) : -1;       /* no "dev" */
}

/* Up to two digits at *s, advancing it; -1 when there is none or a third. */
static int two_digits(const char **s)
{
	const char *p = *s;
	if (!isdigit((unsigned char)p[0]))
		return -1;
	int v = p[0] - '0';
	if (isdigit((unsigned char)p[1]))
		v = v * 10 + (*++p - '0');
	if (isdigit((unsigned char)p[1]))
		return -1;
	*s = p + 1;
	return v;
}

/* The development target 'v' (for Bridge or MCore; either where 'any'), or NULL. */
static const struct branch *branch_of(int v, bool is_bridge, bool any)
{
	for (size_t i = 0; i < sizeof(branches) / sizeof(branches[0]); i++)
		if (branches[i].v == v && (any || branches[i].bridge == is_bridge))
			return &branches[i];
	return NULL;
}

/* "main", "main@COMMIT" or a commit of 7 or more hex digits: a development target. */
static int parse_branch(const char *s, int *out)
{
	if (!strcasecmp(s, "main")) {
		*out = TARGET_MAIN;
		return 0;
	}
	if (!strncasecmp(s, "main@", 5))
		s += 5;
	size_t n = strspn(s, "0123456789abcdefABCDEF");
	if (n < 7 || s[n])
		return -1;
	for (size_t i = 0; i < sizeof(branches) / sizeof(branches[0]); i++)
		if (n <= 40 && !strncasecmp(branches[i].commit, s, n)) {
			*out = branches[i].v;
			return 0;
		}
	return -1;
}

/* A release: "0.17", "0.17.1", "dev" and the other names of the development branch Bridge 0.2 ships. */
static int parse_release(const char *s, int *out)
{
	if (!isdigit((unsigned char)*s) || !strncasecmp(s, "0.15-", 5) || !strncasecmp(s, "0.16.0rc", 8)) {
		for (size_t i = 0; i < sizeof(dev_names) / sizeof(dev_names[0]); i++)
			if (!strcasecmp(s, dev_names[i])) {
				*out = TARGET_MCORE_DEV;
				return 0;
			}
		if (!isdigit((unsigned char)*s))
			return -1;
	}
	while (*s == '0' && isdigit((unsigned char)s[1]))      /* "00.17" reads as 0.17, as strtol did */
		s++;
	int major = two_digits(&s);
	if (major < 0 || *s != '.')
		return -1;
	s++;
	while (*s == '0' && isdigit((unsigned char)s[1]))
		s++;
	int minor = two_digits(&s);
	if (minor < 0)
		return -1;
	if (*s == '.') {                /* a patch level is accepted and ignored */
		if (!isdigit((unsigned char)*++s))
			return -1;
		while (isdigit((unsigned char)*s))
			s++;
	}
	if (*s)
		return -1;
	*out = major * 1000 + minor * 10;
	return 0;
}

int target_parse_version(const char *s, int *out)
{
	return parse_release(s, out) && parse_branch(s, out) ? -1 : 0;      /* a release first: the common case */
}

const char *target_version_str(int v, char buf[16])
{
	const struct branch *b = branch_of(v, false, true);
	if (v == TARGET_MCORE_DEV)
		snprintf(buf, 16, "0.15-dev");
	else if (b)
		snprintf(buf, 16, "%s", b->name);
	else
		snprintf(buf, 16, "%d.%d", v / 1000 % 100, v / 10 % 100);
	return buf;
}

const char *target_commit(int v, bool is_bridge)
{
	const struct branch *b = branch_of(v, is_bridge, false);
	return b ? b->commit : NULL;
}

const char *target_label(int v, bool is_bridge, char buf[96])
{
	char s[16];
	const struct branch *b = branch_of(v, is_bridge, false);
	if (b)
		snprintf(buf, 96, "%s (%s %.10s, %s)", b->name, b->repo, b->commit, b->date);
	else
		snprintf(buf, 96, "%s", target_version_str(v, s));
	return buf;
}

const char *target_describe(const struct target *t, char buf[256])
{
	char m[96], b[96];
	if (!target_commit(t->mcore, false) && !target_commit(t->bridge, true))
		return NULL;
	snprintf(buf, 256, "Megatron Core %s, Megatron-Bridge %s", target_label(t->mcore, false, m),
		 t->bridge == TARGET_NO_BRIDGE ? "none" : target_label(t->bridge, true, b));
	return buf;
}

int target_newest_release(void)
{
	int v = 0;
	for (const int *s = target_mcore_supported; *s && *s < TARGET_MCORE_PIN; s++)
		v = *s;
	return v;
}

const char *target_supported_list(const int *vs, char *buf, unsigned size)
{
	char v[16];
	buf[0] = '\0';
	for (; *vs; vs++) {
		size_t n = strlen(buf);
		snprintf(buf + n, size - n, "%s%s", n ? ", " : "", target_version_str(*vs, v));
	}
	return buf;
}

const char *target_range_list(const struct vrange *r, bool is_bridge, char *buf, unsigned size)
{
	char v[16];
	buf[0] = '\0';
	for (const int *s = is_bridge ? target_bridge_supported : target_mcore_supported; *s; s++)
		if (target_in_range(r, *s, is_bridge)) {
			size_t n = strlen(buf);
			snprintf(buf + n, size - n, "%s%s", n ? ", " : "", target_version_str(*s, v));
		}
	if (is_bridge && target_in_range(r, TARGET_NO_BRIDGE, true)) {
		size_t n = strlen(buf);
		snprintf(buf + n, size - n, "%snone", n ? ", " : "");
	}
	return buf;
}

/*
 * A range is space-separated bounds: ">=0.16", "<0.18", ">0.15", "<=0.17", "0.17" (exactly),
 * "dev" (exactly the development branch). The branch sorts between 0.15 and 0.16, so ">=0.15
 * <0.16" holds it and "0.15" does not.
 */
int target_parse_range(const char *s, struct vrange *r)
{
	*r = (struct vrange){.lo = 0, .hi = 1 << 30};
	if (!isdigit((unsigned char)*s) && !strcasecmp(s, "none")) {
		r->none_only = true;
		return 0;
	}
	if (!*s || (!isdigit((unsigned char)*s) && !strcasecmp(s, "any"))) {
		r->any = true;
		return 0;
	}
	char tok[32];
	int bounds = 0;
	while (*s) {
		while (*s == ' ' || *s == ',')
			s++;
		if (!*s)
			break;
		size_t n = 0;
		while (s[n] && s[n] != ' ' && s[n] != ',')
			n++;
		if (n >= sizeof(tok))
			return -1;
		memcpy(tok, s, n);
		tok[n] = '\0';
		s += n;
		const char *v = tok;
		int op = 0;     /* 0 '=', 1 '>=', 2 '>', 3 '<=', 4 '<' */
		if (v[0] == '>' && v[1] == '=') op = 1, v += 2;
		else if (v[0] == '<' && v[1] == '=') op = 3, v += 2;
		else if (*v == '>') op = 2, v++;
		else if (*v == '<') op = 4, v++;
		else if (*v == '=') v += (v[1] == '=') ? 2 : 1;
		int ver;
		if (target_parse_version(v, &ver))
			return -1;
		switch (op) {
		case 0: r->lo = ver; r->hi = ver + 1; break;
		case 1: if (ver > r->lo) r->lo = ver; break;
		case 2: if (ver + 1 > r->lo) r->lo = ver + 1; break;
		case 3: if (ver + 1 < r->hi) r->hi = ver + 1; break;
		case 4: if (ver < r->hi) r->hi = ver; break;
		}
		bounds++;
	}
	return bounds ? 0 : -1;
}

bool target_in_range(const struct vrange *r, int v, bool is_bridge)
{
	if (r->any)
		return true;
	if (is_bridge && v == TARGET_NO_BRIDGE)
		return r->none_only;
	if (r->none_only)
		return false;
	return v >= r->lo && v < r->hi;
}

/* GPU names as Bridge and NVIDIA spell them; catalogue §F.5 (h100 = sm_90, b200/gb200/b300/gb300 = sm_100 class). */
static const struct { const char *name; int major; } gpus[] = {
	{"v100", 7}, {"a100", 8}, {"a10", 8}, {"l40", 8}, {"l40s", 8}, {"h100", 9}, {"h200", 9}, {"h20", 9},
	{"gh200", 9}, {"b100", 10}, {"b200", 10}, {"gb200", 10}, {"b300", 10}, {"gb300", 10},
	{"rtx5090", 12}, {"vr200", 11}, {"r100", 11},
};

int target_parse_gpu(const char *s, int *major)
{
	for (size_t i = 0; i < sizeof(gpus) / sizeof(gpus[0]); i++)
		if (!strcasecmp(s, gpus[i].name)) {
			*major = gpus[i].major;
			return 0;
		}
	/* sm_90, sm_100a, compute_90, 9.0 */
	const char *p = s;
	if (!strncasecmp(p, "sm_", 3))
		p += 3;
	else if (!strncasecmp(p, "compute_", 8))
		p += 8;
	if (!isdigit((unsigned char)*p))
		return -1;
	char *end;
	long v = strtol(p, &end, 10);
	if (*end == '.') {              /* "9.0" */
		strtol(end + 1, &end, 10);
		if (*end || v <= 0 || v > 99)
			return -1;
		*major = (int)v;
		return 0;
	}
	if ((*end && strcasecmp(end, "a") && strcasecmp(end, "f")) || v < 10 || v > 999)
		return -1;
	*major = (int)(v / 10);
	return 0;
}

static bool supported(const int *vs, int v)
{
	for (; *vs; vs++)
		if (*vs == v)
			return true;
	return false;
}

/* Why release 'v' of 'what' is not in 'vs' (ascending): "not supported yet" only when it is newer
 * than every supported one; an older one is told the oldest. Returns -1. */
static int unsupported(char *why, unsigned size, const char *what, const int *vs, int v, const char *more)
{
	char list[128], a[16], b[16];
	size_t last = 0;
	while (vs[last + 1])
		last++;
	target_supported_list(vs, list, sizeof(list));
	target_version_str(v, a);
	while (last && vs[last] >= TARGET_MCORE_PIN)     /* "not supported yet": newer than every release */
		last--;
	if (v < vs[0])
		snprintf(why, size, "%s %s is older than the oldest supported release, %s (supported: %s%s)", what, a,
			 target_version_str(vs[0], b), list, more);
	else
		snprintf(why, size, "%s %s is not supported%s (supported: %s%s)", what, a, v > vs[last] ? " yet" : "",
			 list, more);
	return -1;
}

int target_resolve(struct target *t, char *why, unsigned size)
{
	if (t->bridge && t->bridge != TARGET_NO_BRIDGE && !supported(target_bridge_supported, t->bridge))
		return unsupported(why, size, "Megatron-Bridge", target_bridge_supported, t->bridge, ", none");
	if (!t->mcore) {
		if (t->bridge && t->bridge != TARGET_NO_BRIDGE) {
			t->mcore = target_bridge_mcore(t->bridge);
		} else {
			t->mcore = target_newest_release();
		}
	}
	if (!t->bridge)
		t->bridge = target_default_bridge(t->mcore);
	if (!supported(target_mcore_supported, t->mcore))
		return unsupported(why, size, "Megatron Core", target_mcore_supported, t->mcore, "");
	return 0;
}
