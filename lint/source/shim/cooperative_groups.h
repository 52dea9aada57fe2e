/* cglint shim: declarations only, for static analysis; not the NVIDIA/PyTorch/NCCL headers. */
/* Cooperative groups: the group types and the calls kernels use most (CUDA C++ only). */
#pragma once
#include <cglint_shim_cuda.h>

#if defined(__cplusplus) && defined(__CUDA__)
/* the toolkit nests everything in cooperative_groups::__v1 and re-exports it */
namespace cooperative_groups {
namespace __v1 {
class thread_group {
 public:
  __device__ void sync() const;
  __device__ unsigned long long size() const;
  __device__ unsigned long long num_threads() const;
  __device__ unsigned long long thread_rank() const;
};
class thread_block : public thread_group {
 public:
  __device__ dim3 group_index() const;
  __device__ dim3 thread_index() const;
  __device__ dim3 group_dim() const;
  __device__ dim3 dim_threads() const;
};
class grid_group : public thread_group {
 public:
  __device__ bool is_valid() const;
  __device__ dim3 group_dim() const;
  __device__ dim3 dim_blocks() const;
  __device__ dim3 block_index() const;
  __device__ unsigned long long block_rank() const;
};
class coalesced_group : public thread_group {
 public:
  template <class T> __device__ T shfl(T var, int srcRank) const;
  __device__ unsigned int ballot(int predicate) const;
  __device__ int any(int predicate) const;
  __device__ int all(int predicate) const;
};
template <unsigned int Size, typename ParentT = void> class thread_block_tile : public thread_group {
 public:
  template <class T> __device__ T shfl(T var, int srcRank) const;
  template <class T> __device__ T shfl_down(T var, unsigned int delta) const;
  template <class T> __device__ T shfl_up(T var, unsigned int delta) const;
  template <class T> __device__ T shfl_xor(T var, unsigned int laneMask) const;
  __device__ unsigned int ballot(int predicate) const;
  __device__ int any(int predicate) const;
  __device__ int all(int predicate) const;
  __device__ unsigned int meta_group_rank() const;
  __device__ unsigned int meta_group_size() const;
};
__device__ thread_block this_thread_block();
__device__ grid_group this_grid();
__device__ coalesced_group coalesced_threads();
template <unsigned int Size, typename ParentT> __device__ thread_block_tile<Size, ParentT> tiled_partition(const ParentT &g);
__device__ thread_group tiled_partition(const thread_group &parent, unsigned int tilesz);
template <class TyGroup> __device__ void sync(const TyGroup &g);
}  // namespace __v1
using namespace __v1;
}  // namespace cooperative_groups
#endif
