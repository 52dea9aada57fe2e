/* SPDX-License-Identifier: MIT */
/*
 * probe_nccl: one rank of one multi-GPU cell (cglint-probe --ranks N runs N of these at once,
 * one process per GPU, as torchrun does). The rank joins a communicator, runs the collective
 * eagerly, captures it into a graph, changes the memory under it the way PyTorch's expandable
 * segments can, replays it and checks every element against the value it must hold.
 *
 * Memory kinds:
 *   malloc     cudaMalloc, one allocation per buffer;
 *   vmm        PyTorch's expandable segments: one reserved range, mapped 20 MiB handle by
 *              handle (cuMemCreate + cuMemMap, POSIX fd handles) as it grows, the buffers
 *              straddling handles; after the capture it grows by two more handles;
 *   vmm_remap  the same, but after the capture the handles under the buffers are unmapped,
 *              released and replaced by fresh ones at the same addresses (what a segment
 *              released by empty_cache and grown again looks like). PyTorch does not do this
 *              under a live graph; it shows what registration does with memory that moved.
 *
 * Never multicast: no cuMulticast* call is made here, and the parent sets NCCL_NVLS_ENABLE=0.
 * The rank prints {"kind":"step"} lines as it goes (the parent names where a hung rank stopped)
 * and one {"kind":"rank"} line at the end.
 */
#include "probe/probe_gpu.h"

#include <cuda.h> /* types only: the driver's entry points are fetched at run time */

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <dlfcn.h>
#include <time.h>
#include <unistd.h>

const char *const RANKS_COLLS[] = {"RANKS-ALLREDUCE", "RANKS-ALLGATHER", "RANKS-REDUCESCATTER", "RANKS-SENDRECV"};
const char *const RANKS_DOES[] = {
	"ncclAllReduce(send, recv, n, ncclFloat32, ncclSum) captured, replayed",
	"ncclAllGather(send, recv, n, ncclFloat32) captured, replayed",
	"ncclReduceScatter(send, recv, n, ncclFloat32, ncclSum) captured, replayed",
	"ncclGroupStart; ncclSend(to rank+1); ncclRecv(from rank-1); ncclGroupEnd captured, replayed",
};
const char *const RANKS_MEMS[] = {"malloc", "vmm", "vmm_remap"};
enum { C_AR, C_AG, C_RS, C_SR };
enum { M_MALLOC, M_VMM, M_REMAP };

int ranks_coll_find(const char *id)
{
	for (int k = 0; k < RANKS_N_COLLS; k++)
		if (!strcmp(RANKS_COLLS[k], id))
			return k;
	return -1;
}

/* ---------------------------------------------------------------- NCCL, the multi-rank calls */

struct NcclUid {
	char internal[128];
};
typedef int (*getuid_fn)(NcclUid *);
typedef int (*initrank_fn)(void **, int, NcclUid, int);
typedef int (*allreduce_fn)(const void *, void *, size_t, int, int, void *, cudaStream_t);
typedef int (*allgather_fn)(const void *, void *, size_t, int, void *, cudaStream_t);
typedef int (*reducescatter_fn)(const void *, void *, size_t, int, int, void *, cudaStream_t);
typedef int (*send_fn)(const void *, size_t, int, int, void *, cudaStream_t);
typedef int (*recv_fn)(void *, size_t, int, int, void *, cudaStream_t);
typedef int (*group_fn)(void);
typedef int (*register_fn)(void *, void *, size_t, void **);
typedef const char *(*lasterr_fn)(void *);
typedef int (*asyncerr_fn)(void *, int *);
enum { NCCL_FLOAT32 = 7 };

struct NcclR {
	getuid_fn get_uid;
	initrank_fn init_rank;
	allreduce_fn all_reduce;
	allgather_fn all_gather;
	reducescatter_fn reduce_scatter;
	send_fn send;
	recv_fn recv;
	group_fn group_start, group_end;
	register_fn reg;
	lasterr_fn last_error;
	asyncerr_fn async_error;
};

/* A function to look up by name, and where its address goes. */
struct Sym {
	const char *name;
	void **slot;
};

