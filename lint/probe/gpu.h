/* SPDX-License-Identifier: MIT */
/*
 * gpu: what `cglint probe` and `--gpu auto` do with the GPU at hand, on top of probe.h (running
 * the probe program), verify.h (judging its rows) and out_probe.h (printing them).
 */
#ifndef CGLINT_GPU_H
#define CGLINT_GPU_H

#include <stdbool.h>
#include <stddef.h>

struct arena;
struct pack;
struct target;

struct gpu_opts {
	const char *program;            /* --probe-bin; NULL: probe_program's search */
	const char *from;               /* --from: a recording of the program's output instead */
	const char *only;               /* --only ROW,ROW */
	const char *timeout;            /* --timeout S, per row */
	unsigned jobs;                  /* -j N: cells run at once, each still its own process; 0 default */
	unsigned ranks;                 /* --ranks N: the multi-GPU section on N GPUs; 0: the one-GPU rows */
};

/*
 * `cglint probe`: run the probe (or read --from), judge every row against the rule docs and
 * print the report. Returns the exit status: 0 every claim holds, 1 a claim does not,
 * 2 unreadable --from or usage, 3 the program failed, 4 (PROBE_NO_DEVICE) no CUDA device or
 * no probe in this build.
 */
int gpu_verify(const struct pack *p, const struct gpu_opts *o, bool json);
/*
 * The compute capability of the GPU at hand into 't' (gpu "sm_90", gpu_major 9), from the probe
 * program's identity; strings live in 'a'. Returns 0, or PROBE_NO_DEVICE / 3 with the reason in
 * 'why' (no device, no probe in this build, the program failed).
 */
int gpu_detect(const char *program, struct target *t, struct arena *a, char *why, size_t n_why);
/* Append the process environment's NAME=VALUE entries (valid names only) to a list. */
void gpu_environ(const char ***list, size_t *n);

#endif
