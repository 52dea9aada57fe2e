/* SPDX-License-Identifier: MIT */
/*
 * diag_wire: a diagnostic list as bytes and back, so that a list filled in a child process
 * (jobs.h) joins the parent's. Both ends are the same program: the bytes are not a file format.
 */
#ifndef CGLINT_DIAG_WIRE_H
#define CGLINT_DIAG_WIRE_H

#include <stddef.h>

struct diag_list;
struct sbuf;

void diag_wire_put(struct sbuf *out, const struct diag_list *l);
/* Append the diagnostics in buf[0..len) to 'l': strings are copied into its arena, except
 * positions in 'path', which point at it; rules are found by id in its rules table. Returns 0,
 * or -1 when the bytes are not a whole list (then 'l' is as it was). */
int diag_wire_get(struct diag_list *l, const char *buf, size_t len, const char *path);

#endif
