/* SPDX-License-Identifier: MIT */
/*
 * fe_env: environment settings the job will run with, from --env-file files (KEY=VALUE lines,
 * optional 'export', quotes, # comments; the dotenv/systemd EnvironmentFile shape) and from
 * -E KEY=VALUE arguments.
 */
#ifndef CGLINT_FE_ENV_H
#define CGLINT_FE_ENV_H

#include <stddef.h>

#include "base/loc.h"

struct arena;
struct diag_list;

struct env_var {
	const char *name, *value;
	struct loc loc;
};

struct env_list {
	struct env_var *items;
	size_t n, cap;
};

/* Parse an env file's text; malformed lines are reported (CG907) and skipped. Returns the
 * number of malformed lines. Strings live in 'a'; 'l->items' is freed with env_list_release. */
int fe_env_parse(struct arena *a, struct diag_list *d, const char *path, const char *buf, size_t len,
		 struct env_list *l);
/* One KEY=VALUE assignment; -1 if it is not one. */
int fe_env_assign(struct arena *a, const char *s, struct loc loc, struct env_list *l);
void fe_env_release(struct env_list *l);

#endif
