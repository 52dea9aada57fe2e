/* SPDX-License-Identifier: MIT */
/*
 * What the libFuzzer targets (tests/fuzz/fuzz_*.c) share: the built-in packs, loaded once, and a
 * private temporary folder for the front-ends that read files (project configs, baselines,
 * compile databases, the language server's input), removed when the process exits. A target
 * writes nowhere else. Everything here is made once per process, so each input starts the same.
 */
#ifndef CGLINT_FUZZ_H
#define CGLINT_FUZZ_H

#define _XOPEN_SOURCE 700       /* nftw's FTW_DEPTH, FTW_PHYS */

#include <ftw.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/mem.h"
#include "config/fact.h"
#include "config/pack.h"
#include "front/cfg.h"
#include "input/fe_yaml.h"
#include "run/session.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The built-in packs: the rules CG9xx input problems are reported as, and what a run checks. */
static inline const struct pack *fuzz_pack(void)
{
	static struct pack *p;
	if (!p) {
		p = pack_new();
		pack_load_builtin(p);
	}
	return p;
}

/* A session as the command line makes one for a target (--isolated: no .cglint.yaml is looked
 * for), kept for the process. */
static inline struct session *fuzz_session(struct target t)
{
	struct session_opts o = {.lint = {.target = t, .mcore_given = true, .bridge_given = true}, .isolated = true};
	struct arena *a = arena_new();
	struct diag_list problems;
	struct session *s = session_new(&o, a, &problems);
	if (!s || problems.n)
		abort();
	diag_release(&problems);
	arena_free(a);
	return s;
}

/* A unit's facts for rules and expressions to read: a Bridge config that sets graphs, scopes,
 * numbers, a list and the job's environment; into 't' (in 'a'), closed (defaults assumed) or not. */
static inline void fuzz_facts(struct facts *t, struct arena *a, bool closed)
{
	static const char config[] =
		"model:\n"
		"  cuda_graph_impl: local\n"
		"  cuda_graph_scope: [attn, moe_router]\n"
		"  use_te_rng_tracker: false\n"
		"  num_layers: 24\n"
		"  recompute_granularity: full\n"
		"  moe_token_dispatcher_type: alltoall\n"
		"  hidden_dropout: 0.1\n"
		"train:\n"
		"  micro_batch_size: 2\n"
		"  global_batch_size: 128\n"
		"  manual_gc: null\n"
		"env_vars:\n"
		"  PYTORCH_CUDA_ALLOC_CONF: \"expandable_segments:True\"\n"
		"  NCCL_GRAPH_REGISTER: \"1\"\n";
	static struct arena *keep;
	static struct node *root;
	if (!root) {
		struct diag_list d;
		keep = arena_new();
		diag_init(&d, keep, &fuzz_pack()->lookup, NULL);
		if (fe_yaml_parse(keep, &d, "fuzz-facts.yaml", config, sizeof(config) - 1, &root) || d.n)
			abort();
		diag_release(&d);
	}
	facts_init(t, a);
	cfg_from_yaml(t, root, "config");
	cfg_env_vars(t);
	t->closed = t->env_closed = closed;
}

static char fuzz_dir_path[64];

static int fuzz_rm(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st, (void)flag, (void)ftw;
	return remove(path);
}

static void fuzz_dir_remove(void)
{
	nftw(fuzz_dir_path, fuzz_rm, 16, FTW_DEPTH | FTW_PHYS);
}

/* The process's own folder under $TMPDIR (or /tmp), made on the first call. */
static inline const char *fuzz_dir(void)
{
	if (!fuzz_dir_path[0]) {
		const char *tmp = getenv("TMPDIR");
		snprintf(fuzz_dir_path, sizeof(fuzz_dir_path), "%s/cglint-fuzz-XXXXXX",
			 tmp && *tmp && strlen(tmp) < 32 ? tmp : "/tmp");
		if (!mkdtemp(fuzz_dir_path)) {
			perror("cglint fuzz: mkdtemp");
			abort();
		}
		atexit(fuzz_dir_remove);
	}
	return fuzz_dir_path;
}

/* fuzz_dir()/name, allocated: the caller frees it (or keeps it for the process). */
static inline char *fuzz_path(const char *name)
{
	size_t n = strlen(fuzz_dir()) + strlen(name) + 2;
	char *p = malloc(n);
	if (!p)
		abort();
	snprintf(p, n, "%s/%s", fuzz_dir(), name);
	return p;
}

/* Write data to 'path' (inside fuzz_dir()), replacing it. */
static inline void fuzz_write(const char *path, const void *data, size_t size)
{
	FILE *f = fopen(path, "wb");
	if (!f || (size && fwrite(data, 1, size, f) != size) || fclose(f)) {
		perror(path);
		abort();
	}
}

/*
 * The input's first byte picks one of n variants (a target, a file kind) and is taken off the
 * text: each run checks the text once, in the variant its byte names, so a run costs one lint and
 * mutating the rest keeps the variant (one.sh prefixes the seeds with a byte, FUZZ_PICK).
 */
static inline unsigned fuzz_pick(const uint8_t **data, size_t *size, unsigned n)
{
	if (!*size)
		return 0;
	unsigned k = **data % n;
	(*data)++, (*size)--;
	return k;
}

/* mkdir -p for a folder inside fuzz_dir(), named relative to it. */
static inline void fuzz_mkdir(const char *rel)
{
	char *p = fuzz_path(rel);
	for (char *s = p + strlen(fuzz_dir()) + 1; (s = strchr(s, '/')); s++) {
		*s = 0;
		mkdir(p, 0700);
		*s = '/';
	}
	mkdir(p, 0700);
	free(p);
}

#endif
