/* SPDX-License-Identifier: MIT */
/*
 * probe_rows: the row table and one row cell (§6.4): a capture, the row's hazard inside it, the
 * end, a replay, and the row line.
 *
 * call_err is cudaGetErrorName() for runtime calls, the CUresult name (CUDA_ERROR_...) for the
 * driver call of MODULE-LOAD, and the ncclResult_t name (ncclXxx) for the NCCL rows. HOST-WORK
 * makes no CUDA call: its call_rc/call_err are null.
 */
#include "probe/probe_gpu.h"

#include <cuda.h> /* CUresult / CUmodule types only; nothing from libcuda is linked */

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <pthread.h>

/* ---------------------------------------------------------------- row table */

enum Eff { EFF_NONE, EFF_FLAG, EFF_BYTE, EFF_PAGEABLE, EFF_FROZEN, EFF_HOST };
enum { ROW_THREAD = 1, ROW_NCCL = 2 };

/* Indexed by RowId; order = output order. */
const RowDef ROWS[R_COUNT] = {
	{"SYNC-DEV", "cudaDeviceSynchronize()", EFF_NONE, 0},
	{"SYNC-CAP", "cudaStreamSynchronize(capture stream)", EFF_NONE, 0},
	{"SYNC-OTHER", "cudaStreamSynchronize(other idle non-blocking stream)", EFF_NONE, 0},
	{"SYNC-NULL", "cudaStreamSynchronize(0)", EFF_NONE, 0},
	{"EVSYNC-IN", "cudaEventSynchronize(evIn), evIn recorded in the capture", EFF_NONE, 0},
	{"EVSYNC-OUT", "cudaEventSynchronize(evOut), evOut recorded before the capture", EFF_NONE, 0},
	{"QUERY-CAP", "cudaStreamQuery(capture stream)", EFF_NONE, 0},
	{"QUERY-OTHER", "cudaStreamQuery(other)", EFF_NONE, 0},
	{"EVQUERY-IN", "cudaEventQuery(evIn)", EFF_NONE, 0},
	{"EVQUERY-OUT", "cudaEventQuery(evOut)", EFF_NONE, 0},
	{"EVELAPSED-IN", "cudaEventElapsedTime(&ms, evOut, evIn)", EFF_NONE, 0},
	{"MEMCPY-SYNC", "cudaMemcpy(flag, &pageable(=42), 4, H2D)", EFF_FLAG, 0},
	{"MEMSET-SYNC", "cudaMemset(flag, 0x2a, 1)", EFF_BYTE, 0},
	{"MEMCPYASYNC-PAGEABLE", "cudaMemcpyAsync(flag, &pageable, 4, H2D, cap), pageable=1 at capture, 42 before replay", EFF_PAGEABLE, 0},
	{"MALLOC", "cudaMalloc(&p, 256)", EFF_NONE, 0},
	{"FREE", "cudaFree(p) of a buffer allocated before the capture", EFF_NONE, 0},
	{"MANAGED", "cudaMallocManaged(&p, 256)", EFF_NONE, 0},
	{"MALLOCASYNC", "cudaMallocAsync(&p, 256, cap) then cudaFreeAsync(p, cap)", EFF_NONE, 0},
	{"RELAX-MALLOC", "cudaThreadExchangeStreamCaptureMode(relaxed), cudaMalloc, swap back", EFF_NONE, 0},
	{"MALLOCHOST", "cudaMallocHost(&p, 4096)", EFF_NONE, 0},
	{"HOSTALLOC", "cudaHostAlloc(&p, 4096, cudaHostAllocDefault)", EFF_NONE, 0},
	{"HOSTREGISTER", "cudaHostRegister(page-aligned 4096-byte buffer, 4096, default)", EFF_NONE, 0},
	{"FREEHOST", "cudaFreeHost(p) of pinned memory allocated before the capture", EFF_NONE, 0},
	{"SETLIMIT", "cudaDeviceSetLimit(cudaLimitStackSize, current value)", EFF_NONE, 0},
	{"POOL-ATTR", "cudaMemPoolSetAttribute(default pool, cudaMemPoolAttrReleaseThreshold, &current)", EFF_NONE, 0},
	{"LAUNCH-NULL", "kernel flag=42 <<<1,1>>> on stream 0 (legacy)", EFF_FLAG, 0},
	{"MEMCPYASYNC-NULL", "cudaMemcpyAsync(flag, pinned(=42), 4, H2D, 0)", EFF_FLAG, 0},
	{"EVRECORD-NULL", "cudaEventRecord(evX, 0)", EFF_NONE, 0},
	{"LAUNCH-PTDS", "kernel flag=42 on cudaStreamPerThread", EFF_FLAG, 0},
	{"ADDCALLBACK", "cudaStreamAddCallback(cap, cb, ptr, 0)", EFF_HOST, 0},
	{"HOSTFUNC", "cudaLaunchHostFunc(cap, fn, ptr)", EFF_HOST, 0},
	{"NESTED-BEGIN", "second cudaStreamBeginCapture(cap, mode) inside the capture", EFF_NONE, 0},
	{"BEGIN-LEGACY", "cudaStreamBeginCapture(0 /*legacy*/, mode), no outer capture", EFF_NONE, 0},
	{"GRAPHLAUNCH", "cudaGraphLaunch(childExec, cap), childExec captured before (flag=42)", EFF_FLAG, 0},
	{"MODULE-LOAD", "cuModuleLoadData(&mod, tiny PTX)", EFF_NONE, 0},
	{"MODULE-UNLOAD", "cuModuleUnload(mod) of a module loaded before the capture", EFF_NONE, 0},
	{"NCCL-INIT", "ncclCommInitAll(&comm, 1, {0})", EFF_NONE, ROW_NCCL},
	{"NCCL-ALLREDUCE", "ncclAllReduce(flagsrc(=42), flag, 1, ncclInt32, ncclSum, comm, cap)", EFF_FLAG, ROW_NCCL},
	{"FORK-NOJOIN", "cudaStreamWaitEvent(side, evIn, 0); kernel flag=42 on side; no join", EFF_FLAG, 0},
	{"FORK-JOIN", "fork side from evIn, kernel flag=42 on side, join back through evS", EFF_FLAG, 0},
	{"END-ON-FORK", "cudaStreamEndCapture(side, &g2) on a forked stream", EFF_NONE, 0},
	{"WAIT-UNCAPTURED", "cudaStreamWaitEvent(cap, evOut, 0)", EFF_NONE, 0},
	{"WAIT-EXTERNAL", "cudaStreamWaitEvent(cap, evOut, cudaEventWaitExternal)", EFF_NONE, 0},
	{"LEFT-OPEN", "cudaStreamBeginCapture(cap, mode) again on a capture left open", EFF_NONE, 0},
	{"HOST-WORK", "host counter incremented inside the capture region", EFF_HOST, 0},
	{"FROZEN-ARG", "kernel writes by-value arg v (1 at capture, 42 before replay) to flag", EFF_FROZEN, 0},
	{"T-MALLOC", "cudaMalloc on another thread", EFF_NONE, ROW_THREAD},
	{"T-DEVSYNC", "cudaDeviceSynchronize on another thread", EFF_NONE, ROW_THREAD},
	{"T-EVQUERY-OUT", "cudaEventQuery(evOut) on another thread", EFF_NONE, ROW_THREAD},
	{"T-LAUNCH-NULL", "kernel flag=42 on stream 0 from another thread", EFF_FLAG, ROW_THREAD},
	{"T-MEMCPY-SYNC", "cudaMemcpy H2D (flag<-42) from another thread", EFF_FLAG, ROW_THREAD},
	{"T-END-CAPTURE", "cudaStreamEndCapture(cap) from another thread", EFF_NONE, ROW_THREAD},
};

