// Allocator statistics and limits (memory.h).
#pragma once

#include "shim_common.h"

namespace mlx_sys {

std::size_t get_active_memory();
std::size_t get_peak_memory();
void reset_peak_memory();
std::size_t get_cache_memory();
std::size_t set_memory_limit(std::size_t limit);
std::size_t get_memory_limit();
std::size_t set_cache_limit(std::size_t limit);
void clear_cache();

} // namespace mlx_sys
