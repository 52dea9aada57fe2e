/* cglint shim: declarations only, for static analysis; not the NVIDIA/PyTorch/NCCL headers. */
/* NCCL 2.28 device API (nccl_device.h): the host calls that make a device communicator, and
 * the device-side types kernels use (teams, cooperative groups, LSA and GIN barriers, window
 * pointers), declared so that code written against them parses; bodies are left out. */
#pragma once
#include <nccl.h>
#include <stdint.h>

struct ncclDevComm;
typedef struct ncclDevComm ncclDevComm_t;
struct ncclTeam { int nRanks, rank, stride; };
typedef struct ncclTeam ncclTeam_t;
struct ncclMultimemHandle { void *mcBasePtr; };
typedef struct ncclMultimemHandle ncclMultimemHandle_t;
typedef uint32_t ncclDevResourceHandle;
typedef ncclDevResourceHandle ncclDevResourceHandle_t;
typedef uint32_t ncclGinSignal_t;
typedef uint32_t ncclGinCounter_t;
struct ncclLsaBarrierHandle { ncclDevResourceHandle_t bufHandle; int nBarriers; };
typedef struct ncclLsaBarrierHandle ncclLsaBarrierHandle_t;
struct ncclGinBarrierHandle { ncclDevResourceHandle_t signal0; };
typedef struct ncclGinBarrierHandle ncclGinBarrierHandle_t;
struct ncclDevResourceRequirements;
typedef struct ncclDevResourceRequirements ncclDevResourceRequirements_t;
struct ncclTeamRequirements;
typedef struct ncclTeamRequirements ncclTeamRequirements_t;

struct ncclDevCommRequirements {
  ncclDevResourceRequirements_t *resourceRequirementsList;
  ncclTeamRequirements_t *teamRequirementsList;
  bool lsaMultimem;
  int barrierCount;
  int lsaBarrierCount;
  int railGinBarrierCount;
  int lsaLLA2ABlockCount, lsaLLA2ASlotCount;
  bool ginForceEnable;
  int ginContextCount;
  int ginSignalCount;
  int ginCounterCount;
};
typedef struct ncclDevCommRequirements ncclDevCommRequirements_t;

struct ncclDevResourceRequirements {
  ncclDevResourceRequirements_t *next;
  size_t bufferSize, bufferAlign;
  ncclDevResourceHandle_t *outBufferHandle;
  int ginSignalCount;
  int ginCounterCount;
  ncclGinSignal_t *outGinSignalStart;
  ncclGinCounter_t *outGinCounterStart;
};

struct ncclTeamRequirements {
  ncclTeamRequirements_t *next;
  ncclTeam_t team;
  bool multimem;
  ncclMultimemHandle_t *outMultimemHandle;
};

struct ncclDevComm {
  int rank, nRanks;
  uint32_t nRanks_rcp32;
  int lsaRank, lsaSize;
  uint32_t lsaSize_rcp32;
  void *windowTable;
  ncclWindow_t resourceWindow;
  ncclMultimemHandle_t lsaMultimem;
  ncclLsaBarrierHandle_t lsaBarrier;
  ncclGinBarrierHandle_t railGinBarrier;
  uint8_t ginContextCount;
  uint8_t ginTypes[4];
  void *ginHandles[4];
  uint32_t ginSignalBase;
  int ginSignalCount;
  uint32_t ginCounterBase;
  int ginCounterCount;
  uint64_t *ginSignalShadows;
};

#ifdef __cplusplus
extern "C" {
#endif
ncclResult_t ncclDevCommCreate(ncclComm_t comm, ncclDevCommRequirements_t const *reqs, ncclDevComm_t *outDevComm);
ncclResult_t ncclDevCommDestroy(ncclComm_t comm, ncclDevComm_t const *devComm);
ncclResult_t ncclLsaBarrierCreateRequirement(ncclTeam_t team, int nBarriers, ncclLsaBarrierHandle_t *outHandle,
                                             ncclDevResourceRequirements_t *outReq);
ncclTeam_t ncclTeamWorld(ncclComm_t comm);
ncclTeam_t ncclTeamLsa(ncclComm_t comm);
ncclTeam_t ncclTeamRail(ncclComm_t comm);
int ncclTeamRankToWorld(ncclComm_t comm, ncclTeam_t team, int rank);
int ncclTeamRankToLsa(ncclComm_t comm, ncclTeam_t team, int rank);
#ifdef __cplusplus
}
#endif

#ifdef __cplusplus
struct ncclTeamTagWorld {};
struct ncclTeamTagLsa {};
struct ncclTeamTagRail {};

__host__ __device__ ncclTeam ncclTeamWorld(ncclDevComm const &);
__host__ __device__ ncclTeam ncclTeamLsa(ncclDevComm const &);
__host__ __device__ ncclTeam ncclTeamRail(ncclDevComm const &);
__host__ __device__ int ncclTeamRankToWorld(ncclDevComm const &, ncclTeam, int rank);
__host__ __device__ int ncclTeamRankToLsa(ncclDevComm const &, ncclTeam, int rank);
__host__ __device__ bool ncclTeamRankIsMember(ncclTeam_t a, ncclTeam_t b, int bPeer);
__host__ __device__ int ncclTeamRankToTeam(ncclTeam_t a, ncclTeam_t b, int bPeer);

