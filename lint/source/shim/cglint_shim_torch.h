/* cglint shim: declarations only, for static analysis; not the NVIDIA/PyTorch/NCCL headers. */
/* Common base of the c10 / ATen / torch / pybind11 shims. Namespaces, class names and
 * signatures follow PyTorch 2.x so that qualified names and USRs match the real ones
 * (at::cuda::getCurrentCUDAStream resolves to c10::cuda::getCurrentCUDAStream, MempoolId_t is
 * std::pair<unsigned long long, unsigned long long>, DeviceIndex is int8_t, ...).
 * The standard headers below are the ones these declarations need; the real ones pull in far
 * more, so code that relied on <iostream> & co. arriving through torch may still need them. */
#pragma once

#ifndef __cplusplus
#error "the PyTorch shim headers are C++ only"
#endif

/* cuda_runtime.h first: in CUDA mode it defines __host__/__device__, which clang's
 * cuda_wrappers (<new>, <algorithm>, <cmath>) expect before any standard header */
#include <cuda_runtime.h>

#include <stddef.h>
#include <stdint.h>
#include <exception>
#include <initializer_list>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <cublas_v2.h>
#include <cusolverDn.h>

#define CGLINT_SHIM_TORCH 1
#define TORCH_VERSION_MAJOR 2
#define TORCH_VERSION_MINOR 9
#define TORCH_VERSION_PATCH 0

/* ==== c10 core ============================================================================= */
namespace c10 {
using std::make_optional;       /* c10::optional has been std::optional since PyTorch 2.1 */
using std::nullopt;
using std::optional;

using DeviceIndex = int8_t;
using StreamId = int64_t;

enum class DeviceType : int8_t {
  CPU = 0, CUDA = 1, MKLDNN = 2, OPENGL = 3, OPENCL = 4, IDEEP = 5, HIP = 6, FPGA = 7, MAIA = 8,
  XLA = 9, Vulkan = 10, Metal = 11, XPU = 12, MPS = 13, Meta = 14, HPU = 15, VE = 16, Lazy = 17,
  IPU = 18, MTIA = 19, PrivateUse1 = 20, COMPILE_TIME_MAX_DEVICE_TYPES = 21
};
constexpr DeviceType kCPU = DeviceType::CPU;
constexpr DeviceType kCUDA = DeviceType::CUDA;
constexpr DeviceType kHIP = DeviceType::HIP;
constexpr DeviceType kXLA = DeviceType::XLA;
constexpr DeviceType kMPS = DeviceType::MPS;
constexpr DeviceType kMeta = DeviceType::Meta;
constexpr DeviceType kXPU = DeviceType::XPU;
constexpr DeviceType kPrivateUse1 = DeviceType::PrivateUse1;

enum class ScalarType : int8_t {
  Byte, Char, Short, Int, Long, Half, Float, Double, ComplexHalf, ComplexFloat, ComplexDouble,
  Bool, QInt8, QUInt8, QInt32, BFloat16, QUInt4x2, QUInt2x4, Bits1x8, Bits2x4, Bits4x2, Bits8,
  Bits16, Float8_e5m2, Float8_e4m3fn, Float8_e5m2fnuz, Float8_e4m3fnuz, UInt16, UInt32, UInt64,
  Undefined, NumOptions
};
constexpr ScalarType kByte = ScalarType::Byte;
constexpr ScalarType kChar = ScalarType::Char;
constexpr ScalarType kShort = ScalarType::Short;
constexpr ScalarType kInt = ScalarType::Int;
constexpr ScalarType kLong = ScalarType::Long;
constexpr ScalarType kHalf = ScalarType::Half;
constexpr ScalarType kFloat = ScalarType::Float;
constexpr ScalarType kDouble = ScalarType::Double;
constexpr ScalarType kComplexHalf = ScalarType::ComplexHalf;
constexpr ScalarType kComplexFloat = ScalarType::ComplexFloat;
constexpr ScalarType kComplexDouble = ScalarType::ComplexDouble;
constexpr ScalarType kBool = ScalarType::Bool;
constexpr ScalarType kBFloat16 = ScalarType::BFloat16;
constexpr ScalarType kFloat8_e5m2 = ScalarType::Float8_e5m2;
constexpr ScalarType kFloat8_e4m3fn = ScalarType::Float8_e4m3fn;
constexpr ScalarType kUInt16 = ScalarType::UInt16;
constexpr ScalarType kUInt32 = ScalarType::UInt32;
constexpr ScalarType kUInt64 = ScalarType::UInt64;

enum class Layout : int8_t {
  Strided, Sparse, SparseCsr, Mkldnn, SparseCsc, SparseBsr, SparseBsc, Jagged, NumOptions
};
constexpr Layout kStrided = Layout::Strided;
constexpr Layout kSparse = Layout::Sparse;

enum class MemoryFormat : int8_t { Contiguous, Preserve, ChannelsLast, ChannelsLast3d, NumOptions };

struct Half {
  unsigned short x;
  Half() = default;
  Half(float value);
  operator float() const;
};
struct BFloat16 {
  unsigned short x;
  BFloat16() = default;
  BFloat16(float value);
  operator float() const;
};

template <typename T> class ArrayRef {
 public:
  constexpr ArrayRef() : Data(nullptr), Length(0) {}
  constexpr ArrayRef(const T &OneElt) : Data(&OneElt), Length(1) {}
  constexpr ArrayRef(const T *data, size_t length) : Data(data), Length(length) {}
  ArrayRef(const T *begin, const T *end);
  template <typename A> ArrayRef(const std::vector<T, A> &Vec);
  template <size_t N> constexpr ArrayRef(const T (&Arr)[N]) : Data(Arr), Length(N) {}
  constexpr ArrayRef(const std::initializer_list<T> &Vec)
      : Data(Vec.begin() == Vec.end() ? static_cast<T *>(nullptr) : Vec.begin()),
        Length(Vec.size()) {}
  const T *begin() const;
  const T *end() const;
  const T *data() const;
  size_t size() const;
  bool empty() const;
  const T &front() const;
  const T &back() const;
  const T &operator[](size_t Index) const;
  std::vector<T> vec() const;
  bool equals(ArrayRef RHS) const;

 private:
  const T *Data;
  size_t Length;
};
using IntArrayRef = ArrayRef<int64_t>;

struct Device {
  /* implicit */ Device(DeviceType type, DeviceIndex index = -1);
  /* implicit */ Device(const std::string &device_string);
  bool operator==(const Device &other) const noexcept;
  bool operator!=(const Device &other) const noexcept;
  void set_index(DeviceIndex index);
  DeviceType type() const noexcept;
  DeviceIndex index() const noexcept;
  bool has_index() const noexcept;
  bool is_cuda() const noexcept;
  bool is_cpu() const noexcept;
  std::string str() const;

 private:
  DeviceType type_;
  DeviceIndex index_ = -1;
};

class Stream final {
 public:
  enum Unsafe { UNSAFE };
  enum Default { DEFAULT };
  explicit Stream(Unsafe, Device device, StreamId id);
  explicit Stream(Default, Device device);
  bool operator==(const Stream &other) const noexcept;
  bool operator!=(const Stream &other) const noexcept;
  Device device() const noexcept;
  DeviceType device_type() const noexcept;
  DeviceIndex device_index() const noexcept;
  StreamId id() const noexcept;
  bool query() const;
  void synchronize() const;

