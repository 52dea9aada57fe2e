/* SPDX-License-Identifier: MIT */
/*
 * harness: what the Criterion suites share (every test binary links it). Running the cglint
 * binary and reading its output; the test's temporary folder; writing and reading files. A
 * string or path returned is malloc'd and the caller's to free. A helper that "fails the test"
 * ends it with cr_assert, so its callers need no check of their own. Helpers without a folder
 * argument work in harness_dir.
 */
#ifndef CGLINT_TEST_HARNESS_H
#define CGLINT_TEST_HARNESS_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

/* ---- running cglint ---- */

/*
 * Run `cd DIR && cglint ARGS` through /bin/sh; returns the exit status (or -1 if cglint died
 * on a signal) and stores stdout in '*out' (malloc'd; may be NULL).
 */
int harness_run(const char *dir, const char *args, char **out);
/* Same with --format json, parsed; '*doc' is NULL if stdout was not JSON. */
int harness_run_json(const char *dir, const char *args, json_t **doc);
/* `cd DIR && SCRIPT` through bash, with 'cglint' the binary under test ($CGLINT its path);
 * stdout to '*out' (malloc'd), stderr as the script sends it; the exit status (-1: a signal). */
int harness_sh(const char *dir, const char *script, char **out);
/* `cglint ARGS` in harness_dir/CWD ("" for harness_dir itself): the exit status, failing the test
 * if cglint died on a signal; stdout to '*out' and stderr to '*err' (either may be NULL). stderr
 * goes through harness_dir/.stderr. */
int harness_run_in(const char *cwd, const char *args, char **out, char **err);
/* The diagnostics' head lines (harness_heads) of `cglint --format concise ARGS` run as
 * harness_run_in() runs it (a later --format in ARGS wins); its exit status to '*rc'. */
char *harness_lint(const char *cwd, const char *args, int *rc, char **err);
/* harness_lint(), expecting exactly the lines 'want' and the exit status 'want_rc'. */
void harness_expect_lint(const char *cwd, const char *args, int want_rc, const char *want);
/* A shell command made from a printf format, which must exit 0 (or the test fails). */
void harness_system(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* The lines of a text output that are not indented (the frames, notes and fix lines are): one
 * line per diagnostic, malloc'd. */
char *harness_heads(const char *text);

/* ---- temporary folders ---- */

/* What a new folder holds besides nothing: a .cglint.yaml (so no configuration above it is
 * searched), a .git folder (a repository's root: the search stops there). */
enum { HARNESS_BARE = 0, HARNESS_CONFIG = 1, HARNESS_GIT = 2 };

/* A fresh folder /tmp/cglint-NAME-XXXXXX in 'dir' holding what 'what' asks (HARNESS_*); false if
 * it could not be made. The caller owns it and removes it with harness_rmdir(): rm's status (the
 * folders in it are made writable first, so a test's read-only one goes too). */
bool harness_tmpdir(char *dir, size_t size, const char *name, unsigned what);
int harness_rmdir(const char *dir);

/*
 * The running test's own folder, /tmp/cglint-SUITE-XXXXXX: Criterion runs every test in a process
 * of its own, and a suite's .init makes the folder for each (.fini = harness_fini removes it). The
 * harness owns the name; tests write in the folder. As .init:
 *   harness_init       the folder with a .cglint.yaml (HARNESS_CONFIG)
 *   harness_init_git   the folder with a .git (HARNESS_GIT)
 *   harness_init_bare  the folder, empty
 */
extern char harness_dir[64];
void harness_init(void);
void harness_init_git(void);
void harness_init_bare(void);
void harness_fini(void);

/* ---- files ---- */

/* harness_dir/NAME. */
char *harness_path(const char *name);
/* Write 'len' bytes to DIR/NAME, making the folders of NAME on the way; fails the test if it
 * cannot. Returns the path. */
char *harness_write(const char *dir, const char *name, const char *data, size_t len);
/* Write the string 'text' to harness_dir/NAME, as harness_write() does. */
void harness_put(const char *name, const char *text);
/* The contents of DIR/NAME (of the path NAME where DIR is NULL), NUL-terminated; their length
 * to '*len' unless 'len' is NULL. harness_read fails the test if the file cannot be opened,
 * harness_try_read returns NULL. */
char *harness_read(const char *dir, const char *name, size_t *len);
char *harness_try_read(const char *dir, const char *name, size_t *len);

#endif
