/*
 * probe_gpu.cu - cglint's GPU probe: records what the installed driver really does with each
 * capture hazard that rules/capture.yaml makes claims about (reference: capture-hazards.md §6).
 *
 * Output: JSON lines on stdout (identity, capture, bench, memory, row); `cglint probe` compares
 * them with the rules. The probe only records; judging is the driver's job.
 *
 * Process model: the parent never initialises CUDA (a CUDA context does not survive fork, and a
 * hazard can poison the context). Identity, bench and every row cell run in a child spawned from
 * /proc/self/exe with internal options; the parent re-emits the child's lines in a fixed order.
 * --jobs N (an addition to the agreed command line, default 1) runs N row cells at once; each is
 * still its own process and the output order does not change.
 *
 * call_err is cudaGetErrorName() for runtime calls, the CUresult name (CUDA_ERROR_...) for the
 * driver call of MODULE-LOAD, and the ncclResult_t name (ncclXxx) for the NCCL rows. HOST-WORK
 * makes no CUDA call: its call_rc/call_err are null.
 *
 * Build (no -lcuda: the few driver entry points are fetched at run time so that the binary loads,
 * and reports "no device", on machines without libcuda.so.1):
 *   nvcc -O2 -std=c++17 -arch=sm_90 lint/probe_gpu.cu -o cglint-probe -ldl -lpthread
 */
#include <cuda_runtime.h>
#include <cuda.h> /* CUresult / CUmodule types only; nothing from libcuda is linked */

#include <algorithm>
#include <atomic>
#include <chrono>
#include <climits>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

static constexpr int NUL = INT_MIN; /* "null" for integer fields */
enum { EXIT_OK = 0, EXIT_USAGE = 2, EXIT_INTERNAL = 3, EXIT_NODEV = 4 };
enum { PROBE_VERSION = 1 };

/* ---------------------------------------------------------------- JSON line builder */

struct Js {
	char b[8192];
	size_t n;
	bool first;
};

static void js_raw(Js *j, const char *s)
{
	size_t l = strlen(s);
	if (j->n + l >= sizeof(j->b))
		l = sizeof(j->b) - 1 - j->n; /* truncation only on absurd input */
	memcpy(j->b + j->n, s, l);
	j->n += l;
	j->b[j->n] = 0;
}

