/* SPDX-License-Identifier: MIT */
/*
 * probe_gpu: what the GPU probe program's files share (internal to cglint-probe). The harness
 * (probe_gpu.cu) holds the JSON line builder and the NCCL loader; the row table and row cells
 * are probe_rows.cu's, the capture/bench/memory child probe_bench.cu's; the multi-GPU section
 * (--ranks N) is probe_ranks.cu's (the parent's side) and probe_nccl.cu's (one rank of a cell).
 */
#ifndef CGLINT_PROBE_GPU_H
#define CGLINT_PROBE_GPU_H

#include <cuda_runtime.h>

#include <climits>
#include <cstddef>

#include <sys/types.h>

static constexpr int NUL = INT_MIN; /* "null" for integer fields */
enum { EXIT_OK = 0, EXIT_USAGE = 2, EXIT_INTERNAL = 3, EXIT_NODEV = 4, EXIT_FEWDEV = 5 };
enum { PROBE_VERSION = 1 };

/* ---------------------------------------------------------------- JSON line builder */

struct Js {
	char b[32768]; /* a multi-GPU cell carries its ranks' lines and NCCL's warnings */
	size_t n;
	bool first;
};

void js_open(Js *j);
void js_str(Js *j, const char *k, const char *v);
void js_int(Js *j, const char *k, long long v);
void js_bool(Js *j, const char *k, int v); /* -1 = null */
void js_num(Js *j, const char *k, double v, bool ok);
void js_array(Js *j, const char *k, const char *const *items, int n, bool raw);
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

/* ---------------------------------------------------------------- child processes (probe_gpu.cu) */

struct Kid {
	pid_t pid;
	int fd;
	char *out;
	size_t len, cap;
	double deadline;
	bool eof, killed, done;
	int status;
};

extern char g_exe[4096];	/* this program, for the children */
extern int g_timeout;		/* seconds a child may run */

double now_s(void);
/* Spawn g_exe with argv and envp (NULL: this process's), stdout on a pipe. */
int kid_start(Kid *k, char *const argv[], char *const envp[]);
void kid_read(Kid *k);
void kid_poll(Kid *k);
void exit_string(const Kid *k, char *buf, size_t n);
/* Calls fn for each of our JSON lines in out; other lines go to other (NULL: stderr). */
void each_json_line(const char *out, void (*fn)(const char *line, void *ctx), void *ctx,
		    void (*other)(const char *line, void *ctx));

/* ---------------------------------------------------------------- multi-GPU section */

/* The parent's side of --ranks N: the device line, then every cell (ids in --only among them,
 * all when NULL). Returns the exit status: 0, EXIT_FEWDEV, EXIT_INTERNAL or EXIT_USAGE. */
int ranks_run(int nranks, const char *only);
/* probe_ranks.cu: the "ranks" line (device count, peer access), in a child. */
int child_ranks_info(int nranks);
/* probe_nccl.cu: one rank of one cell, in this process. */
struct RankArgs {
	int coll, mem, reg, rank, nranks;
	const char *uid_path;
};
int child_rank(const RankArgs *a);
int ranks_coll_find(const char *id);	/* RANKS-ALLREDUCE ... or -1 */
extern const char *const RANKS_COLLS[];	/* row ids */
extern const char *const RANKS_DOES[];	/* what each does */
extern const char *const RANKS_MEMS[];	/* malloc, vmm, vmm_remap */
enum { RANKS_N_COLLS = 4, RANKS_N_MEMS = 3 };

/* probe_bench.cu's kernel; a row cell launches it once before its capture (lazy loading). */
__global__ void k_axpb(float *x, int n, float a, float b);

#endif
