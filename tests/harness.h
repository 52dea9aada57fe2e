/* SPDX-License-Identifier: MIT */
/* harness: running the cglint binary from tests and reading its JSON. */
#ifndef CGLINT_TEST_HARNESS_H
#define CGLINT_TEST_HARNESS_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

/*
 * Run `cd DIR && cglint ARGS` through /bin/sh; returns the exit status (or -1 if cglint died
 * on a signal) and stores stdout in '*out' (malloc'd; may be NULL).
 */
int harness_run(const char *dir, const char *args, char **out);
/* `cd DIR && SCRIPT` through bash, with 'cglint' the binary under test ($CGLINT its path);
 * stdout to '*out' (malloc'd), stderr as the script sends it; the exit status (-1: a signal). */
int harness_sh(const char *dir, const char *script, char **out);
/* Same with --format json, parsed; '*doc' is NULL if stdout was not JSON. */
int harness_run_json(const char *dir, const char *args, json_t **doc);
/* Write 'len' bytes to DIR/NAME; returns the malloc'd path. */
char *harness_write(const char *dir, const char *name, const char *data, size_t len);

/* The contents of DIR/NAME, NUL-terminated (malloc'd); NULL if it cannot be opened. */
char *harness_read(const char *dir, const char *name);

/* A fresh folder /tmp/cglint-NAME-XXXXXX in 'dir' holding a .cglint.yaml (so no configuration
 * above it is searched); false if it could not be made. harness_rmdir() removes it: rm's status. */
bool harness_tmpdir(char *dir, size_t size, const char *name);
int harness_rmdir(const char *dir);

/* The lines of a text output that are not indented (the frames, notes and fix lines are): one
 * line per diagnostic, malloc'd. */
char *harness_heads(const char *text);

#endif
