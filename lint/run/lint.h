/* SPDX-License-Identifier: MIT */
/*
 * lint: the driver. For each input path (folders are walked) it builds one unit's facts in
 * layer order -- the file, then --config-file overlays, then dotlist overrides, then the
 * environment -- and hands them to the engine. Diagnostics collect in the run's list.
 */
#ifndef CGLINT_LINT_H
#define CGLINT_LINT_H

#include <stdbool.h>
#include <stddef.h>

#include "base/diag.h"
#include "config/engine.h"
#include "config/target.h"
#include "front/fe_env.h"
#include "source/src.h"

struct arena;
struct batch;
struct facts;
struct node;
struct pack;
struct proj;
struct py_session;
struct sbuf;
struct text_store;

struct lint_opts {
	struct target target;           /* resolved; a .cglint.yaml target overrides what was not given */
	bool mcore_given, bridge_given; /* on the command line */
	bool assume_defaults;
	bool verbose;                   /* print normalization notes */
	bool show_undecided;            /* --show-undecided: list the undecided checks */
	bool no_ignore;                 /* --no-ignore: folder walks include what git ignores */
	const char **overlays;          /* --config-file, in order */
	size_t n_overlays;
	const char **dotlists;          /* KEY=VALUE overrides, in order */
	size_t n_dotlists;
	const char **env_files;         /* --env-file, in order; -E entries follow them */
	size_t n_env_files;
	const char **env_assigns;       /* -E KEY=VALUE */
	size_t n_env_assigns;
	const char *stdin_name;         /* --stdin-filename */
	struct src_opts sources;        /* C/C++/CUDA: --cuda-path, -p; -j for every input */
	/* cglint facts: each unit's facts once normalized for its target, as the rules see them.
	 * 'unit' is the recipe function, or NULL; 'line' where the unit starts. The run must be
	 * in process (sources.in_process) for the calls to reach this process. */
	void (*on_facts)(void *ctx, const char *path, const char *unit, unsigned line, const struct target *tg,
			 const struct facts *t);
	void *on_facts_ctx;
	/* cglint suggest: each unit's facts as its inputs and layers built them, just before the engine
	 * judges them (the callee may copy them, not keep them). Set, it makes recipe.c keep every
	 * recipe function, those that set no CUDA-graph key too; in process, as on_facts. */
	void (*on_unit)(void *ctx, const char *path, const char *unit, unsigned line, const struct target *tg,
			const struct facts *t);
	void *on_unit_ctx;
};

/* A recipe or launch script named on the command line that gave no unit and no finding, and why:
 * said on stderr, so that a file cglint read but could not judge never passes in silence. */
struct lint_silent {
	const char *path;
	const char *why;
};

struct lint_run {
	const struct pack *pack;
	const struct lint_opts *opts;
	struct arena *arena;            /* run lifetime: paths, messages, overlays */
	struct diag_list diags;
	struct diag_list suppressed;    /* what inline suppressions and the baseline hid, marked (diag.supp) */
	struct diag_list undecided;     /* checks no input could decide (DIAG_OPEN), apart from the findings */
	struct engine_notes notes;
	struct node **overlays;         /* parsed once; NULL where unreadable */
	struct env_list env;            /* --env-file then -E, in order */
	size_t units;
	struct src_queue *sources;      /* C/C++/CUDA files, checked by lint_finish */
	struct batch *batch;            /* the other inputs, checked by lint_finish (batch.h) */
	struct sbuf *log;               /* -v lines go here instead of stderr (a worker's), or NULL */
	struct proj *proj;              /* .cglint.yaml resolver, or NULL (--isolated); the run frees it */
	struct text_store *texts;       /* every input read, by path (texts in the run's arena) */
	size_t excluded;                /* inputs a config's exclude: skipped */
	struct py_session *py;            /* Python modules parsed to follow calls (fe_py.h), or NULL */
	bool py_kept;                   /* 'py' is the session's, kept across runs: not the run's to free */
	const char *named;              /* the path lint_path was given, while it is read */
	size_t files;                   /* inputs read and checked, sources included */
	bool said_python_path;          /* -v named the Python search path (input/pyenv.h) */
	const char *said_no_bridge;     /* the file CG925 was last said for (once per file) */
	const char *bridge_root;        /* the Megatron-Bridge recipes' imports reached, once found */
	size_t bridge_scanned;          /* modules read so far that were looked at for it */
	const char **empty;             /* folders named that held no input */
	size_t n_empty;
	struct lint_silent *silent;     /* files named (not walked) that gave nothing to judge */
	size_t n_silent;
};

/* Reads overlays and environment files once; their problems are reported like any input's.
 * 'proj' may be NULL; the run takes it. */
void lint_run_init(struct lint_run *r, const struct pack *p, const struct lint_opts *o, const struct diag_filter *f,
		   struct proj *proj);
void lint_run_release(struct lint_run *r);
/* Lint a file, a folder (walked for *.yaml, *.yml, *.py, launch scripts and C/C++/CUDA sources)
 * or '-' (stdin). Inputs are queued: call lint_finish once every path is in. */
void lint_path(struct lint_run *r, const char *path);
void lint_finish(struct lint_run *r);
/* Lint text already in memory as if read from 'path' (its name decides script or YAML), queued
 * like a path; 'path' and 'buf' must outlive the run. */
void lint_buffer(struct lint_run *r, const char *path, const char *buf, size_t len);
/* A launch script by its name (.sh, .bash, .sbatch, .slurm) or by a #! line naming a shell. */
bool lint_is_script(const char *path, const char *buf, size_t len);
/* The target an input is judged against: the command line's, with a config's where not given. */
struct target lint_target_for(struct lint_run *r, const char *path);

#endif