 private:
  Device device_;
  StreamId id_;
};

class Scalar {
 public:
  Scalar();
  Scalar(signed char v);
  Scalar(unsigned char v);
  Scalar(short v);
  Scalar(unsigned short v);
  Scalar(int v);
  Scalar(unsigned int v);
  Scalar(long v);
  Scalar(unsigned long v);
  Scalar(long long v);
  Scalar(unsigned long long v);
  Scalar(float v);
  Scalar(double v);
  Scalar(Half v);
  Scalar(BFloat16 v);
  template <typename T, typename std::enable_if<std::is_same<T, bool>::value, bool>::type * = nullptr>
  Scalar(T v);
  template <typename T> T to() const;
  double toDouble() const;
  float toFloat() const;
  int toInt() const;
  int64_t toLong() const;
  bool toBool() const;
  bool isFloatingPoint() const;
  bool isIntegral(bool includeBool) const;
  bool isBoolean() const;
  ScalarType type() const;
};

class Error : public std::exception {
 public:
  const char *what() const noexcept override;
  const char *what_without_backtrace() const noexcept;
};

template <typename... Args> std::string str(const Args &...args);
void warn(const std::string &msg);

namespace detail {
[[noreturn]] void torchCheckFail(const char *func, const char *file, uint32_t line, const std::string &msg);
[[noreturn]] void torchCheckFail(const char *func, const char *file, uint32_t line, const char *msg);
[[noreturn]] void torchInternalAssertFail(const char *func, const char *file, uint32_t line, const char *condMsg, const std::string &userMsg);
}  // namespace detail

}  // namespace c10

namespace caffe2 {
class TypeMeta {
 public:
  TypeMeta() noexcept;
  template <typename T> static TypeMeta Make();
  static TypeMeta fromScalarType(c10::ScalarType scalar_type);
  c10::ScalarType toScalarType() const;
  size_t itemsize() const noexcept;
  bool operator==(const TypeMeta &other) const noexcept;
  bool operator!=(const TypeMeta &other) const noexcept;
};
}  // namespace caffe2

namespace c10 {
bool operator==(const ScalarType t, const caffe2::TypeMeta m);
bool operator==(const caffe2::TypeMeta m, const ScalarType t);
bool operator!=(const ScalarType t, const caffe2::TypeMeta m);
bool operator!=(const caffe2::TypeMeta m, const ScalarType t);
/* what Tensor::type() returns: old extensions dispatch on it and pass it as options */
struct TensorOptions;
class DeprecatedTypeProperties {
 public:
  operator TensorOptions() const;
  ScalarType scalarType() const;
  bool is_cuda() const;
  caffe2::TypeMeta typeMeta() const;
};
namespace detail {
ScalarType scalar_type(ScalarType s);
ScalarType scalar_type(const caffe2::TypeMeta &dtype);
ScalarType scalar_type(const DeprecatedTypeProperties &t);
}  // namespace detail

struct TensorOptions {
  TensorOptions();
  /* implicit */ TensorOptions(Layout layout);
  template <typename... Args,
            typename = typename std::enable_if<std::is_constructible<Device, Args &&...>::value>::type>
  /* implicit */ TensorOptions(Args &&...args);
  /* implicit */ TensorOptions(caffe2::TypeMeta dtype);
  /* implicit */ TensorOptions(ScalarType dtype);
  /* implicit */ TensorOptions(MemoryFormat memory_format);

  TensorOptions device(std::optional<Device> device) const noexcept;
  template <typename... Args> TensorOptions device(Args &&...args) const noexcept;
  TensorOptions device_index(DeviceIndex device_index) const noexcept;
  TensorOptions dtype(std::optional<caffe2::TypeMeta> dtype) const noexcept;
  TensorOptions dtype(std::optional<ScalarType> dtype) const noexcept;
  template <typename T> TensorOptions &dtype();
  TensorOptions layout(std::optional<Layout> layout) const noexcept;
  TensorOptions requires_grad(std::optional<bool> requires_grad) const noexcept;
  TensorOptions pinned_memory(std::optional<bool> pinned_memory) const noexcept;
  TensorOptions memory_format(std::optional<MemoryFormat> memory_format) const noexcept;

  Device device() const noexcept;
  DeviceIndex device_index() const noexcept;
  caffe2::TypeMeta dtype() const noexcept;
  Layout layout() const noexcept;
  bool requires_grad() const noexcept;
  bool pinned_memory() const noexcept;
  bool has_device() const noexcept;
  bool has_dtype() const noexcept;
};
TensorOptions dtype(caffe2::TypeMeta dtype);
TensorOptions dtype(ScalarType dtype);
template <typename T> TensorOptions dtype();
TensorOptions layout(Layout layout);
TensorOptions device(Device device);
TensorOptions device_index(DeviceIndex device_index);
TensorOptions requires_grad(bool requires_grad = true);
TensorOptions memory_format(MemoryFormat memory_format);

/* ---- c10::cuda -------------------------------------------------------------------------- */
namespace cuda {

class CUDAStream {
 public:
  enum Unchecked { UNCHECKED };
  explicit CUDAStream(Stream stream);
  explicit CUDAStream(Unchecked, Stream stream);
  bool operator==(const CUDAStream &other) const noexcept;
  bool operator!=(const CUDAStream &other) const noexcept;
  operator cudaStream_t() const;
  operator Stream() const;
  DeviceType device_type() const;
  DeviceIndex device_index() const;
  Device device() const;
  StreamId id() const;
  bool query() const;
  void synchronize() const;
  int priority() const;
  cudaStream_t stream() const;
  Stream unwrap() const;
  static std::tuple<int, int> priority_range();

 private:
  Stream stream_;
};

CUDAStream getStreamFromPool(const bool isHighPriority = false, DeviceIndex device = -1);
CUDAStream getStreamFromPool(const int priority, DeviceIndex device = -1);
CUDAStream getStreamFromExternal(cudaStream_t ext_stream, DeviceIndex device_index);
CUDAStream getDefaultCUDAStream(DeviceIndex device_index = -1);
CUDAStream getCurrentCUDAStream(DeviceIndex device_index = -1);
void setCurrentCUDAStream(CUDAStream stream);

/* CUDAFunctions.h */
DeviceIndex device_count() noexcept;
DeviceIndex device_count_ensure_non_zero();
DeviceIndex current_device();
void set_device(DeviceIndex device, const bool force = false);
void device_synchronize();
void warn_or_error_on_sync();
cudaError_t GetDeviceCount(int *dev_count);
cudaError_t GetDevice(DeviceIndex *device);
cudaError_t SetDevice(DeviceIndex device, const bool force = false);
cudaError_t MaybeSetDevice(DeviceIndex device);
DeviceIndex ExchangeDevice(DeviceIndex device);
DeviceIndex MaybeExchangeDevice(DeviceIndex device);
void memcpy_and_sync(void *dst, const void *src, int64_t nbytes, cudaMemcpyKind kind, cudaStream_t stream);
void stream_synchronize(cudaStream_t stream);
bool hasPrimaryContext(DeviceIndex device_index);

/* CUDAException.h */
void c10_cuda_check_implementation(const int32_t err, const char *filename, const char *function_name, const uint32_t line_number, const bool include_device_assertions);

/* CUDAGraphsC10Utils.h */
using CaptureId_t = unsigned long long;
using MempoolId_t = std::pair<CaptureId_t, CaptureId_t>;

struct CUDAStreamCaptureModeGuard {
  CUDAStreamCaptureModeGuard(cudaStreamCaptureMode desired);
  ~CUDAStreamCaptureModeGuard();