static void js_fmt(Js *j, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void js_fmt(Js *j, const char *fmt, ...)
{
	char t[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(t, sizeof(t), fmt, ap);
	va_end(ap);
	js_raw(j, t);
}

static void js_open(Js *j)
{
	j->n = 0;
	j->b[0] = 0;
	j->first = true;
	js_raw(j, "{");
}

static void js_key(Js *j, const char *k)
{
	if (!j->first)
		js_raw(j, ",");
	j->first = false;
	js_fmt(j, "\"%s\":", k);
}

static void js_str(Js *j, const char *k, const char *v)
{
	js_key(j, k);
	if (!v) {
		js_raw(j, "null");
		return;
	}
	js_raw(j, "\"");
	for (const unsigned char *p = (const unsigned char *)v; *p; p++) {
		char t[8];
		if (*p == '"' || *p == '\\')
			snprintf(t, sizeof(t), "\\%c", *p);
		else if (*p < 0x20)
			snprintf(t, sizeof(t), "\\u%04x", *p);
		else
			snprintf(t, sizeof(t), "%c", *p);
		js_raw(j, t);
	}
	js_raw(j, "\"");
}

static void js_int(Js *j, const char *k, long long v)
{
	js_key(j, k);
	if (v == NUL)
		js_raw(j, "null");
	else
		js_fmt(j, "%lld", v);
}

static void js_bool(Js *j, const char *k, int v) /* -1 = null */
{
	js_key(j, k);
	js_raw(j, v < 0 ? "null" : v ? "true" : "false");
}

static void js_num(Js *j, const char *k, double v, bool ok)
{
	js_key(j, k);
	if (ok)
		js_fmt(j, "%.4f", v);
	else
		js_raw(j, "null");
}

static void js_obj(Js *j, const char *k)
{
	js_key(j, k);
	js_raw(j, "{");
	j->first = true;
}

static void js_end(Js *j)
{
	js_raw(j, "}");
	j->first = false;
}

/* The device tool keeps partial output: one line, then flush. */
static void js_print(Js *j)
{
	js_raw(j, "}");
	fputs(j->b, stdout);
	fputc('\n', stdout);
	fflush(stdout);
}

/* ---------------------------------------------------------------- row table */

enum Eff { EFF_NONE, EFF_FLAG, EFF_BYTE, EFF_PAGEABLE, EFF_FROZEN, EFF_HOST };
enum { ROW_THREAD = 1, ROW_NCCL = 2 };

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

/* Indexed by RowId; order = output order. */
static const RowDef ROWS[R_COUNT] = {
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

static const char *const MODE_NAMES[3] = {"global", "thread_local", "relaxed"};
static const cudaStreamCaptureMode MODES[3] = {cudaStreamCaptureModeGlobal,
					       cudaStreamCaptureModeThreadLocal,
					       cudaStreamCaptureModeRelaxed};
static const char *const STREAM_NAMES[2] = {"blocking", "nonblocking"};

static int row_find(const char *id)
{
	for (int i = 0; i < R_COUNT; i++)
		if (!strcmp(ROWS[i].id, id))
			return i;
	return -1;
}

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

static char g_reason[1024]; /* one reason string per process is enough */

/* Returns NULL when loaded, else why not (in g_reason). */
static const char *nccl_open(Nccl *n)
{
	const char *lib = getenv("CGLINT_NCCL_LIB");
	if (!lib || !*lib)
		lib = "libnccl.so.2";
	memset(n, 0, sizeof(*n));
	n->h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
	if (!n->h) {
		const char *e = dlerror();
		snprintf(g_reason, sizeof(g_reason), "NCCL not found: %s", e ? e : lib);
		return g_reason;
	}
	n->version = (nccl_version_fn)dlsym(n->h, "ncclGetVersion");
	n->init_all = (nccl_initall_fn)dlsym(n->h, "ncclCommInitAll");
	n->all_reduce = (nccl_allreduce_fn)dlsym(n->h, "ncclAllReduce");
	if (!n->version || !n->init_all || !n->all_reduce) {
		snprintf(g_reason, sizeof(g_reason), "%s lacks ncclGetVersion/ncclCommInitAll/ncclAllReduce", lib);
		return g_reason;
	}
	return NULL;
}

static const char *nccl_name(int r)
{
	static const char *const names[] = {"ncclSuccess", "ncclUnhandledCudaError", "ncclSystemError",
					    "ncclInternalError", "ncclInvalidArgument", "ncclInvalidUsage",
					    "ncclRemoteError", "ncclInProgress"};
	return r >= 0 && r < 8 ? names[r] : "ncclUnknownResult";
}

/* ---------------------------------------------------------------- kernels */

__global__ void k_set(int *p, int v)
{
	*p = v;
}

__global__ void k_axpb(float *x, int n, float a, float b)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		x[i] = x[i] * a + b;
}

/* cudaLaunchKernel returns the launch's own result (a <<<>>> launch would drop it). */
static int launch_set(int *p, int v, cudaStream_t s)
{
	void *args[2] = {&p, &v};
	return (int)cudaLaunchKernel((const void *)k_set, dim3(1), dim3(1), args, 0, s);
}

/* ---------------------------------------------------------------- identity child */

/* The no-device identity line; rc NUL when no CUDA call produced one (the child died). */
static int print_nodev(const char *why, int rc)
{
	Js j;
	js_open(&j);
	js_str(&j, "kind", "identity");
	js_int(&j, "probe", PROBE_VERSION);
	js_str(&j, "device", NULL);
	js_str(&j, "error", why);
	js_int(&j, "cuda_rc", rc);
	js_str(&j, "cuda_err", rc == NUL ? NULL : cudaGetErrorName((cudaError_t)rc));
	js_print(&j);
	return EXIT_NODEV;
}

static int child_identity(void)
{
	Js j;
	int n = 0;
	cudaError_t e = cudaGetDeviceCount(&n);
	if (e != cudaSuccess || n < 1)
		return print_nodev("no CUDA device", e != cudaSuccess ? (int)e : (int)cudaErrorNoDevice);
	int dev = 0, drv = 0, rt = 0;
	cudaDeviceProp p;
	memset(&p, 0, sizeof(p));
	cudaError_t e1 = cudaGetDevice(&dev);
	cudaError_t e2 = cudaGetDeviceProperties(&p, dev);
	cudaError_t e3 = cudaDriverGetVersion(&drv);
	cudaError_t e4 = cudaRuntimeGetVersion(&rt);
	if (e1 != cudaSuccess || e2 != cudaSuccess)
		return print_nodev("no CUDA device", (int)(e1 != cudaSuccess ? e1 : e2));
	Nccl nc;
	int nver = NUL;
	const char *note = nccl_open(&nc);
	if (!note) {
		int v = 0, r = nc.version(&v);
		if (r == 0)
			nver = v;
		else {
			snprintf(g_reason, sizeof(g_reason), "ncclGetVersion returned %s", nccl_name(r));
			note = g_reason;
		}
	}
	js_open(&j);
	js_str(&j, "kind", "identity");
	js_int(&j, "probe", PROBE_VERSION);
	js_str(&j, "device", p.name);
	js_int(&j, "cc_major", p.major);
	js_int(&j, "cc_minor", p.minor);
	js_int(&j, "sms", p.multiProcessorCount);
	js_int(&j, "driver", e3 == cudaSuccess ? drv : NUL);
	js_int(&j, "runtime", e4 == cudaSuccess ? rt : NUL);
	js_int(&j, "nccl", nver);
	js_str(&j, "nccl_note", note);
	js_obj(&j, "env");
	static const char *const env[] = {"NCCL_GRAPH_REGISTER", "PYTORCH_CUDA_ALLOC_CONF",
					  "CUDA_MODULE_LOADING", "CUDA_LAUNCH_BLOCKING"};
	for (const char *k : env)
		js_str(&j, k, getenv(k));
	js_end(&j);
	js_print(&j);
	return EXIT_OK;
}

/* ---------------------------------------------------------------- bench child */

enum { B_WARM = 5, B_REPS = 50, B_N = 4096, B_BLOCK = 256 };

#define MEM_COPIES 64

struct BenchRes {
	int chain;
	bool eager_ok, graph_ok, mem_ok;
	double eh, gh, eg, gg;	      /* host us per kernel, GPU us per iteration */
	size_t free_before, free_after;
	size_t free_after_copies;     /* after MEM_COPIES more executables of the same graph */
	int begin_rc, end_rc, inst_rc, replay_rc;
	int equal;		      /* -1 unknown */
};

static double median(double *v, int n)
{
	std::sort(v, v + n);
	return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static double us_since(std::chrono::steady_clock::time_point t0)
{
	return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
}

/* The (a_k, b_k) differ per launch so that a reordered or dropped node changes the result. */
static void chain_coef(int k, float *a, float *b)
{
	*a = 1.0f + (float)((k % 7) - 3) * 0.001f;
	*b = (float)(k % 13) * 0.01f - 0.06f;
}

static void enqueue_chain(float *x, int chain, cudaStream_t s)
{
	for (int k = 0; k < chain; k++) {
		float a, b;
		chain_coef(k, &a, &b);
		k_axpb<<<(B_N + B_BLOCK - 1) / B_BLOCK, B_BLOCK, 0, s>>>(x, B_N, a, b);
	}
}

static void bench_one(int chain, cudaStream_t s, float *x, const float *x0, float *out_e, float *out_g,
		      cudaEvent_t ea, cudaEvent_t eb, BenchRes *r)
{
	const size_t bytes = B_N * sizeof(float);
	double host[B_WARM + B_REPS], gpu[B_WARM + B_REPS];
	memset(r, 0, sizeof(*r));
	r->chain = chain;
	r->begin_rc = r->end_rc = r->inst_rc = r->replay_rc = NUL;
	r->equal = -1;

	/* Eager first: also loads the module lazily before any capture. */
	bool ok = true;
	for (int i = 0; i < B_WARM + B_REPS && ok; i++) {
		float ms = 0;
		ok = cudaMemcpy(x, x0, bytes, cudaMemcpyHostToDevice) == cudaSuccess &&
		     cudaEventRecord(ea, s) == cudaSuccess;
		auto t0 = std::chrono::steady_clock::now();
		enqueue_chain(x, chain, s);
		host[i] = us_since(t0);
		ok = ok && cudaGetLastError() == cudaSuccess && cudaEventRecord(eb, s) == cudaSuccess &&
		     cudaStreamSynchronize(s) == cudaSuccess && cudaEventElapsedTime(&ms, ea, eb) == cudaSuccess;
		gpu[i] = ms * 1000.0;
	}
	if (ok) {
		r->eager_ok = true;
		r->eh = median(host + B_WARM, B_REPS) / chain;
		r->eg = median(gpu + B_WARM, B_REPS);
	}
	/* Reference result of one eager chain from x0. */
	ok = cudaMemcpy(x, x0, bytes, cudaMemcpyHostToDevice) == cudaSuccess;
	enqueue_chain(x, chain, s);
	ok = ok && cudaGetLastError() == cudaSuccess && cudaStreamSynchronize(s) == cudaSuccess &&
	     cudaMemcpy(out_e, x, bytes, cudaMemcpyDeviceToHost) == cudaSuccess;
	if (!ok)
		fprintf(stderr, "cglint-probe: bench chain %d: eager reference failed\n", chain);

	/* Capture (never timed), instantiate between two cudaMemGetInfo, upload. */
	cudaGraph_t g = NULL;
	cudaGraphExec_t ge = NULL;
	r->begin_rc = (int)cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal);
	if (r->begin_rc == 0) {
		enqueue_chain(x, chain, s);
		r->end_rc = (int)cudaStreamEndCapture(s, &g);
	}
	cudaGetLastError();
	if (!g)
		return;
	size_t fb = 0, fa = 0, tot = 0;
	cudaError_t m1 = cudaMemGetInfo(&fb, &tot);
	r->inst_rc = (int)cudaGraphInstantiate(&ge, g, 0);
	cudaError_t m2 = cudaMemGetInfo(&fa, &tot);
	if (m1 == cudaSuccess && m2 == cudaSuccess && r->inst_rc == 0) {
		r->mem_ok = true;
		r->free_before = fb;
		r->free_after = fa;
	}
	if (r->inst_rc != 0) {
		cudaGraphDestroy(g);
		return;
	}
	/* cudaMemGetInfo moves in 2 MiB steps: one executable may not move it at all, so also
	   instantiate MEM_COPIES more and divide. */
	cudaGraphExec_t copies[MEM_COPIES];
	int made = 0;
	while (made < MEM_COPIES && cudaGraphInstantiate(&copies[made], g, 0) == cudaSuccess)
		made++;
	size_t fc = 0;
	if (r->mem_ok && made == MEM_COPIES && cudaMemGetInfo(&fc, &tot) == cudaSuccess)
		r->free_after_copies = fc;
	for (int k = 0; k < made; k++)
		cudaGraphExecDestroy(copies[k]);
	cudaGetLastError();
	int rc = (int)cudaGraphUpload(ge, s);
	if (rc == 0)
		rc = (int)cudaMemcpy(x, x0, bytes, cudaMemcpyHostToDevice);
	if (rc == 0)
		rc = (int)cudaGraphLaunch(ge, s);
	if (rc == 0)
		rc = (int)cudaStreamSynchronize(s);
	r->replay_rc = rc;
	if (rc == 0 && cudaMemcpy(out_g, x, bytes, cudaMemcpyDeviceToHost) == cudaSuccess)
		r->equal = memcmp(out_e, out_g, bytes) == 0;

	ok = rc == 0;
	for (int i = 0; i < B_WARM + B_REPS && ok; i++) {
		float ms = 0;
		ok = cudaMemcpy(x, x0, bytes, cudaMemcpyHostToDevice) == cudaSuccess &&
		     cudaEventRecord(ea, s) == cudaSuccess;
		auto t0 = std::chrono::steady_clock::now();
		cudaError_t le = cudaGraphLaunch(ge, s);
		host[i] = us_since(t0);
		ok = ok && le == cudaSuccess && cudaEventRecord(eb, s) == cudaSuccess &&
		     cudaStreamSynchronize(s) == cudaSuccess && cudaEventElapsedTime(&ms, ea, eb) == cudaSuccess;
		gpu[i] = ms * 1000.0;
	}
	if (ok) {
		r->graph_ok = true;
		r->gh = median(host + B_WARM, B_REPS) / chain;
		r->gg = median(gpu + B_WARM, B_REPS);
	}
	cudaGraphExecDestroy(ge);
	cudaGraphDestroy(g);
}

static int child_bench(void)
{
	static const int chains[3] = {10, 100, 1000};
	const size_t bytes = B_N * sizeof(float);
	cudaStream_t s;
	cudaEvent_t ea, eb;
	float *x = NULL;
	float *x0 = (float *)malloc(bytes), *oe = (float *)malloc(bytes), *og = (float *)malloc(bytes);
	if (!x0 || !oe || !og)
		return EXIT_INTERNAL;
	for (int i = 0; i < B_N; i++)
		x0[i] = (float)(i % 97) * 0.25f - 3.0f;
	if (cudaSetDevice(0) != cudaSuccess || cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking) != cudaSuccess ||
	    cudaEventCreate(&ea) != cudaSuccess || cudaEventCreate(&eb) != cudaSuccess ||
	    cudaMalloc(&x, bytes) != cudaSuccess) {
		fprintf(stderr, "cglint-probe: bench setup failed: %s\n", cudaGetErrorName(cudaGetLastError()));
		return EXIT_INTERNAL;
	}
	BenchRes r[3];
	for (int i = 0; i < 3; i++)
		bench_one(chains[i], s, x, x0, oe, og, ea, eb, &r[i]);

	Js j;
	const BenchRes *c = &r[1]; /* the correctness line is the chain-100 run */
	js_open(&j);
	js_str(&j, "kind", "capture");
	js_int(&j, "chain", c->chain);
	js_int(&j, "begin_rc", c->begin_rc);
	js_int(&j, "end_rc", c->end_rc);
	js_int(&j, "instantiate_rc", c->inst_rc);
	js_int(&j, "replay_rc", c->replay_rc);
	js_bool(&j, "bitwise_equal", c->equal);
	js_print(&j);
	for (int i = 0; i < 3; i++) {
		js_open(&j);
		js_str(&j, "kind", "bench");
		js_int(&j, "chain", r[i].chain);
		js_int(&j, "warmup", B_WARM);
		js_int(&j, "reps", B_REPS);
		js_num(&j, "eager_host_us_per_kernel", r[i].eh, r[i].eager_ok);
		js_num(&j, "graph_host_us_per_kernel", r[i].gh, r[i].graph_ok);
		js_num(&j, "eager_gpu_us", r[i].eg, r[i].eager_ok);
		js_num(&j, "graph_gpu_us", r[i].gg, r[i].graph_ok);
		js_print(&j);
	}
	for (int i = 0; i < 3; i++) {
		bool m = r[i].mem_ok;
		js_open(&j);
		js_str(&j, "kind", "memory");
		js_int(&j, "chain", r[i].chain);
		js_int(&j, "free_before", m ? (long long)r[i].free_before : NUL);
		js_int(&j, "free_after", m ? (long long)r[i].free_after : NUL);
		js_int(&j, "graph_bytes", m ? (long long)r[i].free_before - (long long)r[i].free_after : NUL);
		bool mc = m && r[i].free_after_copies;
		js_int(&j, "copies", MEM_COPIES);
		js_int(&j, "bytes_per_exec",
		       mc ? ((long long)r[i].free_before - (long long)r[i].free_after_copies) / (MEM_COPIES + 1) : NUL);
		js_print(&j);
	}
	return EXIT_OK;
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
static int child_row(int row, int mode, int stream)
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

/* ---------------------------------------------------------------- parent: children */

static char g_exe[4096] = "/proc/self/exe";
static int g_timeout = 30;

struct Kid {
	pid_t pid;
	int fd;
	char *out;
	size_t len, cap;
	double deadline;
	bool eof, killed, done;
	int status;
};

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* posix_spawn /proc/self/exe with stdout on a pipe; the child's alarm() bounds it, the parent's
 * deadline (timeout + grace) bounds a child that ignores it. */
static int kid_start(Kid *k, char *const argv[])
{
	int p[2];
	memset(k, 0, sizeof(*k));
	if (pipe2(p, O_CLOEXEC) != 0) /* CLOEXEC: parallel children must not inherit each other's pipes */
		return -1;
	posix_spawn_file_actions_t fa;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, p[1], 1);
	int r = posix_spawn(&k->pid, g_exe, &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	close(p[1]);
	if (r != 0) {
		close(p[0]);
		errno = r;
		return -1;
	}
	k->fd = p[0];
	k->deadline = now_s() + g_timeout + 5;
	return 0;
}

static void kid_read(Kid *k)
{
	char buf[4096];
	ssize_t n = read(k->fd, buf, sizeof(buf));
	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return;
	if (n <= 0) {
		k->eof = true;
		close(k->fd);
		k->fd = -1;
		return;
	}
	if (k->len + (size_t)n + 1 > k->cap) {
		size_t nc = (k->cap ? k->cap * 2 : 8192) + (size_t)n;
		char *o = (char *)realloc(k->out, nc);
		if (!o)
			return; /* drop output rather than die: the row then reads as unparseable */
		k->out = o;
		k->cap = nc;
	}
	memcpy(k->out + k->len, buf, (size_t)n);
	k->len += (size_t)n;
	k->out[k->len] = 0;
}

/* Advance one child: kill it past its deadline, reap it once its stdout is closed. */
static void kid_poll(Kid *k)
{
	if (k->done)
		return;
	if (!k->killed && now_s() > k->deadline) {
		kill(k->pid, SIGKILL);
		k->killed = true;
	}
	if (!k->eof)
		return;
	pid_t w = waitpid(k->pid, &k->status, WNOHANG);
	if (w == k->pid)
		k->done = true;
}

static void exit_string(const Kid *k, char *buf, size_t n)
{
	if (k->killed || (WIFSIGNALED(k->status) && WTERMSIG(k->status) == SIGALRM))
		snprintf(buf, n, "timeout");
	else if (WIFSIGNALED(k->status))
		snprintf(buf, n, "signal %d", WTERMSIG(k->status));
	else if (WEXITSTATUS(k->status) != 0)
		snprintf(buf, n, "status %d", WEXITSTATUS(k->status));
	else
		snprintf(buf, n, "ok");
}

/* Runs njobs children, at most `par` at a time; done() sees them strictly in job order. */
typedef void (*argv_fn)(int job, char **argv, char (*store)[64]);
typedef void (*done_fn)(int job, const char *out, const char *exit_s);

static int run_jobs(int njobs, int par, argv_fn mkargv, done_fn done)
{
	Kid *kids = (Kid *)calloc((size_t)njobs, sizeof(Kid));
	bool *started = (bool *)calloc((size_t)njobs, sizeof(bool));
	struct pollfd *pf = (struct pollfd *)calloc((size_t)njobs, sizeof(struct pollfd));
	int *pj = (int *)calloc((size_t)njobs, sizeof(int));
	if (!kids || !started || !pf || !pj)
		return EXIT_INTERNAL;
	int next = 0, emit = 0, active = 0;
	while (emit < njobs) {
		while (active < par && next < njobs) {
			char *argv[16];
			char store[16][64];
			mkargv(next, argv, store);
			if (kid_start(&kids[next], argv) != 0) {
				fprintf(stderr, "cglint-probe: cannot spawn %s: %s\n", g_exe, strerror(errno));
				return EXIT_INTERNAL;
			}
			started[next++] = true;
			active++;
		}
		int np = 0;
		double wait_until = now_s() + 1.0;
		for (int i = 0; i < next; i++) {
			if (kids[i].done || !started[i])
				continue;
			if (!kids[i].eof) {
				pf[np].fd = kids[i].fd;
				pf[np].events = POLLIN;
				pf[np].revents = 0;
				pj[np++] = i;
			} else {
				wait_until = now_s() + 0.01; /* stdout closed, waiting for the exit */
			}
			if (kids[i].deadline < wait_until)
				wait_until = kids[i].deadline;
		}
		int ms = (int)((wait_until - now_s()) * 1000.0);
		if (ms < 0)
			ms = 0;
		if (poll(np ? pf : NULL, (nfds_t)np, ms) > 0)
			for (int i = 0; i < np; i++)
				if (pf[i].revents)
					kid_read(&kids[pj[i]]);
		for (int i = 0; i < next; i++)
			if (started[i] && !kids[i].done) {
				kid_poll(&kids[i]);
				if (kids[i].done)
					active--;
			}
		while (emit < next && kids[emit].done) {
			char ex[64];
			exit_string(&kids[emit], ex, sizeof(ex));
			done(emit, kids[emit].out ? kids[emit].out : "", ex);
			free(kids[emit].out);
			kids[emit].out = NULL;
			emit++;
		}
	}
	free(kids);
	free(started);
	free(pf);
	free(pj);
	return EXIT_OK;
}

/* Calls fn for each complete line of out that is one of our JSON objects; others go to stderr
 * (NCCL_DEBUG, for one, logs to stdout). */
static void each_json_line(const char *out, void (*fn)(const char *line, void *ctx), void *ctx)
{
	while (*out) {
		const char *nl = strchr(out, '\n');
		size_t l = nl ? (size_t)(nl - out) : strlen(out);
		char *line = (char *)malloc(l + 1);
		if (!line)
			return;
		memcpy(line, out, l);
		line[l] = 0;
		if (nl && !strncmp(line, "{\"kind\":\"", 9) && l > 1 && line[l - 1] == '}')
			fn(line, ctx);
		else if (l)
			fprintf(stderr, "%s\n", line);
		free(line);
		out += l + (nl ? 1 : 0);
	}
}

/* ---------------------------------------------------------------- parent: phases */

static int g_nodev;
static int g_cells[R_COUNT * 6][3]; /* row, mode, stream */
static int g_ncells;
static char g_tbuf[16];

static void set_arg(char **argv, char (*store)[64], int i, const char *s)
{
	snprintf(store[i], 64, "%s", s);
	argv[i] = store[i];
}

static void argv_identity(int, char **argv, char (*store)[64])
{
	set_arg(argv, store, 0, "cglint-probe");
	set_arg(argv, store, 1, "--child");
	set_arg(argv, store, 2, "identity");
	set_arg(argv, store, 3, "--timeout");
	set_arg(argv, store, 4, g_tbuf);
	argv[5] = NULL;
}

static void argv_bench(int job, char **argv, char (*store)[64])
{
	argv_identity(job, argv, store);
	set_arg(argv, store, 2, "bench");
}

static void argv_row(int job, char **argv, char (*store)[64])
{
	set_arg(argv, store, 0, "cglint-probe");
	set_arg(argv, store, 1, "--row");
	set_arg(argv, store, 2, ROWS[g_cells[job][0]].id);
	set_arg(argv, store, 3, "--mode");
	set_arg(argv, store, 4, MODE_NAMES[g_cells[job][1]]);
	set_arg(argv, store, 5, "--stream");
	set_arg(argv, store, 6, STREAM_NAMES[g_cells[job][2]]);
	set_arg(argv, store, 7, "--timeout");
	set_arg(argv, store, 8, g_tbuf);
	argv[9] = NULL;
}

static void emit_line(const char *line, void *ctx)
{
	int *count = (int *)ctx;
	puts(line);
	fflush(stdout);
	if (!strncmp(line, "{\"kind\":\"identity\"", 18) && strstr(line, "\"device\":null"))
		g_nodev = 1;
	(*count)++;
}

static void done_identity(int, const char *out, const char *exit_s)
{
	int n = 0;
	each_json_line(out, emit_line, &n);
	if (n == 0) { /* the child died before it could say anything */
		char why[128];
		snprintf(why, sizeof(why), "identity child: %s", exit_s);
		print_nodev(why, NUL);
		g_nodev = 1;
	}
}

static void done_bench(int, const char *out, const char *exit_s)
{
	int n = 0;
	each_json_line(out, emit_line, &n);
	if (strcmp(exit_s, "ok") != 0) { /* say so; the lines above (if any) are what it finished */
		Js j;
		js_open(&j);
		js_str(&j, "kind", "child");
		js_str(&j, "child", "bench");
		js_str(&j, "exit", exit_s);
		js_print(&j);
	}
}

struct RowFound {
	char *line;
};

static void find_row(const char *line, void *ctx)
{
	RowFound *f = (RowFound *)ctx;
	if (!f->line && !strncmp(line, "{\"kind\":\"row\"", 13))
		f->line = strdup(line);
}

/* Re-emits the child's row line with the parent's exit verdict; a child that printed no
 * complete row line gets one from the parent with null observations. */
static void done_row(int job, const char *out, const char *exit_s)
{
	static const char suffix[] = ",\"exit\":\"ok\"}";
	RowFound f = {NULL};
	each_json_line(out, find_row, &f);
	size_t l = f.line ? strlen(f.line) : 0, sl = sizeof(suffix) - 1;
	if (f.line && l > sl && !strcmp(f.line + l - sl, suffix)) {
		/* Observations kept even if the process died after printing (e.g. at exit). */
		f.line[l - sl] = 0;
		printf("%s,\"exit\":\"%s\"}\n", f.line, exit_s);
		fflush(stdout);
	} else {
		RowOut o;
		rowout_null(&o);
		char ex[64];
		snprintf(ex, sizeof(ex), "%s", strcmp(exit_s, "ok") ? exit_s : "status 0");
		print_row(g_cells[job][0], g_cells[job][1], g_cells[job][2], &o, ex);
	}
	free(f.line);
}

/* ---------------------------------------------------------------- main */

static void usage(FILE *f)
{
	fprintf(f,
		"usage: cglint-probe [--identity | --bench | --rows | --list] [--only ID[,ID]...]\n"
		"                    [--timeout S] [--jobs N]\n"
		"       cglint-probe --row ID --mode global|thread_local|relaxed --stream blocking|nonblocking\n"
		"  (no option)  identity, capture/bench/memory, then every row cell\n"
		"  --identity   only the identity line\n"
		"  --bench      identity + capture + bench + memory lines\n"
		"  --rows       identity + the row cells only\n"
		"  --only IDs   restrict rows to these ids\n"
		"  --list       row ids and descriptions as JSON lines (no CUDA)\n"
		"  --row ...    run one cell in this process (internal)\n"
		"  --timeout S  per child process, default 30\n"
		"  --jobs N     row cells run N at a time, default 1 (output order unchanged)\n"
		"exit: 0 done, 2 usage, 3 internal error, 4 no CUDA device\n");
}

static int parse_int(const char *s, int lo, int hi, int *out)
{
	char *e;
	long v = s ? strtol(s, &e, 10) : 0;
	if (!s || !*s || *e || v < lo || v > hi)
		return -1;
	*out = (int)v;
	return 0;
}

static int index_of(const char *const *names, int n, const char *s)
{
	for (int i = 0; s && i < n; i++)
		if (!strcmp(names[i], s))
			return i;
	return -1;
}

int main(int argc, char **argv)
{
	enum { DO_ALL, DO_IDENTITY, DO_BENCH, DO_ROWS, DO_LIST, DO_ROW, DO_CHILD } what = DO_ALL;
	const char *only = NULL, *row_id = NULL, *mode_s = NULL, *stream_s = NULL, *child = NULL;
	int jobs = 1, nwhat = 0;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;
		if (!strcmp(a, "--help")) {
			usage(stdout);
			return EXIT_OK;
		} else if (!strcmp(a, "--identity")) {
			what = DO_IDENTITY, nwhat++;
		} else if (!strcmp(a, "--bench")) {
			what = DO_BENCH, nwhat++;
		} else if (!strcmp(a, "--rows")) {
			what = DO_ROWS, nwhat++;
		} else if (!strcmp(a, "--list")) {
			what = DO_LIST, nwhat++;
		} else if (!strcmp(a, "--only") && v) {
			only = v, i++;
		} else if (!strcmp(a, "--row") && v) {
			what = DO_ROW, nwhat++, row_id = v, i++;
		} else if (!strcmp(a, "--mode") && v) {
			mode_s = v, i++;
		} else if (!strcmp(a, "--stream") && v) {
			stream_s = v, i++;
		} else if (!strcmp(a, "--child") && v) {
			what = DO_CHILD, nwhat++, child = v, i++;
		} else if (!strcmp(a, "--timeout") && v && parse_int(v, 1, 86400, &g_timeout) == 0) {
			i++;
		} else if (!strcmp(a, "--jobs") && v && parse_int(v, 1, 64, &jobs) == 0) {
			i++;
		} else {
			fprintf(stderr, "cglint-probe: bad argument '%s'\n", a);
			usage(stderr);
			return EXIT_USAGE;
		}
	}
	if (nwhat > 1 || (only && what != DO_ALL && what != DO_ROWS) ||
	    ((mode_s || stream_s) && what != DO_ROW)) {
		fprintf(stderr, "cglint-probe: conflicting options\n");
		usage(stderr);
		return EXIT_USAGE;
	}
	snprintf(g_tbuf, sizeof(g_tbuf), "%d", g_timeout);

	if (what == DO_LIST) {
		for (int r = 0; r < R_COUNT; r++) {
			Js j;
			js_open(&j);
			js_str(&j, "kind", "rowdef");
			js_str(&j, "id", ROWS[r].id);
			js_str(&j, "does", ROWS[r].does);
			js_print(&j);
		}
		return EXIT_OK;
	}
	if (what == DO_ROW || what == DO_CHILD) {
		/* In-process work (normally a child of ours): SIGALRM's default action ends a hang. */
		alarm((unsigned)g_timeout);
		int rc;
		if (what == DO_CHILD) {
			if (!strcmp(child, "identity"))
				rc = child_identity();
			else if (!strcmp(child, "bench"))
				rc = child_bench();
			else {
				fprintf(stderr, "cglint-probe: unknown child '%s'\n", child);
				return EXIT_USAGE;
			}
		} else {
			int r = row_find(row_id), m = index_of(MODE_NAMES, 3, mode_s), s = index_of(STREAM_NAMES, 2, stream_s);
			if (r < 0 || m < 0 || s < 0) {
				fprintf(stderr, "cglint-probe: --row needs a known ID, --mode and --stream\n");
				return EXIT_USAGE;
			}
			rc = child_row(r, m, s);
		}
		/* _exit: no runtime teardown after a row that may have left the context odd;
		 * the verdict is already printed. */
		fflush(stdout);
		_exit(rc);
	}

	/* Parent: no CUDA here, ever. */
	bool want[R_COUNT];
	for (int r = 0; r < R_COUNT; r++)
		want[r] = only == NULL;
	if (only) {
		char *ids = strdup(only), *save = NULL;
		for (char *t = strtok_r(ids, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
			int r = row_find(t);
			if (r < 0) {
				fprintf(stderr, "cglint-probe: unknown row id '%s' (see --list)\n", t);
				free(ids);
				return EXIT_USAGE;
			}
			want[r] = true;
		}
		free(ids);
	}
	signal(SIGPIPE, SIG_IGN);
	ssize_t n = readlink("/proc/self/exe", g_exe, sizeof(g_exe) - 1);
	if (n > 0)
		g_exe[n] = 0;
	else
		snprintf(g_exe, sizeof(g_exe), "/proc/self/exe");

	if (run_jobs(1, 1, argv_identity, done_identity) != EXIT_OK)
		return EXIT_INTERNAL;
	if (g_nodev)
		return EXIT_NODEV;
	if (what == DO_ALL || what == DO_BENCH)
		if (run_jobs(1, 1, argv_bench, done_bench) != EXIT_OK)
			return EXIT_INTERNAL;
	if (what == DO_ALL || what == DO_ROWS) {
		/* rows outer, modes middle, stream kinds inner */
		for (int r = 0; r < R_COUNT; r++)
			for (int m = 0; m < 3 && want[r]; m++)
				for (int s = 0; s < 2; s++) {
					g_cells[g_ncells][0] = r;
					g_cells[g_ncells][1] = m;
					g_cells[g_ncells][2] = s;
					g_ncells++;
				}
		if (g_ncells && run_jobs(g_ncells, jobs, argv_row, done_row) != EXIT_OK)
			return EXIT_INTERNAL;
	}
	return EXIT_OK;
}