__device__ void *ncclGetLocalPointer(ncclWindow_t w, size_t offset);
__device__ void *ncclGetLsaPointer(ncclWindow_t w, size_t offset, int peer);
__device__ void *ncclGetPeerPointer(ncclWindow_t w, size_t offset, int peer);
__device__ void *ncclGetPeerPointer(ncclWindow_t w, size_t offset, ncclTeam tm, int peer);
__device__ void *ncclGetMultimemPointer(ncclWindow_t w, size_t offset, ncclMultimemHandle mmHandle);
__device__ void *ncclGetLsaMultimemPointer(ncclWindow_t w, size_t offset, ncclDevComm const &);

/* libcu++'s memory orders, which the session calls take (<cuda/atomic> is not in the shim) */
#ifndef CGLINT_SHIM_CUDA_MEMORY_ORDER
#define CGLINT_SHIM_CUDA_MEMORY_ORDER
namespace cuda {
enum memory_order { memory_order_relaxed, memory_order_consume, memory_order_acquire, memory_order_release,
                    memory_order_acq_rel, memory_order_seq_cst };
}
#endif

template <int nThreadsPow2> struct ncclCoopTile {
  __device__ int thread_rank() const;
  __device__ int size() const;
  __device__ int num_threads() const;
  __device__ void sync();
};
typedef ncclCoopTile<1> ncclCoopThread;
typedef ncclCoopTile<32> ncclCoopWarp;
struct ncclCoopLanes {
  uint32_t lmask;
  __device__ int thread_rank() const;
  __device__ int size() const;
  __device__ void sync();
};
struct ncclCoopCta {
  __device__ int thread_rank() const;
  __device__ int size() const;
  __device__ int num_threads() const;
  __device__ void sync();
};

template <typename Coop> struct ncclLsaBarrierSession {
  __device__ ncclLsaBarrierSession(Coop, ncclDevComm const &, ncclTeam, ncclLsaBarrierHandle, uint32_t index,
                                   bool multimem = false, ncclMultimemHandle mmHandle = {});
  __device__ ncclLsaBarrierSession(Coop, ncclDevComm const &, ncclTeamTagLsa, uint32_t index, bool multimem = false);
  __device__ ~ncclLsaBarrierSession();
  ncclLsaBarrierSession(ncclLsaBarrierSession const &) = delete;
  __device__ void arrive(Coop, cuda::memory_order);
  __device__ void wait(Coop, cuda::memory_order);
  __device__ void sync(Coop, cuda::memory_order);
};

enum class ncclGinFenceLevel { Relaxed };
struct ncclGin_None {};
struct ncclGin_SignalInc { ncclGinSignal_t signal; };
struct ncclGin_SignalAdd { ncclGinSignal_t signal; uint64_t value; };
struct ncclGin_CounterInc { ncclGinCounter_t counter; };

struct ncclGin {
  ncclDevComm const &comm;
  int contextIndex;
  __device__ ncclGin(ncclDevComm const &, int contextIndex);
  template <typename RemoteAction = ncclGin_None, typename LocalAction = ncclGin_None, typename Coop = ncclCoopThread>
  __device__ void put(ncclTeam, int peer, ncclWindow_t dstWnd, size_t dstOffset, ncclWindow_t srcWnd,
                      size_t srcOffset, size_t bytes, RemoteAction remoteAction = ncclGin_None{},
                      LocalAction localAction = ncclGin_None{}, Coop coop = ncclCoopThread{});
  template <typename RemoteAction = ncclGin_None, typename Coop = ncclCoopThread>
  __device__ void signal(ncclTeam, int peer, RemoteAction remoteAction, Coop coop = ncclCoopThread{});
  __device__ uint64_t readSignal(ncclGinSignal_t signal, int bits = 64, cuda::memory_order = cuda::memory_order_acquire);
  template <typename Coop>
  __device__ void waitSignal(Coop, ncclGinSignal_t signal, uint64_t least, int bits = 64,
                             cuda::memory_order = cuda::memory_order_acquire);
  __device__ void resetSignal(ncclGinSignal_t signal);
  __device__ uint64_t readCounter(ncclGinCounter_t counter, int bits = 56, cuda::memory_order = cuda::memory_order_acquire);
  template <typename Coop>
  __device__ void waitCounter(Coop, ncclGinCounter_t counter, uint64_t least, int bits = 56,
                              cuda::memory_order = cuda::memory_order_acquire);
  __device__ void resetCounter(ncclGinCounter_t counter);
  template <typename Coop> __device__ void flush(Coop, cuda::memory_order = cuda::memory_order_acquire);
};

template <typename Coop> struct ncclBarrierSession {
  __device__ ncclBarrierSession(Coop, ncclTeamTagWorld, ncclGin const &, uint32_t index);
  __device__ ncclBarrierSession(Coop, ncclTeamTagRail, ncclGin const &, uint32_t index);
  __device__ ~ncclBarrierSession();
  ncclBarrierSession(ncclBarrierSession const &) = delete;
  __device__ void sync(Coop, cuda::memory_order, ncclGinFenceLevel = ncclGinFenceLevel::Relaxed);
};
#endif
