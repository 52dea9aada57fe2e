/* cglint shim: declarations only, for static analysis; not the NVIDIA/PyTorch/NCCL headers. */
/* cuFFT API subset: plans, execution, stream. */
#pragma once
#include <cuComplex.h>
#include <cglint_shim_cuda.h>
#include <library_types.h>

#ifndef CUFFTAPI
#define CUFFTAPI
#endif

typedef enum cufftResult_t {
  CUFFT_SUCCESS = 0x0, CUFFT_INVALID_PLAN = 0x1, CUFFT_ALLOC_FAILED = 0x2, CUFFT_INVALID_TYPE = 0x3,
  CUFFT_INVALID_VALUE = 0x4, CUFFT_INTERNAL_ERROR = 0x5, CUFFT_EXEC_FAILED = 0x6,
  CUFFT_SETUP_FAILED = 0x7, CUFFT_INVALID_SIZE = 0x8, CUFFT_UNALIGNED_DATA = 0x9,
  CUFFT_INVALID_DEVICE = 0xB, CUFFT_NO_WORKSPACE = 0xD, CUFFT_NOT_IMPLEMENTED = 0xE,
  CUFFT_NOT_SUPPORTED = 0x10, CUFFT_MISSING_DEPENDENCY = 0x11, CUFFT_NVRTC_FAILURE = 0x12,
  CUFFT_NVJITLINK_FAILURE = 0x13, CUFFT_NVSHMEM_FAILURE = 0x14
} cufftResult;

typedef float cufftReal;
typedef double cufftDoubleReal;
typedef cuComplex cufftComplex;
typedef cuDoubleComplex cufftDoubleComplex;

#define CUFFT_FORWARD -1
#define CUFFT_INVERSE 1

typedef enum cufftType_t {
  CUFFT_R2C = 0x2a, CUFFT_C2R = 0x2c, CUFFT_C2C = 0x29, CUFFT_D2Z = 0x6a, CUFFT_Z2D = 0x6c,
  CUFFT_Z2Z = 0x69
} cufftType;

typedef int cufftHandle;
#define CUFFT_PLAN_NULL -1

#ifdef __cplusplus
extern "C" {
#endif
cufftResult CUFFTAPI cufftPlan1d(cufftHandle *plan, int nx, cufftType type, int batch);
cufftResult CUFFTAPI cufftPlan2d(cufftHandle *plan, int nx, int ny, cufftType type);
cufftResult CUFFTAPI cufftPlanMany(cufftHandle *plan, int rank, int *n, int *inembed, int istride, int idist, int *onembed, int ostride, int odist, cufftType type, int batch);
cufftResult CUFFTAPI cufftCreate(cufftHandle *handle);
cufftResult CUFFTAPI cufftMakePlan1d(cufftHandle plan, int nx, cufftType type, int batch, size_t *workSize);
cufftResult CUFFTAPI cufftExecC2C(cufftHandle plan, cufftComplex *idata, cufftComplex *odata, int direction);
cufftResult CUFFTAPI cufftExecR2C(cufftHandle plan, cufftReal *idata, cufftComplex *odata);
cufftResult CUFFTAPI cufftExecC2R(cufftHandle plan, cufftComplex *idata, cufftReal *odata);
cufftResult CUFFTAPI cufftExecZ2Z(cufftHandle plan, cufftDoubleComplex *idata, cufftDoubleComplex *odata, int direction);
cufftResult CUFFTAPI cufftSetStream(cufftHandle plan, cudaStream_t stream);
cufftResult CUFFTAPI cufftDestroy(cufftHandle plan);
#ifdef __cplusplus
}
#endif
