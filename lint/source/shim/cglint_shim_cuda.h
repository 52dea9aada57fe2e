/* cglint shim: declarations only, for static analysis; not the NVIDIA/PyTorch/NCCL headers. */
/* Common base of the runtime-API shims (cuda_runtime.h, cuda_runtime_api.h, driver_types.h, ...).
 * Names, values and signatures follow the CUDA 13.0 headers so that USRs, enum values and
 * overload resolution match what libclang sees with the real toolkit. */
#pragma once

#include <stddef.h>

#define CGLINT_SHIM 1
#define CUDART_VERSION 13000
#define __CUDART_API_VERSION CUDART_VERSION

/* clang's own CUDA wrapper defines __CUDACC__ and includes cuda.h; -nocudainc skips it. */
#if defined(__CUDA__)
#ifndef __CUDACC__
#define __CUDACC__ 1    /* nvcc's value: '#if __CUDACC__' (NCCL's device headers) needs one */
#endif
#include <cuda.h>
#include <string.h>     /* as nvcc's crt/common_functions.h: code calls strcmp with no include */
#endif

/* ---- execution-space and storage attributes ---------------------------------------------- */
#if defined(__CUDA__)
#ifndef __host__
#define __host__ __attribute__((host))
#endif
#ifndef __device__
#define __device__ __attribute__((device))
#endif
#ifndef __global__
#define __global__ __attribute__((global))
#endif
#ifndef __shared__
#define __shared__ __attribute__((shared))
#endif
#ifndef __constant__
#define __constant__ __attribute__((constant))
#endif
/* clang honours 'managed' only for HIP and warns under CUDA (with the real headers too); an
 * annotation keeps the marker visible in the AST without the warning. */
#ifndef __managed__
#define __managed__ __attribute__((annotate("managed")))
#endif
#ifndef __launch_bounds__
#define __launch_bounds__(...) __attribute__((launch_bounds(__VA_ARGS__)))
#endif
#ifndef __grid_constant__
#if __has_attribute(grid_constant)
#define __grid_constant__ __attribute__((grid_constant))
#else
#define __grid_constant__
#endif
#endif
#else /* plain C / C++: the attributes mean nothing there (and clang would warn on them) */
#ifndef __host__
#define __host__
#endif
#ifndef __device__
#define __device__
#endif
#ifndef __global__
#define __global__
#endif
#ifndef __shared__
#define __shared__
#endif
#ifndef __constant__
#define __constant__
#endif
#ifndef __managed__
#define __managed__
#endif
#ifndef __launch_bounds__
#define __launch_bounds__(...)
#endif
#ifndef __grid_constant__
#define __grid_constant__
#endif
#endif
#ifndef __forceinline__
#define __forceinline__ __inline__ __attribute__((always_inline))
#endif
#ifndef __align__
#define __align__(n) __attribute__((aligned(n)))
#endif
#ifndef __builtin_align__
#define __builtin_align__(n) __align__(n)
#endif
#ifndef __device_builtin__
#define __device_builtin__
#endif
#ifndef __cudart_builtin__
#define __cudart_builtin__
#endif
#ifndef CUDARTAPI
#define CUDARTAPI
#endif
#ifndef CUDART_CB
#define CUDART_CB
#endif
#ifndef CUDART_DEVICE
#define CUDART_DEVICE __device__
#endif

/* default arguments exist only in C++ */
#ifdef __cplusplus
#define CGLINT_DV(v) = v
#else
#define CGLINT_DV(v)
#endif

/* ---- vector types ------------------------------------------------------------------------ */
#define CGLINT_VEC_(T, N, A2, A4)                                                                \
  struct N##1 { T x; };                                                                         \
  struct __align__(A2) N##2 { T x, y; };                                                        \
  struct N##3 { T x, y, z; };                                                                   \
  struct __align__(A4) N##4 { T x, y, z, w; };                                                  \
  typedef struct N##1 N##1;                                                                     \
  typedef struct N##2 N##2;                                                                     \
  typedef struct N##3 N##3;                                                                     \
  typedef struct N##4 N##4;                                                                     \
  __host__ __device__ N##1 make_##N##1(T x);                                                    \
  __host__ __device__ N##2 make_##N##2(T x, T y);                                               \
  __host__ __device__ N##3 make_##N##3(T x, T y, T z);                                          \
  __host__ __device__ N##4 make_##N##4(T x, T y, T z, T w);

#ifdef __cplusplus
extern "C++" {
#endif
CGLINT_VEC_(signed char, char, 2, 4)
CGLINT_VEC_(unsigned char, uchar, 2, 4)
CGLINT_VEC_(short, short, 4, 8)
CGLINT_VEC_(unsigned short, ushort, 4, 8)
CGLINT_VEC_(int, int, 8, 16)
CGLINT_VEC_(unsigned int, uint, 8, 16)
CGLINT_VEC_(long, long, 2 * sizeof(long), 16)
CGLINT_VEC_(unsigned long, ulong, 2 * sizeof(unsigned long), 16)
CGLINT_VEC_(long long, longlong, 16, 16)
CGLINT_VEC_(unsigned long long, ulonglong, 16, 16)
CGLINT_VEC_(float, float, 8, 16)
CGLINT_VEC_(double, double, 16, 16)
#ifdef __cplusplus
}
#endif
#undef CGLINT_VEC_

#ifdef __cplusplus
struct dim3 {
  unsigned int x, y, z;
  __host__ __device__ constexpr dim3(unsigned int vx = 1, unsigned int vy = 1, unsigned int vz = 1)
      : x(vx), y(vy), z(vz) {}
  __host__ __device__ constexpr dim3(uint3 v) : x(v.x), y(v.y), z(v.z) {}
  __host__ __device__ constexpr operator uint3() const { return uint3{x, y, z}; }
};
#else
struct dim3 { unsigned int x, y, z; };
#endif
typedef struct dim3 dim3;

/* ---- handles ----------------------------------------------------------------------------- */
typedef struct CUstream_st *cudaStream_t;
typedef struct CUevent_st *cudaEvent_t;
typedef struct CUgraph_st *cudaGraph_t;
typedef struct CUgraphNode_st *cudaGraphNode_t;
typedef struct CUgraphExec_st *cudaGraphExec_t;
typedef struct CUgraphDeviceUpdatableNode_st *cudaGraphDeviceNode_t;
typedef struct CUmemPoolHandle_st *cudaMemPool_t;
typedef struct CUuserObject_st *cudaUserObject_t;
typedef struct CUfunc_st *cudaFunction_t;
typedef struct CUkern_st *cudaKernel_t;
typedef struct CUlib_st *cudaLibrary_t;
typedef struct cudaArray *cudaArray_t;
typedef const struct cudaArray *cudaArray_const_t;
typedef struct cudaGraphicsResource *cudaGraphicsResource_t;
typedef unsigned long long cudaGraphConditionalHandle;

/* ---- enums (values as in CUDA 13.0 driver_types.h) ----------------------------------------- */
enum cudaError {
  cudaSuccess=0, cudaErrorInvalidValue=1, cudaErrorMemoryAllocation=2,
  cudaErrorInitializationError=3, cudaErrorCudartUnloading=4, cudaErrorProfilerDisabled=5,
  cudaErrorProfilerNotInitialized=6, cudaErrorProfilerAlreadyStarted=7,
  cudaErrorProfilerAlreadyStopped=8, cudaErrorInvalidConfiguration=9, cudaErrorInvalidPitchValue=12,
  cudaErrorInvalidSymbol=13, cudaErrorInvalidHostPointer=16, cudaErrorInvalidDevicePointer=17,
  cudaErrorInvalidTexture=18, cudaErrorInvalidTextureBinding=19,
  cudaErrorInvalidChannelDescriptor=20, cudaErrorInvalidMemcpyDirection=21,
  cudaErrorAddressOfConstant=22, cudaErrorTextureFetchFailed=23, cudaErrorTextureNotBound=24,
  cudaErrorSynchronizationError=25, cudaErrorInvalidFilterSetting=26,
  cudaErrorInvalidNormSetting=27, cudaErrorMixedDeviceExecution=28, cudaErrorNotYetImplemented=31,
  cudaErrorMemoryValueTooLarge=32, cudaErrorStubLibrary=34, cudaErrorInsufficientDriver=35,
  cudaErrorCallRequiresNewerDriver=36, cudaErrorInvalidSurface=37,
  cudaErrorDuplicateVariableName=43, cudaErrorDuplicateTextureName=44,
  cudaErrorDuplicateSurfaceName=45, cudaErrorDevicesUnavailable=46,
  cudaErrorIncompatibleDriverContext=49, cudaErrorMissingConfiguration=52,
  cudaErrorPriorLaunchFailure=53, cudaErrorLaunchMaxDepthExceeded=65,
  cudaErrorLaunchFileScopedTex=66, cudaErrorLaunchFileScopedSurf=67, cudaErrorSyncDepthExceeded=68,
  cudaErrorLaunchPendingCountExceeded=69, cudaErrorInvalidDeviceFunction=98, cudaErrorNoDevice=100,
  cudaErrorInvalidDevice=101, cudaErrorDeviceNotLicensed=102,
  cudaErrorSoftwareValidityNotEstablished=103, cudaErrorStartupFailure=127,
  cudaErrorInvalidKernelImage=200, cudaErrorDeviceUninitialized=201,
  cudaErrorMapBufferObjectFailed=205, cudaErrorUnmapBufferObjectFailed=206,
  cudaErrorArrayIsMapped=207, cudaErrorAlreadyMapped=208, cudaErrorNoKernelImageForDevice=209,
  cudaErrorAlreadyAcquired=210, cudaErrorNotMapped=211, cudaErrorNotMappedAsArray=212,
  cudaErrorNotMappedAsPointer=213, cudaErrorECCUncorrectable=214, cudaErrorUnsupportedLimit=215,
  cudaErrorDeviceAlreadyInUse=216, cudaErrorPeerAccessUnsupported=217, cudaErrorInvalidPtx=218,
  cudaErrorInvalidGraphicsContext=219, cudaErrorNvlinkUncorrectable=220,
  cudaErrorJitCompilerNotFound=221, cudaErrorUnsupportedPtxVersion=222,
  cudaErrorJitCompilationDisabled=223, cudaErrorUnsupportedExecAffinity=224,
  cudaErrorUnsupportedDevSideSync=225, cudaErrorContained=226, cudaErrorInvalidSource=300,
  cudaErrorFileNotFound=301, cudaErrorSharedObjectSymbolNotFound=302,
  cudaErrorSharedObjectInitFailed=303, cudaErrorOperatingSystem=304,
  cudaErrorInvalidResourceHandle=400, cudaErrorIllegalState=401, cudaErrorLossyQuery=402,
  cudaErrorSymbolNotFound=500, cudaErrorNotReady=600, cudaErrorIllegalAddress=700,
  cudaErrorLaunchOutOfResources=701, cudaErrorLaunchTimeout=702,
  cudaErrorLaunchIncompatibleTexturing=703, cudaErrorPeerAccessAlreadyEnabled=704,
  cudaErrorPeerAccessNotEnabled=705, cudaErrorSetOnActiveProcess=708,
  cudaErrorContextIsDestroyed=709, cudaErrorAssert=710, cudaErrorTooManyPeers=711,
  cudaErrorHostMemoryAlreadyRegistered=712, cudaErrorHostMemoryNotRegistered=713,
  cudaErrorHardwareStackError=714, cudaErrorIllegalInstruction=715, cudaErrorMisalignedAddress=716,
  cudaErrorInvalidAddressSpace=717, cudaErrorInvalidPc=718, cudaErrorLaunchFailure=719,
  cudaErrorCooperativeLaunchTooLarge=720, cudaErrorTensorMemoryLeak=721, cudaErrorNotPermitted=800,
  cudaErrorNotSupported=801, cudaErrorSystemNotReady=802, cudaErrorSystemDriverMismatch=803,
  cudaErrorCompatNotSupportedOnDevice=804, cudaErrorMpsConnectionFailed=805,
  cudaErrorMpsRpcFailure=806, cudaErrorMpsServerNotReady=807, cudaErrorMpsMaxClientsReached=808,
  cudaErrorMpsMaxConnectionsReached=809, cudaErrorMpsClientTerminated=810,
  cudaErrorCdpNotSupported=811, cudaErrorCdpVersionMismatch=812,
  cudaErrorStreamCaptureUnsupported=900, cudaErrorStreamCaptureInvalidated=901,
  cudaErrorStreamCaptureMerge=902, cudaErrorStreamCaptureUnmatched=903,
  cudaErrorStreamCaptureUnjoined=904, cudaErrorStreamCaptureIsolation=905,
  cudaErrorStreamCaptureImplicit=906, cudaErrorCapturedEvent=907,
  cudaErrorStreamCaptureWrongThread=908, cudaErrorTimeout=909, cudaErrorGraphExecUpdateFailure=910,
  cudaErrorExternalDevice=911, cudaErrorInvalidClusterSize=912, cudaErrorFunctionNotLoaded=913,
  cudaErrorInvalidResourceType=914, cudaErrorInvalidResourceConfiguration=915, cudaErrorUnknown=999,
  cudaErrorApiFailureBase=10000
};
typedef enum cudaError cudaError_t;

