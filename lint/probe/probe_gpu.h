/* SPDX-License-Identifier: MIT */
/*
 * probe_gpu: what the GPU probe program's files share (internal to cglint-probe). The harness
 * (probe_gpu.cu) holds the JSON line builder and the NCCL loader; the row table and row cells
 * are probe_rows.cu's, the capture/bench/memory child probe_bench.cu's.
 */
#ifndef CGLINT_PROBE_GPU_H
#define CGLINT_PROBE_GPU_H

#include <cuda_runtime.h>

#include <climits>
#include <cstddef>

static constexpr int NUL = INT_MIN; /* "null" for integer fields */
enum { EXIT_OK = 0, EXIT_USAGE = 2, EXIT_INTERNAL = 3, EXIT_NODEV = 4 };
enum { PROBE_VERSION = 1 };

/* ---------------------------------------------------------------- JSON line builder */

struct Js {
	char b[8192];
	size_t n;
	bool first;
};

void js_open(Js *j);
void js_str(Js *j, const char *k, const char *v);
void js_int(Js *j, const char *k, long long v);
void js_bool(Js *j, const char *k, int v); /* -1 = null */
void js_num(Js *j, const char *k, double v, bool ok);
void js_obj(Js *j, const char *k);
void js_end(Js *j);
void js_print(Js *j);

/* ---------------------------------------------------------------- NCCL (dlopen, own prototypes) */

/* ncclResult_t, ncclDataType_t and ncclRedOp_t are C enums: int-sized, passed as int. */
typedef int (*nccl_version_fn)(int *);
typedef int (*nccl_initall_fn)(void **comm, int ndev, const int *devlist);
typedef int (*nccl_allreduce_fn)(const void *, void *, size_t, int, int, void *, cudaStream_t);
enum { NCCL_INT32 = 2, NCCL_SUM = 0 };

struct Nccl {
	void *h;
	nccl_version_fn version;
	nccl_initall_fn init_all;
	nccl_allreduce_fn all_reduce;
};

extern char g_reason[1024]; /* one reason string per process is enough */

const char *nccl_open(Nccl *n);
const char *nccl_name(int r);

/* ---------------------------------------------------------------- row table (probe_rows.cu) */

/* Indexes ROWS, in the same order: the output order. */
enum RowId {
	R_SYNC_DEV, R_SYNC_CAP, R_SYNC_OTHER, R_SYNC_NULL, R_EVSYNC_IN, R_EVSYNC_OUT, R_QUERY_CAP,
	R_QUERY_OTHER, R_EVQUERY_IN, R_EVQUERY_OUT, R_EVELAPSED_IN, R_MEMCPY_SYNC, R_MEMSET_SYNC,
	R_MEMCPYASYNC_PAGEABLE, R_MALLOC, R_FREE, R_MANAGED, R_MALLOCASYNC, R_RELAX_MALLOC, R_MALLOCHOST,
	R_HOSTALLOC, R_HOSTREGISTER, R_FREEHOST, R_SETLIMIT, R_POOL_ATTR, R_LAUNCH_NULL,
	R_MEMCPYASYNC_NULL, R_EVRECORD_NULL, R_LAUNCH_PTDS, R_ADDCALLBACK, R_HOSTFUNC, R_NESTED_BEGIN,
	R_BEGIN_LEGACY, R_GRAPHLAUNCH, R_MODULE_LOAD, R_MODULE_UNLOAD, R_NCCL_INIT, R_NCCL_ALLREDUCE, R_FORK_NOJOIN,
	R_FORK_JOIN, R_END_ON_FORK, R_WAIT_UNCAPTURED, R_WAIT_EXTERNAL, R_LEFT_OPEN, R_HOST_WORK,
	R_FROZEN_ARG, R_T_MALLOC, R_T_DEVSYNC, R_T_EVQUERY_OUT, R_T_LAUNCH_NULL, R_T_MEMCPY_SYNC,
	R_T_END_CAPTURE, R_COUNT
};

struct RowDef {
	const char *id;
	const char *does;
	int eff;
	int flags;
};

extern const RowDef ROWS[R_COUNT];
extern const char *const MODE_NAMES[3];
extern const char *const STREAM_NAMES[2];

int row_find(const char *id);

/* ---------------------------------------------------------------- children */

/* Each prints its lines and returns the process's exit status. */
int child_bench(void);				/* probe_bench.cu */
int child_row(int row, int mode, int stream);	/* probe_rows.cu: one cell, in this process */

/* The parent's line for a cell whose child printed none: null observations. */
void print_row_null(int row, int mode, int stream, const char *exit_s);

/* probe_bench.cu's kernel; a row cell launches it once before its capture (lazy loading). */
__global__ void k_axpb(float *x, int n, float a, float b);

#endif
