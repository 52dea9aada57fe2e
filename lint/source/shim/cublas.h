/* cglint shim: declarations only, for static analysis; not the NVIDIA/PyTorch/NCCL headers. */
/* Legacy (handle-less) cuBLAS API: a few entry points only. */
#pragma once
#if defined(CUBLAS_V2_H_)
#error "It is an error to include both cublas.h and cublas_v2.h"
#endif
#define CUBLAS_H_
#include <cublas_api.h>

typedef cublasStatus_t cublasStatus;

#ifdef __cplusplus
extern "C" {
#endif
cublasStatus CUBLASWINAPI cublasInit(void);
cublasStatus CUBLASWINAPI cublasShutdown(void);
cublasStatus CUBLASWINAPI cublasGetError(void);
cublasStatus CUBLASWINAPI cublasAlloc(int n, int elemSize, void **devicePtr);
cublasStatus CUBLASWINAPI cublasFree(void *devicePtr);
cublasStatus CUBLASWINAPI cublasSetKernelStream(cudaStream_t stream);
void CUBLASWINAPI cublasSgemm(char transa, char transb, int m, int n, int k, float alpha, const float *A, int lda, const float *B, int ldb, float beta, float *C, int ldc);
#ifdef __cplusplus
}
#endif
