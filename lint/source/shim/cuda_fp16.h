/* cglint shim: declarations only, for static analysis; not the NVIDIA/PyTorch/NCCL headers. */
/* Half-precision types and the common conversions only (C++; C gets the raw structs). */
#pragma once
#include <cglint_shim_cuda.h>

typedef struct __align__(2) { unsigned short x; } __half_raw;
typedef struct __align__(4) { unsigned short x, y; } __half2_raw;

#ifdef __cplusplus
struct __align__(2) __half {
  __half() = default;
  __host__ __device__ __half(const __half_raw &hr);
  __host__ __device__ __half(float f);
  __host__ __device__ __half(double f);
  __host__ __device__ __half(int i);
  __host__ __device__ __half(unsigned int i);
  __host__ __device__ __half(long long i);
  __host__ __device__ operator float() const;
  __host__ __device__ operator __half_raw() const;

protected:
  unsigned short __x;
};
struct __align__(4) __half2 {
  __half x, y;
  __half2() = default;
  __host__ __device__ __half2(const __half &a, const __half &b) : x(a), y(b) {}
  __host__ __device__ __half2(const __half2_raw &h2r);
  __host__ __device__ operator __half2_raw() const;
};
typedef __half half;
typedef __half2 half2;

__host__ __device__ __half __float2half(const float a);
__host__ __device__ __half __float2half_rn(const float a);
__host__ __device__ float __half2float(const __half a);
__host__ __device__ __half2 __float2half2_rn(const float a);
__host__ __device__ __half2 __floats2half2_rn(const float a, const float b);
__host__ __device__ __half2 __halves2half2(const __half a, const __half b);
__host__ __device__ float2 __half22float2(const __half2 a);
__host__ __device__ __half2 __float22half2_rn(const float2 a);
__host__ __device__ float __low2float(const __half2 a);
__host__ __device__ float __high2float(const __half2 a);
#endif /* __cplusplus: C sees only the raw structs, like the real header */