static const char *nccl_load(NcclR *n)
{
	Nccl base;
	const char *why = nccl_open(&base);
	if (why)
		return why;
	Sym syms[] = {
		{"ncclGetUniqueId", (void **)&n->get_uid}, {"ncclCommInitRank", (void **)&n->init_rank},
		{"ncclAllReduce", (void **)&n->all_reduce}, {"ncclAllGather", (void **)&n->all_gather},
		{"ncclReduceScatter", (void **)&n->reduce_scatter}, {"ncclSend", (void **)&n->send},
		{"ncclRecv", (void **)&n->recv}, {"ncclGroupStart", (void **)&n->group_start},
		{"ncclGroupEnd", (void **)&n->group_end}, {"ncclCommRegister", (void **)&n->reg},
		{"ncclGetLastError", (void **)&n->last_error}, {"ncclCommGetAsyncError", (void **)&n->async_error},
	};
	for (auto &s : syms)
		if (!(*s.slot = dlsym(base.h, s.name))) {
			snprintf(g_reason, sizeof(g_reason), "NCCL lacks %s", s.name);
			return g_reason;
		}
	return NULL;
}

/* ---------------------------------------------------------------- expandable-segment memory */

typedef CUresult (*reserve_fn)(CUdeviceptr *, size_t, size_t, CUdeviceptr, unsigned long long);
typedef CUresult (*create_fn)(CUmemGenericAllocationHandle *, size_t, const CUmemAllocationProp *, unsigned long long);
typedef CUresult (*map_fn)(CUdeviceptr, size_t, size_t, CUmemGenericAllocationHandle, unsigned long long);
typedef CUresult (*access_fn)(CUdeviceptr, size_t, const CUmemAccessDesc *, size_t);
typedef CUresult (*unmap_fn)(CUdeviceptr, size_t);
typedef CUresult (*release_fn)(CUmemGenericAllocationHandle);

enum { SEG_CHUNK = 20 << 20, SEG_MAX = 16 }; /* PyTorch's large-pool segment handle: 20 MiB */

struct Seg {
	int dev;
	CUdeviceptr base;
	size_t mapped; /* handles mapped, from base up */
	CUmemGenericAllocationHandle h[SEG_MAX];
	reserve_fn reserve;
	create_fn create;
	map_fn map;
	access_fn access;
	unmap_fn unmap;
	release_fn release;
};

static const char *seg_init(Seg *s, int dev)
{
	cudaDriverEntryPointQueryResult q;
	Sym fns[] = {
		{"cuMemAddressReserve", (void **)&s->reserve}, {"cuMemCreate", (void **)&s->create},
		{"cuMemMap", (void **)&s->map}, {"cuMemSetAccess", (void **)&s->access},
		{"cuMemUnmap", (void **)&s->unmap}, {"cuMemRelease", (void **)&s->release},
	};
	for (auto &f : fns)
		if (cudaGetDriverEntryPointByVersion(f.name, f.slot, 12000, cudaEnableDefault, &q) != cudaSuccess || !*f.slot) {
			snprintf(g_reason, sizeof(g_reason), "setup: driver entry point %s not found", f.name);
			return g_reason;
		}
	s->dev = dev;
	CUresult r = s->reserve(&s->base, (size_t)SEG_MAX * SEG_CHUNK, 0, 0, 0);
	if (r != CUDA_SUCCESS) {
		snprintf(g_reason, sizeof(g_reason), "setup: cuMemAddressReserve -> CUresult %d", (int)r);
		return g_reason;
	}
	return NULL;
}

/* Map handle k at base + k * SEG_CHUNK, as ExpandableSegment::map does. */
static int seg_map_one(Seg *s, size_t k)
{
	CUmemAllocationProp prop;
	memset(&prop, 0, sizeof(prop));
	prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
	prop.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
	prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
	prop.location.id = s->dev;
	CUresult r = s->create(&s->h[k], SEG_CHUNK, &prop, 0);
	if (r == CUDA_SUCCESS)
		r = s->map(s->base + k * SEG_CHUNK, SEG_CHUNK, 0, s->h[k], 0);
	if (r == CUDA_SUCCESS) {
		CUmemAccessDesc d;
		memset(&d, 0, sizeof(d));
		d.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
		d.location.id = s->dev;
		d.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
		r = s->access(s->base + k * SEG_CHUNK, SEG_CHUNK, &d, 1);
	}
	return (int)r;
}

/* Grow in place until [0, bytes) is mapped. */
static int seg_grow(Seg *s, size_t bytes)
{
	while (s->mapped * SEG_CHUNK < bytes) {
		if (s->mapped == SEG_MAX)
			return (int)CUDA_ERROR_OUT_OF_MEMORY;
		int r = seg_map_one(s, s->mapped);
		if (r)
			return r;
		s->mapped++;
	}
	return 0;
}

