#include "shim_fast.h"

#include <string>

namespace mlx_sys {

namespace fast = mlx::core::fast;

std::unique_ptr<array> rms_norm(const array& x, const array* weight, float eps) {
  MLX_SYS_LOCK;
  return wrap(fast::rms_norm(x, opt(weight), eps));
}

std::unique_ptr<array> layer_norm(const array& x, const array* weight, const array* bias, float eps) {
  MLX_SYS_LOCK;
  return wrap(fast::layer_norm(x, opt(weight), opt(bias), eps));
}

std::unique_ptr<array> rope(
    const array& x, std::int32_t dims, bool traditional, bool has_base, float base, float scale,
    std::int32_t offset, const array* freqs) {
  MLX_SYS_LOCK;
  auto b = has_base ? std::optional<float>(base) : std::nullopt;
  return wrap(fast::rope(x, dims, traditional, b, scale, offset, opt(freqs)));
}

std::unique_ptr<array> rope_offset_array(
    const array& x, std::int32_t dims, bool traditional, bool has_base, float base, float scale,
    const array& offset, const array* freqs) {
  MLX_SYS_LOCK;
  auto b = has_base ? std::optional<float>(base) : std::nullopt;
  return wrap(fast::rope(x, dims, traditional, b, scale, offset, opt(freqs)));
}

std::unique_ptr<array> scaled_dot_product_attention(
    const array& queries, const array& keys, const array& values, float scale,
    rust::Str mask_mode, const array* mask, const array* sinks) {
  MLX_SYS_LOCK;
  return wrap(fast::scaled_dot_product_attention(
      queries, keys, values, scale, std::string(mask_mode), opt(mask), opt(sinks)));
}

} // namespace mlx_sys