 private:
  cudaStreamCaptureMode strictness_;
};

enum class CaptureStatus : int {
  None = int(cudaStreamCaptureStatusNone),
  Active = int(cudaStreamCaptureStatusActive),
  Invalidated = int(cudaStreamCaptureStatusInvalidated)
};
CaptureStatus currentStreamCaptureStatusMayInitCtx();

/* CUDAGuard.h */
struct CUDAGuard {
  explicit CUDAGuard() = delete;
  explicit CUDAGuard(DeviceIndex device_index);
  explicit CUDAGuard(Device device);
  CUDAGuard(const CUDAGuard &) = delete;
  CUDAGuard &operator=(const CUDAGuard &) = delete;
  ~CUDAGuard();
  void set_device(Device device);
  void reset_device(Device device);
  void set_index(DeviceIndex device_index);
  Device original_device() const;
  Device current_device() const;
};
struct OptionalCUDAGuard {
  explicit OptionalCUDAGuard();
  explicit OptionalCUDAGuard(std::optional<Device> device_opt);
  explicit OptionalCUDAGuard(std::optional<DeviceIndex> device_index_opt);
  OptionalCUDAGuard(const OptionalCUDAGuard &) = delete;
  OptionalCUDAGuard &operator=(const OptionalCUDAGuard &) = delete;
  ~OptionalCUDAGuard();
  void set_device(Device device);
  void reset_device(Device device);
  void set_index(DeviceIndex device_index);
  std::optional<Device> original_device() const;
  std::optional<Device> current_device() const;
  void reset();
};
struct CUDAStreamGuard {
  explicit CUDAStreamGuard() = delete;
  explicit CUDAStreamGuard(Stream stream);
  CUDAStreamGuard(const CUDAStreamGuard &) = delete;
  CUDAStreamGuard &operator=(const CUDAStreamGuard &) = delete;
  ~CUDAStreamGuard();
  void reset_stream(Stream stream);
  CUDAStream original_stream() const;
  CUDAStream current_stream() const;
  Device current_device() const;
  Device original_device() const;
};
struct OptionalCUDAStreamGuard {
  explicit OptionalCUDAStreamGuard();
  explicit OptionalCUDAStreamGuard(Stream stream);
  explicit OptionalCUDAStreamGuard(std::optional<Stream> stream_opt);
  OptionalCUDAStreamGuard(const OptionalCUDAStreamGuard &) = delete;
  OptionalCUDAStreamGuard &operator=(const OptionalCUDAStreamGuard &) = delete;
  ~OptionalCUDAStreamGuard();
  void reset_stream(Stream stream);
  std::optional<CUDAStream> original_stream() const;
  std::optional<CUDAStream> current_stream() const;
  void reset();
};
struct CUDAMultiStreamGuard {
  explicit CUDAMultiStreamGuard(ArrayRef<CUDAStream> streams);
  CUDAMultiStreamGuard(const CUDAMultiStreamGuard &) = delete;
  CUDAMultiStreamGuard &operator=(const CUDAMultiStreamGuard &) = delete;
  ~CUDAMultiStreamGuard();
};

/* CUDACachingAllocator.h */
namespace CUDACachingAllocator {
void *raw_alloc(size_t nbytes);
void *raw_alloc_with_stream(size_t nbytes, cudaStream_t stream);
void raw_delete(void *ptr);
void emptyCache(MempoolId_t mempool_id = {0, 0});
void cacheInfo(DeviceIndex device, size_t *largestBlock);
void setMemoryFraction(double fraction, DeviceIndex device);
void endAllocateToPool(DeviceIndex device, MempoolId_t mempool_id);
void releasePool(DeviceIndex device, MempoolId_t mempool_id);
}  // namespace CUDACachingAllocator

}  // namespace cuda

namespace impl {
template <ScalarType N> struct ScalarTypeToCPPType { using type = float; };
template <> struct ScalarTypeToCPPType<ScalarType::Byte> { using type = uint8_t; };
template <> struct ScalarTypeToCPPType<ScalarType::Char> { using type = int8_t; };
template <> struct ScalarTypeToCPPType<ScalarType::Short> { using type = int16_t; };
template <> struct ScalarTypeToCPPType<ScalarType::Int> { using type = int; };
template <> struct ScalarTypeToCPPType<ScalarType::Long> { using type = int64_t; };
template <> struct ScalarTypeToCPPType<ScalarType::Half> { using type = Half; };
template <> struct ScalarTypeToCPPType<ScalarType::Double> { using type = double; };
template <> struct ScalarTypeToCPPType<ScalarType::Bool> { using type = bool; };
template <> struct ScalarTypeToCPPType<ScalarType::BFloat16> { using type = BFloat16; };
template <ScalarType N> using ScalarTypeToCPPTypeT = typename ScalarTypeToCPPType<N>::type;
}  // namespace impl

}  // namespace c10

/* c10/macros/Macros.h reroutes c10 into at and c10::cuda into at::cuda the same way */
namespace at {
using namespace c10;
namespace cuda {
using namespace c10::cuda;
using c10::cuda::getCurrentCUDAStream;
using c10::cuda::getDefaultCUDAStream;
using c10::cuda::getStreamFromPool;
}  // namespace cuda
}  // namespace at