/* Fresh physical memory under [0, bytes): unmap, release, map anew at the same addresses. */
static int seg_remap(Seg *s, size_t bytes)
{
	for (size_t k = 0; k * SEG_CHUNK < bytes && k < s->mapped; k++) {
		int r = (int)s->unmap(s->base + k * SEG_CHUNK, SEG_CHUNK);
		if (!r)
			r = (int)s->release(s->h[k]);
		if (!r)
			r = seg_map_one(s, k);
		if (r)
			return r;
	}
	return 0;
}

/* ---------------------------------------------------------------- data and its check */

/* Small integers: every sum is exact in float, and each replay k has its own values. */
__device__ __forceinline__ float val(int r, long long i, int k)
{
	return (float)((int)(i % 1021) + 1000 * r + 7 * k);
}

__global__ void k_fill(float *x, long long n, int r, int k)
{
	for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x)
		x[i] = val(r, i, k);
}

/* cnt[0] elements wrong, cnt[1] of them still the 0xFF poison, cnt[2] the first wrong index. */
__global__ void k_check(const float *y, long long n, int coll, int rank, int N, long long per, int k,
			unsigned long long *cnt)
{
	for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x) {
		float want = 0;
		if (coll == C_AR)
			for (int q = 0; q < N; q++)
				want += val(q, i, k);
		else if (coll == C_AG)
			want = val((int)(i / per), i % per, k);
		else if (coll == C_RS)
			for (int q = 0; q < N; q++)
				want += val(q, rank * per + i, k);
		else
			want = val((rank + N - 1) % N, i, k);
		if (y[i] != want) {
			atomicAdd(&cnt[0], 1ull);
			if (__float_as_uint(y[i]) == 0xFFFFFFFFu)
				atomicAdd(&cnt[1], 1ull);
			atomicMin(&cnt[2], (unsigned long long)i);
		}
	}
}

/* ---------------------------------------------------------------- one rank */

enum { PER_RANK = 4 << 20, REPLAYS = 3 }; /* 16 MiB of floats per rank, as the quick check used */

struct Rank {
	const RankArgs *a;
	NcclR nc;
	void *comm;
	cudaStream_t s;
	float *send, *recv;
	unsigned long long *cnt;
	long long per, nsend, nrecv;
	Seg seg;
	bool nccl_failed;
};

static void step(const Rank *r, const char *at)
{
	Js j;
	js_open(&j);
	js_str(&j, "kind", "step");
	js_int(&j, "rank", r->a->rank);
	js_str(&j, "at", at);
	js_print(&j);
}

static int coll_call(Rank *r)
{
	const RankArgs *a = r->a;
	int rc;
	switch (a->coll) {
	case C_AR: rc = r->nc.all_reduce(r->send, r->recv, r->per, NCCL_FLOAT32, NCCL_SUM, r->comm, r->s); break;
	case C_AG: rc = r->nc.all_gather(r->send, r->recv, r->per, NCCL_FLOAT32, r->comm, r->s); break;
	case C_RS: rc = r->nc.reduce_scatter(r->send, r->recv, r->per, NCCL_FLOAT32, NCCL_SUM, r->comm, r->s); break;
	default: {
		int to = (a->rank + 1) % a->nranks, from = (a->rank + a->nranks - 1) % a->nranks;
		rc = r->nc.group_start();
		int r1 = r->nc.send(r->send, r->per, NCCL_FLOAT32, to, r->comm, r->s);
		int r2 = r->nc.recv(r->recv, r->per, NCCL_FLOAT32, from, r->comm, r->s);
		int r3 = r->nc.group_end();
		rc = rc ? rc : r1 ? r1 : r2 ? r2 : r3;
	}
	}
	if (rc)
		r->nccl_failed = true;
	return rc;
}

/* Before a run: this run's values in send, poison in recv. */
static int prepare(Rank *r, int k)
{
	k_fill<<<264, 256, 0, r->s>>>(r->send, r->nsend, r->a->rank, k);
	int e = (int)cudaGetLastError();
	return e ? e : (int)cudaMemsetAsync(r->recv, 0xFF, (size_t)r->nrecv * sizeof(float), r->s);
}

