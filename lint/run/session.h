/* SPDX-License-Identifier: MIT */
/*
 * session: what the command line and the language server share. A session holds the rule packs
 * and the settings of one invocation; each check of paths or of a buffer is one lint run through
 * the whole data flow: project config (.cglint.yaml, proj.h), front-ends and checks (lint.h),
 * then the post stage (post.h: config filters, inline suppressions, baseline, fingerprints).
 *
 * The session owns its packs; a result owns its diagnostics, their strings and the texts they
 * point into, until session_result_release().
 */
#ifndef CGLINT_SESSION_H
#define CGLINT_SESSION_H

#include <stdbool.h>
#include <stddef.h>

#include "base/diag.h"
#include "run/lint.h"

struct pack;
struct proj;
struct text_store;

struct session_opts {
	struct lint_opts lint;          /* target as given (lint.mcore_given, lint.bridge_given) */
	struct diag_filter filter;      /* --select / --ignore */
	const char **rule_files;        /* --rules */
	size_t n_rule_files;
	bool isolated;                  /* --isolated: no .cglint.yaml */
	bool no_inline;                 /* --no-inline-suppressions */
	const char *baseline;           /* --baseline FILE, or NULL */
};

struct session;

/*
 * Load the packs and check the target. Returns NULL with a message on stderr for a target this
 * build has no rules for, or a --select/--ignore pattern that matches no rule (exit status 2). A bad --rules pack or --baseline file is reported into
 * 'problems', which session_new initialises (its strings in 'a', its rules in the session's
 * packs: print it before session_free); the caller stops with status 2 when it is not empty.
 */
struct session *session_new(const struct session_opts *o, struct arena *a, struct diag_list *problems);
void session_free(struct session *s);
const struct pack *session_pack(const struct session *s);
/* The target for the run as resolved (the command line, else defaults). */
const struct target *session_target(const struct session *s);

struct session_result {
	struct lint_run run;            /* run.diags: what to print, sorted, after the post stage */
	size_t suppressed;              /* dropped by inline suppressions */
	size_t baselined;               /* dropped by --baseline */
	size_t excluded;                /* explicit paths a config's exclude: skipped */
	struct text_store *texts;       /* every input read, by path */
};

/* The language server's: the Python modules runs read to follow imports are kept for the next
 * run while they are unchanged on disk (fe_py_session_current), so an edit re-reads only the
 * document. */
void session_keep_python(struct session *s);
/* Read every module afresh on the next run (a Python file came or went on disk: a module cached
 * as absent may be there now). */
void session_forget_python(struct session *s);

/* Lint paths as the command line does. */
void session_lint(struct session *s, const char *const *paths, size_t n, struct session_result *out);
/* Lint one buffer as if it were the file 'path' (the language server's open documents). */
void session_lint_buffer(struct session *s, const char *path, const char *buf, size_t len,
			 struct session_result *out);
/* A result with no diagnostics yet, holding the text of 'path' (copied): for one made
 * elsewhere (the language server's workers) and filled in by its owner. */
void session_result_empty(struct session *s, const char *path, const char *buf, size_t len,
			  struct session_result *out);
/*
 * Read the project configs that apply to 'path', a config file itself (the language server's
 * open .cglint.yaml), and check nothing else: their problems (CG9xx) are the result's diagnostics.
 */
void session_check_config(struct session *s, const char *path, struct session_result *out);
/* Texts the runs read in place of project config files (proj_set_open), borrowed until the
 * next call; NULL: none. */
void session_set_open_configs(struct session *s, const struct text_store *open);
void session_result_release(struct session_result *r);
/* The limits and flags sources are analysed with. */
const struct src_opts *session_sources(const struct session *s);
/* In a worker already under the sources' deadline and memory limit (the language server's):
 * parse sources in this process, not in a worker of their own. */
void session_sources_here(struct session *s);

#endif
