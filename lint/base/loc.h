/* SPDX-License-Identifier: MIT */
/* loc: a position in an input; the one type every front-end and output shares. */
#ifndef CGLINT_LOC_H
#define CGLINT_LOC_H

/* 1-based line and column; line 0 means "the file as a whole". 'path' is borrowed. */
struct loc {
	const char *path;
	unsigned line, col;
};

#endif