enum cudaStreamCaptureMode {
  cudaStreamCaptureModeGlobal = 0, cudaStreamCaptureModeThreadLocal = 1,
  cudaStreamCaptureModeRelaxed = 2
};
enum cudaStreamCaptureStatus {
  cudaStreamCaptureStatusNone = 0, cudaStreamCaptureStatusActive = 1,
  cudaStreamCaptureStatusInvalidated = 2
};
enum cudaStreamUpdateCaptureDependenciesFlags {
  cudaStreamAddCaptureDependencies = 0x0, cudaStreamSetCaptureDependencies = 0x1
};
enum cudaMemcpyKind {
  cudaMemcpyHostToHost = 0, cudaMemcpyHostToDevice = 1, cudaMemcpyDeviceToHost = 2,
  cudaMemcpyDeviceToDevice = 3, cudaMemcpyDefault = 4
};
enum cudaLimit {
  cudaLimitStackSize = 0x00, cudaLimitPrintfFifoSize = 0x01, cudaLimitMallocHeapSize = 0x02,
  cudaLimitDevRuntimeSyncDepth = 0x03, cudaLimitDevRuntimePendingLaunchCount = 0x04,
  cudaLimitMaxL2FetchGranularity = 0x05, cudaLimitPersistingL2CacheSize = 0x06
};
enum cudaFuncCache {
  cudaFuncCachePreferNone = 0, cudaFuncCachePreferShared = 1, cudaFuncCachePreferL1 = 2,
  cudaFuncCachePreferEqual = 3
};
enum cudaFuncAttribute {
  cudaFuncAttributeMaxDynamicSharedMemorySize = 8, cudaFuncAttributePreferredSharedMemoryCarveout = 9,
  cudaFuncAttributeClusterDimMustBeSet = 10, cudaFuncAttributeRequiredClusterWidth = 11,
  cudaFuncAttributeRequiredClusterHeight = 12, cudaFuncAttributeRequiredClusterDepth = 13,
  cudaFuncAttributeNonPortableClusterSizeAllowed = 14,
  cudaFuncAttributeClusterSchedulingPolicyPreference = 15, cudaFuncAttributeMax
};
enum cudaDeviceAttr {
  cudaDevAttrMaxThreadsPerBlock=1, cudaDevAttrMaxBlockDimX=2, cudaDevAttrMaxBlockDimY=3,
  cudaDevAttrMaxBlockDimZ=4, cudaDevAttrMaxGridDimX=5, cudaDevAttrMaxGridDimY=6,
  cudaDevAttrMaxGridDimZ=7, cudaDevAttrMaxSharedMemoryPerBlock=8, cudaDevAttrTotalConstantMemory=9,
  cudaDevAttrWarpSize=10, cudaDevAttrMaxPitch=11, cudaDevAttrMaxRegistersPerBlock=12,
  cudaDevAttrClockRate=13, cudaDevAttrTextureAlignment=14, cudaDevAttrGpuOverlap=15,
  cudaDevAttrMultiProcessorCount=16, cudaDevAttrKernelExecTimeout=17, cudaDevAttrIntegrated=18,
  cudaDevAttrCanMapHostMemory=19, cudaDevAttrComputeMode=20, cudaDevAttrMaxTexture1DWidth=21,
  cudaDevAttrMaxTexture2DWidth=22, cudaDevAttrMaxTexture2DHeight=23,
  cudaDevAttrMaxTexture3DWidth=24, cudaDevAttrMaxTexture3DHeight=25,
  cudaDevAttrMaxTexture3DDepth=26, cudaDevAttrMaxTexture2DLayeredWidth=27,
  cudaDevAttrMaxTexture2DLayeredHeight=28, cudaDevAttrMaxTexture2DLayeredLayers=29,
  cudaDevAttrSurfaceAlignment=30, cudaDevAttrConcurrentKernels=31, cudaDevAttrEccEnabled=32,
  cudaDevAttrPciBusId=33, cudaDevAttrPciDeviceId=34, cudaDevAttrTccDriver=35,
  cudaDevAttrMemoryClockRate=36, cudaDevAttrGlobalMemoryBusWidth=37, cudaDevAttrL2CacheSize=38,
  cudaDevAttrMaxThreadsPerMultiProcessor=39, cudaDevAttrAsyncEngineCount=40,
  cudaDevAttrUnifiedAddressing=41, cudaDevAttrMaxTexture1DLayeredWidth=42,
  cudaDevAttrMaxTexture1DLayeredLayers=43, cudaDevAttrMaxTexture2DGatherWidth=45,
  cudaDevAttrMaxTexture2DGatherHeight=46, cudaDevAttrMaxTexture3DWidthAlt=47,
  cudaDevAttrMaxTexture3DHeightAlt=48, cudaDevAttrMaxTexture3DDepthAlt=49,
  cudaDevAttrPciDomainId=50, cudaDevAttrTexturePitchAlignment=51,
  cudaDevAttrMaxTextureCubemapWidth=52, cudaDevAttrMaxTextureCubemapLayeredWidth=53,
  cudaDevAttrMaxTextureCubemapLayeredLayers=54, cudaDevAttrMaxSurface1DWidth=55,
  cudaDevAttrMaxSurface2DWidth=56, cudaDevAttrMaxSurface2DHeight=57,
  cudaDevAttrMaxSurface3DWidth=58, cudaDevAttrMaxSurface3DHeight=59,
  cudaDevAttrMaxSurface3DDepth=60, cudaDevAttrMaxSurface1DLayeredWidth=61,
  cudaDevAttrMaxSurface1DLayeredLayers=62, cudaDevAttrMaxSurface2DLayeredWidth=63,
  cudaDevAttrMaxSurface2DLayeredHeight=64, cudaDevAttrMaxSurface2DLayeredLayers=65,
  cudaDevAttrMaxSurfaceCubemapWidth=66, cudaDevAttrMaxSurfaceCubemapLayeredWidth=67,
  cudaDevAttrMaxSurfaceCubemapLayeredLayers=68, cudaDevAttrMaxTexture1DLinearWidth=69,
  cudaDevAttrMaxTexture2DLinearWidth=70, cudaDevAttrMaxTexture2DLinearHeight=71,
  cudaDevAttrMaxTexture2DLinearPitch=72, cudaDevAttrMaxTexture2DMipmappedWidth=73,
  cudaDevAttrMaxTexture2DMipmappedHeight=74, cudaDevAttrComputeCapabilityMajor=75,
  cudaDevAttrComputeCapabilityMinor=76, cudaDevAttrMaxTexture1DMipmappedWidth=77,
  cudaDevAttrStreamPrioritiesSupported=78, cudaDevAttrGlobalL1CacheSupported=79,
  cudaDevAttrLocalL1CacheSupported=80, cudaDevAttrMaxSharedMemoryPerMultiprocessor=81,
  cudaDevAttrMaxRegistersPerMultiprocessor=82, cudaDevAttrManagedMemory=83,
  cudaDevAttrIsMultiGpuBoard=84, cudaDevAttrMultiGpuBoardGroupID=85,
  cudaDevAttrHostNativeAtomicSupported=86, cudaDevAttrSingleToDoublePrecisionPerfRatio=87,
  cudaDevAttrPageableMemoryAccess=88, cudaDevAttrConcurrentManagedAccess=89,
  cudaDevAttrComputePreemptionSupported=90, cudaDevAttrCanUseHostPointerForRegisteredMem=91,
  cudaDevAttrReserved92=92, cudaDevAttrReserved93=93, cudaDevAttrReserved94=94,
  cudaDevAttrCooperativeLaunch=95, cudaDevAttrReserved96=96,
  cudaDevAttrMaxSharedMemoryPerBlockOptin=97, cudaDevAttrCanFlushRemoteWrites=98,
  cudaDevAttrHostRegisterSupported=99, cudaDevAttrPageableMemoryAccessUsesHostPageTables=100,
  cudaDevAttrDirectManagedMemAccessFromHost=101, cudaDevAttrMaxBlocksPerMultiprocessor=106,
  cudaDevAttrMaxPersistingL2CacheSize=108, cudaDevAttrMaxAccessPolicyWindowSize=109,
  cudaDevAttrReservedSharedMemoryPerBlock=111, cudaDevAttrSparseCudaArraySupported=112,
  cudaDevAttrHostRegisterReadOnlySupported=113, cudaDevAttrTimelineSemaphoreInteropSupported=114,
  cudaDevAttrMemoryPoolsSupported=115, cudaDevAttrGPUDirectRDMASupported=116,
  cudaDevAttrGPUDirectRDMAFlushWritesOptions=117, cudaDevAttrGPUDirectRDMAWritesOrdering=118,
  cudaDevAttrMemoryPoolSupportedHandleTypes=119, cudaDevAttrClusterLaunch=120,
  cudaDevAttrDeferredMappingCudaArraySupported=121, cudaDevAttrReserved122=122,
  cudaDevAttrReserved123=123, cudaDevAttrReserved124=124, cudaDevAttrIpcEventSupport=125,
  cudaDevAttrMemSyncDomainCount=126, cudaDevAttrReserved127=127, cudaDevAttrReserved128=128,
  cudaDevAttrReserved129=129, cudaDevAttrNumaConfig=130, cudaDevAttrNumaId=131,
  cudaDevAttrReserved132=132, cudaDevAttrMpsEnabled=133, cudaDevAttrHostNumaId=134,
  cudaDevAttrD3D12CigSupported=135, cudaDevAttrVulkanCigSupported=138,
  cudaDevAttrGpuPciDeviceId=139, cudaDevAttrGpuPciSubsystemId=140, cudaDevAttrReserved141=141,
  cudaDevAttrHostNumaMemoryPoolsSupported=142, cudaDevAttrHostNumaMultinodeIpcSupported=143,
  cudaDevAttrHostMemoryPoolsSupported=144, cudaDevAttrReserved145=145,
  cudaDevAttrOnlyPartialHostNativeAtomicSupported=147, cudaDevAttrMax
};
enum cudaMemoryType {
  cudaMemoryTypeUnregistered = 0, cudaMemoryTypeHost = 1, cudaMemoryTypeDevice = 2,
  cudaMemoryTypeManaged = 3
};
enum cudaMemoryAdvise {
  cudaMemAdviseSetReadMostly = 1, cudaMemAdviseUnsetReadMostly = 2,
  cudaMemAdviseSetPreferredLocation = 3, cudaMemAdviseUnsetPreferredLocation = 4,
  cudaMemAdviseSetAccessedBy = 5, cudaMemAdviseUnsetAccessedBy = 6
};
enum cudaMemLocationType {
  cudaMemLocationTypeInvalid = 0, cudaMemLocationTypeNone = 0, cudaMemLocationTypeDevice = 1,
  cudaMemLocationTypeHost = 2, cudaMemLocationTypeHostNuma = 3,
  cudaMemLocationTypeHostNumaCurrent = 4
};
enum cudaMemAllocationType {
  cudaMemAllocationTypeInvalid = 0x0, cudaMemAllocationTypePinned = 0x1,
  cudaMemAllocationTypeManaged = 0x2, cudaMemAllocationTypeMax = 0x7FFFFFFF
};
enum cudaMemAllocationHandleType {
  cudaMemHandleTypeNone = 0x0, cudaMemHandleTypePosixFileDescriptor = 0x1,
  cudaMemHandleTypeWin32 = 0x2, cudaMemHandleTypeWin32Kmt = 0x4, cudaMemHandleTypeFabric = 0x8
};
enum cudaMemPoolAttr {
  cudaMemPoolReuseFollowEventDependencies = 0x1, cudaMemPoolReuseAllowOpportunistic = 0x2,
  cudaMemPoolReuseAllowInternalDependencies = 0x3, cudaMemPoolAttrReleaseThreshold = 0x4,
  cudaMemPoolAttrReservedMemCurrent = 0x5, cudaMemPoolAttrReservedMemHigh = 0x6,
  cudaMemPoolAttrUsedMemCurrent = 0x7, cudaMemPoolAttrUsedMemHigh = 0x8
};
enum cudaGraphMemAttributeType {
  cudaGraphMemAttrUsedMemCurrent = 0x0, cudaGraphMemAttrUsedMemHigh = 0x1,
  cudaGraphMemAttrReservedMemCurrent = 0x2, cudaGraphMemAttrReservedMemHigh = 0x3
};
enum cudaGraphNodeType {
  cudaGraphNodeTypeKernel = 0x00, cudaGraphNodeTypeMemcpy = 0x01, cudaGraphNodeTypeMemset = 0x02,
  cudaGraphNodeTypeHost = 0x03, cudaGraphNodeTypeGraph = 0x04, cudaGraphNodeTypeEmpty = 0x05,
  cudaGraphNodeTypeWaitEvent = 0x06, cudaGraphNodeTypeEventRecord = 0x07,
  cudaGraphNodeTypeExtSemaphoreSignal = 0x08, cudaGraphNodeTypeExtSemaphoreWait = 0x09,
  cudaGraphNodeTypeMemAlloc = 0x0a, cudaGraphNodeTypeMemFree = 0x0b,
  cudaGraphNodeTypeConditional = 0x0d, cudaGraphNodeTypeCount
};
enum cudaGraphExecUpdateResult {
  cudaGraphExecUpdateSuccess = 0x0, cudaGraphExecUpdateError = 0x1,
  cudaGraphExecUpdateErrorTopologyChanged = 0x2, cudaGraphExecUpdateErrorNodeTypeChanged = 0x3,
  cudaGraphExecUpdateErrorFunctionChanged = 0x4, cudaGraphExecUpdateErrorParametersChanged = 0x5,
  cudaGraphExecUpdateErrorNotSupported = 0x6,
  cudaGraphExecUpdateErrorUnsupportedFunctionChange = 0x7,
  cudaGraphExecUpdateErrorAttributesChanged = 0x8
};
enum cudaGraphInstantiateFlags {
  cudaGraphInstantiateFlagAutoFreeOnLaunch = 1, cudaGraphInstantiateFlagUpload = 2,
  cudaGraphInstantiateFlagDeviceLaunch = 4, cudaGraphInstantiateFlagUseNodePriority = 8
};
typedef enum cudaGraphInstantiateResult {
  cudaGraphInstantiateSuccess = 0, cudaGraphInstantiateError = 1,
  cudaGraphInstantiateInvalidStructure = 2, cudaGraphInstantiateNodeOperationNotSupported = 3,
  cudaGraphInstantiateMultipleDevicesNotSupported = 4,
  cudaGraphInstantiateConditionalHandleUnused = 5
} cudaGraphInstantiateResult;
enum cudaGraphDebugDotFlags {
  cudaGraphDebugDotFlagsVerbose = 1 << 0, cudaGraphDebugDotFlagsKernelNodeParams = 1 << 2,
  cudaGraphDebugDotFlagsMemcpyNodeParams = 1 << 3, cudaGraphDebugDotFlagsMemsetNodeParams = 1 << 4,
  cudaGraphDebugDotFlagsHostNodeParams = 1 << 5, cudaGraphDebugDotFlagsEventNodeParams = 1 << 6,
  cudaGraphDebugDotFlagsExtSemasSignalNodeParams = 1 << 7,
  cudaGraphDebugDotFlagsExtSemasWaitNodeParams = 1 << 8,
  cudaGraphDebugDotFlagsKernelNodeAttributes = 1 << 9, cudaGraphDebugDotFlagsHandles = 1 << 10,
  cudaGraphDebugDotFlagsConditionalNodeParams = 1 << 15
};
typedef enum cudaGraphDependencyType_enum {
  cudaGraphDependencyTypeDefault = 0, cudaGraphDependencyTypeProgrammatic = 1
} cudaGraphDependencyType;
enum cudaUserObjectFlags { cudaUserObjectNoDestructorSync = 0x1 };
enum cudaUserObjectRetainFlags { cudaGraphUserObjectMove = 0x1 };
enum cudaAccessProperty {
  cudaAccessPropertyNormal = 0, cudaAccessPropertyStreaming = 1, cudaAccessPropertyPersisting = 2
};
enum cudaSynchronizationPolicy {
  cudaSyncPolicyAuto = 1, cudaSyncPolicySpin = 2, cudaSyncPolicyYield = 3,
  cudaSyncPolicyBlockingSync = 4
};
enum cudaClusterSchedulingPolicy {
  cudaClusterSchedulingPolicyDefault = 0, cudaClusterSchedulingPolicySpread = 1,
  cudaClusterSchedulingPolicyLoadBalancing = 2
};
typedef enum cudaLaunchMemSyncDomain {
  cudaLaunchMemSyncDomainDefault = 0, cudaLaunchMemSyncDomainRemote = 1
} cudaLaunchMemSyncDomain;
typedef enum cudaLaunchAttributeID {
  cudaLaunchAttributeIgnore = 0, cudaLaunchAttributeAccessPolicyWindow = 1,
  cudaLaunchAttributeCooperative = 2, cudaLaunchAttributeSynchronizationPolicy = 3,
  cudaLaunchAttributeClusterDimension = 4, cudaLaunchAttributeClusterSchedulingPolicyPreference = 5,
  cudaLaunchAttributeProgrammaticStreamSerialization = 6, cudaLaunchAttributeProgrammaticEvent = 7,
  cudaLaunchAttributePriority = 8, cudaLaunchAttributeMemSyncDomainMap = 9,
  cudaLaunchAttributeMemSyncDomain = 10, cudaLaunchAttributePreferredClusterDimension = 11,
  cudaLaunchAttributeLaunchCompletionEvent = 12, cudaLaunchAttributeDeviceUpdatableKernelNode = 13,
  cudaLaunchAttributePreferredSharedMemoryCarveout = 14,
  cudaLaunchAttributeNvlinkUtilCentricScheduling = 16
} cudaLaunchAttributeID;

