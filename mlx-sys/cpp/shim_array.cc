#include "shim_array.h"

#include <cstring>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <string>

namespace mlx_sys {

using namespace mlx::core;

static_assert(static_cast<int>(Dtype::Val::complex64) == 13, "dtype codes follow Dtype::Val");

rust::String mlx_version() {
  return rust::String(mlx::core::version());
}

namespace {

template <typename T>
array typed_copy(const std::uint8_t* data, Shape shape, Dtype dtype) {
  // The Rust side passes the bytes of a &[T] for this dtype, so they are aligned for T.
  return array(reinterpret_cast<const T*>(data), std::move(shape), dtype);
}

// Calls f.template operator()<T>() with the C++ element type of `dtype`.
template <typename F>
decltype(auto) dispatch_dtype(Dtype dtype, F&& f) {
  switch (dtype.val()) {
    case Dtype::Val::bool_: return f.template operator()<bool>();
    case Dtype::Val::uint8: return f.template operator()<std::uint8_t>();
    case Dtype::Val::uint16: return f.template operator()<std::uint16_t>();
    case Dtype::Val::uint32: return f.template operator()<std::uint32_t>();
    case Dtype::Val::uint64: return f.template operator()<std::uint64_t>();
    case Dtype::Val::int8: return f.template operator()<std::int8_t>();
    case Dtype::Val::int16: return f.template operator()<std::int16_t>();
    case Dtype::Val::int32: return f.template operator()<std::int32_t>();
    case Dtype::Val::int64: return f.template operator()<std::int64_t>();
    case Dtype::Val::float16: return f.template operator()<float16_t>();
    case Dtype::Val::float32: return f.template operator()<float>();
    case Dtype::Val::float64: return f.template operator()<double>();
    case Dtype::Val::bfloat16: return f.template operator()<bfloat16_t>();
    case Dtype::Val::complex64: return f.template operator()<complex64_t>();
  }
  throw std::invalid_argument("[mlx-sys] unhandled dtype");
}

} // namespace

std::unique_ptr<array> array_from_bytes(
    rust::Slice<const std::uint8_t> data,
    rust::Slice<const std::int32_t> shape,
    std::uint8_t dtype_code) {
  MLX_SYS_LOCK;
  auto dtype = dtype_from_code(dtype_code);
  // MLX does not check shapes here; a negative or overflowing size would corrupt memory.
  std::size_t count = 1;
  for (auto d : shape) {
    if (d < 0) {
      throw std::invalid_argument(
          "[array] negative dimension " + std::to_string(d) + " in shape");
    }
    if (d != 0 && count > std::numeric_limits<std::int32_t>::max() / static_cast<std::size_t>(d)) {
      // MLX indexes elements with int32 in places; refuse what it cannot hold.
      throw std::invalid_argument("[array] shape has too many elements");
    }
    count *= static_cast<std::size_t>(d);
  }
  if (count * size_of(dtype) != data.size()) {
    std::ostringstream msg;
    msg << "[array] data has " << data.size() << " bytes but shape needs " << count
        << " elements of " << static_cast<int>(size_of(dtype)) << " bytes";
    throw std::invalid_argument(msg.str());
  }
  return wrap(dispatch_dtype(dtype, [&]<typename T>() {
    return typed_copy<T>(data.data(), to_shape(shape), dtype);
  }));
}

std::unique_ptr<array> array_from_f64(double value, std::uint8_t dtype) {
  MLX_SYS_LOCK;
  return wrap(array(value, dtype_from_code(dtype)));
}

std::unique_ptr<array> array_from_i64(std::int64_t value, std::uint8_t dtype) {
  MLX_SYS_LOCK;
  return wrap(array(value, dtype_from_code(dtype)));
}

std::unique_ptr<array> array_clone(const array& a) {
  MLX_SYS_LOCK;
  return std::make_unique<array>(a);
}

void array_free(std::unique_ptr<array> a) {
  MLX_SYS_LOCK;
  a.reset();
}

std::size_t array_ndim(const array& a) {
  MLX_SYS_LOCK;
  return a.ndim();
}

rust::Vec<std::int32_t> array_shape(const array& a) {
  MLX_SYS_LOCK;
  rust::Vec<std::int32_t> out;
  out.reserve(a.ndim());
  for (auto d : a.shape()) {
    out.push_back(d);
  }
  return out;
}

rust::Vec<std::int64_t> array_strides(const array& a) {
  MLX_SYS_LOCK;
  rust::Vec<std::int64_t> out;
  for (auto s : a.strides()) {
    out.push_back(s);
  }
  return out;
}

std::size_t array_size(const array& a) {
  MLX_SYS_LOCK;
  return a.size();
}

std::size_t array_nbytes(const array& a) {
  MLX_SYS_LOCK;
  return a.nbytes();
}

std::size_t array_itemsize(const array& a) {
  MLX_SYS_LOCK;
  return a.itemsize();
}

std::uint8_t array_dtype(const array& a) {
  MLX_SYS_LOCK;
  return dtype_to_code(a.dtype());
}

std::uintptr_t array_id(const array& a) {
  MLX_SYS_LOCK;
  return a.id();
}

std::uint8_t array_status(const array& a) {
  MLX_SYS_LOCK;
  switch (a.status()) {
    case array::Status::unscheduled: return 0;
    case array::Status::evaluated: return a.is_available() ? 2 : 1;
    case array::Status::available: return 2;
  }
  return 0;
}

void array_eval(const array& a) {
  eval_then_wait({&a, 1});
}

void array_copy_to(const array& a, rust::Slice<std::uint8_t> out) {
  if (out.size() != array_nbytes(a)) {
    throw std::invalid_argument("[array] output buffer size does not match nbytes");
  }
  eval_then_wait({&a, 1});
  // Views (transpose, broadcast, strided slices) share a buffer with other strides.
  std::optional<array> copied;
  struct FreeLocked {
    std::optional<array>& held;
    ~FreeLocked() {
      MLX_SYS_LOCK;
      held.reset();
    }
  } free_locked{copied};
  {
    MLX_SYS_LOCK;
    if (!a.flags().row_contiguous) {
      copied = contiguous(a);
    }
  }
  if (copied) {
    eval_then_wait({&*copied, 1});
  }
  MLX_SYS_LOCK;
  const array& src = copied ? *copied : a;
  if (out.size() > 0) {
    std::memcpy(out.data(), src.data<std::uint8_t>(), out.size());
  }
}

void array_item_to(const array& a, rust::Slice<std::uint8_t> out) {
  if (out.size() != array_itemsize(a)) {
    throw std::invalid_argument("[array] output buffer size does not match itemsize");
  }
  if (array_size(a) == 1) {
    eval_then_wait({&a, 1});
  }
  MLX_SYS_LOCK;
  array src = a;
  dispatch_dtype(src.dtype(), [&]<typename T>() {
    T value = src.item<T>();
    std::memcpy(out.data(), &value, sizeof(T));
  });
}

rust::String array_to_string(const array& a) {
  eval_then_wait({&a, 1});
  MLX_SYS_LOCK;
  std::ostringstream os;
  os << a;
  return rust::String(os.str());
}

std::unique_ptr<std::vector<array>> new_array_vec() {
  return std::make_unique<std::vector<array>>();
}

void array_vec_push(std::vector<array>& v, const array& a) {
  MLX_SYS_LOCK;
  v.push_back(a);
}

std::unique_ptr<array> array_vec_get(const std::vector<array>& v, std::size_t i) {
  MLX_SYS_LOCK;
  return wrap(v.at(i));
}

void array_vec_free(std::unique_ptr<std::vector<array>> v) {
  MLX_SYS_LOCK;
  v.reset();
}

void eval_all(const std::vector<array>& v) {
  eval_then_wait({v.data(), v.size()});
}

void async_eval_all(const std::vector<array>& v) {
  MLX_SYS_LOCK;
  async_eval(v);
}

} // namespace mlx_sys