/* ==== ATen ================================================================================= */
namespace at {

template <typename T> struct DefaultPtrTraits { typedef T *PtrType; };
template <typename T> struct RestrictPtrTraits { typedef T *__restrict__ PtrType; };

template <typename T, size_t N, template <typename U> class PtrTraits = DefaultPtrTraits,
          typename index_t = int64_t>
class TensorAccessor {
 public:
  __host__ __device__ TensorAccessor<T, N - 1, PtrTraits, index_t> operator[](index_t i);
  __host__ __device__ const TensorAccessor<T, N - 1, PtrTraits, index_t> operator[](index_t i) const;
  __host__ __device__ index_t size(index_t i) const;
  __host__ __device__ index_t stride(index_t i) const;
  __host__ __device__ T *data();
};
template <typename T, template <typename U> class PtrTraits, typename index_t>
class TensorAccessor<T, 1, PtrTraits, index_t> {
 public:
  __host__ __device__ T &operator[](index_t i);
  __host__ __device__ const T &operator[](index_t i) const;
  __host__ __device__ index_t size(index_t i) const;
  __host__ __device__ index_t stride(index_t i) const;
  __host__ __device__ T *data();
};
template <typename T, size_t N, template <typename U> class PtrTraits = DefaultPtrTraits,
          typename index_t = int64_t>
class GenericPackedTensorAccessor {
 public:
  __host__ __device__ TensorAccessor<T, N - 1, PtrTraits, index_t> operator[](index_t i);
  __host__ __device__ const TensorAccessor<T, N - 1, PtrTraits, index_t> operator[](index_t i) const;
  __host__ __device__ index_t size(index_t i) const;
  __host__ __device__ index_t stride(index_t i) const;
  __host__ __device__ T *data();
};
template <typename T, template <typename U> class PtrTraits, typename index_t>
class GenericPackedTensorAccessor<T, 1, PtrTraits, index_t> {
 public:
  __host__ __device__ T &operator[](index_t i);
  __host__ __device__ const T &operator[](index_t i) const;
  __host__ __device__ index_t size(index_t i) const;
  __host__ __device__ index_t stride(index_t i) const;
  __host__ __device__ T *data();
};
template <typename T, size_t N, template <typename U> class PtrTraits = DefaultPtrTraits>
using PackedTensorAccessor32 = GenericPackedTensorAccessor<T, N, PtrTraits, int32_t>;
template <typename T, size_t N, template <typename U> class PtrTraits = DefaultPtrTraits>
using PackedTensorAccessor64 = GenericPackedTensorAccessor<T, N, PtrTraits, int64_t>;

class Tensor;
using TensorList = ArrayRef<Tensor>;

/* metadata accessors live in TensorBase, the operators in Tensor, as in PyTorch */
class TensorBase {
 public:
  bool defined() const;
  int64_t dim() const;
  int64_t ndimension() const;
  int64_t numel() const;
  int64_t size(int64_t dim) const;
  IntArrayRef sizes() const;
  int64_t stride(int64_t dim) const;
  IntArrayRef strides() const;
  int64_t storage_offset() const;
  size_t nbytes() const;
  int64_t element_size() const;
  size_t itemsize() const;
  bool is_contiguous(MemoryFormat memory_format = MemoryFormat::Contiguous) const;
  bool is_cuda() const;
  bool is_cpu() const;
  bool requires_grad() const;
  const TensorBase &set_requires_grad(bool requires_grad) const;
  Device device() const;
  DeviceIndex get_device() const;
  Layout layout() const;
  ScalarType scalar_type() const;
  caffe2::TypeMeta dtype() const;
  DeprecatedTypeProperties &type() const;
  TensorOptions options() const;

  template <typename T> T *data_ptr() const;
  void *data_ptr() const;
  template <typename T> const T *const_data_ptr() const;
  const void *const_data_ptr() const;
  template <typename T> T *mutable_data_ptr() const;
  void *mutable_data_ptr() const;

  template <typename T, size_t N> TensorAccessor<T, N> accessor() const &;
  template <typename T, size_t N> TensorAccessor<T, N> accessor() && = delete;
  template <typename T, size_t N, template <typename U> class PtrTraits = DefaultPtrTraits,
            typename index_t = int64_t>
  GenericPackedTensorAccessor<T, N, PtrTraits, index_t> generic_packed_accessor() const &;
  template <typename T, size_t N, template <typename U> class PtrTraits = DefaultPtrTraits>
  PackedTensorAccessor32<T, N, PtrTraits> packed_accessor32() const &;
  template <typename T, size_t N, template <typename U> class PtrTraits = DefaultPtrTraits>
  PackedTensorAccessor32<T, N, PtrTraits> packed_accessor32() && = delete;
  template <typename T, size_t N, template <typename U> class PtrTraits = DefaultPtrTraits>
  PackedTensorAccessor64<T, N, PtrTraits> packed_accessor64() const &;
  template <typename T, size_t N, template <typename U> class PtrTraits = DefaultPtrTraits>
  PackedTensorAccessor64<T, N, PtrTraits> packed_accessor64() && = delete;
};

class Tensor : public TensorBase {
 public:
  Tensor();
  Tensor(const Tensor &other);
  Tensor(Tensor &&other) noexcept;
  ~Tensor();
  Tensor &operator=(const Tensor &other) &;
  Tensor &operator=(Tensor &&other) & noexcept;
  Tensor &operator=(const Scalar &v) &;

  bool is_floating_point() const;
  template <typename T> T item() const;
  Scalar item() const;

  /* device / dtype movement (the CPU ones synchronise) */
  Tensor cpu() const;
  Tensor cuda() const;
  Tensor to(TensorOptions options = {}, bool non_blocking = false, bool copy = false,
            std::optional<MemoryFormat> memory_format = std::nullopt) const;
  Tensor to(std::optional<ScalarType> dtype, std::optional<Layout> layout,
            std::optional<Device> device, std::optional<bool> pin_memory, bool non_blocking,
            bool copy, std::optional<MemoryFormat> memory_format) const;
  Tensor to(Device device, ScalarType dtype, bool non_blocking = false, bool copy = false,
            std::optional<MemoryFormat> memory_format = std::nullopt) const;
  Tensor to(ScalarType dtype, bool non_blocking = false, bool copy = false,
            std::optional<MemoryFormat> memory_format = std::nullopt) const;
  Tensor to(const Tensor &other, bool non_blocking = false, bool copy = false,
            std::optional<MemoryFormat> memory_format = std::nullopt) const;
  Tensor &copy_(const Tensor &src, bool non_blocking = false) const;
  Tensor pin_memory(std::optional<Device> device = std::nullopt) const;
  bool is_pinned(std::optional<Device> device = std::nullopt) const;
  void record_stream(Stream s) const;

  /* data-dependent output shape (synchronise on CUDA) */
  Tensor nonzero() const;
  Tensor nonzero_static(int64_t size, int64_t fill_value = -1) const;
  Tensor masked_select(const Tensor &mask) const;
  std::tuple<Tensor, Tensor, Tensor> unique_consecutive(bool return_inverse = false, bool return_counts = false, std::optional<int64_t> dim = std::nullopt) const;
  Tensor repeat_interleave(const Tensor &repeats, std::optional<int64_t> dim = std::nullopt, std::optional<int64_t> output_size = std::nullopt) const;
  Tensor repeat_interleave(int64_t repeats, std::optional<int64_t> dim = std::nullopt, std::optional<int64_t> output_size = std::nullopt) const;

  Tensor masked_fill(const Tensor &mask, const Scalar &value) const;
  Tensor &masked_fill_(const Tensor &mask, const Scalar &value) const;
  Tensor index_select(int64_t dim, const Tensor &index) const;
  Tensor &index_fill_(int64_t dim, const Tensor &index, const Scalar &value) const;
  Tensor contiguous(MemoryFormat memory_format = MemoryFormat::Contiguous) const;
  Tensor view(IntArrayRef size) const;
  Tensor reshape(IntArrayRef shape) const;
  Tensor flatten(int64_t start_dim = 0, int64_t end_dim = -1) const;
  Tensor unsqueeze(int64_t dim) const;
  Tensor squeeze() const;
  Tensor squeeze(int64_t dim) const;
  Tensor transpose(int64_t dim0, int64_t dim1) const;
  Tensor permute(IntArrayRef dims) const;
  Tensor t() const;
  Tensor narrow(int64_t dim, int64_t start, int64_t length) const;
  Tensor select(int64_t dim, int64_t index) const;
  Tensor slice(int64_t dim = 0, std::optional<int64_t> start = std::nullopt, std::optional<int64_t> end = std::nullopt, int64_t step = 1) const;
  Tensor expand(IntArrayRef size, bool implicit = false) const;
  Tensor expand_as(const Tensor &other) const;
  Tensor repeat(IntArrayRef repeats) const;
  Tensor clone(std::optional<MemoryFormat> memory_format = std::nullopt) const;
  Tensor detach() const;
  Tensor &zero_() const;
  Tensor &fill_(const Scalar &value) const;
  Tensor &uniform_(double from = 0, double to = 1) const;
  Tensor &normal_(double mean = 0, double std = 1) const;