/* ---- flag macros --------------------------------------------------------------------------- */
#define cudaHostAllocDefault 0x00
#define cudaHostAllocPortable 0x01
#define cudaHostAllocMapped 0x02
#define cudaHostAllocWriteCombined 0x04
#define cudaHostRegisterDefault 0x00
#define cudaHostRegisterPortable 0x01
#define cudaHostRegisterMapped 0x02
#define cudaHostRegisterIoMemory 0x04
#define cudaHostRegisterReadOnly 0x08
#define cudaPeerAccessDefault 0x00
#define cudaStreamDefault 0x00
#define cudaStreamNonBlocking 0x01
#define cudaStreamLegacy ((cudaStream_t)0x1)
#define cudaStreamPerThread ((cudaStream_t)0x2)
#define cudaEventDefault 0x00
#define cudaEventBlockingSync 0x01
#define cudaEventDisableTiming 0x02
#define cudaEventInterprocess 0x04
#define cudaEventRecordDefault 0x00
#define cudaEventRecordExternal 0x01
#define cudaEventWaitDefault 0x00
#define cudaEventWaitExternal 0x01
#define cudaDeviceScheduleAuto 0x00
#define cudaDeviceScheduleSpin 0x01
#define cudaDeviceScheduleYield 0x02
#define cudaDeviceScheduleBlockingSync 0x04
#define cudaDeviceBlockingSync 0x04
#define cudaDeviceScheduleMask 0x07
#define cudaDeviceMapHost 0x08
#define cudaDeviceLmemResizeToMax 0x10
#define cudaDeviceSyncMemops 0x80
#define cudaDeviceMask 0xff
#define cudaIpcMemLazyEnablePeerAccess 0x01
#define cudaMemAttachGlobal 0x01
#define cudaMemAttachHost 0x02
#define cudaMemAttachSingle 0x04
#define cudaOccupancyDefault 0x00
#define cudaOccupancyDisableCachingOverride 0x01
#define cudaCpuDeviceId ((int)-1)
#define cudaInvalidDeviceId ((int)-2)
#define cudaGraphKernelNodePortDefault 0
#define cudaGraphKernelNodePortProgrammatic 1
#define cudaGraphKernelNodePortLaunchCompletion 2
#define CUDA_IPC_HANDLE_SIZE 64
#define cudaStreamAttrID cudaLaunchAttributeID
#define cudaStreamAttrValue cudaLaunchAttributeValue
#define cudaStreamAttributeAccessPolicyWindow cudaLaunchAttributeAccessPolicyWindow
#define cudaStreamAttributeSynchronizationPolicy cudaLaunchAttributeSynchronizationPolicy
#define cudaStreamAttributePriority cudaLaunchAttributePriority
#define cudaKernelNodeAttrID cudaLaunchAttributeID
#define cudaKernelNodeAttrValue cudaLaunchAttributeValue
#define cudaKernelNodeAttributeAccessPolicyWindow cudaLaunchAttributeAccessPolicyWindow
#define cudaKernelNodeAttributeCooperative cudaLaunchAttributeCooperative
#define cudaKernelNodeAttributePriority cudaLaunchAttributePriority
#define cudaKernelNodeAttributeClusterDimension cudaLaunchAttributeClusterDimension

/* ---- structs ------------------------------------------------------------------------------- */
#ifndef CU_UUID_HAS_BEEN_DEFINED
#define CU_UUID_HAS_BEEN_DEFINED
struct CUuuid_st { char bytes[16]; };
#endif
typedef struct CUuuid_st cudaUUID_t;

typedef struct cudaIpcEventHandle_st { char reserved[CUDA_IPC_HANDLE_SIZE]; } cudaIpcEventHandle_t;
typedef struct cudaIpcMemHandle_st { char reserved[CUDA_IPC_HANDLE_SIZE]; } cudaIpcMemHandle_t;

