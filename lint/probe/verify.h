/* SPDX-License-Identifier: MIT */
/*
 * verify: the probe's observations judged against what the rule docs claim (pack.h's
 * pack_claim, from rules/capture.yaml 'probe'). Pure data in, verdicts out; no GPU.
 *
 * A verify_report borrows the pack and the run it was made from; verify_release frees it.
 */
#ifndef CGLINT_VERIFY_H
#define CGLINT_VERIFY_H

#include <stddef.h>

struct pack;
struct pack_claim;
struct pack_expect;
struct probe_cell;
struct probe_run;

enum verdict {
	VERDICT_MATCH,          /* every claimed field as observed */
	VERDICT_MISMATCH,       /* a claimed field differs, or the row crashed */
	VERDICT_UNCLAIMED,      /* the docs claim nothing for this cell */
	VERDICT_SKIPPED,        /* the probe could not run it here (no NCCL, ...) */
	VERDICT_N
};

extern const char *const verify_verdict_names[];   /* "match", "mismatch", "unclaimed", "skipped" */

struct verify_miss {
	const char *field;              /* "call", "status", "end", "replay", "at_capture", "exit", "hang", "eager" */
	char expected[32], observed[32];
};

struct verify_cell {
	const struct probe_cell *cell;
	const struct pack_claim *claim;         /* NULL when no rule claims the row */
	const struct pack_expect *expect;       /* NULL when the claim does not cover the cell */
	enum verdict verdict;
	struct verify_miss miss[8];
	size_t n_miss;
};

struct verify_report {
	struct verify_cell *cells;              /* in the probe's order */
	size_t n_cells;
	struct verify_cell *nccl;               /* the multi-GPU cells, likewise */
	size_t n_nccl;
	const struct pack_claim **not_probed;   /* claimed rows the run has no cell of */
	size_t n_not_probed;
	size_t count[VERDICT_N];
};

/* Judge every cell of 'run'. Returns the number of failures: mismatches, plus claimed rows the
 * probe did not run (only when the run was complete: a one-GPU run owes the one-GPU rows, a
 * --ranks run the RANKS-* rows). */
size_t verify_run(struct verify_report *r, const struct pack *p, const struct probe_run *run);
void verify_release(struct verify_report *r);
/* A result code as the report prints it: "900", "error", "-" for null. */
const char *verify_code_str(int code, char *buf, size_t n);

#endif