const char *const MODE_NAMES[3] = {"global", "thread_local", "relaxed"};
static const cudaStreamCaptureMode MODES[3] = {cudaStreamCaptureModeGlobal,
					       cudaStreamCaptureModeThreadLocal,
					       cudaStreamCaptureModeRelaxed};
const char *const STREAM_NAMES[2] = {"blocking", "nonblocking"};

int row_find(const char *id)
{
	for (int i = 0; i < R_COUNT; i++)
		if (!strcmp(ROWS[i].id, id))
			return i;
	return -1;
}

/* ---------------------------------------------------------------- kernel */

__global__ void k_set(int *p, int v)
{
	*p = v;
}

/* cudaLaunchKernel returns the launch's own result (a <<<>>> launch would drop it). */
static int launch_set(int *p, int v, cudaStream_t s)
{
	void *args[2] = {&p, &v};
	return (int)cudaLaunchKernel((const void *)k_set, dim3(1), dim3(1), args, 0, s);
}

/* ---------------------------------------------------------------- row cell */

enum ErrKind { ERR_RT, ERR_CU, ERR_NCCL };

typedef CUresult (*cu_load_fn)(CUmodule *, const void *);
typedef CUresult (*cu_unload_fn)(CUmodule);
typedef CUresult (*cu_errname_fn)(CUresult, const char **);