  Tensor sum(std::optional<ScalarType> dtype = std::nullopt) const;
  Tensor sum(IntArrayRef dim, bool keepdim = false, std::optional<ScalarType> dtype = std::nullopt) const;
  Tensor mean(std::optional<ScalarType> dtype = std::nullopt) const;
  Tensor mean(IntArrayRef dim, bool keepdim = false, std::optional<ScalarType> dtype = std::nullopt) const;
  Tensor max() const;
  Tensor min() const;
  Tensor abs() const;
  Tensor sqrt() const;
  Tensor exp() const;
  Tensor log() const;
  Tensor neg() const;
  Tensor relu() const;
  Tensor sigmoid() const;
  Tensor gt(const Scalar &other) const;
  Tensor gt(const Tensor &other) const;
  Tensor lt(const Scalar &other) const;
  Tensor lt(const Tensor &other) const;
  Tensor ne(const Scalar &other) const;
  Tensor ne(const Tensor &other) const;
  Tensor tanh() const;
  Tensor rsqrt() const;
  Tensor reciprocal() const;
  Tensor clamp_min(const Scalar &min) const;
  Tensor isnan() const;
  Tensor isinf() const;
  Tensor isfinite() const;
  Tensor any() const;
  Tensor all() const;
  Tensor ge(const Scalar &other) const;
  Tensor le(const Scalar &other) const;
  Tensor softmax(int64_t dim, std::optional<ScalarType> dtype = std::nullopt) const;
  Tensor matmul(const Tensor &other) const;
  Tensor mm(const Tensor &mat2) const;
  Tensor bmm(const Tensor &mat2) const;
  Tensor add(const Tensor &other, const Scalar &alpha = 1) const;
  Tensor add(const Scalar &other, const Scalar &alpha = 1) const;
  Tensor sub(const Tensor &other, const Scalar &alpha = 1) const;
  Tensor sub(const Scalar &other, const Scalar &alpha = 1) const;
  Tensor mul(const Tensor &other) const;
  Tensor mul(const Scalar &other) const;
  Tensor div(const Tensor &other) const;
  Tensor div(const Scalar &other) const;
  Tensor &add_(const Tensor &other, const Scalar &alpha = 1) const;
  Tensor &add_(const Scalar &other, const Scalar &alpha = 1) const;
  Tensor &sub_(const Tensor &other, const Scalar &alpha = 1) const;
  Tensor &mul_(const Tensor &other) const;
  Tensor &mul_(const Scalar &other) const;
  Tensor &div_(const Tensor &other) const;
  Tensor &div_(const Scalar &other) const;
  Tensor eq(const Scalar &other) const;
  Tensor eq(const Tensor &other) const;
  bool equal(const Tensor &other) const;
  bool allclose(const Tensor &other, double rtol = 1e-05, double atol = 1e-08, bool equal_nan = false) const;