/* After a run: "ok", "wrong", "missing" (recv never written) or "failed" (rc in *rc). */
static const char *verdict(Rank *r, int k, int *rc, unsigned long long *bad, unsigned long long *first)
{
	static const unsigned long long init[3] = {0, 0, ~0ull};
	int e = (int)cudaMemcpyAsync(r->cnt, init, sizeof(init), cudaMemcpyHostToDevice, r->s);
	if (!e) {
		k_check<<<264, 256, 0, r->s>>>(r->recv, r->nrecv, r->a->coll, r->a->rank, r->a->nranks, r->per, k, r->cnt);
		e = (int)cudaGetLastError();
	}
	if (!e)
		e = (int)cudaStreamSynchronize(r->s);
	unsigned long long h[3] = {0, 0, 0};
	if (!e)
		e = (int)cudaMemcpy(h, r->cnt, sizeof(h), cudaMemcpyDeviceToHost);
	*rc = e;
	if (e)
		return "failed";
	*bad = h[0];
	*first = h[2];
	return !h[0] ? "ok" : h[1] == (unsigned long long)r->nrecv ? "missing" : "wrong";
}

static const char *alloc_buffers(Rank *r)
{
	size_t bytes = (size_t)r->nsend * sizeof(float); /* send and recv are both N * per floats */
	if (r->a->mem == M_MALLOC) {
		if (cudaMalloc(&r->send, bytes) != cudaSuccess || cudaMalloc(&r->recv, bytes) != cudaSuccess)
			return "setup: cudaMalloc failed";
		return NULL;
	}
	const char *why = seg_init(&r->seg, r->a->rank);
	if (why)
		return why;
	/* 12 MiB in: each buffer straddles handles, as a large tensor in a grown segment does */
	size_t off = 12u << 20;
	int e = seg_grow(&r->seg, off + 2 * bytes);
	if (e) {
		snprintf(g_reason, sizeof(g_reason), "setup: mapping the segment -> CUresult %d", e);
		return g_reason;
	}
	r->send = (float *)(r->seg.base + off);
	r->recv = (float *)(r->seg.base + off + bytes);
	return NULL;
}

/* The communicator's id: rank 0 makes it and publishes it by rename; the others wait for it
 * (the parent's timeout bounds the wait). */
static const char *exchange_uid(Rank *r, NcclUid *id)
{
	char tmp[4200];
	const char *path = r->a->uid_path;
	if (r->a->rank == 0) {
		int e = r->nc.get_uid(id);
		if (e) {
			snprintf(g_reason, sizeof(g_reason), "setup: ncclGetUniqueId -> %s", nccl_name(e));
			return g_reason;
		}
		snprintf(tmp, sizeof(tmp), "%s.tmp", path);
		FILE *f = fopen(tmp, "wb");
		if (!f || fwrite(id, sizeof(*id), 1, f) != 1 || fclose(f) != 0 || rename(tmp, path) != 0)
			return "setup: cannot write the NCCL unique id";
		return NULL;
	}
	for (;;) {
		FILE *f = fopen(path, "rb");
		if (f) {
			size_t got = fread(id, sizeof(*id), 1, f);
			fclose(f);
			if (got == 1)
				return NULL;
		}
		struct timespec ts = {0, 10 * 1000 * 1000};
		nanosleep(&ts, NULL);
	}
}

