/* cglint shim: declarations only, for static analysis; not the NVIDIA/PyTorch/NCCL headers. */
/* NVTX ranges and marks (host only). */
#pragma once
#include <stdint.h>

#ifndef NVTX_API
#define NVTX_API
#endif

typedef uint64_t nvtxRangeId_t;

#ifdef __cplusplus
extern "C" {
#endif
void NVTX_API nvtxMarkA(const char *message);
nvtxRangeId_t NVTX_API nvtxRangeStartA(const char *message);
void NVTX_API nvtxRangeEnd(nvtxRangeId_t id);
int NVTX_API nvtxRangePushA(const char *message);
int NVTX_API nvtxRangePop(void);
#ifdef __cplusplus
}
#endif
