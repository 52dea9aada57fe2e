/* SPDX-License-Identifier: MIT */
/*
 * diag_wire: a diagnostic list as bytes and back, so that a list filled in a child process
 * (jobs.h) joins the parent's. Both ends are the same program: the bytes are not a file format.
 */
#ifndef CGLINT_DIAG_WIRE_H
#define CGLINT_DIAG_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct diag_list;
struct sbuf;

void diag_wire_put(struct sbuf *out, const struct diag_list *l);
/* Append the diagnostics in buf[0..len) to 'l': strings are copied into its arena, except
 * positions in 'path', which point at it; rules are found in its rules table. Returns 0,
 * or -1 when the bytes are not a whole list (then 'l' is as it was). */
int diag_wire_get(struct diag_list *l, const char *buf, size_t len, const char *path);

/* The fields a list is made of, for records that carry lists and more (run/batch.c). */
void diag_wire_put_u32(struct sbuf *out, uint32_t v);
void diag_wire_put_str(struct sbuf *out, const char *s, size_t n);     /* s NULL: none */

/* Reading them back: a field that runs past the end sets 'bad' and reads as 0 or NULL. */
struct diag_wire_in {
	const char *p, *end;
	bool bad;
};
uint32_t diag_wire_get_u32(struct diag_wire_in *in);
/* Points into the bytes (no NUL added); NULL for none, or when bad. */
const char *diag_wire_get_str(struct diag_wire_in *in, size_t *n);

#endif
