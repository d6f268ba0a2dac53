#include "shim_random.h"

namespace mlx_sys {

namespace random = mlx::core::random;

std::unique_ptr<array> random_key(std::uint64_t seed) {
  MLX_SYS_LOCK;
  return wrap(random::key(seed));
}

void random_seed(std::uint64_t seed) {
  MLX_SYS_LOCK;
  random::seed(seed);
}

std::unique_ptr<array> random_split(const array& key, std::int32_t num) {
  MLX_SYS_LOCK;
  return wrap(random::split(key, num));
}

std::unique_ptr<array> random_uniform(
    float low, float high, rust::Slice<const std::int32_t> shape, std::uint8_t dtype, const array* key) {
  MLX_SYS_LOCK;
  return wrap(random::uniform(array(low), array(high), to_shape(shape), dtype_from_code(dtype), opt(key)));
}

std::unique_ptr<array> random_normal(
    rust::Slice<const std::int32_t> shape, std::uint8_t dtype, float loc, float scale, const array* key) {
  MLX_SYS_LOCK;
  return wrap(random::normal(to_shape(shape), dtype_from_code(dtype), loc, scale, opt(key)));
}

std::unique_ptr<array> random_randint(
    std::int64_t low, std::int64_t high, rust::Slice<const std::int32_t> shape, std::uint8_t dtype,
    const array* key) {
  MLX_SYS_LOCK;
  return wrap(random::randint(array(low), array(high), to_shape(shape), dtype_from_code(dtype), opt(key)));
}

std::unique_ptr<array> random_bernoulli(
    const array& p, rust::Slice<const std::int32_t> shape, const array* key) {
  MLX_SYS_LOCK;
  return wrap(random::bernoulli(p, to_shape(shape), opt(key)));
}

std::unique_ptr<array> random_categorical(
    const array& logits, std::int32_t axis, std::int32_t num_samples, const array* key) {
  MLX_SYS_LOCK;
  if (num_samples < 0) {
    return wrap(random::categorical(logits, axis, opt(key)));
  }
  return wrap(random::categorical(logits, axis, num_samples, opt(key)));
}

} // namespace mlx_sys
