/* cglint shim: declarations only, for static analysis; not the NVIDIA/PyTorch/NCCL headers. */
/* bfloat16 types and the common conversions only (C++; C gets the raw structs). */
#pragma once
#include <cglint_shim_cuda.h>

typedef struct __align__(2) { unsigned short x; } __nv_bfloat16_raw;
typedef struct __align__(4) { unsigned short x, y; } __nv_bfloat162_raw;

#ifdef __cplusplus
struct __align__(2) __nv_bfloat16 {
  __nv_bfloat16() = default;
  __host__ __device__ __nv_bfloat16(const __nv_bfloat16_raw &hr);
  __host__ __device__ __nv_bfloat16(float f);
  __host__ __device__ __nv_bfloat16(double f);
  __host__ __device__ __nv_bfloat16(int i);
  __host__ __device__ __nv_bfloat16(unsigned int i);
  __host__ __device__ __nv_bfloat16(long long i);
  __host__ __device__ operator float() const;
  __host__ __device__ operator __nv_bfloat16_raw() const;

protected:
  unsigned short __x;
};
struct __align__(4) __nv_bfloat162 {
  __nv_bfloat16 x, y;
  __nv_bfloat162() = default;
  __host__ __device__ __nv_bfloat162(const __nv_bfloat16 &a, const __nv_bfloat16 &b) : x(a), y(b) {}
  __host__ __device__ __nv_bfloat162(const __nv_bfloat162_raw &h2r);
  __host__ __device__ operator __nv_bfloat162_raw() const;
};
typedef __nv_bfloat16 nv_bfloat16;
typedef __nv_bfloat162 nv_bfloat162;

__host__ __device__ __nv_bfloat16 __float2bfloat16(const float a);
__host__ __device__ __nv_bfloat16 __float2bfloat16_rn(const float a);
__host__ __device__ float __bfloat162float(const __nv_bfloat16 a);
__host__ __device__ __nv_bfloat162 __floats2bfloat162_rn(const float a, const float b);
__host__ __device__ __nv_bfloat162 __float22bfloat162_rn(const float2 a);
__host__ __device__ float2 __bfloat1622float2(const __nv_bfloat162 a);
#endif /* __cplusplus: C sees only the raw structs, like the real header */
