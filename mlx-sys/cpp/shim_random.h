// mlx::core::random (random.h). `key` pointers are nullable: null uses MLX's global key
// sequence (seeded with random_seed).
#pragma once

#include "shim_common.h"

namespace mlx_sys {

std::unique_ptr<array> random_key(std::uint64_t seed);
void random_seed(std::uint64_t seed);
std::unique_ptr<array> random_split(const array& key, std::int32_t num);
std::unique_ptr<array> random_uniform(
    float low, float high, rust::Slice<const std::int32_t> shape, std::uint8_t dtype, const array* key);
std::unique_ptr<array> random_normal(
    rust::Slice<const std::int32_t> shape, std::uint8_t dtype, float loc, float scale, const array* key);
std::unique_ptr<array> random_randint(
    std::int64_t low, std::int64_t high, rust::Slice<const std::int32_t> shape, std::uint8_t dtype,
    const array* key);
std::unique_ptr<array> random_bernoulli(
    const array& p, rust::Slice<const std::int32_t> shape, const array* key);
// num_samples < 0: one sample per distribution (MLX's overload without a count).
std::unique_ptr<array> random_categorical(
    const array& logits, std::int32_t axis, std::int32_t num_samples, const array* key);

} // namespace mlx_sys