  Tensor operator~() const;
  Tensor operator-() const;
  Tensor &operator+=(const Tensor &other);
  Tensor &operator+=(const Scalar &other);
  Tensor &operator-=(const Tensor &other);
  Tensor &operator-=(const Scalar &other);
  Tensor &operator*=(const Tensor &other);
  Tensor &operator*=(const Scalar &other);
  Tensor &operator/=(const Tensor &other);
  Tensor &operator/=(const Scalar &other);
  Tensor operator[](const Scalar &index) const;
  Tensor operator[](const Tensor &index) const;
  Tensor operator[](int64_t index) const;
};

#define CGLINT_AT_SPECIALISE_(T)                                                                 \
  template <> T Tensor::item<T>() const;                                                          \
  template <> T *TensorBase::data_ptr<T>() const;                                                 \
  template <> const T *TensorBase::const_data_ptr<T>() const;                                     \
  template <> T *TensorBase::mutable_data_ptr<T>() const;
CGLINT_AT_SPECIALISE_(uint8_t)
CGLINT_AT_SPECIALISE_(int8_t)
CGLINT_AT_SPECIALISE_(int16_t)
CGLINT_AT_SPECIALISE_(int)
CGLINT_AT_SPECIALISE_(int64_t)
CGLINT_AT_SPECIALISE_(Half)
CGLINT_AT_SPECIALISE_(float)
CGLINT_AT_SPECIALISE_(double)
CGLINT_AT_SPECIALISE_(bool)
CGLINT_AT_SPECIALISE_(BFloat16)
#undef CGLINT_AT_SPECIALISE_

#define CGLINT_AT_BINOP_(op)                                                                     \
  Tensor operator op(const Tensor &self, const Tensor &other);                                   \
  Tensor operator op(const Tensor &self, const Scalar &other);                                   \
  Tensor operator op(const Scalar &self, const Tensor &other);
CGLINT_AT_BINOP_(+)
CGLINT_AT_BINOP_(-)
CGLINT_AT_BINOP_(*)
CGLINT_AT_BINOP_(/)
CGLINT_AT_BINOP_(%)
CGLINT_AT_BINOP_(&)
CGLINT_AT_BINOP_(|)
CGLINT_AT_BINOP_(^)
CGLINT_AT_BINOP_(<)
CGLINT_AT_BINOP_(<=)
CGLINT_AT_BINOP_(>)
CGLINT_AT_BINOP_(>=)
CGLINT_AT_BINOP_(==)
CGLINT_AT_BINOP_(!=)
#undef CGLINT_AT_BINOP_

/* factories */
Tensor empty(IntArrayRef size, TensorOptions options = {}, std::optional<MemoryFormat> memory_format = std::nullopt);
Tensor empty(IntArrayRef size, std::optional<ScalarType> dtype, std::optional<Layout> layout, std::optional<Device> device, std::optional<bool> pin_memory, std::optional<MemoryFormat> memory_format);
Tensor empty_strided(IntArrayRef size, IntArrayRef stride, TensorOptions options = {});
Tensor empty_like(const Tensor &self, TensorOptions options = {}, std::optional<MemoryFormat> memory_format = std::nullopt);
Tensor zeros(IntArrayRef size, TensorOptions options = {});
Tensor zeros_like(const Tensor &self, TensorOptions options = {}, std::optional<MemoryFormat> memory_format = std::nullopt);
Tensor ones(IntArrayRef size, TensorOptions options = {});
Tensor ones_like(const Tensor &self, TensorOptions options = {}, std::optional<MemoryFormat> memory_format = std::nullopt);
Tensor full(IntArrayRef size, const Scalar &fill_value, TensorOptions options = {});
Tensor full_like(const Tensor &self, const Scalar &fill_value, TensorOptions options = {}, std::optional<MemoryFormat> memory_format = std::nullopt);
Tensor rand(IntArrayRef size, TensorOptions options = {});
Tensor randn(IntArrayRef size, TensorOptions options = {});
Tensor randint(int64_t high, IntArrayRef size, TensorOptions options = kLong);
Tensor randperm(int64_t n, TensorOptions options = kLong);
Tensor arange(const Scalar &end, TensorOptions options = {});
Tensor arange(const Scalar &start, const Scalar &end, TensorOptions options = {});
Tensor arange(const Scalar &start, const Scalar &end, const Scalar &step, TensorOptions options = {});
Tensor from_blob(void *data, IntArrayRef sizes, const TensorOptions &options = {});
Tensor from_blob(void *data, IntArrayRef sizes, IntArrayRef strides, const TensorOptions &options = {});
Tensor scalar_tensor(const Scalar &s, TensorOptions options = {});

/* arithmetic on tensors (ATen/core/TensorOperators.h, ATen/Functions.h): device work, no sync */
#define CGLINT_SHIM_BINARY_OP(op)                             \
  Tensor operator op(const Tensor &self, const Tensor &other); \
  Tensor operator op(const Tensor &self, const Scalar &other); \
  Tensor operator op(const Scalar &self, const Tensor &other);
CGLINT_SHIM_BINARY_OP(+)
CGLINT_SHIM_BINARY_OP(-)
CGLINT_SHIM_BINARY_OP(*)
CGLINT_SHIM_BINARY_OP(/)
#undef CGLINT_SHIM_BINARY_OP
Tensor clamp(const Tensor &self, const std::optional<Scalar> &min = std::nullopt, const std::optional<Scalar> &max = std::nullopt);
Tensor minimum(const Tensor &self, const Tensor &other);
Tensor maximum(const Tensor &self, const Tensor &other);
Tensor sqrt(const Tensor &self);
Tensor clamp_min(const Tensor &self, const Scalar &min);
Tensor isnan(const Tensor &self);
Tensor isfinite(const Tensor &self);

/* data-dependent output shape: these read a size back to the host (synchronise on CUDA) */
Tensor nonzero(const Tensor &self);
Tensor nonzero_static(const Tensor &self, int64_t size, int64_t fill_value = -1);
Tensor masked_select(const Tensor &self, const Tensor &mask);
std::tuple<Tensor, Tensor> _unique(const Tensor &self, bool sorted = true, bool return_inverse = false);
std::tuple<Tensor, Tensor, Tensor> _unique2(const Tensor &self, bool sorted = true, bool return_inverse = false, bool return_counts = false);
std::tuple<Tensor, Tensor, Tensor> unique_dim(const Tensor &self, int64_t dim, bool sorted = true, bool return_inverse = false, bool return_counts = false);
std::tuple<Tensor, Tensor, Tensor> unique_consecutive(const Tensor &self, bool return_inverse = false, bool return_counts = false, std::optional<int64_t> dim = std::nullopt);
Tensor repeat_interleave(const Tensor &repeats, std::optional<int64_t> output_size = std::nullopt);
Tensor repeat_interleave(const Tensor &self, const Tensor &repeats, std::optional<int64_t> dim = std::nullopt, std::optional<int64_t> output_size = std::nullopt);
Tensor repeat_interleave(const Tensor &self, int64_t repeats, std::optional<int64_t> dim = std::nullopt, std::optional<int64_t> output_size = std::nullopt);
Tensor bincount(const Tensor &self, const std::optional<Tensor> &weights = {}, int64_t minlength = 0);
Tensor multinomial(const Tensor &self, int64_t num_samples, bool replacement = false);
std::vector<Tensor> where(const Tensor &condition);
Tensor where(const Tensor &condition, const Tensor &self, const Tensor &other);
Scalar _local_scalar_dense(const Tensor &self);

Tensor cat(TensorList tensors, int64_t dim = 0);
Tensor stack(TensorList tensors, int64_t dim = 0);
std::vector<Tensor> split(const Tensor &self, int64_t split_size, int64_t dim = 0);
std::vector<Tensor> chunk(const Tensor &self, int64_t chunks, int64_t dim = 0);
Tensor matmul(const Tensor &self, const Tensor &other);
Tensor mm(const Tensor &self, const Tensor &mat2);
Tensor bmm(const Tensor &self, const Tensor &mat2);
Tensor addmm(const Tensor &self, const Tensor &mat1, const Tensor &mat2, const Scalar &beta = 1, const Scalar &alpha = 1);
Tensor softmax(const Tensor &self, int64_t dim, std::optional<ScalarType> dtype = std::nullopt);
Tensor relu(const Tensor &self);
Tensor sigmoid(const Tensor &self);
Tensor cross_entropy_loss(const Tensor &self, const Tensor &target, const std::optional<Tensor> &weight = {},
                          int64_t reduction = 1, int64_t ignore_index = -100, double label_smoothing = 0.0);
Tensor sum(const Tensor &self, std::optional<ScalarType> dtype = std::nullopt);
Tensor &copy_(Tensor &self, const Tensor &src, bool non_blocking = false);

/* ATen/DeviceGuard.h */
std::optional<Device> device_of(const Tensor &t);
std::optional<Device> device_of(const std::optional<Tensor> &t);

namespace cuda {
/* ATen/cuda/CUDAContextLight.h */
int64_t getNumGPUs();
bool is_available();
cudaDeviceProp *getCurrentDeviceProperties();
int warp_size();
cudaDeviceProp *getDeviceProperties(DeviceIndex device);
bool canDeviceAccessPeer(DeviceIndex device, DeviceIndex peer_device);
cublasHandle_t getCurrentCUDABlasHandle();
cusolverDnHandle_t getCurrentCUDASolverDnHandle();

/* ATen/cuda/CUDAEvent.h */
struct CUDAEvent {
  CUDAEvent() noexcept = default;
  CUDAEvent(unsigned int flags) noexcept;
  CUDAEvent(DeviceIndex device_index, const cudaIpcEventHandle_t *handle);
  ~CUDAEvent();
  CUDAEvent(const CUDAEvent &) = delete;
  CUDAEvent &operator=(const CUDAEvent &) = delete;
  CUDAEvent(CUDAEvent &&other) noexcept;
  CUDAEvent &operator=(CUDAEvent &&other) noexcept;
  operator cudaEvent_t() const;
  bool operator<(const CUDAEvent &right) const;
  std::optional<Device> device() const;
  bool isCreated() const;
  DeviceIndex device_index() const;
  cudaEvent_t event() const;
  bool query() const;
  void record();
  void recordOnce(const CUDAStream &stream);
  void record(const CUDAStream &stream);
  void block(const CUDAStream &stream);
  float elapsed_time(const CUDAEvent &other) const;
  void synchronize() const;
  void ipc_handle(cudaIpcEventHandle_t *handle);
};

/* ATen/cuda/CUDAGraph.h */
MempoolId_t graph_pool_handle();
struct CUDAGraph {
  CUDAGraph(bool keep_graph = false);
  ~CUDAGraph();
  static void inc_pending_event_queries();
  static void dec_pending_event_queries();
  static int num_pending_event_queries();
  void capture_begin(MempoolId_t pool = {0, 0}, cudaStreamCaptureMode capture_mode = cudaStreamCaptureModeGlobal);
  void capture_end();
  void instantiate();
  void replay();
  void reset();
  MempoolId_t pool();
  void enable_debug_mode();
  void debug_dump(const std::string &debug_path);
  cudaGraph_t raw_cuda_graph();
  cudaGraphExec_t raw_cuda_graph_exec();
};

/* ATen/cuda/CUDAGraphsUtils.cuh */
CaptureStatus currentStreamCaptureStatus();
void assertNotCapturing(const std::string &attempt);
}  // namespace cuda

}  // namespace at