static const char TINY_PTX[] =
	".version 7.5\n"
	".target sm_75\n"
	".address_size 64\n"
	".visible .entry cglint_nop()\n"
	"{\n"
	"\tret;\n"
	"}\n";

static int g_pageable = 42;		   /* pageable host int (static: must outlive the graph) */
static std::atomic<int> g_host_count(0);   /* host effect of callbacks, host nodes, host work */

static void CUDART_CB cb_stream(cudaStream_t, cudaError_t, void *p)
{
	((std::atomic<int> *)p)->fetch_add(1);
}

static void CUDART_CB cb_host(void *p)
{
	((std::atomic<int> *)p)->fetch_add(1);
}

struct Cell {
	int row;
	cudaStreamCaptureMode mode;
	bool blocking;
	cudaStream_t cap, side, other;
	cudaEvent_t ev_in, ev_out, ev_x, ev_s;
	int *dbuf; /* [0] data (legit kernel writes 7), [1] flag (effect, 42), [2] flagsrc = 42 */
	int *pinned;
	/* per-row state */
	void *p;		/* allocation made by the hazard, released after the end */
	void *pre;		/* allocation made before the capture, released by the hazard */
	void *host_buf;		/* HOSTREGISTER's page-aligned buffer */
	size_t limit;
	cudaMemPool_t pool;
	cuuint64_t thresh;
	cudaGraphExec_t child_exec;
	cudaGraph_t g2;		/* END-ON-FORK / T-END-CAPTURE graph from the non-main end */
	int frozen_v;
	CUmodule mod;
	cu_load_fn cu_load;
	cu_unload_fn cu_unload;
	cu_errname_fn cu_errname;
	Nccl nccl;
	void *comm;
	int err_kind;
	const char *status;	/* set early by LEFT-OPEN (status is read before its call) */
};

static int *data_p(Cell *c) { return c->dbuf; }
static int *flag_p(Cell *c) { return c->dbuf + 1; }

static const char *capture_status(cudaStream_t s)
{
	cudaStreamCaptureStatus st = cudaStreamCaptureStatusNone;
	if (cudaStreamIsCapturing(s, &st) != cudaSuccess)
		return "error";
	return st == cudaStreamCaptureStatusNone ? "none" : st == cudaStreamCaptureStatusActive ? "active" : "invalidated";
}

static const char *setup_fail(const char *what, int rc)
{
	snprintf(g_reason, sizeof(g_reason), "setup: %s -> %s", what, cudaGetErrorName((cudaError_t)rc));
	return g_reason;
}