struct cudaDeviceProp {
  char name[256];
  cudaUUID_t uuid;
  char luid[8];
  unsigned int luidDeviceNodeMask;
  size_t totalGlobalMem;
  size_t sharedMemPerBlock;
  int regsPerBlock;
  int warpSize;
  size_t memPitch;
  int maxThreadsPerBlock;
  int maxThreadsDim[3];
  int maxGridSize[3];
  size_t totalConstMem;
  int major;
  int minor;
  size_t textureAlignment;
  size_t texturePitchAlignment;
  int multiProcessorCount;
  int integrated;
  int canMapHostMemory;
  int maxTexture1D, maxTexture1DMipmap, maxTexture2D[2], maxTexture2DMipmap[2];
  int maxTexture2DLinear[3], maxTexture2DGather[2], maxTexture3D[3], maxTexture3DAlt[3];
  int maxTextureCubemap, maxTexture1DLayered[2], maxTexture2DLayered[3];
  int maxTextureCubemapLayered[2], maxSurface1D, maxSurface2D[2], maxSurface3D[3];
  int maxSurface1DLayered[2], maxSurface2DLayered[3], maxSurfaceCubemap;
  int maxSurfaceCubemapLayered[2];
  size_t surfaceAlignment;
  int concurrentKernels;
  int ECCEnabled;
  int pciBusID;
  int pciDeviceID;
  int pciDomainID;
  int tccDriver;
  int asyncEngineCount;
  int unifiedAddressing;
  int memoryBusWidth;
  int l2CacheSize;
  int persistingL2CacheMaxSize;
  int maxThreadsPerMultiProcessor;
  int streamPrioritiesSupported;
  int globalL1CacheSupported;
  int localL1CacheSupported;
  size_t sharedMemPerMultiprocessor;
  int regsPerMultiprocessor;
  int managedMemory;
  int isMultiGpuBoard;
  int multiGpuBoardGroupID;
  int hostNativeAtomicSupported;
  int pageableMemoryAccess;
  int concurrentManagedAccess;
  int computePreemptionSupported;
  int canUseHostPointerForRegisteredMem;
  int cooperativeLaunch;
  size_t sharedMemPerBlockOptin;
  int pageableMemoryAccessUsesHostPageTables;
  int directManagedMemAccessFromHost;
  int maxBlocksPerMultiProcessor;
  int accessPolicyMaxWindowSize;
  size_t reservedSharedMemPerBlock;
  int hostRegisterSupported;
  int sparseCudaArraySupported;
  int hostRegisterReadOnlySupported;
  int timelineSemaphoreInteropSupported;
  int memoryPoolsSupported;
  int gpuDirectRDMASupported;
  unsigned int gpuDirectRDMAFlushWritesOptions;
  int gpuDirectRDMAWritesOrdering;
  unsigned int memoryPoolSupportedHandleTypes;
  int deferredMappingCudaArraySupported;
  int ipcEventSupported;
  int clusterLaunch;
  int unifiedFunctionPointers;
  int deviceNumaConfig;
  int deviceNumaId;
  int mpsEnabled;
  int hostNumaId;
  unsigned int gpuPciDeviceID;
  unsigned int gpuPciSubsystemID;
  int hostNumaMultinodeIpcSupported;
  int reserved[56];
};

struct cudaPointerAttributes {
  enum cudaMemoryType type;
  int device;
  void *devicePointer;
  void *hostPointer;
  long reserved[8];
};

struct cudaFuncAttributes {
  size_t sharedSizeBytes;
  size_t constSizeBytes;
  size_t localSizeBytes;
  int maxThreadsPerBlock;
  int numRegs;
  int ptxVersion;
  int binaryVersion;
  int cacheModeCA;
  int maxDynamicSharedSizeBytes;
  int preferredShmemCarveout;
  int clusterDimMustBeSet;
  int requiredClusterWidth;
  int requiredClusterHeight;
  int requiredClusterDepth;
  int clusterSchedulingPolicyPreference;
  int nonPortableClusterSizeAllowed;
  int reserved[16];
};

struct cudaMemLocation { enum cudaMemLocationType type; int id; };

struct cudaMemPoolProps {
  enum cudaMemAllocationType allocType;
  enum cudaMemAllocationHandleType handleTypes;
  struct cudaMemLocation location;
  void *win32SecurityAttributes;
  size_t maxSize;
  unsigned short usage;
  unsigned char reserved[54];
};

struct cudaExtent { size_t width, height, depth; };

/* batched copies (CUDA 12.8+; driver_types.h) */
enum cudaMemcpyFlags { cudaMemcpyFlagDefault = 0x0, cudaMemcpyFlagPreferOverlapWithCompute = 0x1 };
enum cudaMemcpySrcAccessOrder {
  cudaMemcpySrcAccessOrderInvalid = 0x0, cudaMemcpySrcAccessOrderStream = 0x1,
  cudaMemcpySrcAccessOrderDuringApiCall = 0x2, cudaMemcpySrcAccessOrderAny = 0x3,
  cudaMemcpySrcAccessOrderMax = 0x7FFFFFFF
};
struct cudaMemcpyAttributes {
  enum cudaMemcpySrcAccessOrder srcAccessOrder;
  struct cudaMemLocation srcLocHint;
  struct cudaMemLocation dstLocHint;
  unsigned int flags;
};
enum cudaMemcpy3DOperandType { cudaMemcpyOperandTypePointer = 0x1, cudaMemcpyOperandTypeArray = 0x2, cudaMemcpyOperandTypeMax = 0x7FFFFFFF };
struct cudaOffset3D { size_t x, y, z; };
struct cudaMemcpy3DOperand {
  enum cudaMemcpy3DOperandType type;
  union {
    struct { void *ptr; size_t rowLength; size_t layerHeight; struct cudaMemLocation locHint; } ptr;
    struct { struct cudaArray *array; struct cudaOffset3D offset; } array;
  } op;
};
struct cudaMemcpy3DBatchOp {
  struct cudaMemcpy3DOperand src;
  struct cudaMemcpy3DOperand dst;
  struct cudaExtent extent;
  enum cudaMemcpySrcAccessOrder srcAccessOrder;
  unsigned int flags;
};
struct cudaPos { size_t x, y, z; };
struct cudaPitchedPtr { void *ptr; size_t pitch; size_t xsize; size_t ysize; };

typedef void (CUDART_CB *cudaHostFn_t)(void *userData);
typedef void (CUDART_CB *cudaStreamCallback_t)(cudaStream_t stream, cudaError_t status,
                                                void *userData);

struct cudaKernelNodeParams {
  void *func;
  dim3 gridDim;
  dim3 blockDim;
  unsigned int sharedMemBytes;
  void **kernelParams;
  void **extra;
};
struct cudaHostNodeParams { cudaHostFn_t fn; void *userData; };
struct cudaMemsetParams {
  void *dst;
  size_t pitch;
  unsigned int value;
  unsigned int elementSize;
  size_t width;
  size_t height;
};

typedef struct cudaGraphEdgeData_st {
  unsigned char from_port;
  unsigned char to_port;
  unsigned char type;
  unsigned char reserved[5];
} cudaGraphEdgeData;

/* conditional nodes (CUDA 12.4+): a node of arbitrary type is added with cudaGraphAddNode */
enum cudaGraphConditionalHandleFlags { cudaGraphCondAssignDefault = 1 };
enum cudaGraphConditionalNodeType {
  cudaGraphCondTypeIf = 0, cudaGraphCondTypeWhile = 1, cudaGraphCondTypeSwitch = 2
};
struct cudaConditionalNodeParams {
  cudaGraphConditionalHandle handle;
  enum cudaGraphConditionalNodeType type;
  unsigned int size;
  cudaGraph_t *phGraph_out;     /* the body graphs, made by the driver with the node */
};
struct cudaChildGraphNodeParams { cudaGraph_t graph; };
struct cudaEventRecordNodeParams { cudaEvent_t event; };
struct cudaEventWaitNodeParams { cudaEvent_t event; };
struct cudaGraphNodeParams {
  enum cudaGraphNodeType type;
  int reserved0[3];
  union {
    long long reserved1[29];
    struct cudaChildGraphNodeParams graph;
    struct cudaEventWaitNodeParams eventWait;
    struct cudaEventRecordNodeParams eventRecord;
    struct cudaConditionalNodeParams conditional;
  };
  long long reserved2;
};

typedef struct cudaGraphInstantiateParams_st {
  unsigned long long flags;
  cudaStream_t uploadStream;
  cudaGraphNode_t errNode_out;
  cudaGraphInstantiateResult result_out;
} cudaGraphInstantiateParams;

typedef struct cudaGraphExecUpdateResultInfo_st {
  enum cudaGraphExecUpdateResult result;
  cudaGraphNode_t errorNode;
  cudaGraphNode_t errorFromNode;
} cudaGraphExecUpdateResultInfo;

struct cudaAccessPolicyWindow {
  void *base_ptr;
  size_t num_bytes;
  float hitRatio;
  enum cudaAccessProperty hitProp;
  enum cudaAccessProperty missProp;
};
typedef struct cudaLaunchMemSyncDomainMap_st {
  unsigned char default_;
  unsigned char remote;
} cudaLaunchMemSyncDomainMap;
typedef union cudaLaunchAttributeValue {
  char pad[64];
  struct cudaAccessPolicyWindow accessPolicyWindow;
  int cooperative;
  enum cudaSynchronizationPolicy syncPolicy;
  struct { unsigned int x, y, z; } clusterDim;
  enum cudaClusterSchedulingPolicy clusterSchedulingPolicyPreference;
  int programmaticStreamSerializationAllowed;
  struct { cudaEvent_t event; int flags; int triggerAtBlockStart; } programmaticEvent;
  int priority;
  cudaLaunchMemSyncDomainMap memSyncDomainMap;
  cudaLaunchMemSyncDomain memSyncDomain;
  struct { unsigned int x, y, z; } preferredClusterDim;
  struct { cudaEvent_t event; int flags; } launchCompletionEvent;
  struct { int deviceUpdatable; cudaGraphDeviceNode_t devNode; } deviceUpdatableKernelNode;
  unsigned int sharedMemCarveout;
  unsigned int nvlinkUtilCentricScheduling;
} cudaLaunchAttributeValue;
typedef struct cudaLaunchAttribute_st {
  cudaLaunchAttributeID id;
  char pad[8 - sizeof(cudaLaunchAttributeID)];
  cudaLaunchAttributeValue val;
} cudaLaunchAttribute;
typedef struct cudaLaunchConfig_st {
  dim3 gridDim;
  dim3 blockDim;
  size_t dynamicSmemBytes;
  cudaStream_t stream;
  cudaLaunchAttribute *attrs;
  unsigned int numAttrs;
} cudaLaunchConfig_t;