/* ==== torch ================================================================================ */
namespace torch {
using namespace at;

/* the torch:: factories are separate (autograd-aware) functions in PyTorch */
at::Tensor empty(at::IntArrayRef size, at::TensorOptions options = {}, std::optional<at::MemoryFormat> memory_format = std::nullopt);
at::Tensor empty_like(const at::Tensor &self, at::TensorOptions options = {}, std::optional<at::MemoryFormat> memory_format = std::nullopt);
at::Tensor empty_strided(at::IntArrayRef size, at::IntArrayRef stride, at::TensorOptions options = {});
at::Tensor zeros(at::IntArrayRef size, at::TensorOptions options = {});
at::Tensor zeros_like(const at::Tensor &self, at::TensorOptions options = {}, std::optional<at::MemoryFormat> memory_format = std::nullopt);
at::Tensor ones(at::IntArrayRef size, at::TensorOptions options = {});
at::Tensor ones_like(const at::Tensor &self, at::TensorOptions options = {}, std::optional<at::MemoryFormat> memory_format = std::nullopt);
at::Tensor full(at::IntArrayRef size, const at::Scalar &fill_value, at::TensorOptions options = {});
at::Tensor rand(at::IntArrayRef size, at::TensorOptions options = {});
at::Tensor randn(at::IntArrayRef size, at::TensorOptions options = {});
at::Tensor randperm(int64_t n, at::TensorOptions options = at::kLong);
at::Tensor arange(const at::Scalar &end, at::TensorOptions options = {});
at::Tensor arange(const at::Scalar &start, const at::Scalar &end, at::TensorOptions options = {});
at::Tensor from_blob(void *data, at::IntArrayRef sizes, const at::TensorOptions &options = at::TensorOptions());

using Dtype = at::ScalarType;
constexpr auto kUInt8 = at::kByte;
constexpr auto kInt8 = at::kChar;
constexpr auto kInt16 = at::kShort;
constexpr auto kInt32 = at::kInt;
constexpr auto kInt64 = at::kLong;
constexpr auto kFloat16 = at::kHalf;
constexpr auto kFloat32 = at::kFloat;
constexpr auto kFloat64 = at::kDouble;
constexpr auto kU8 = kUInt8;
constexpr auto kI8 = kInt8;
constexpr auto kI16 = kInt16;
constexpr auto kI32 = kInt32;
constexpr auto kI64 = kInt64;
constexpr auto kF16 = kFloat16;
constexpr auto kF32 = kFloat32;
constexpr auto kF64 = kFloat64;

/* torch/cuda.h */
namespace cuda {
c10::DeviceIndex device_count();
bool is_available();
bool cudnn_is_available();
void manual_seed(uint64_t seed);
void manual_seed_all(uint64_t seed);
void synchronize(int64_t device_index = -1);     /* cudaDeviceSynchronize on the device */
}  // namespace cuda

/* torch/library.h */
class Library {
 public:
  enum Kind { DEF, IMPL, FRAGMENT };
  template <typename Schema> Library &def(Schema &&raw_schema);
  template <typename NameOrSchema, typename Func> Library &def(NameOrSchema &&raw_name_or_schema, Func &&raw_f);
  template <typename Name, typename Func> Library &impl(Name name, Func &&raw_f);
  template <typename Func> Library &fallback(Func &&raw_f);
};
}  // namespace torch

/* ==== pybind11 (just enough for PYBIND11_MODULE bodies) ====================================== */
namespace pybind11 {
class handle {};
class object : public handle {};
struct arg_v;
struct arg {
  constexpr explicit arg(const char *name = nullptr) : name(name) {}
  template <typename T> arg_v operator=(T &&value) const;
  arg &noconvert(bool flag = true);
  arg &none(bool flag = true);
  const char *name;
};
struct arg_v : arg {
  template <typename T> arg_v(const arg &base, T &&x, const char *descr = nullptr);
};
enum class return_value_policy : uint8_t {
  automatic = 0, automatic_reference, take_ownership, copy, move, reference, reference_internal
};
namespace detail {
template <typename... Args> struct init_ctor {};
}
template <typename... Args> detail::init_ctor<Args...> init();
class module_ : public object {
 public:
  template <typename Func, typename... Extra> module_ &def(const char *name_, Func &&f, const Extra &...extra);
  module_ def_submodule(const char *name, const char *doc = nullptr);
};
using module = module_;
template <typename type_, typename... options> class class_ : public object {
 public:
  template <typename... Extra> class_(handle scope, const char *name, const Extra &...extra);
  template <typename Func, typename... Extra> class_ &def(const char *name_, Func &&f, const Extra &...extra);
  template <typename... Args, typename... Extra> class_ &def(detail::init_ctor<Args...> &&init, const Extra &...extra);
  template <typename Func, typename... Extra> class_ &def_static(const char *name_, Func &&f, const Extra &...extra);
  template <typename C, typename D, typename... Extra> class_ &def_readwrite(const char *name, D C::*pm, const Extra &...extra);
  template <typename C, typename D, typename... Extra> class_ &def_readonly(const char *name, const D C::*pm, const Extra &...extra);
};
struct gil_scoped_acquire {
  gil_scoped_acquire();
  ~gil_scoped_acquire();
};
template <typename... Guards> struct call_guard {};
struct gil_scoped_release {
  explicit gil_scoped_release(bool disassoc = false);
  ~gil_scoped_release();
};
}  // namespace pybind11

/* ==== macros =============================================================================== */
#define CGLINT_CAT_(a, b) a##b
#define CGLINT_CAT(a, b) CGLINT_CAT_(a, b)

#define PYBIND11_MODULE(name, variable, ...) \
  void CGLINT_CAT(pybind11_init_, name)(::pybind11::module_ & variable)