#define SETUP(call)                                            \
	do {                                                   \
		cudaError_t e_ = (call);                       \
		if (e_ != cudaSuccess)                         \
			return setup_fail(#call, (int)e_);     \
	} while (0)

/* Streams, events, buffers, one eager launch per kernel (lazy loading), evOut completed. */
static const char *cell_setup(Cell *c)
{
	static const int h42 = 42;
	SETUP(cudaSetDevice(0));
	if (c->blocking)
		SETUP(cudaStreamCreate(&c->cap));
	else
		SETUP(cudaStreamCreateWithFlags(&c->cap, cudaStreamNonBlocking));
	SETUP(cudaStreamCreateWithFlags(&c->side, cudaStreamNonBlocking));
	SETUP(cudaStreamCreateWithFlags(&c->other, cudaStreamNonBlocking));
	SETUP(cudaEventCreate(&c->ev_in));
	SETUP(cudaEventCreate(&c->ev_out));
	SETUP(cudaEventCreate(&c->ev_x));
	SETUP(cudaEventCreate(&c->ev_s));
	SETUP(cudaMalloc(&c->dbuf, 4 * sizeof(int)));
	SETUP(cudaMemset(c->dbuf, 0, 4 * sizeof(int)));
	SETUP(cudaMemcpy(c->dbuf + 2, &h42, sizeof(int), cudaMemcpyHostToDevice));
	SETUP(cudaMallocHost(&c->pinned, sizeof(int)));
	*c->pinned = 42;
	SETUP((cudaError_t)launch_set(data_p(c), 0, c->cap));
	SETUP((cudaError_t)launch_set(data_p(c), 0, c->side));
	k_axpb<<<1, 32, 0, c->side>>>(NULL, 0, 1.0f, 0.0f);
	SETUP(cudaGetLastError());
	SETUP(cudaDeviceSynchronize());
	SETUP(cudaEventRecord(c->ev_out, c->other));
	SETUP(cudaEventSynchronize(c->ev_out));
	return NULL;
}

/* What each row needs before the capture begins. */
static const char *row_setup(Cell *c)
{
	cudaDriverEntryPointQueryResult q;
	switch (c->row) {
	case R_FREE:
		SETUP(cudaMalloc(&c->pre, 256));
		break;
	case R_FREEHOST:
		SETUP(cudaMallocHost(&c->pre, 4096));
		break;
	case R_HOSTREGISTER:
		c->host_buf = aligned_alloc(4096, 4096);
		if (!c->host_buf)
			return "setup: aligned_alloc failed";
		break;
	case R_SETLIMIT:
		SETUP(cudaDeviceGetLimit(&c->limit, cudaLimitStackSize));
		break;
	case R_POOL_ATTR:
		SETUP(cudaDeviceGetDefaultMemPool(&c->pool, 0));
		SETUP(cudaMemPoolGetAttribute(c->pool, cudaMemPoolAttrReleaseThreshold, &c->thresh));
		break;
	case R_MEMCPYASYNC_PAGEABLE:
		g_pageable = 1;
		break;
	case R_FROZEN_ARG:
		c->frozen_v = 1;
		break;
	case R_GRAPHLAUNCH: {
		/* The child graph: a separate capture on `side` of flag=42, instantiated, never launched. */
		cudaGraph_t cg = NULL;
		SETUP(cudaStreamBeginCapture(c->side, cudaStreamCaptureModeGlobal));
		int lr = launch_set(flag_p(c), 42, c->side);
		SETUP(cudaStreamEndCapture(c->side, &cg));
		SETUP((cudaError_t)lr);
		SETUP(cudaGraphInstantiate(&c->child_exec, cg, 0));
		break;
	}
	case R_MODULE_LOAD:
	case R_MODULE_UNLOAD:
		SETUP(cudaGetDriverEntryPointByVersion("cuModuleLoadData", (void **)&c->cu_load, 12000, cudaEnableDefault, &q));
		SETUP(cudaGetDriverEntryPointByVersion("cuModuleUnload", (void **)&c->cu_unload, 12000, cudaEnableDefault, &q));
		SETUP(cudaGetDriverEntryPointByVersion("cuGetErrorName", (void **)&c->cu_errname, 12000, cudaEnableDefault, &q));
		if (!c->cu_load || !c->cu_unload)
			return "setup: driver entry point cuModuleLoadData/cuModuleUnload not found";
		if (c->row == R_MODULE_UNLOAD && c->cu_load(&c->mod, TINY_PTX) != 0)
			return "setup: cuModuleLoadData before the capture failed";
		break;
	case R_NCCL_ALLREDUCE: {
		static const int devs[1] = {0};
		int r = c->nccl.init_all(&c->comm, 1, devs);
		if (r != 0) {
			snprintf(g_reason, sizeof(g_reason), "setup: ncclCommInitAll before the capture -> %s", nccl_name(r));
			return g_reason;
		}
		break;
	}
	default:
		break;
	}
	SETUP(cudaDeviceSynchronize());
	SETUP(cudaMemset(c->dbuf, 0, 2 * sizeof(int)));
	g_host_count.store(0);
	return NULL;
}

/* THE HAZARD of a single-thread row (thread rows: thread_hazard). Returns its result code;
 * c->err_kind says which enum the code belongs to (runtime, driver CUresult, ncclResult_t). */
static int hazard(Cell *c)
{
	float ms = 0;
	switch (c->row) {
	case R_SYNC_DEV: return cudaDeviceSynchronize();
	case R_SYNC_CAP: return cudaStreamSynchronize(c->cap);
	case R_SYNC_OTHER: return cudaStreamSynchronize(c->other);
	case R_SYNC_NULL: return cudaStreamSynchronize(0);
	case R_EVSYNC_IN: return cudaEventSynchronize(c->ev_in);
	case R_EVSYNC_OUT: return cudaEventSynchronize(c->ev_out);
	case R_QUERY_CAP: return cudaStreamQuery(c->cap);
	case R_QUERY_OTHER: return cudaStreamQuery(c->other);
	case R_EVQUERY_IN: return cudaEventQuery(c->ev_in);
	case R_EVQUERY_OUT: return cudaEventQuery(c->ev_out);
	case R_EVELAPSED_IN: return cudaEventElapsedTime(&ms, c->ev_out, c->ev_in);
	case R_MEMCPY_SYNC: return cudaMemcpy(flag_p(c), &g_pageable, sizeof(int), cudaMemcpyHostToDevice);
	case R_MEMSET_SYNC: return cudaMemset(flag_p(c), 0x2a, 1);
	case R_MEMCPYASYNC_PAGEABLE:
		return cudaMemcpyAsync(flag_p(c), &g_pageable, sizeof(int), cudaMemcpyHostToDevice, c->cap);
	case R_MALLOC: return cudaMalloc(&c->p, 256);
	case R_FREE: {
		int r = cudaFree(c->pre);
		if (r == 0)
			c->pre = NULL;
		return r;
	}
	case R_MANAGED: return cudaMallocManaged(&c->p, 256);
	case R_MALLOCASYNC: {
		int r = cudaMallocAsync(&c->p, 256, c->cap);
		if (r == 0) {
			cudaError_t f = cudaFreeAsync(c->p, c->cap); /* call_rc stays the malloc's */
			if (f != cudaSuccess)
				fprintf(stderr, "cglint-probe: MALLOCASYNC: cudaFreeAsync -> %s\n", cudaGetErrorName(f));
			c->p = NULL;
		}
		return r;
	}
	case R_RELAX_MALLOC: {
		cudaStreamCaptureMode m = cudaStreamCaptureModeRelaxed;
		cudaError_t x1 = cudaThreadExchangeStreamCaptureMode(&m);
		int r = cudaMalloc(&c->p, 256);
		cudaError_t x2 = cudaThreadExchangeStreamCaptureMode(&m);
		if (x1 != cudaSuccess || x2 != cudaSuccess)
			fprintf(stderr, "cglint-probe: RELAX-MALLOC: mode exchange failed\n");
		return r;
	}
	case R_MALLOCHOST: return cudaMallocHost(&c->p, 4096);
	case R_HOSTALLOC: return cudaHostAlloc(&c->p, 4096, cudaHostAllocDefault);
	case R_HOSTREGISTER: {
		int r = cudaHostRegister(c->host_buf, 4096, cudaHostRegisterDefault);
		if (r == 0)
			c->p = c->host_buf; /* unregistered after the end */
		return r;
	}
	case R_FREEHOST: {
		int r = cudaFreeHost(c->pre);
		if (r == 0)
			c->pre = NULL;
		return r;
	}
	case R_SETLIMIT: return cudaDeviceSetLimit(cudaLimitStackSize, c->limit);
	case R_POOL_ATTR: return cudaMemPoolSetAttribute(c->pool, cudaMemPoolAttrReleaseThreshold, &c->thresh);
	case R_LAUNCH_NULL: return launch_set(flag_p(c), 42, 0);
	case R_MEMCPYASYNC_NULL: return cudaMemcpyAsync(flag_p(c), c->pinned, sizeof(int), cudaMemcpyHostToDevice, 0);
	case R_EVRECORD_NULL: return cudaEventRecord(c->ev_x, 0);
	case R_LAUNCH_PTDS: return launch_set(flag_p(c), 42, cudaStreamPerThread);
	case R_ADDCALLBACK: return cudaStreamAddCallback(c->cap, cb_stream, &g_host_count, 0);
	case R_HOSTFUNC: return cudaLaunchHostFunc(c->cap, cb_host, &g_host_count);
	case R_NESTED_BEGIN: return cudaStreamBeginCapture(c->cap, c->mode);
	case R_BEGIN_LEGACY: return cudaStreamBeginCapture(0, c->mode);
	case R_GRAPHLAUNCH: return cudaGraphLaunch(c->child_exec, c->cap);
	case R_MODULE_LOAD:
		c->err_kind = ERR_CU;
		return (int)c->cu_load(&c->mod, TINY_PTX);
	case R_MODULE_UNLOAD: {
		c->err_kind = ERR_CU;
		int r = (int)c->cu_unload(c->mod);
		if (r == 0)
			c->mod = NULL;  /* gone: the clean-up must not unload it again */
		return r;
	}
	case R_NCCL_INIT: {
		static const int devs[1] = {0};
		c->err_kind = ERR_NCCL;
		return c->nccl.init_all(&c->comm, 1, devs);
	}
	case R_NCCL_ALLREDUCE:
		c->err_kind = ERR_NCCL;
		return c->nccl.all_reduce(c->dbuf + 2, flag_p(c), 1, NCCL_INT32, NCCL_SUM, c->comm, c->cap);
	case R_FORK_NOJOIN:
	case R_FORK_JOIN:
	case R_END_ON_FORK: {
		/* call_rc = the first failing step of the fork (and join) sequence, else 0. */
		int r = cudaStreamWaitEvent(c->side, c->ev_in, 0);
		int r2 = launch_set(flag_p(c), 42, c->side);
		if (r == 0)
			r = r2;
		if (c->row == R_FORK_JOIN) {
			int r3 = cudaEventRecord(c->ev_s, c->side);
			int r4 = cudaStreamWaitEvent(c->cap, c->ev_s, 0);
			if (r == 0)
				r = r3 ? r3 : r4;
		}
		if (c->row == R_END_ON_FORK) {
			if (r != 0)
				fprintf(stderr, "cglint-probe: END-ON-FORK: fork step failed: %d\n", r);
			r = cudaStreamEndCapture(c->side, &c->g2);
		}
		return r;
	}
	case R_WAIT_UNCAPTURED: return cudaStreamWaitEvent(c->cap, c->ev_out, 0);
	case R_WAIT_EXTERNAL: return cudaStreamWaitEvent(c->cap, c->ev_out, cudaEventWaitExternal);
	case R_LEFT_OPEN:
		/* The loop body "returned" without ending; the next iteration begins again. */
		c->status = capture_status(c->cap);
		return cudaStreamBeginCapture(c->cap, c->mode);
	case R_HOST_WORK:
		g_host_count.fetch_add(1);
		return NUL; /* no CUDA call: call_rc/call_err null */
	case R_FROZEN_ARG: {
		int *f = flag_p(c);
		void *args[2] = {&f, &c->frozen_v};
		return cudaLaunchKernel((const void *)k_set, dim3(1), dim3(1), args, 0, c->cap);
	}
	default:
		return NUL;
	}
}

struct ThreadArg {
	Cell *c;
	int rc;
};

/* The hazard of a T-* row, run on a second thread (default interaction mode) while the main
 * thread's capture is open. */
static void *thread_hazard(void *arg)
{
	ThreadArg *a = (ThreadArg *)arg;
	Cell *c = a->c;
	switch (c->row) {
	case R_T_MALLOC: a->rc = cudaMalloc(&c->p, 256); break;
	case R_T_DEVSYNC: a->rc = cudaDeviceSynchronize(); break;
	case R_T_EVQUERY_OUT: a->rc = cudaEventQuery(c->ev_out); break;
	case R_T_LAUNCH_NULL: a->rc = launch_set(flag_p(c), 42, 0); break;
	case R_T_MEMCPY_SYNC: a->rc = cudaMemcpy(flag_p(c), &g_pageable, sizeof(int), cudaMemcpyHostToDevice); break;
	case R_T_END_CAPTURE: a->rc = cudaStreamEndCapture(c->cap, &c->g2); break;
	default: a->rc = NUL; break;
	}
	return NULL;
}

/* Release what the hazard (or its setup) left, outside any capture. Not recorded. */
static void row_release(Cell *c)
{
	switch (c->row) {
	case R_MALLOC: case R_RELAX_MALLOC: case R_T_MALLOC: case R_MANAGED:
		if (c->p) cudaFree(c->p);
		break;
	case R_MALLOCHOST: case R_HOSTALLOC:
		if (c->p) cudaFreeHost(c->p);
		break;
	case R_HOSTREGISTER:
		if (c->p) cudaHostUnregister(c->p);
		break;
	case R_FREE:
		if (c->pre) cudaFree(c->pre);
		break;
	case R_FREEHOST:
		if (c->pre) cudaFreeHost(c->pre);
		break;
	case R_MODULE_LOAD:
	case R_MODULE_UNLOAD:
		if (c->mod) c->cu_unload(c->mod);
		break;
	default:
		break;
	}
	/* GRAPHLAUNCH's child exec is leaked on purpose (§6.6); NCCL comms too: the child _exits. */
	c->p = c->pre = NULL;
}

/* Reads the effect word (or host counter) after a device sync. -1 = could not read. */
static int read_effect(Cell *c, bool at_capture, int host_before)
{
	int h[2] = {0, 0};
	if (cudaDeviceSynchronize() != cudaSuccess)
		return -1;
	int eff = ROWS[c->row].eff;
	if (eff == EFF_HOST)
		return g_host_count.load() > host_before;
	if (cudaMemcpy(h, c->dbuf, sizeof(h), cudaMemcpyDeviceToHost) != cudaSuccess)
		return -1;
	switch (eff) {
	case EFF_NONE: return h[0] == 7;
	case EFF_FLAG: return h[1] == 42;
	case EFF_BYTE: return (h[1] & 0xff) == 0x2a;
	case EFF_PAGEABLE: case EFF_FROZEN: return h[1] == (at_capture ? 1 : 42);
	default: return -1;
	}
}

struct RowOut {
	int call_rc;
	const char *call_err;
	const char *status;
	int end_rc;
	int graph;
	int at_capture;
	const char *replay;
	int replay_rc;
	int last_error;
	int health_rc;
	const char *skipped;
};

static void print_row(int row, int mode, int stream, const RowOut *o, const char *exit_s)
{
	Js j;
	js_open(&j);
	js_str(&j, "kind", "row");
	js_str(&j, "id", ROWS[row].id);
	js_str(&j, "mode", MODE_NAMES[mode]);
	js_str(&j, "stream", STREAM_NAMES[stream]);
	js_str(&j, "does", ROWS[row].does);
	js_int(&j, "call_rc", o->call_rc);
	js_str(&j, "call_err", o->call_err);
	js_str(&j, "status", o->status);
	js_int(&j, "end_rc", o->end_rc);
	js_bool(&j, "graph", o->graph);
	js_bool(&j, "at_capture", o->at_capture);
	js_str(&j, "replay", o->replay);
	js_int(&j, "replay_rc", o->replay_rc);
	js_int(&j, "last_error", o->last_error);
	js_int(&j, "health_rc", o->health_rc);
	js_str(&j, "skipped", o->skipped);
	js_str(&j, "exit", exit_s);
	js_print(&j);
}

static void rowout_null(RowOut *o)
{
	o->call_rc = o->end_rc = o->replay_rc = o->last_error = o->health_rc = NUL;
	o->call_err = o->status = o->replay = o->skipped = NULL;
	o->graph = o->at_capture = -1;
}

void print_row_null(int row, int mode, int stream, const char *exit_s)
{
	RowOut o;
	rowout_null(&o);
	print_row(row, mode, stream, &o, exit_s);
}

static const char *err_name(Cell *c, int rc)
{
	if (rc == NUL)
		return NULL;
	if (c->err_kind == ERR_NCCL)
		return nccl_name(rc);
	if (c->err_kind == ERR_CU) { /* CUresult names, e.g. CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED */
		const char *s = NULL;
		if (c->cu_errname && c->cu_errname((CUresult)rc, &s) == CUDA_SUCCESS && s)
			return s;
		return "CUDA_ERROR_UNKNOWN_NAME";
	}
	return cudaGetErrorName((cudaError_t)rc);
}

/* One cell, in this process: §6.4 steps 1-7. Always reaches cudaStreamEndCapture. */
int child_row(int row, int mode, int stream)
{
	static Cell cell; /* static: zero-initialised, and outlives anything a graph points at */
	Cell *c = &cell;
	RowOut o;
	rowout_null(&o);
	c->row = row;
	c->mode = MODES[mode];
	c->blocking = stream == 0;

	const char *skip = NULL;
	if (ROWS[row].flags & ROW_NCCL)
		skip = nccl_open(&c->nccl);
	if (!skip)
		skip = cell_setup(c);
	if (!skip)
		skip = row_setup(c);
	if (skip) {
		o.skipped = skip;
		print_row(row, mode, stream, &o, "ok");
		return EXIT_OK;
	}
	cudaGetLastError(); /* start from a clean last error */

	const bool nocap = row == R_BEGIN_LEGACY; /* no outer capture: the call is the begin */
	const cudaStream_t q = nocap ? (cudaStream_t)0 : c->cap;
	if (!nocap) {
		int br = cudaStreamBeginCapture(c->cap, c->mode);
		if (br != 0) {
			snprintf(g_reason, sizeof(g_reason), "cudaStreamBeginCapture(cap) -> %s",
				 cudaGetErrorName((cudaError_t)br));
			o.skipped = g_reason;
			print_row(row, mode, stream, &o, "ok");
			return EXIT_OK;
		}
		int lr = launch_set(data_p(c), 7, c->cap); /* the legitimate kernel */
		int er = cudaEventRecord(c->ev_in, c->cap);
		if (lr || er)
			fprintf(stderr, "cglint-probe: %s: legitimate launch %d, evIn record %d\n", ROWS[row].id, lr, er);
	}

	/* The hazard, then the capture status right after it. */
	if (ROWS[row].flags & ROW_THREAD) {
		ThreadArg ta = {c, NUL};
		pthread_t t;
		if (pthread_create(&t, NULL, thread_hazard, &ta) != 0) {
			fprintf(stderr, "cglint-probe: pthread_create failed\n");
		} else {
			pthread_join(t, NULL); /* joined before the end (§6.6) */
		}
		o.call_rc = ta.rc;
	} else {
		o.call_rc = hazard(c);
	}
	o.call_err = err_name(c, o.call_rc);
	o.status = c->status ? c->status : capture_status(q);

	/* Before the end: END-ON-FORK joins its fork back. After a 903 the join fails too (901
	 * on H100/driver 580); end_rc records where that leaves the capture. */
	if (row == R_END_ON_FORK) {
		cudaEventRecord(c->ev_s, c->side);
		cudaStreamWaitEvent(c->cap, c->ev_s, 0);
	}

	/* The end. T-END-CAPTURE: the main thread ends only if still capturing; otherwise the
	 * graph is the one the other thread's end produced. BEGIN-LEGACY: end stream 0 only if
	 * the begin worked (with the legitimate kernel in it, so that a replay can be checked). */
	cudaGraph_t g = NULL;
	if (row == R_T_END_CAPTURE && strcmp(o.status, "none") == 0) {
		g = c->g2;
	} else if (nocap && o.call_rc != 0 && strcmp(o.status, "none") == 0) {
		/* never begun: nothing to end */
	} else {
		if (nocap && o.call_rc == 0) {
			int lr = launch_set(data_p(c), 7, 0);
			if (lr)
				fprintf(stderr, "cglint-probe: BEGIN-LEGACY: legitimate launch %d\n", lr);
		}
		o.end_rc = cudaStreamEndCapture(q, &g);
	}
	o.graph = g != NULL;
	o.last_error = cudaGetLastError();

	/* Leave no capture open behind us (not recorded), then release row resources. */
	for (int i = 0; i < 3 && strcmp(capture_status(q), "none") != 0; i++) {
		cudaGraph_t tmp = NULL;
		if (cudaStreamEndCapture(q, &tmp) == cudaSuccess && tmp)
			cudaGraphDestroy(tmp);
	}
	for (int i = 0; i < 3 && strcmp(capture_status(c->side), "none") != 0; i++) {
		cudaGraph_t tmp = NULL;
		if (cudaStreamEndCapture(c->side, &tmp) == cudaSuccess && tmp)
			cudaGraphDestroy(tmp);
	}
	row_release(c);
	cudaGetLastError();

	/* at_capture: did the hazard's work already happen during the capture? */
	if (ROWS[row].eff != EFF_NONE)
		o.at_capture = read_effect(c, true, 0);

	/* Host changes between capture and replay. */
	if (row == R_MEMCPYASYNC_PAGEABLE)
		g_pageable = 42;
	if (row == R_FROZEN_ARG)
		c->frozen_v = 42; /* the graph holds its own copy of v */

	/* Replay: reset the effect, instantiate, launch on the capture stream, sync, read. */
	if (!g) {
		o.replay = "none";
	} else {
		cudaGraphExec_t ge = NULL;
		int host_before = g_host_count.load();
		int rr = cudaDeviceSynchronize();
		if (rr == 0)
			rr = cudaMemset(c->dbuf, 0, 2 * sizeof(int));
		if (rr == 0)
			rr = cudaDeviceSynchronize();
		if (rr != 0) {
			o.replay = "failed";
			o.replay_rc = rr;
		} else if ((rr = cudaGraphInstantiate(&ge, g, 0)) != 0) {
			o.replay = "none";
			o.replay_rc = rr;
		} else {
			rr = cudaGraphLaunch(ge, c->cap);
			if (rr == 0)
				rr = cudaStreamSynchronize(c->cap);
			int eff = rr == 0 ? read_effect(c, false, host_before) : -1;
			if (rr == 0 && eff < 0)
				rr = (int)cudaGetLastError();
			o.replay_rc = rr;
			o.replay = rr != 0 || eff < 0 ? "failed" : eff ? "ok" : "missing";
		}
	}
	o.health_rc = cudaDeviceSynchronize();
	print_row(row, mode, stream, &o, "ok");
	return EXIT_OK;
}