/* ---- per-thread default stream: same renames as the real header ---------------------------- */
#if defined(CUDA_API_PER_THREAD_DEFAULT_STREAM)
#define __CUDART_API_PER_THREAD_DEFAULT_STREAM
#define __CUDART_API_PTDS(api) api##_ptds
#define __CUDART_API_PTSZ(api) api##_ptsz
#define cudaMemcpy __CUDART_API_PTDS(cudaMemcpy)
#define cudaMemcpyToSymbol __CUDART_API_PTDS(cudaMemcpyToSymbol)
#define cudaMemcpyFromSymbol __CUDART_API_PTDS(cudaMemcpyFromSymbol)
#define cudaMemcpy2D __CUDART_API_PTDS(cudaMemcpy2D)
#define cudaMemset __CUDART_API_PTDS(cudaMemset)
#define cudaMemset2D __CUDART_API_PTDS(cudaMemset2D)
#define cudaGraphInstantiateWithParams __CUDART_API_PTSZ(cudaGraphInstantiateWithParams)
#define cudaGraphUpload __CUDART_API_PTSZ(cudaGraphUpload)
#define cudaGraphLaunch __CUDART_API_PTSZ(cudaGraphLaunch)
#define cudaStreamBeginCapture __CUDART_API_PTSZ(cudaStreamBeginCapture)
#define cudaStreamBeginCaptureToGraph __CUDART_API_PTSZ(cudaStreamBeginCaptureToGraph)
#define cudaStreamEndCapture __CUDART_API_PTSZ(cudaStreamEndCapture)
#define cudaStreamGetCaptureInfo __CUDART_API_PTSZ(cudaStreamGetCaptureInfo)
#define cudaStreamUpdateCaptureDependencies __CUDART_API_PTSZ(cudaStreamUpdateCaptureDependencies)
#define cudaStreamIsCapturing __CUDART_API_PTSZ(cudaStreamIsCapturing)
#define cudaMemcpyAsync __CUDART_API_PTSZ(cudaMemcpyAsync)
#define cudaMemcpyBatchAsync __CUDART_API_PTSZ(cudaMemcpyBatchAsync)
#define cudaMemcpy3DBatchAsync __CUDART_API_PTSZ(cudaMemcpy3DBatchAsync)
#define cudaMemcpyToSymbolAsync __CUDART_API_PTSZ(cudaMemcpyToSymbolAsync)
#define cudaMemcpyFromSymbolAsync __CUDART_API_PTSZ(cudaMemcpyFromSymbolAsync)
#define cudaMemcpy2DAsync __CUDART_API_PTSZ(cudaMemcpy2DAsync)
#define cudaMemsetAsync __CUDART_API_PTSZ(cudaMemsetAsync)
#define cudaMemset2DAsync __CUDART_API_PTSZ(cudaMemset2DAsync)
#define cudaStreamQuery __CUDART_API_PTSZ(cudaStreamQuery)
#define cudaStreamGetDevice __CUDART_API_PTSZ(cudaStreamGetDevice)
#define cudaStreamGetFlags __CUDART_API_PTSZ(cudaStreamGetFlags)
#define cudaStreamGetId __CUDART_API_PTSZ(cudaStreamGetId)
#define cudaStreamGetPriority __CUDART_API_PTSZ(cudaStreamGetPriority)
#define cudaEventRecord __CUDART_API_PTSZ(cudaEventRecord)
#define cudaEventRecordWithFlags __CUDART_API_PTSZ(cudaEventRecordWithFlags)
#define cudaStreamWaitEvent __CUDART_API_PTSZ(cudaStreamWaitEvent)
#define cudaStreamAddCallback __CUDART_API_PTSZ(cudaStreamAddCallback)
#define cudaStreamAttachMemAsync __CUDART_API_PTSZ(cudaStreamAttachMemAsync)
#define cudaStreamSynchronize __CUDART_API_PTSZ(cudaStreamSynchronize)
#define cudaLaunchKernel __CUDART_API_PTSZ(cudaLaunchKernel)
#define cudaLaunchKernelExC __CUDART_API_PTSZ(cudaLaunchKernelExC)
#define cudaLaunchHostFunc __CUDART_API_PTSZ(cudaLaunchHostFunc)
#define cudaMemPrefetchAsync __CUDART_API_PTSZ(cudaMemPrefetchAsync)
#define cudaLaunchCooperativeKernel __CUDART_API_PTSZ(cudaLaunchCooperativeKernel)
#define cudaStreamCopyAttributes __CUDART_API_PTSZ(cudaStreamCopyAttributes)
#define cudaStreamGetAttribute __CUDART_API_PTSZ(cudaStreamGetAttribute)
#define cudaStreamSetAttribute __CUDART_API_PTSZ(cudaStreamSetAttribute)
#define cudaMallocAsync __CUDART_API_PTSZ(cudaMallocAsync)
#define cudaFreeAsync __CUDART_API_PTSZ(cudaFreeAsync)
#define cudaMallocFromPoolAsync __CUDART_API_PTSZ(cudaMallocFromPoolAsync)
#else
#define __CUDART_API_PTDS(api) api
#define __CUDART_API_PTSZ(api) api
#endif

/* ---- runtime API --------------------------------------------------------------------------- */
#ifdef __cplusplus
extern "C" {
#endif

/* device management */
extern __host__ cudaError_t CUDARTAPI cudaDeviceReset(void);
extern __host__ __cudart_builtin__ cudaError_t CUDARTAPI cudaDeviceSynchronize(void);
/* removed in CUDA 13; kept so that older code still parses and its sync is seen */
extern __host__ cudaError_t CUDARTAPI cudaThreadSynchronize(void);
extern __host__ cudaError_t CUDARTAPI cudaDeviceSetLimit(enum cudaLimit limit, size_t value);
extern __host__ __cudart_builtin__ cudaError_t CUDARTAPI cudaDeviceGetLimit(size_t *pValue, enum cudaLimit limit);
extern __host__ cudaError_t CUDARTAPI cudaDeviceSetCacheConfig(enum cudaFuncCache cacheConfig);
extern __host__ __cudart_builtin__ cudaError_t CUDARTAPI cudaDeviceGetStreamPriorityRange(int *leastPriority, int *greatestPriority);
extern __host__ cudaError_t CUDARTAPI cudaDeviceGetPCIBusId(char *pciBusId, int len, int device);
extern __host__ cudaError_t CUDARTAPI cudaDeviceCanAccessPeer(int *canAccessPeer, int device, int peerDevice);
extern __host__ cudaError_t CUDARTAPI cudaDeviceEnablePeerAccess(int peerDevice, unsigned int flags);
extern __host__ cudaError_t CUDARTAPI cudaDeviceDisablePeerAccess(int peerDevice);
extern __host__ cudaError_t CUDARTAPI cudaDeviceGraphMemTrim(int device);
extern __host__ cudaError_t CUDARTAPI cudaDeviceGetDefaultMemPool(cudaMemPool_t *memPool, int device);
extern __host__ cudaError_t CUDARTAPI cudaDeviceSetMemPool(int device, cudaMemPool_t memPool);
extern __host__ cudaError_t CUDARTAPI cudaDeviceGetMemPool(cudaMemPool_t *memPool, int device);
extern __host__ cudaError_t CUDARTAPI cudaDeviceGetGraphMemAttribute(int device, enum cudaGraphMemAttributeType attr, void *value);
extern __host__ cudaError_t CUDARTAPI cudaDeviceSetGraphMemAttribute(int device, enum cudaGraphMemAttributeType attr, void *value);
extern __host__ __cudart_builtin__ cudaError_t CUDARTAPI cudaGetDeviceCount(int *count);
extern __host__ __cudart_builtin__ cudaError_t CUDARTAPI cudaGetDeviceProperties(struct cudaDeviceProp *prop, int device);
extern __host__ __cudart_builtin__ cudaError_t CUDARTAPI cudaDeviceGetAttribute(int *value, enum cudaDeviceAttr attr, int device);
extern __host__ cudaError_t CUDARTAPI cudaInitDevice(int device, unsigned int deviceFlags, unsigned int flags);
extern __host__ cudaError_t CUDARTAPI cudaSetDevice(int device);
extern __host__ __cudart_builtin__ cudaError_t CUDARTAPI cudaGetDevice(int *device);
extern __host__ cudaError_t CUDARTAPI cudaSetValidDevices(int *device_arr, int len);
extern __host__ cudaError_t CUDARTAPI cudaSetDeviceFlags(unsigned int flags);
extern __host__ cudaError_t CUDARTAPI cudaGetDeviceFlags(unsigned int *flags);
extern __host__ cudaError_t CUDARTAPI cudaCtxResetPersistingL2Cache(void);
extern __host__ cudaError_t CUDARTAPI cudaDriverGetVersion(int *driverVersion);
extern __host__ __cudart_builtin__ cudaError_t CUDARTAPI cudaRuntimeGetVersion(int *runtimeVersion);

/* errors */
extern __host__ __cudart_builtin__ cudaError_t CUDARTAPI cudaGetLastError(void);
extern __host__ __cudart_builtin__ cudaError_t CUDARTAPI cudaPeekAtLastError(void);
extern __host__ __cudart_builtin__ const char *CUDARTAPI cudaGetErrorName(cudaError_t error);
extern __host__ __cudart_builtin__ const char *CUDARTAPI cudaGetErrorString(cudaError_t error);

/* streams */
extern __host__ cudaError_t CUDARTAPI cudaStreamCreate(cudaStream_t *pStream);
extern __host__ __cudart_builtin__ cudaError_t CUDARTAPI cudaStreamCreateWithFlags(cudaStream_t *pStream, unsigned int flags);
extern __host__ __cudart_builtin__ cudaError_t CUDARTAPI cudaStreamCreateWithPriority(cudaStream_t *pStream, unsigned int flags, int priority);
extern __host__ __cudart_builtin__ cudaError_t CUDARTAPI cudaStreamGetPriority(cudaStream_t hStream, int *priority);
extern __host__ __cudart_builtin__ cudaError_t CUDARTAPI cudaStreamGetFlags(cudaStream_t hStream, unsigned int *flags);
extern __host__ __cudart_builtin__ cudaError_t CUDARTAPI cudaStreamGetId(cudaStream_t hStream, unsigned long long *streamId);
extern __host__ __cudart_builtin__ cudaError_t CUDARTAPI cudaStreamGetDevice(cudaStream_t hStream, int *device);
extern __host__ cudaError_t CUDARTAPI cudaStreamCopyAttributes(cudaStream_t dst, cudaStream_t src);
extern __host__ cudaError_t CUDARTAPI cudaStreamGetAttribute(cudaStream_t hStream, cudaLaunchAttributeID attr, cudaLaunchAttributeValue *value_out);
extern __host__ cudaError_t CUDARTAPI cudaStreamSetAttribute(cudaStream_t hStream, cudaLaunchAttributeID attr, const cudaLaunchAttributeValue *value);
extern __host__ __cudart_builtin__ cudaError_t CUDARTAPI cudaStreamDestroy(cudaStream_t stream);
extern __host__ __cudart_builtin__ cudaError_t CUDARTAPI cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event, unsigned int flags CGLINT_DV(0));
extern __host__ cudaError_t CUDARTAPI cudaStreamAddCallback(cudaStream_t stream, cudaStreamCallback_t callback, void *userData, unsigned int flags);
extern __host__ cudaError_t CUDARTAPI cudaStreamSynchronize(cudaStream_t stream);
extern __host__ cudaError_t CUDARTAPI cudaStreamQuery(cudaStream_t stream);
extern __host__ __cudart_builtin__ cudaError_t CUDARTAPI cudaStreamAttachMemAsync(cudaStream_t stream, void *devPtr, size_t length CGLINT_DV(0), unsigned int flags CGLINT_DV(cudaMemAttachSingle));
extern __host__ cudaError_t CUDARTAPI cudaStreamBeginCapture(cudaStream_t stream, enum cudaStreamCaptureMode mode);
extern __host__ cudaError_t CUDARTAPI cudaStreamBeginCaptureToGraph(cudaStream_t stream, cudaGraph_t graph, const cudaGraphNode_t *dependencies, const cudaGraphEdgeData *dependencyData, size_t numDependencies, enum cudaStreamCaptureMode mode);
extern __host__ cudaError_t CUDARTAPI cudaThreadExchangeStreamCaptureMode(enum cudaStreamCaptureMode *mode);
extern __host__ cudaError_t CUDARTAPI cudaStreamEndCapture(cudaStream_t stream, cudaGraph_t *pGraph);
extern __host__ cudaError_t CUDARTAPI cudaStreamIsCapturing(cudaStream_t stream, enum cudaStreamCaptureStatus *pCaptureStatus);
extern __host__ cudaError_t CUDARTAPI cudaStreamGetCaptureInfo(cudaStream_t stream, enum cudaStreamCaptureStatus *captureStatus_out, unsigned long long *id_out CGLINT_DV(0), cudaGraph_t *graph_out CGLINT_DV(0), const cudaGraphNode_t **dependencies_out CGLINT_DV(0), const cudaGraphEdgeData **edgeData_out CGLINT_DV(0), size_t *numDependencies_out CGLINT_DV(0));
extern __host__ cudaError_t CUDARTAPI cudaStreamUpdateCaptureDependencies(cudaStream_t stream, cudaGraphNode_t *dependencies, const cudaGraphEdgeData *dependencyData, size_t numDependencies, unsigned int flags CGLINT_DV(0));