int child_rank(const RankArgs *a)
{
	static Rank rk; /* static: outlives the graph, zero-initialised */
	Rank *r = &rk;
	r->a = a;
	r->per = PER_RANK;
	r->nsend = r->nrecv = (long long)a->nranks * PER_RANK;
	if (a->coll == C_AR || a->coll == C_SR || a->coll == C_RS)
		r->nrecv = PER_RANK; /* checked elements; the buffer itself is N * per */
	Js j;
	js_open(&j);
	js_str(&j, "kind", "rank");
	js_int(&j, "rank", a->rank);

	const char *skip = nccl_load(&r->nc);
	NcclUid id;
	if (!skip && cudaSetDevice(a->rank) != cudaSuccess)
		skip = "setup: cudaSetDevice failed";
	if (!skip && (cudaStreamCreateWithFlags(&r->s, cudaStreamNonBlocking) != cudaSuccess ||
		      cudaMalloc(&r->cnt, 3 * sizeof(unsigned long long)) != cudaSuccess))
		skip = "setup: stream or counter allocation failed";
	if (!skip)
		skip = alloc_buffers(r);
	if (!skip)
		skip = exchange_uid(r, &id);
	if (skip) {
		js_str(&j, "skipped", skip);
		js_print(&j);
		return EXIT_OK;
	}
	step(r, "init");
	int init_rc = r->nc.init_rank(&r->comm, a->nranks, id, a->rank);
	js_int(&j, "init_rc", init_rc);
	if (init_rc) {
		js_str(&j, "nccl_err", r->nc.last_error(NULL));
		js_print(&j);
		return EXIT_OK;
	}
	int reg_rc = NUL;
	if (a->reg) {
		void *h1 = NULL, *h2 = NULL;
		size_t bytes = (size_t)r->nsend * sizeof(float);
		reg_rc = r->nc.reg(r->comm, r->send, bytes, &h1);
		if (!reg_rc)
			reg_rc = r->nc.reg(r->comm, r->recv, bytes, &h2);
		if (reg_rc)
			r->nccl_failed = true;
	}
	js_int(&j, "reg_rc", reg_rc);

	/* Eager: the reference, and the warm-up PyTorch's capture is preceded by. */
	step(r, "eager");
	int rc = prepare(r, 0), eager_call = coll_call(r);
	unsigned long long bad = 0, first = 0;
	const char *eager = rc ? "failed" : verdict(r, 0, &rc, &bad, &first);
	js_int(&j, "eager_call_rc", eager_call);
	js_str(&j, "eager", eager_call ? "failed" : eager);
	js_int(&j, "eager_rc", rc);

	/* Capture (global mode, as torch.cuda.graph), instantiate. */
	step(r, "capture");
	cudaGraph_t g = NULL;
	cudaGraphExec_t ge = NULL;
	int begin_rc = (int)cudaStreamBeginCapture(r->s, cudaStreamCaptureModeGlobal);
	int call_rc = begin_rc ? NUL : coll_call(r);
	int end_rc = begin_rc ? NUL : (int)cudaStreamEndCapture(r->s, &g);
	int inst_rc = (begin_rc || end_rc || !g) ? NUL : (int)cudaGraphInstantiate(&ge, g, 0);
	js_int(&j, "begin_rc", begin_rc);
	js_int(&j, "call_rc", call_rc);
	js_str(&j, "call_err", call_rc == NUL ? NULL : nccl_name(call_rc));
	js_int(&j, "end_rc", end_rc);
	js_int(&j, "instantiate_rc", inst_rc);

	/* The memory changes under the graph, as the allocator may change it. */
	int mem_rc = NUL;
	if (a->mem != M_MALLOC) {
		step(r, a->mem == M_VMM ? "grow" : "remap");
		size_t bytes = (size_t)r->nsend * sizeof(float), used = (12u << 20) + 2 * bytes;
		mem_rc = a->mem == M_VMM ? seg_grow(&r->seg, used + 2 * (size_t)SEG_CHUNK) : seg_remap(&r->seg, used);
		if (!mem_rc && a->mem == M_VMM) /* touch the new handles */
			mem_rc = (int)cudaMemsetAsync((void *)(r->seg.base + used), 0, 2 * (size_t)SEG_CHUNK, r->s);
	}
	js_int(&j, "mem_rc", mem_rc);

	/* Replays, each on its own values; recv poisoned before each. */
	const char *replay = "none";
	int replay_rc = NUL, replays = 0;
	bad = 0, first = 0;
	if (ge && !inst_rc && (mem_rc == NUL || !mem_rc)) {
		step(r, "replay");
		replay = "ok";
		replay_rc = 0;
		for (int k = 1; k <= REPLAYS && !strcmp(replay, "ok"); k++, replays++) {
			int e = prepare(r, k);
			if (!e)
				e = (int)cudaGraphLaunch(ge, r->s);
			replay = e ? "failed" : verdict(r, k, &e, &bad, &first);
			replay_rc = e;
		}
	}
	js_str(&j, "replay", replay);
	js_int(&j, "replay_rc", replay_rc);
	js_str(&j, "replay_err", replay_rc == NUL || !replay_rc ? NULL : cudaGetErrorName((cudaError_t)replay_rc));
	js_int(&j, "replays", replays);
	js_int(&j, "bad", (long long)bad);
	js_int(&j, "first_bad", bad ? (long long)first : NUL);
	int async_rc = 0;
	r->nc.async_error(r->comm, &async_rc);
	js_int(&j, "async_rc", async_rc);
	js_str(&j, "nccl_err", r->nccl_failed || async_rc ? r->nc.last_error(r->comm) : NULL);
	step(r, "done");
	js_print(&j);
	return EXIT_OK;
}
