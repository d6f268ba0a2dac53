#include "shim_common.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace mlx_sys {

std::recursive_mutex& api_mutex() {
  // Leaked on purpose: arrays may be dropped during static destruction.
  static auto* m = new std::recursive_mutex();
  return *m;
}

void eval_then_wait(std::span<const array> outputs) {
  // Cross-stream inputs are waited for inside the outputs' own streams (MLX's eval makes each
  // stream wait on its inputs' events), so the outputs' streams are enough.
  std::vector<mlx::core::Stream> streams;
  {
    MLX_SYS_LOCK;
    // Declared after the guard: these handles are released under the lock.
    std::vector<array> v(outputs.begin(), outputs.end());
    mlx::core::async_eval(v);
    for (const auto& x : v) {
      if (x.status() == array::Status::evaluated && x.event().valid() &&
          std::find(streams.begin(), streams.end(), x.event().stream()) == streams.end()) {
        streams.push_back(x.event().stream());
      }
    }
  }
  for (const auto& s : streams) {
    synchronize_stream(s);
  }
  MLX_SYS_LOCK;
  mlx::core::eval(std::vector<array>(outputs.begin(), outputs.end()));
}

void synchronize_stream(const mlx::core::Stream& s) {
  if (s.device == mlx::core::Device::cpu) {
    mlx::core::synchronize(s);
    return;
  }
  MLX_SYS_LOCK;
  mlx::core::synchronize(s);
}

mlx::core::Dtype dtype_from_code(std::uint8_t code) {
  using namespace mlx::core;
  switch (code) {
    case 0: return bool_;
    case 1: return uint8;
    case 2: return uint16;
    case 3: return uint32;
    case 4: return uint64;
    case 5: return int8;
    case 6: return int16;
    case 7: return int32;
    case 8: return int64;
    case 9: return float16;
    case 10: return float32;
    case 11: return float64;
    case 12: return bfloat16;
    case 13: return complex64;
  }
  throw std::invalid_argument("[mlx-sys] unknown dtype code " + std::to_string(code));
}

std::uint8_t dtype_to_code(mlx::core::Dtype dtype) {
  // The inverse of dtype_from_code; an MLX with more dtypes (MLX_SRC_DIR) gets kUnknownDtype,
  // which wrap() refuses.
  for (std::uint8_t code = 0; code < 14; ++code) {
    if (dtype_from_code(code) == dtype) {
      return code;
    }
  }
  return kUnknownDtype;
}

} // namespace mlx_sys

// Sanitized builds (MLX_SANITIZE): the first finding ends every program that links this shim,
// however it was started (scripts/sanitize sets the same options, and suppressions). UBSan is
// built recoverable, so that a justified suppression can work (mlx-build's sanitize.rs), and
// by default only prints; TSan by default reports and goes on. ASan stops by default. Here, not
// in a file of their own, because the linker only takes the objects of a static library that
// something references.
#ifdef MLX_SYS_UBSAN
extern "C" const char* __ubsan_default_options() {
  return "halt_on_error=1:print_stacktrace=1";
}
#endif
#ifdef MLX_SYS_TSAN
extern "C" const char* __tsan_default_options() {
  return "halt_on_error=1";
}
#endif
