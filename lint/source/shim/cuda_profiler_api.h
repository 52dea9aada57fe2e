/* cglint shim: declarations only, for static analysis; not the NVIDIA/PyTorch/NCCL headers. */
#pragma once
#include <cglint_shim_cuda.h>

#ifdef __cplusplus
extern "C" {
#endif
extern __host__ cudaError_t CUDARTAPI cudaProfilerStart(void);
extern __host__ cudaError_t CUDARTAPI cudaProfilerStop(void);
#ifdef __cplusplus
}
#endif
