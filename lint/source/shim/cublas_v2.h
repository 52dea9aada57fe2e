/* cglint shim: declarations only, for static analysis; not the NVIDIA/PyTorch/NCCL headers. */
#pragma once
#if defined(CUBLAS_H_)
#error "It is an error to include both cublas.h and cublas_v2.h"
#endif
#define CUBLAS_V2_H_
#include <cublas_api.h>

#define cublasCreate cublasCreate_v2
#define cublasDestroy cublasDestroy_v2
#define cublasGetVersion cublasGetVersion_v2
#define cublasSetWorkspace cublasSetWorkspace_v2
#define cublasSetStream cublasSetStream_v2
#define cublasGetStream cublasGetStream_v2
#define cublasGetPointerMode cublasGetPointerMode_v2
#define cublasSetPointerMode cublasSetPointerMode_v2
#define cublasSaxpy cublasSaxpy_v2
#define cublasSdot cublasSdot_v2
#define cublasSgemv cublasSgemv_v2
#define cublasSgemm cublasSgemm_v2
#define cublasDgemm cublasDgemm_v2
