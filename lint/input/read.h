/* SPDX-License-Identifier: MIT */
/*
 * read: the bytes of one input, from a path or a descriptor (stdin), with the size limit every
 * input shares. Every file cglint reads comes here: configs, scripts, sources, rule packs,
 * project configs, baselines.
 */
#ifndef CGLINT_READ_H
#define CGLINT_READ_H

#include <stddef.h>

struct arena;
struct diag_list;

#define READ_MAX_BYTES (8u << 20)       /* larger inputs are refused (CG903) */

/*
 * Read a regular file of at most READ_MAX_BYTES into 'a' (NUL-terminated). Returns 0, or -1
 * after reporting CG903/CG904 into 'd'.
 */
int read_path(struct diag_list *d, struct arena *a, const char *path, char **buf, size_t *len);
/* The same from an open descriptor; fd 0 (stdin) may be a pipe, any other must be a regular file. */
int read_fd(struct diag_list *d, struct arena *a, const char *path, int fd, char **buf, size_t *len);
/* The reason an open() or stat() failed with 'err', as the CG904 messages say it. */
const char *read_strerror(int err);

#endif
