/* SPDX-License-Identifier: MIT */
/*
 * cap_fork: the streams a capture forked to, kept per element range for stream arrays, below
 * cap.c's walk of a region.
 *
 * A stream written streams[i] in `for (i = 1; i < width; i++)` stands for the elements
 * [1, width), streams[0] for [0, 1), streams[k] for [k, k + 1); a loop counter, a bound or an
 * index that is a parameter stands for what the caller passed. Ranges are compared only where
 * their bounds are the same variable (or constants) plus constants; anything else is "some
 * element", which may be any other: a join by it is taken on trust, so it never makes a report.
 */
#ifndef CGLINT_CAP_FORK_H
#define CGLINT_CAP_FORK_H

#include <stdbool.h>
#include <stddef.h>

#include "source/cap_ref.h"
#include "source/sir.h"

struct cap;

/* A stream as met at an event: what it is, and for an array's element, which elements. */
struct cap_stream {
	struct sir_ref ref;
	struct sir_bound lo, hi;        /* elements [lo, hi); not 'known' where cglint cannot say */
};

struct cap_stream cap_stream_at(const struct cap *c, const struct cap_frame *f, const struct sir_ev *e, struct sir_ref raw);
/* Whether two streams may be one (may share an element), or certainly share one. */
bool cap_stream_may_meet(const struct cap_stream *a, const struct cap_stream *b);
bool cap_stream_must_meet(const struct cap_stream *a, const struct cap_stream *b);

#define CAP_MAX_FORKS 32

struct cap_fork {
	struct cap_stream s;
	bool joined;
	unsigned last_work;             /* sequence number of its last work */
	const struct sir_ev *short_join;        /* a join that missed some of its elements */
	bool maybe_origin;              /* it may be the origin's own element: never reported */
};

struct cap_forks {
	struct cap_fork v[CAP_MAX_FORKS];
	size_t n;
};

/* Whether 's' may be (must: certainly is) a forked stream. */
bool cap_forks_has(const struct cap_forks *k, const struct cap_stream *s, bool must);
/* 's' waited on an event of the capture: it joins (the origin's own elements left out). */
void cap_forks_add(struct cap_forks *k, const struct cap_stream *s, const struct cap_stream *origin, unsigned seq);
/* Work on 's': the forks it certainly is need joining again (some element might be one
 * already joined, or the origin). */
void cap_forks_work(struct cap_forks *k, const struct cap_stream *s, unsigned seq);
/* An event recorded on 'on' at 'seq' was waited on ('at'): the forks it covers are joined, a
 * fork it covers in part keeps the rest. */
void cap_forks_join(struct cap_forks *k, const struct cap_stream *on, unsigned seq, const struct sir_ev *at);
/* How a fork reads in a message: 'streams[width - 1]', 'streams[i]' for i in [1, n). */
const char *cap_fork_name(const struct cap *c, const struct cap_fork *f);

#endif