/* events */
extern __host__ cudaError_t CUDARTAPI cudaEventCreate(cudaEvent_t *event);
extern __host__ __cudart_builtin__ cudaError_t CUDARTAPI cudaEventCreateWithFlags(cudaEvent_t *event, unsigned int flags);
extern __host__ __cudart_builtin__ cudaError_t CUDARTAPI cudaEventRecord(cudaEvent_t event, cudaStream_t stream CGLINT_DV(0));
extern __host__ __cudart_builtin__ cudaError_t CUDARTAPI cudaEventRecordWithFlags(cudaEvent_t event, cudaStream_t stream CGLINT_DV(0), unsigned int flags CGLINT_DV(0));
extern __host__ cudaError_t CUDARTAPI cudaEventQuery(cudaEvent_t event);
extern __host__ cudaError_t CUDARTAPI cudaEventSynchronize(cudaEvent_t event);
extern __host__ __cudart_builtin__ cudaError_t CUDARTAPI cudaEventDestroy(cudaEvent_t event);
extern __host__ cudaError_t CUDARTAPI cudaEventElapsedTime(float *ms, cudaEvent_t start, cudaEvent_t end);
extern __host__ cudaError_t CUDARTAPI cudaIpcGetEventHandle(cudaIpcEventHandle_t *handle, cudaEvent_t event);
extern __host__ cudaError_t CUDARTAPI cudaIpcOpenEventHandle(cudaEvent_t *event, cudaIpcEventHandle_t handle);
extern __host__ cudaError_t CUDARTAPI cudaIpcGetMemHandle(cudaIpcMemHandle_t *handle, void *devPtr);
extern __host__ cudaError_t CUDARTAPI cudaIpcOpenMemHandle(void **devPtr, cudaIpcMemHandle_t handle, unsigned int flags);
extern __host__ cudaError_t CUDARTAPI cudaIpcCloseMemHandle(void *devPtr);

/* execution */
extern __host__ cudaError_t CUDARTAPI cudaLaunchKernel(const void *func, dim3 gridDim, dim3 blockDim, void **args, size_t sharedMem, cudaStream_t stream);
extern __host__ cudaError_t CUDARTAPI cudaLaunchKernelExC(const cudaLaunchConfig_t *config, const void *func, void **args);
extern __host__ cudaError_t CUDARTAPI cudaLaunchCooperativeKernel(const void *func, dim3 gridDim, dim3 blockDim, void **args, size_t sharedMem, cudaStream_t stream);
extern __host__ cudaError_t CUDARTAPI cudaLaunchHostFunc(cudaStream_t stream, cudaHostFn_t fn, void *userData);
extern __host__ __cudart_builtin__ cudaError_t CUDARTAPI cudaFuncSetAttribute(const void *func, enum cudaFuncAttribute attr, int value);
extern __host__ __cudart_builtin__ cudaError_t CUDARTAPI cudaFuncGetAttributes(struct cudaFuncAttributes *attr, const void *func);
extern __host__ cudaError_t CUDARTAPI cudaFuncSetCacheConfig(const void *func, enum cudaFuncCache cacheConfig);
extern __host__ __cudart_builtin__ cudaError_t CUDARTAPI cudaFuncGetName(const char **name, const void *func);
extern __host__ cudaError_t CUDARTAPI cudaGetFuncBySymbol(cudaFunction_t *functionPtr, const void *symbolPtr);
extern __host__ __cudart_builtin__ cudaError_t CUDARTAPI cudaOccupancyMaxActiveBlocksPerMultiprocessor(int *numBlocks, const void *func, int blockSize, size_t dynamicSMemSize);
extern __host__ __cudart_builtin__ cudaError_t CUDARTAPI cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int *numBlocks, const void *func, int blockSize, size_t dynamicSMemSize, unsigned int flags);

/* memory */
extern __host__ __cudart_builtin__ cudaError_t CUDARTAPI cudaMalloc(void **devPtr, size_t size);
extern __host__ cudaError_t CUDARTAPI cudaMallocHost(void **ptr, size_t size);
extern __host__ cudaError_t CUDARTAPI cudaMallocPitch(void **devPtr, size_t *pitch, size_t width, size_t height);
extern __host__ __cudart_builtin__ cudaError_t CUDARTAPI cudaMallocManaged(void **devPtr, size_t size, unsigned int flags CGLINT_DV(cudaMemAttachGlobal));
extern __host__ __cudart_builtin__ cudaError_t CUDARTAPI cudaFree(void *devPtr);
extern __host__ cudaError_t CUDARTAPI cudaFreeHost(void *ptr);
extern __host__ cudaError_t CUDARTAPI cudaFreeArray(cudaArray_t array);
extern __host__ cudaError_t CUDARTAPI cudaHostAlloc(void **pHost, size_t size, unsigned int flags);
extern __host__ cudaError_t CUDARTAPI cudaHostRegister(void *ptr, size_t size, unsigned int flags);
extern __host__ cudaError_t CUDARTAPI cudaHostUnregister(void *ptr);
extern __host__ cudaError_t CUDARTAPI cudaHostGetDevicePointer(void **pDevice, void *pHost, unsigned int flags);
extern __host__ cudaError_t CUDARTAPI cudaHostGetFlags(unsigned int *pFlags, void *pHost);
extern __host__ cudaError_t CUDARTAPI cudaMemGetInfo(size_t *free, size_t *total);
extern __host__ cudaError_t CUDARTAPI cudaMemcpy(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind);
extern __host__ cudaError_t CUDARTAPI cudaMemcpyPeer(void *dst, int dstDevice, const void *src, int srcDevice, size_t count);
extern __host__ cudaError_t CUDARTAPI cudaMemcpy2D(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width, size_t height, enum cudaMemcpyKind kind);
extern __host__ __cudart_builtin__ cudaError_t CUDARTAPI cudaMemcpyAsync(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind, cudaStream_t stream CGLINT_DV(0));
extern __host__ cudaError_t CUDARTAPI cudaMemcpyPeerAsync(void *dst, int dstDevice, const void *src, int srcDevice, size_t count, cudaStream_t stream CGLINT_DV(0));
extern __host__ cudaError_t CUDARTAPI cudaMemcpyBatchAsync(void *const *dsts, const void *const *srcs, const size_t *sizes, size_t count, struct cudaMemcpyAttributes *attrs, size_t *attrsIdxs, size_t numAttrs, cudaStream_t stream);
extern __host__ cudaError_t CUDARTAPI cudaMemcpy3DBatchAsync(size_t numOps, struct cudaMemcpy3DBatchOp *opList, unsigned long long flags, cudaStream_t stream);
extern __host__ __cudart_builtin__ cudaError_t CUDARTAPI cudaMemcpy2DAsync(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width, size_t height, enum cudaMemcpyKind kind, cudaStream_t stream CGLINT_DV(0));
extern __host__ cudaError_t CUDARTAPI cudaMemcpyToSymbol(const void *symbol, const void *src, size_t count, size_t offset CGLINT_DV(0), enum cudaMemcpyKind kind CGLINT_DV(cudaMemcpyHostToDevice));
extern __host__ cudaError_t CUDARTAPI cudaMemcpyFromSymbol(void *dst, const void *symbol, size_t count, size_t offset CGLINT_DV(0), enum cudaMemcpyKind kind CGLINT_DV(cudaMemcpyDeviceToHost));
extern __host__ cudaError_t CUDARTAPI cudaMemcpyToSymbolAsync(const void *symbol, const void *src, size_t count, size_t offset, enum cudaMemcpyKind kind, cudaStream_t stream CGLINT_DV(0));
extern __host__ cudaError_t CUDARTAPI cudaMemcpyFromSymbolAsync(void *dst, const void *symbol, size_t count, size_t offset, enum cudaMemcpyKind kind, cudaStream_t stream CGLINT_DV(0));
extern __host__ cudaError_t CUDARTAPI cudaGetSymbolAddress(void **devPtr, const void *symbol);
extern __host__ cudaError_t CUDARTAPI cudaGetSymbolSize(size_t *size, const void *symbol);
extern __host__ cudaError_t CUDARTAPI cudaMemset(void *devPtr, int value, size_t count);
extern __host__ cudaError_t CUDARTAPI cudaMemset2D(void *devPtr, size_t pitch, int value, size_t width, size_t height);
extern __host__ __cudart_builtin__ cudaError_t CUDARTAPI cudaMemsetAsync(void *devPtr, int value, size_t count, cudaStream_t stream CGLINT_DV(0));
extern __host__ __cudart_builtin__ cudaError_t CUDARTAPI cudaMemset2DAsync(void *devPtr, size_t pitch, int value, size_t width, size_t height, cudaStream_t stream CGLINT_DV(0));
extern __host__ cudaError_t CUDARTAPI cudaMemPrefetchAsync(const void *devPtr, size_t count, struct cudaMemLocation location, unsigned int flags, cudaStream_t stream CGLINT_DV(0));
extern __host__ cudaError_t CUDARTAPI cudaMemAdvise(const void *devPtr, size_t count, enum cudaMemoryAdvise advice, struct cudaMemLocation location);
extern __host__ cudaError_t CUDARTAPI cudaPointerGetAttributes(struct cudaPointerAttributes *attributes, const void *ptr);

/* stream-ordered allocator */
extern __host__ cudaError_t CUDARTAPI cudaMallocAsync(void **devPtr, size_t size, cudaStream_t hStream);
extern __host__ cudaError_t CUDARTAPI cudaFreeAsync(void *devPtr, cudaStream_t hStream);
extern __host__ cudaError_t CUDARTAPI cudaMallocFromPoolAsync(void **ptr, size_t size, cudaMemPool_t memPool, cudaStream_t stream);
extern __host__ cudaError_t CUDARTAPI cudaMemPoolTrimTo(cudaMemPool_t memPool, size_t minBytesToKeep);
extern __host__ cudaError_t CUDARTAPI cudaMemPoolSetAttribute(cudaMemPool_t memPool, enum cudaMemPoolAttr attr, void *value);
extern __host__ cudaError_t CUDARTAPI cudaMemPoolGetAttribute(cudaMemPool_t memPool, enum cudaMemPoolAttr attr, void *value);
extern __host__ cudaError_t CUDARTAPI cudaMemPoolCreate(cudaMemPool_t *memPool, const struct cudaMemPoolProps *poolProps);
extern __host__ cudaError_t CUDARTAPI cudaMemPoolDestroy(cudaMemPool_t memPool);

