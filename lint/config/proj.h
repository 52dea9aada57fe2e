/* SPDX-License-Identifier: MIT */
/*
 * proj: project configuration, `.cglint.yaml` (or `.cglint.yml`). For each input the closest
 * such file in its folder or above applies; `inherit: true` layers it over the next one up.
 * A file sets the target, rule selection and severities, extra rule packs and excludes, and
 * per-path overrides of the same (docs/config.md; schema docs/cglint-config.schema.json).
 * Globs are relative to the folder of the file that wrote them.
 *
 * The resolver reads each config file once; problems in one (unknown keys, bad values) are
 * CG915 diagnostics in the list given to proj_new. Everything lives in the arena given there.
 */
#ifndef CGLINT_PROJ_H
#define CGLINT_PROJ_H

#include <stdbool.h>
#include <stddef.h>

#include "base/diag.h"
#include "config/target.h"

struct arena;
struct pack;
struct proj;
struct text_store;

/* What applies to one input, after layering every matching file and per-path entry. */
struct proj_settings {
	int mcore, bridge;              /* 0 when no config sets them */
	const char *gpu;                /* NULL when unset */
	int gpu_major;
	int te;                         /* Transformer Engine release, 0 when unset */
	struct diag_filter filter;      /* select (last one set wins) and ignore (accumulated) */
	const char **sev_ids;           /* severity overrides, later entries win */
	enum sev *sevs;
	size_t n_sevs;
	bool has_fail_on;               /* fail-on: the last one set wins; --fail-on wins over all */
	int fail_on;                    /* a severity or DIAG_FAIL_UNDECIDED (diag.h) */
	const char *config;             /* the closest config file, or NULL */
};

/* 'p' receives the `rules:` packs the configs name (loaded once each). */
struct proj *proj_new(struct arena *a, struct diag_list *problems, struct pack *p);
/* Its tables; the arena holds the rest. */
void proj_free(struct proj *pj);
/*
 * Texts to read in place of config files, by absolute path in a resolved folder (the language
 * server's unsaved editor buffers); such a text is a config even where no file is. Borrowed: it
 * must outlive the reading, which happens as proj_settings and proj_excluded find the configs.
 */
void proj_set_open(struct proj *pj, const struct text_store *open);
/* A file read for the configs: a config file, or a rule pack one names. */
struct proj_file {
	const char *path;               /* as its problems' locations name it */
	const char *abs;                /* the same file, absolute, in its resolved folder */
	const char *text;               /* what was read (in the arena), NULL when it could not be */
	size_t len;
};
/* The k-th file read so far, in reading order; NULL past the last. A resolver that gave one
 * input's settings has read exactly the configs that apply to it (and their packs). */
const struct proj_file *proj_file(const struct proj *pj, size_t k);
/* The settings for a file (by its path as given). Returns false when no config applies. */
bool proj_settings(struct proj *pj, const char *path, struct proj_settings *out);
/* Whether an exclude: of an applying config matches the path or a folder above it. */
bool proj_excluded(struct proj *pj, const char *path);
/* Whether rule r may report in 'path': a rule from a config's pack only under that config. */
bool proj_rule_applies(struct proj *pj, const struct rule *r, const char *path);
/* The keys a config file, its target: and a per-path entry may have (NULL-terminated); the
 * schema, docs/cglint-config.schema.json, is tested against them. */
extern const char *const proj_keys[], *const proj_target_keys[], *const proj_part_keys[];

#endif