#define TORCH_LIBRARY(ns, m) void TORCH_LIBRARY_init_##ns(torch::Library &m)
#define TORCH_LIBRARY_FRAGMENT(ns, m) \
  void CGLINT_CAT(TORCH_LIBRARY_FRAGMENT_init_##ns##_, __COUNTER__)(torch::Library & m)
#define TORCH_LIBRARY_IMPL(ns, k, m) \
  void CGLINT_CAT(TORCH_LIBRARY_IMPL_init_##ns##_##k##_, __COUNTER__)(torch::Library & m)

#define TORCH_CHECK(cond, ...)                                                                   \
  if (__builtin_expect(static_cast<bool>(!(cond)), 0)) {                                          \
    ::c10::detail::torchCheckFail(__func__, __FILE__, static_cast<uint32_t>(__LINE__),            \
                                  ::c10::str(__VA_ARGS__));                                       \
  }
#define TORCH_CHECK_VALUE(cond, ...) TORCH_CHECK(cond, __VA_ARGS__)
#define TORCH_CHECK_INDEX(cond, ...) TORCH_CHECK(cond, __VA_ARGS__)
#define TORCH_CHECK_TYPE(cond, ...) TORCH_CHECK(cond, __VA_ARGS__)
#define TORCH_CHECK_NOT_IMPLEMENTED(cond, ...) TORCH_CHECK(cond, __VA_ARGS__)
#define TORCH_INTERNAL_ASSERT(cond, ...)                                                         \
  if (__builtin_expect(static_cast<bool>(!(cond)), 0)) {                                          \
    ::c10::detail::torchInternalAssertFail(__func__, __FILE__, static_cast<uint32_t>(__LINE__),   \
                                           #cond, ::c10::str(__VA_ARGS__));                       \
  }
#define TORCH_INTERNAL_ASSERT_DEBUG_ONLY(...) TORCH_INTERNAL_ASSERT(__VA_ARGS__)
#define TORCH_WARN(...) ::c10::warn(::c10::str(__VA_ARGS__))
#define TORCH_WARN_ONCE(...) ::c10::warn(::c10::str(__VA_ARGS__))
#define AT_ERROR(...) \
  ::c10::detail::torchCheckFail(__func__, __FILE__, static_cast<uint32_t>(__LINE__), ::c10::str(__VA_ARGS__))
#define AT_ASSERT(...) TORCH_INTERNAL_ASSERT(__VA_ARGS__)

#define C10_CUDA_CHECK(EXPR)                                                                     \
  do {                                                                                            \
    const cudaError_t __err = EXPR;                                                               \
    ::c10::cuda::c10_cuda_check_implementation(static_cast<int32_t>(__err), __FILE__, __func__,   \
                                               static_cast<uint32_t>(__LINE__), true);            \
  } while (0)
#define C10_CUDA_CHECK_WARN(EXPR)                                                                \
  do {                                                                                            \
    const cudaError_t __err = EXPR;                                                               \
    if (__builtin_expect(__err != cudaSuccess, 0)) {                                              \
      (void)cudaGetLastError();                                                                   \
      TORCH_WARN("CUDA warning: ", cudaGetErrorString(__err));                                    \
    }                                                                                             \
  } while (0)
#define C10_CUDA_IGNORE_ERROR(EXPR)                                                              \
  do {                                                                                            \
    const cudaError_t __err = EXPR;                                                               \
    if (__builtin_expect(__err != cudaSuccess, 0)) {                                              \
      (void)cudaGetLastError();                                                                   \
    }                                                                                             \
  } while (0)
#define C10_CUDA_CLEAR_ERROR()                                                                   \
  do {                                                                                            \
    cudaError_t error = cudaGetLastError();                                                       \
    (void)error;                                                                                  \
  } while (0)
#define C10_CUDA_KERNEL_LAUNCH_CHECK() C10_CUDA_CHECK(cudaGetLastError())
#define AT_CUDA_CHECK(EXPR) C10_CUDA_CHECK(EXPR)
#define TORCH_CUDABLAS_CHECK(EXPR)                                                               \
  do {                                                                                            \
    cublasStatus_t __err = EXPR;                                                                  \
    TORCH_CHECK(__err == CUBLAS_STATUS_SUCCESS, "CUDA error: ", cublasGetStatusString(__err));    \
  } while (0)
#define TORCH_CUSOLVER_CHECK(EXPR)                                                               \
  do {                                                                                            \
    cusolverStatus_t __err = EXPR;                                                                \
    TORCH_CHECK(__err == CUSOLVER_STATUS_SUCCESS, "cusolver error");                              \
  } while (0)

/* ATen/Dispatch.h. The switch form instantiates each case like PyTorch; the fixed-list forms
 * instantiate the body once (scalar_t = float, or int64_t for integral lists) so that a kernel
 * launch inside appears once in the AST. */
#define AT_DISPATCH_CASE(enum_type, ...)                                                         \
  case enum_type: {                                                                               \
    using scalar_t = ::c10::impl::ScalarTypeToCPPTypeT<enum_type>;                                \
    return __VA_ARGS__();                                                                         \
  }
#define AT_DISPATCH_SWITCH(TYPE, NAME, ...)                                                      \
  [&] {                                                                                           \
    const auto &the_type = TYPE;                                                                  \
    constexpr const char *at_dispatch_name = NAME;                                                \
    ::c10::ScalarType _st = ::c10::detail::scalar_type(the_type);                                          \
    switch (_st) {                                                                                \
      __VA_ARGS__                                                                                 \
    default:                                                                                      \
      ::c10::detail::torchCheckFail(__func__, __FILE__, static_cast<uint32_t>(__LINE__),          \
                                    at_dispatch_name);                                            \
    }                                                                                             \
  }()
#define CGLINT_AT_DISPATCH_ONE_(CPPTYPE, TYPE, NAME, ...)                                        \
  [&] {                                                                                           \
    const auto &the_type = TYPE;                                                                  \
    (void)the_type;                                                                               \
    constexpr const char *at_dispatch_name = NAME;                                                \
    (void)at_dispatch_name;                                                                       \
    using scalar_t = CPPTYPE;                                                                     \
    return __VA_ARGS__();                                                                         \
  }()
#define AT_DISPATCH_FLOATING_TYPES(TYPE, NAME, ...) CGLINT_AT_DISPATCH_ONE_(float, TYPE, NAME, __VA_ARGS__)
#define AT_DISPATCH_FLOATING_TYPES_AND_HALF(TYPE, NAME, ...) CGLINT_AT_DISPATCH_ONE_(float, TYPE, NAME, __VA_ARGS__)
#define AT_DISPATCH_FLOATING_TYPES_AND(S1, TYPE, NAME, ...) CGLINT_AT_DISPATCH_ONE_(float, TYPE, NAME, __VA_ARGS__)
#define AT_DISPATCH_FLOATING_TYPES_AND2(S1, S2, TYPE, NAME, ...) CGLINT_AT_DISPATCH_ONE_(float, TYPE, NAME, __VA_ARGS__)
#define AT_DISPATCH_FLOATING_TYPES_AND3(S1, S2, S3, TYPE, NAME, ...) CGLINT_AT_DISPATCH_ONE_(float, TYPE, NAME, __VA_ARGS__)
#define AT_DISPATCH_REDUCED_FLOATING_TYPES(TYPE, NAME, ...) CGLINT_AT_DISPATCH_ONE_(float, TYPE, NAME, __VA_ARGS__)
#define AT_DISPATCH_FLOATING_AND_COMPLEX_TYPES(TYPE, NAME, ...) CGLINT_AT_DISPATCH_ONE_(float, TYPE, NAME, __VA_ARGS__)
#define AT_DISPATCH_ALL_TYPES(TYPE, NAME, ...) CGLINT_AT_DISPATCH_ONE_(float, TYPE, NAME, __VA_ARGS__)
#define AT_DISPATCH_ALL_TYPES_AND(S1, TYPE, NAME, ...) CGLINT_AT_DISPATCH_ONE_(float, TYPE, NAME, __VA_ARGS__)
#define AT_DISPATCH_ALL_TYPES_AND2(S1, S2, TYPE, NAME, ...) CGLINT_AT_DISPATCH_ONE_(float, TYPE, NAME, __VA_ARGS__)
#define AT_DISPATCH_ALL_TYPES_AND3(S1, S2, S3, TYPE, NAME, ...) CGLINT_AT_DISPATCH_ONE_(float, TYPE, NAME, __VA_ARGS__)
#define AT_DISPATCH_INTEGRAL_TYPES(TYPE, NAME, ...) CGLINT_AT_DISPATCH_ONE_(int64_t, TYPE, NAME, __VA_ARGS__)
#define AT_DISPATCH_INDEX_TYPES(TYPE, NAME, ...)                                                 \
  [&] {                                                                                           \
    const auto &the_index_type = TYPE;                                                            \
    (void)the_index_type;                                                                         \
    using index_t = int64_t;                                                                      \
    return __VA_ARGS__();                                                                         \
  }()