/* graphs */
extern __host__ cudaError_t CUDARTAPI cudaGraphCreate(cudaGraph_t *pGraph, unsigned int flags);
extern __host__ cudaError_t CUDARTAPI cudaGraphAddKernelNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph, const cudaGraphNode_t *pDependencies, size_t numDependencies, const struct cudaKernelNodeParams *pNodeParams);
extern __host__ cudaError_t CUDARTAPI cudaGraphKernelNodeGetParams(cudaGraphNode_t node, struct cudaKernelNodeParams *pNodeParams);
extern __host__ cudaError_t CUDARTAPI cudaGraphKernelNodeSetParams(cudaGraphNode_t node, const struct cudaKernelNodeParams *pNodeParams);
extern __host__ cudaError_t CUDARTAPI cudaGraphAddMemcpyNode1D(cudaGraphNode_t *pGraphNode, cudaGraph_t graph, const cudaGraphNode_t *pDependencies, size_t numDependencies, void *dst, const void *src, size_t count, enum cudaMemcpyKind kind);
extern __host__ cudaError_t CUDARTAPI cudaGraphMemcpyNodeSetParams1D(cudaGraphNode_t node, void *dst, const void *src, size_t count, enum cudaMemcpyKind kind);
extern __host__ cudaError_t CUDARTAPI cudaGraphAddMemsetNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph, const cudaGraphNode_t *pDependencies, size_t numDependencies, const struct cudaMemsetParams *pMemsetParams);
extern __host__ cudaError_t CUDARTAPI cudaGraphMemsetNodeSetParams(cudaGraphNode_t node, const struct cudaMemsetParams *pNodeParams);
extern __host__ cudaError_t CUDARTAPI cudaGraphAddHostNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph, const cudaGraphNode_t *pDependencies, size_t numDependencies, const struct cudaHostNodeParams *pNodeParams);
extern __host__ cudaError_t CUDARTAPI cudaGraphHostNodeSetParams(cudaGraphNode_t node, const struct cudaHostNodeParams *pNodeParams);
extern __host__ cudaError_t CUDARTAPI cudaGraphAddChildGraphNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph, const cudaGraphNode_t *pDependencies, size_t numDependencies, cudaGraph_t childGraph);
extern __host__ cudaError_t CUDARTAPI cudaGraphAddEmptyNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph, const cudaGraphNode_t *pDependencies, size_t numDependencies);
extern __host__ cudaError_t CUDARTAPI cudaGraphAddMemFreeNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph, const cudaGraphNode_t *pDependencies, size_t numDependencies, void *dptr);
extern __host__ cudaError_t CUDARTAPI cudaGraphAddNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph, const cudaGraphNode_t *pDependencies, const cudaGraphEdgeData *dependencyData, size_t numDependencies, struct cudaGraphNodeParams *nodeParams);
extern __host__ cudaError_t CUDARTAPI cudaGraphNodeSetParams(cudaGraphNode_t node, struct cudaGraphNodeParams *nodeParams);
extern __host__ cudaError_t CUDARTAPI cudaGraphConditionalHandleCreate(cudaGraphConditionalHandle *pHandle_out, cudaGraph_t graph, unsigned int defaultLaunchValue CGLINT_DV(0), unsigned int flags CGLINT_DV(0));
extern __host__ cudaError_t CUDARTAPI cudaGraphClone(cudaGraph_t *pGraphClone, cudaGraph_t originalGraph);
extern __host__ cudaError_t CUDARTAPI cudaGraphNodeGetType(cudaGraphNode_t node, enum cudaGraphNodeType *pType);
extern __host__ cudaError_t CUDARTAPI cudaGraphGetNodes(cudaGraph_t graph, cudaGraphNode_t *nodes, size_t *numNodes);
extern __host__ cudaError_t CUDARTAPI cudaGraphGetRootNodes(cudaGraph_t graph, cudaGraphNode_t *pRootNodes, size_t *pNumRootNodes);
extern __host__ cudaError_t CUDARTAPI cudaGraphNodeGetDependencies(cudaGraphNode_t node, cudaGraphNode_t *pDependencies, cudaGraphEdgeData *edgeData, size_t *pNumDependencies);
extern __host__ cudaError_t CUDARTAPI cudaGraphAddDependencies(cudaGraph_t graph, const cudaGraphNode_t *from, const cudaGraphNode_t *to, const cudaGraphEdgeData *edgeData, size_t numDependencies);
extern __host__ cudaError_t CUDARTAPI cudaGraphDestroyNode(cudaGraphNode_t node);
extern __host__ cudaError_t CUDARTAPI cudaGraphInstantiate(cudaGraphExec_t *pGraphExec, cudaGraph_t graph, unsigned long long flags CGLINT_DV(0));
extern __host__ cudaError_t CUDARTAPI cudaGraphInstantiateWithFlags(cudaGraphExec_t *pGraphExec, cudaGraph_t graph, unsigned long long flags CGLINT_DV(0));
extern __host__ cudaError_t CUDARTAPI cudaGraphInstantiateWithParams(cudaGraphExec_t *pGraphExec, cudaGraph_t graph, cudaGraphInstantiateParams *instantiateParams);
extern __host__ cudaError_t CUDARTAPI cudaGraphExecGetFlags(cudaGraphExec_t graphExec, unsigned long long *flags);
extern __host__ cudaError_t CUDARTAPI cudaGraphExecKernelNodeSetParams(cudaGraphExec_t hGraphExec, cudaGraphNode_t node, const struct cudaKernelNodeParams *pNodeParams);
extern __host__ cudaError_t CUDARTAPI cudaGraphExecMemcpyNodeSetParams1D(cudaGraphExec_t hGraphExec, cudaGraphNode_t node, void *dst, const void *src, size_t count, enum cudaMemcpyKind kind);
extern __host__ cudaError_t CUDARTAPI cudaGraphExecMemsetNodeSetParams(cudaGraphExec_t hGraphExec, cudaGraphNode_t node, const struct cudaMemsetParams *pNodeParams);
extern __host__ cudaError_t CUDARTAPI cudaGraphExecHostNodeSetParams(cudaGraphExec_t hGraphExec, cudaGraphNode_t node, const struct cudaHostNodeParams *pNodeParams);
extern __host__ cudaError_t CUDARTAPI cudaGraphExecChildGraphNodeSetParams(cudaGraphExec_t hGraphExec, cudaGraphNode_t node, cudaGraph_t childGraph);
extern __host__ cudaError_t CUDARTAPI cudaGraphExecUpdate(cudaGraphExec_t hGraphExec, cudaGraph_t hGraph, cudaGraphExecUpdateResultInfo *resultInfo);
extern __host__ cudaError_t CUDARTAPI cudaGraphUpload(cudaGraphExec_t graphExec, cudaStream_t stream);
extern __host__ cudaError_t CUDARTAPI cudaGraphLaunch(cudaGraphExec_t graphExec, cudaStream_t stream);
extern __host__ cudaError_t CUDARTAPI cudaGraphExecDestroy(cudaGraphExec_t graphExec);
extern __host__ cudaError_t CUDARTAPI cudaGraphDestroy(cudaGraph_t graph);
extern __host__ cudaError_t CUDARTAPI cudaGraphDebugDotPrint(cudaGraph_t graph, const char *path, unsigned int flags);
extern __host__ cudaError_t CUDARTAPI cudaUserObjectCreate(cudaUserObject_t *object_out, void *ptr, cudaHostFn_t destroy, unsigned int initialRefcount, unsigned int flags);
extern __host__ cudaError_t CUDARTAPI cudaUserObjectRelease(cudaUserObject_t object, unsigned int count CGLINT_DV(1));
extern __host__ cudaError_t CUDARTAPI cudaGraphRetainUserObject(cudaGraph_t graph, cudaUserObject_t object, unsigned int count CGLINT_DV(1), unsigned int flags CGLINT_DV(0));

#ifdef __cplusplus
} /* extern "C" */
#endif

/* ---- C++ overloads and templates of cuda_runtime.h ----------------------------------------- */
#ifdef __cplusplus
extern "C++" {
__host__ cudaError_t cudaEventCreate(cudaEvent_t *event, unsigned int flags);
__host__ cudaError_t cudaMallocHost(void **ptr, size_t size, unsigned int flags);
__host__ cudaError_t cudaMallocAsync(void **ptr, size_t size, cudaMemPool_t memPool, cudaStream_t stream);
/* pre-CUDA-12 forms still offered to C++ */
__host__ cudaError_t cudaGraphInstantiate(cudaGraphExec_t *pGraphExec, cudaGraph_t graph, cudaGraphNode_t *pErrorNode, char *pLogBuffer, size_t bufferSize);
__host__ cudaError_t cudaGraphExecUpdate(cudaGraphExec_t hGraphExec, cudaGraph_t hGraph, cudaGraphNode_t *hErrorNode_out, enum cudaGraphExecUpdateResult *updateResult_out);

template <class T> __host__ cudaError_t cudaMalloc(T **devPtr, size_t size);
template <class T> __host__ cudaError_t cudaMallocHost(T **ptr, size_t size, unsigned int flags = 0);
template <class T> __host__ cudaError_t cudaHostAlloc(T **ptr, size_t size, unsigned int flags);
template <class T> __host__ cudaError_t cudaHostGetDevicePointer(T **pDevice, void *pHost, unsigned int flags);
template <class T> __host__ cudaError_t cudaMallocManaged(T **devPtr, size_t size, unsigned int flags = cudaMemAttachGlobal);
template <class T> __host__ cudaError_t cudaMallocPitch(T **devPtr, size_t *pitch, size_t width, size_t height);
template <class T> __host__ cudaError_t cudaMallocAsync(T **ptr, size_t size, cudaMemPool_t memPool, cudaStream_t stream);
template <class T> __host__ cudaError_t cudaMallocAsync(T **ptr, size_t size, cudaStream_t stream);
template <class T> __host__ cudaError_t cudaMallocFromPoolAsync(T **ptr, size_t size, cudaMemPool_t memPool, cudaStream_t stream);
template <class T> __host__ cudaError_t cudaStreamAttachMemAsync(cudaStream_t stream, T *devPtr, size_t length = 0, unsigned int flags = cudaMemAttachSingle);
template <class T> __host__ cudaError_t cudaMemcpyToSymbol(const T &symbol, const void *src, size_t count, size_t offset = 0, enum cudaMemcpyKind kind = cudaMemcpyHostToDevice);
template <class T> __host__ cudaError_t cudaMemcpyToSymbolAsync(const T &symbol, const void *src, size_t count, size_t offset = 0, enum cudaMemcpyKind kind = cudaMemcpyHostToDevice, cudaStream_t stream = 0);
template <class T> __host__ cudaError_t cudaMemcpyFromSymbol(void *dst, const T &symbol, size_t count, size_t offset = 0, enum cudaMemcpyKind kind = cudaMemcpyDeviceToHost);
template <class T> __host__ cudaError_t cudaMemcpyFromSymbolAsync(void *dst, const T &symbol, size_t count, size_t offset = 0, enum cudaMemcpyKind kind = cudaMemcpyDeviceToHost, cudaStream_t stream = 0);
template <class T> __host__ cudaError_t cudaGetSymbolAddress(void **devPtr, const T &symbol);
template <class T> __host__ cudaError_t cudaGetSymbolSize(size_t *size, const T &symbol);
template <class T> __host__ cudaError_t cudaLaunchKernel(T *func, dim3 gridDim, dim3 blockDim, void **args, size_t sharedMem = 0, cudaStream_t stream = 0);
template <class T> __host__ cudaError_t cudaLaunchCooperativeKernel(T *func, dim3 gridDim, dim3 blockDim, void **args, size_t sharedMem = 0, cudaStream_t stream = 0);
template <typename... ExpTypes, typename... ActTypes>
__host__ cudaError_t cudaLaunchKernelEx(const cudaLaunchConfig_t *config, void (*kernel)(ExpTypes...), ActTypes &&...args);
template <class T> __host__ cudaError_t cudaFuncSetAttribute(T *func, enum cudaFuncAttribute attr, int value);
template <class T> __host__ cudaError_t cudaFuncGetAttributes(struct cudaFuncAttributes *attr, T *entry);
template <class T> __host__ cudaError_t cudaFuncSetCacheConfig(T *func, enum cudaFuncCache cacheConfig);
template <class T> __host__ cudaError_t cudaFuncGetName(const char **name, T *func);
template <class T> __host__ cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int *numBlocks, T func, int blockSize, size_t dynamicSMemSize);
template <class T> __host__ cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int *numBlocks, T func, int blockSize, size_t dynamicSMemSize, unsigned int flags);
template <class T> __host__ cudaError_t cudaOccupancyMaxPotentialBlockSize(int *minGridSize, int *blockSize, T func, size_t dynamicSMemSize = 0, int blockSizeLimit = 0);
template <class T> __host__ cudaError_t cudaOccupancyMaxPotentialBlockSizeWithFlags(int *minGridSize, int *blockSize, T func, size_t dynamicSMemSize = 0, int blockSizeLimit = 0, unsigned int flags = 0);
template <class T> __host__ cudaError_t cudaUserObjectCreate(cudaUserObject_t *object_out, T *objectToWrap, unsigned int initialRefcount, unsigned int flags);
} /* extern "C++" */
#endif

