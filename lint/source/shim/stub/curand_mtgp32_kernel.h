/* SPDX-License-Identifier: MIT */
/*
 * Served before the toolkit's own curand_mtgp32_kernel.h, the last header clang's CUDA wrapper
 * includes: what nvcc gives host code and clang does not, so real headers parse as nvcc sees them.
 * - __CUDACC__ is 1 (clang defines it empty: '#if __CUDACC__' in NCCL's device headers fails);
 * - the vector store hints of sm_32_intrinsics.h, which clang leaves out (NCCL's gin_proxy.h);
 * - max/min on integers and floats in host code (nvcc's math_functions.hpp; nccl-tests).
 */
#include_next <curand_mtgp32_kernel.h>

#undef __CUDACC__
#define __CUDACC__ 1

#ifndef CGLINT_STUB_FIXUPS
#define CGLINT_STUB_FIXUPS
#define CGLINT_ST_(T) \
	__device__ void __stwt(T *, T); __device__ void __stcg(T *, T); \
	__device__ void __stcs(T *, T); __device__ void __stwb(T *, T);
CGLINT_ST_(char2) CGLINT_ST_(char4) CGLINT_ST_(short2) CGLINT_ST_(short4) CGLINT_ST_(int2) CGLINT_ST_(int4)
CGLINT_ST_(longlong2) CGLINT_ST_(uchar2) CGLINT_ST_(uchar4) CGLINT_ST_(ushort2) CGLINT_ST_(ushort4)
CGLINT_ST_(uint2) CGLINT_ST_(uint4) CGLINT_ST_(ulonglong2) CGLINT_ST_(float2) CGLINT_ST_(float4)
CGLINT_ST_(double2) CGLINT_ST_(char) CGLINT_ST_(short) CGLINT_ST_(int) CGLINT_ST_(long long)
CGLINT_ST_(unsigned char) CGLINT_ST_(unsigned short) CGLINT_ST_(unsigned int) CGLINT_ST_(unsigned long long)
CGLINT_ST_(float) CGLINT_ST_(double)
#undef CGLINT_ST_
#define CGLINT_MM_(R, A, B) \
	static inline __host__ R max(A a, B b) { return a > b ? (R)a : (R)b; } \
	static inline __host__ R min(A a, B b) { return a < b ? (R)a : (R)b; }
CGLINT_MM_(int, int, int) CGLINT_MM_(unsigned int, unsigned int, unsigned int)
CGLINT_MM_(unsigned int, int, unsigned int) CGLINT_MM_(unsigned int, unsigned int, int)
CGLINT_MM_(long, long, long) CGLINT_MM_(unsigned long, unsigned long, unsigned long)
CGLINT_MM_(unsigned long, long, unsigned long) CGLINT_MM_(unsigned long, unsigned long, long)
CGLINT_MM_(long long, long long, long long) CGLINT_MM_(unsigned long long, unsigned long long, unsigned long long)
CGLINT_MM_(unsigned long long, long long, unsigned long long) CGLINT_MM_(unsigned long long, unsigned long long, long long)
CGLINT_MM_(float, float, float) CGLINT_MM_(double, double, double)
CGLINT_MM_(double, float, double) CGLINT_MM_(double, double, float)
#undef CGLINT_MM_
#endif
