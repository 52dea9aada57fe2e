/* SPDX-License-Identifier: MIT */
/*
 * cap: capture regions in a translation unit (sir.h) and the checks that judge them.
 *
 * A region runs from a begin of capture (cudaStreamBeginCapture, cuStreamBeginCapture,
 * at::cuda::CUDAGraph::capture_begin) to the matching end on the same stream (or graph
 * object) in the same function. Its events are walked in order, following calls into
 * functions the translation unit defines (CAP_MAX_DEPTH deep), with the capture's mode, the
 * capture stream's blocking kind, the thread's relaxed state, forked streams and captured
 * events tracked along the way. Which call is which comes from the pack's 'apis' table.
 *
 * Code that a capture-status test says runs only while the stream captures is checked as a
 * region too (cap_guarded), and code it says runs only when not capturing is left out of every
 * region (cap_guard.h).
 *
 * cap.c: regions and the per-event hazards (CG3xx, CG401-CG403, CG408).
 * Below it: cap_target.c (what an indirect call may reach), cap_thread.c (threads started and
 * joined, and what their calls do to a capture), cap_words.c (how messages read).
 * cap_graph.c, a layer above: checks over a function's shape (CG404-CG407, CG409, CG410);
 * cap_cond.c beside it: NCCL in a graph with a conditional node (CG412).
 */
#ifndef CGLINT_CAP_H
#define CGLINT_CAP_H

#include <stdbool.h>
#include <stddef.h>

#include "config/pack.h"
#include "source/cap_ref.h"
#include "source/sir.h"

struct arena;
struct diag_list;
struct diag;
struct cap_guard;
struct cap_guard_span;

#define CAP_MAX_DEPTH 4         /* calls followed from a region into the TU's own functions */

enum cap_mode { CAP_GLOBAL, CAP_THREAD_LOCAL, CAP_RELAXED, CAP_MODE_UNKNOWN };
enum cap_blocking { CAP_BLOCKING_UNKNOWN, CAP_BLOCKING, CAP_NONBLOCKING };

struct cap_region {
	const struct sir_fn *fn;
	size_t begin, end;              /* event indices of the begin and end calls */
	unsigned from, to;              /* offsets: after the begin's statement, before the end's */
	struct sir_ref stream;          /* the origin stream (REF_CURRENT for CUDAGraph) */
	struct sir_ref graph;           /* CUDAGraph: the graph object */
	enum cap_mode mode;
	const struct cap_guard_span *span;      /* code a capture-status test says captures; NULL for
						 * a begin and its end */
};

/* The shared state of one run of the checks over a translation unit. */
struct cap {
	const struct sir_tu *tu;
	const struct pack *pack;
	struct diag_list *diags;
	struct arena *arena;
	struct cap_guard *guard;        /* cap_guard_new(arena, pack, tu) */
};

/* The capture regions of one function, each checked for hazards as it is found; malloc'd
 * (NULL when none), the caller frees. */
struct cap_region *cap_regions(const struct cap *c, const struct sir_fn *fn, size_t *count);
/* The hazards in code of 'fn' that runs only while capturing, by its capture-status tests, that
 * no region of the unit reported already: call after cap_regions on every function. */
void cap_guarded(const struct cap *c, const struct sir_fn *fn);

/* What a message's {placeholders} say (rules/capture.yaml); NULL ones stay empty, but {begun}
 * which is "begun at line {line}" unless given. */
struct cap_words {
	const char *api, *stream, *event, *var, *effect, *begun;
	unsigned line;
	enum cap_mode mode;
};

/* ---- for the checks built on regions (cap_graph.c) ---- */
const struct pack_api *cap_role(const struct cap *c, const struct sir_ev *e, enum api_role role);
struct sir_ref cap_arg(const struct sir_ev *e, int pos);
struct diag *cap_report(const struct cap *c, const struct rule *r, const struct sir_ev *at, const struct cap_words *w);

#endif