/* ---- device side (CUDA mode only) ----------------------------------------------------------- */
#if defined(__CUDA__)
/* kernel launch configuration: clang calls one or the other depending on the CUDA version it
 * assumes (cudaConfigureCall with -nocudainc, __cudaPushCallConfiguration with real headers). */
extern "C" __host__ cudaError_t cudaConfigureCall(dim3 gridDim, dim3 blockDim, size_t sharedMem = 0, cudaStream_t stream = 0);
extern "C" __host__ __device__ unsigned __cudaPushCallConfiguration(dim3 gridDim, dim3 blockDim = 1, size_t sharedMem = 0, void *stream = 0);

extern const __device__ uint3 threadIdx;
extern const __device__ uint3 blockIdx;
extern const __device__ dim3 blockDim;
extern const __device__ dim3 gridDim;
extern const __device__ int warpSize;

__device__ void cudaGraphSetConditional(cudaGraphConditionalHandle handle, unsigned int value);
__device__ void __syncthreads(void);
__device__ int __syncthreads_count(int predicate);
__device__ int __syncthreads_and(int predicate);
__device__ int __syncthreads_or(int predicate);
__device__ void __syncwarp(unsigned int mask = 0xffffffffu);
__device__ void __threadfence(void);
__device__ void __threadfence_block(void);
__device__ void __threadfence_system(void);
__device__ unsigned int __activemask(void);
__device__ unsigned int __ballot_sync(unsigned int mask, int predicate);
__device__ int __any_sync(unsigned int mask, int predicate);
__device__ int __all_sync(unsigned int mask, int predicate);
template <class T> __device__ T __shfl_sync(unsigned int mask, T var, int srcLane, int width = 32);
template <class T> __device__ T __shfl_up_sync(unsigned int mask, T var, unsigned int delta, int width = 32);
template <class T> __device__ T __shfl_down_sync(unsigned int mask, T var, unsigned int delta, int width = 32);
template <class T> __device__ T __shfl_xor_sync(unsigned int mask, T var, int laneMask, int width = 32);
template <class T> __device__ T __ldg(const T *ptr);
__device__ int atomicAdd(int *address, int val);
__device__ unsigned int atomicAdd(unsigned int *address, unsigned int val);
__device__ unsigned long long atomicAdd(unsigned long long *address, unsigned long long val);
__device__ float atomicAdd(float *address, float val);
__device__ double atomicAdd(double *address, double val);
__device__ int atomicSub(int *address, int val);
__device__ unsigned int atomicSub(unsigned int *address, unsigned int val);
__device__ int atomicExch(int *address, int val);
__device__ unsigned int atomicExch(unsigned int *address, unsigned int val);
__device__ unsigned long long atomicExch(unsigned long long *address, unsigned long long val);
__device__ float atomicExch(float *address, float val);
__device__ int atomicMin(int *address, int val);
__device__ unsigned int atomicMin(unsigned int *address, unsigned int val);
__device__ int atomicMax(int *address, int val);
__device__ unsigned int atomicMax(unsigned int *address, unsigned int val);
__device__ int atomicCAS(int *address, int compare, int val);
__device__ unsigned int atomicCAS(unsigned int *address, unsigned int compare, unsigned int val);
__device__ unsigned long long atomicCAS(unsigned long long *address, unsigned long long compare, unsigned long long val);
__device__ int atomicAnd(int *address, int val);
__device__ int atomicOr(int *address, int val);
__device__ int atomicXor(int *address, int val);
__device__ int __popc(int x);
__device__ int __popcll(long long x);
__device__ int __clz(int x);
__device__ int __ffs(int x);
__device__ unsigned int __brev(unsigned int x);
__device__ long long clock64(void);
__device__ void __nanosleep(unsigned int ns);
__device__ float __expf(float x);
__device__ float __exp10f(float x);
__device__ float __logf(float x);
__device__ float __log2f(float x);
__device__ float __powf(float x, float y);
__device__ float __sinf(float x);
__device__ float __cosf(float x);
__device__ float __tanf(float x);
__device__ void __sincosf(float x, float *sptr, float *cptr);
__device__ float __fdividef(float x, float y);
__device__ float __saturatef(float x);
__device__ float __frcp_rn(float x);
__device__ float __fsqrt_rn(float x);
__device__ float __fadd_rn(float x, float y);
__device__ float __fmul_rn(float x, float y);
__device__ float __fmaf_rn(float x, float y, float z);
__device__ int __float2int_rn(float x);
__device__ int __float2int_rz(float x);
__device__ unsigned int __float2uint_rn(float x);
__device__ float __int2float_rn(int x);
__device__ float __int_as_float(int x);
__device__ int __float_as_int(float x);
__device__ float __uint_as_float(unsigned int x);
__device__ unsigned int __float_as_uint(float x);
__device__ double __longlong_as_double(long long x);
__device__ long long __double_as_longlong(double x);
__device__ int __mul24(int x, int y);
__device__ unsigned int __umul24(unsigned int x, unsigned int y);
__device__ int __mulhi(int x, int y);
__device__ unsigned int __umulhi(unsigned int x, unsigned int y);
__device__ unsigned int __byte_perm(unsigned int x, unsigned int y, unsigned int s);
__device__ unsigned int __funnelshift_l(unsigned int lo, unsigned int hi, unsigned int shift);
__device__ unsigned int __funnelshift_r(unsigned int lo, unsigned int hi, unsigned int shift);
__device__ int __clzll(long long x);
__device__ int __ffsll(long long x);
__device__ void __trap(void);

/* Device-side C library and math. clang's real CUDA wrapper provides these (and pre-includes
 * <cmath>, <cstdlib>, <string.h>); the shim declares the common ones instead, which is far
 * cheaper than <cmath>. Declared before the user's <cmath>, they overload the host versions
 * by target, as in the wrapper; the C++ float overloads of <cmath> are constexpr and thus
 * already usable on both sides. */
extern "C" {
__device__ int printf(const char *format, ...);
__device__ void *malloc(size_t size);
__device__ void free(void *ptr);
__device__ void *memcpy(void *dest, const void *src, size_t n);
__device__ void *memset(void *s, int c, size_t n);
__device__ void __assert_fail(const char *assertion, const char *file, unsigned int line, const char *function);
}
#define CGLINT_DMATH1_(name) __device__ float name##f(float x); __device__ double name(double x);
#define CGLINT_DMATH2_(name) __device__ float name##f(float x, float y); __device__ double name(double x, double y);
CGLINT_DMATH1_(sqrt) CGLINT_DMATH1_(rsqrt) CGLINT_DMATH1_(cbrt) CGLINT_DMATH1_(rcbrt)
CGLINT_DMATH1_(exp) CGLINT_DMATH1_(exp2) CGLINT_DMATH1_(exp10) CGLINT_DMATH1_(expm1)
CGLINT_DMATH1_(log) CGLINT_DMATH1_(log2) CGLINT_DMATH1_(log10) CGLINT_DMATH1_(log1p)
CGLINT_DMATH1_(sin) CGLINT_DMATH1_(cos) CGLINT_DMATH1_(tan) CGLINT_DMATH1_(sinpi) CGLINT_DMATH1_(cospi)
CGLINT_DMATH1_(asin) CGLINT_DMATH1_(acos) CGLINT_DMATH1_(atan)
CGLINT_DMATH1_(sinh) CGLINT_DMATH1_(cosh) CGLINT_DMATH1_(tanh)
CGLINT_DMATH1_(asinh) CGLINT_DMATH1_(acosh) CGLINT_DMATH1_(atanh)
CGLINT_DMATH1_(fabs) CGLINT_DMATH1_(floor) CGLINT_DMATH1_(ceil) CGLINT_DMATH1_(round)
CGLINT_DMATH1_(trunc) CGLINT_DMATH1_(rint) CGLINT_DMATH1_(nearbyint)
CGLINT_DMATH1_(erf) CGLINT_DMATH1_(erfc) CGLINT_DMATH1_(erfinv) CGLINT_DMATH1_(erfcinv)
CGLINT_DMATH1_(normcdf) CGLINT_DMATH1_(normcdfinv) CGLINT_DMATH1_(lgamma) CGLINT_DMATH1_(tgamma)
CGLINT_DMATH2_(pow) CGLINT_DMATH2_(atan2) CGLINT_DMATH2_(fmin) CGLINT_DMATH2_(fmax)
CGLINT_DMATH2_(fmod) CGLINT_DMATH2_(remainder) CGLINT_DMATH2_(hypot) CGLINT_DMATH2_(copysign)
CGLINT_DMATH2_(fdim) CGLINT_DMATH2_(nextafter)
#undef CGLINT_DMATH1_
#undef CGLINT_DMATH2_
__device__ float fmaf(float x, float y, float z);
__device__ double fma(double x, double y, double z);
__device__ void sincosf(float x, float *sptr, float *cptr);
__device__ void sincos(double x, double *sptr, double *cptr);
__device__ float ldexpf(float x, int exp);
__device__ double ldexp(double x, int exp);
__device__ float frexpf(float x, int *exp);
__device__ double frexp(double x, int *exp);
__device__ float modff(float x, float *iptr);
__device__ double modf(double x, double *iptr);
__device__ long lroundf(float x);
__device__ long lround(double x);
__device__ long long llroundf(float x);
__device__ long long llround(double x);
__device__ int abs(int x);
__device__ long labs(long x);
__device__ long long llabs(long long x);
__host__ __device__ int min(int a, int b);
__host__ __device__ unsigned int min(unsigned int a, unsigned int b);
__host__ __device__ unsigned int min(int a, unsigned int b);
__host__ __device__ unsigned int min(unsigned int a, int b);
__host__ __device__ long long min(long long a, long long b);
__host__ __device__ unsigned long long min(unsigned long long a, unsigned long long b);
__host__ __device__ long min(long a, long b);
__host__ __device__ unsigned long min(unsigned long a, unsigned long b);
__host__ __device__ unsigned long min(long a, unsigned long b);
__host__ __device__ unsigned long min(unsigned long a, long b);
__host__ __device__ float min(float a, float b);
__host__ __device__ double min(double a, double b);
__host__ __device__ double min(float a, double b);
__host__ __device__ double min(double a, float b);
__host__ __device__ int max(int a, int b);
__host__ __device__ unsigned int max(unsigned int a, unsigned int b);
__host__ __device__ unsigned int max(int a, unsigned int b);
__host__ __device__ unsigned int max(unsigned int a, int b);
__host__ __device__ long long max(long long a, long long b);
__host__ __device__ unsigned long long max(unsigned long long a, unsigned long long b);
__host__ __device__ long max(long a, long b);
__host__ __device__ unsigned long max(unsigned long a, unsigned long b);
__host__ __device__ unsigned long max(long a, unsigned long b);
__host__ __device__ unsigned long max(unsigned long a, long b);
__host__ __device__ float max(float a, float b);
__host__ __device__ double max(double a, double b);
__host__ __device__ double max(float a, double b);
__host__ __device__ double max(double a, float b);
#endif /* __CUDA__ */
