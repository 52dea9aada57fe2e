/* SPDX-License-Identifier: MIT */
/*
 * cfg: Megatron-Bridge ConfigContainer YAML (full to_yaml() dumps and partial --config-file
 * overrides, catalogue §B.1-B.2), Hydra dotlist overrides (§B.3) and environment settings,
 * turned into facts keyed by their dotted path ("model.cuda_graph_impl", "env.NCCL_GRAPH_REGISTER").
 */
#ifndef CGLINT_CFG_H
#define CGLINT_CFG_H

#include <stdbool.h>

#include "base/loc.h"

struct arena;
struct diag_list;
struct facts;
struct node;

/*
 * Add every key of the YAML tree 'root' to 't' under layer 'layer'. Bridge enum dicts become
 * their _name_, '<<' merge keys are honoured.
 * Returns true when the file is a full ConfigContainer dump (top-level _target_), whose
 * absent keys take the target's defaults.
 */
bool cfg_from_yaml(struct facts *t, const struct node *root, const char *layer);
/* The keys of mapping 'map' under 'prefix' ("model": a: 1 -> model.a); "" for the top level. */
void cfg_from_yaml_under(struct facts *t, const struct node *map, const char *prefix, const char *layer);

/* Apply one dotlist override "model.cuda_graph_scope=[attn,moe_router]" ('+'/'~' prefixes as
 * Hydra). Returns 0, or -1 after reporting a value that is not YAML; with 'lenient' (a word of a
 * launch script) such a value is kept as a string instead. 'where' positions its facts. */
int cfg_dotlist(struct facts *t, struct diag_list *d, const char *arg, struct loc where, bool lenient);
bool cfg_is_dotlist(const char *arg);

/* Bridge 0.6+: the env_vars.NAME facts of the config become env.NAME, str()-ed as Bridge does. */
void cfg_env_vars(struct facts *t);

/* Set env.NAME; values are strings, as the process environment holds them. A NULL value
 * (export NAME=$(...)) is set but unknown. */
void cfg_env(struct facts *t, const char *name, const char *value, struct loc loc, const char *layer);

#endif
