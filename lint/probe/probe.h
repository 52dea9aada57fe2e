/* SPDX-License-Identifier: MIT */
/*
 * probe: what the GPU probe program (lint/probe/probe_gpu.cu and its rows, installed as cglint-probe beside
 * cglint) observed, as plain data. The program prints JSON lines; this module runs it, or reads
 * a recording of its output (--from), and parses the lines. Judging the rows against the rule
 * docs is verify.h's job, printing is out_probe.c's.
 *
 * A probe_run owns everything in it; probe_run_free releases it.
 */
#ifndef CGLINT_PROBE_H
#define CGLINT_PROBE_H

#include <stdbool.h>
#include <stddef.h>

struct arena;

#define PROBE_NO_DEVICE 4       /* exit status of cglint-probe and of `cglint probe` without a GPU */
#define PROBE_FEW_DEVICES 5     /* --ranks N on a machine with fewer than N GPUs */
#define PROBE_MAX_OUTPUT (16u << 20)

struct probe_identity {
	const char *device;             /* NULL when there is none */
	const char *error;              /* why there is none */
	int cuda_rc;
	const char *cuda_err;
	int cc_major, cc_minor, sms;
	int driver, runtime;            /* 13000 = 13.0 */
	int nccl;                       /* 22809 = 2.28.9; 0 when NCCL was not found */
	const char *nccl_note;
	const char **env;               /* NAME, value-or-NULL pairs, n_env of them */
	size_t n_env;
};

struct probe_capture {
	bool present;
	int chain, begin_rc, end_rc, instantiate_rc, replay_rc;
	bool bitwise_equal;
};

struct probe_bench {
	int chain, warmup, reps;
	double eager_host_us, graph_host_us;    /* per kernel, median */
	double eager_gpu_us, graph_gpu_us;      /* per iteration, median */
};

struct probe_memory {
	int chain;
	long long free_before, free_after, graph_bytes;
	int copies;                     /* executables instantiated for the average */
	long long bytes_per_exec;       /* (free before - free after copies+1) / (copies+1); -1 unknown */
};

#define PROBE_NULL (-1000000)  /* an int field the probe left null */

/* One row in one capture mode with one kind of capture stream. */
struct probe_cell {
	const char *id, *does;
	int mode, stream;               /* PROBE_MODE_*, PROBE_STREAM_* (pack.h) */
	int call_rc;                    /* or PROBE_NULL */
	const char *call_err;
	int status;                     /* index in pack_probe_status, or -1 */
	int end_rc;
	int graph;                      /* 0, 1, or -1 */
	int at_capture;                 /* 0, 1, or -1 when the row has no observable effect */
	int replay;                     /* index in pack_probe_replay, or -1 */
	int replay_rc, last_error, health_rc;
	const char *skipped;            /* why the row could not run here */
	const char *exit;               /* "ok", "signal 11", "timeout", "status 3" */
	unsigned line;                  /* in the probe's output */
	/* multi-GPU cells (RANKS-*), summed over their ranks; mode global, stream nonblocking */
	int mem, graph_register, reg;   /* pack_probe_mems / _graph_register index, 0/1 */
	int hang;                       /* a rank timed out */
	const char *hung_at;            /* where it stopped: "replay", ... */
	int eager;                      /* the eager run, a pack_probe_replay index, or -1 */
	long long bad;                  /* most wrong elements on one rank */
	const char **warnings;          /* NCCL WARN lines, once each */
	size_t n_warnings;
};

struct probe_ranks {
	bool present;
	int want, devices;              /* --ranks N; GPUs seen (PROBE_NULL: unknown) */
	int peer_access;                /* 0, 1, -1 */
	const char *error;              /* "not enough devices", ... */
};

struct probe_run {
	struct arena *arena;
	const char *source;             /* the program, or the recording's path */
	struct probe_identity id;
	struct probe_capture capture;
	struct probe_bench *bench;
	size_t n_bench;
	struct probe_memory *memory;
	size_t n_memory;
	struct probe_cell *cells;
	size_t n_cells;
	struct probe_ranks ranks;       /* the multi-GPU section (--ranks N) */
	struct probe_cell *nccl;
	size_t n_nccl;
	bool partial;                   /* only some rows were asked for (--only) */
};

/*
 * The probe program to run: 'given' (--probe-bin), else $CGLINT_PROBE, else cglint-probe beside
 * this executable. NULL when there is none (a build without the CUDA toolkit).
 */
const char *probe_program(const char *given);

/*
 * Run 'prog' with 'args' (NULL-terminated, without argv[0]) and parse its output into 'run'.
 * Returns 0; PROBE_NO_DEVICE when it found no CUDA device (run->id.error says why); 2 when it
 * refused its arguments; 3 when it failed or printed something unparsable (message in 'err').
 */
int probe_exec(struct probe_run *run, const char *prog, const char *const *args, char *err, size_t n_err);
/* Parse a recording of the program's output (JSON lines): 0, PROBE_NO_DEVICE, PROBE_FEW_DEVICES,
 * or 2 with "name:line: why" in 'err'. */
int probe_parse(struct probe_run *run, const char *name, const char *text, size_t len, char *err, size_t n_err);
void probe_run_init(struct probe_run *run);
void probe_run_free(struct probe_run *run);

#endif
