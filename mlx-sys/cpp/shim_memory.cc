#include "shim_memory.h"

namespace mlx_sys {

namespace mc = mlx::core;

std::size_t get_active_memory() {
  MLX_SYS_LOCK;
  return mc::get_active_memory();
}

std::size_t get_peak_memory() {
  MLX_SYS_LOCK;
  return mc::get_peak_memory();
}

void reset_peak_memory() {
  MLX_SYS_LOCK;
  mc::reset_peak_memory();
}

std::size_t get_cache_memory() {
  MLX_SYS_LOCK;
  return mc::get_cache_memory();
}

std::size_t set_memory_limit(std::size_t limit) {
  MLX_SYS_LOCK;
  return mc::set_memory_limit(limit);
}

std::size_t get_memory_limit() {
  MLX_SYS_LOCK;
  return mc::get_memory_limit();
}

std::size_t set_cache_limit(std::size_t limit) {
  MLX_SYS_LOCK;
  return mc::set_cache_limit(limit);
}

void clear_cache() {
  MLX_SYS_LOCK;
  mc::clear_cache();
}

} // namespace mlx_sys
