/* SPDX-License-Identifier: MIT */
/*
 * cap_guard: what the code itself says about capturing and about failing, read off its
 * branches (sir.h arms), a layer below cap.
 *
 * A test of a capture status (cudaStreamIsCapturing's or cudaStreamGetCaptureInfo's status,
 * the driver's, at::cuda::currentStreamCaptureStatus(), a helper of the file that returns one
 * or a test of one) decides where code runs while the stream captures: inside
 * `if (st != cudaStreamCaptureStatusNone) {...}` it does; inside `if (st == ...None) {...}`,
 * and after `if (capturing) return;` (or throw, exit(), a failed TORCH_CHECK), it does not.
 * The queried stream is not matched against the capturing one.
 *
 * An error path is one that ends in an exit: a throw, a call that does not return (the 'exit'
 * role of rules/capture.yaml), or a return of a failure (a non-zero constant, false, the
 * error a test just found) from a branch.
 */
#ifndef CGLINT_CAP_GUARD_H
#define CGLINT_CAP_GUARD_H

#include <stdbool.h>
#include <stddef.h>

#include "base/loc.h"
#include "source/sir.h"

struct arena;
struct pack;
struct cap_guard;

/* The judge of one translation unit; lives in 'a' (it caches what it worked out). */
struct cap_guard *cap_guard_new(struct arena *a, const struct pack *p, const struct sir_tu *tu);

/* Whether arm 'a' lies inside arm 'root' (-1: the whole function), or is it. */
bool cap_guard_inside(const struct sir_tu *tu, int a, int root);

/* Whether fn->ev[i] is reached only while its stream does not capture. */
bool cap_guard_skips(struct cap_guard *g, const struct sir_fn *fn, size_t i);

/* Whether fn->ev[i] is reached only while its stream captures, by a branch whose test says so
 * (if (capturing) {...}); an exit before it when not capturing asserts, it does not choose. */
bool cap_guard_capturing_branch(struct cap_guard *g, const struct sir_fn *fn, size_t i);

/* Whether fn->ev[i] is on a path that ends in an error exit, later in a branch that holds it
 * (or in a function that always ends so: a fail() helper). */
bool cap_guard_on_error_path(struct cap_guard *g, const struct sir_fn *fn, size_t i);

/* Code that runs only while a stream captures: the events of fn from 'from' to 'to' inside arm
 * 'in' (any when -1) and outside arm 'out' (none when -1). */
struct cap_guard_span {
	size_t from, to;
	int in, out;
	struct loc test;                /* the capture-status test that says so */
	struct sir_ref stream;          /* the stream it asks about (REF_OTHER, no text, unknown) */
};

/* The spans of 'fn', malloc'd (NULL when none); the caller frees. */
struct cap_guard_span *cap_guard_spans(struct cap_guard *g, const struct sir_fn *fn, size_t *n);
bool cap_guard_in_span(const struct cap_guard *g, const struct cap_guard_span *s, const struct sir_ev *e);

#endif
