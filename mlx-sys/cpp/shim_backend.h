// Which MLX this process runs and what backend it has: the file holding MLX's code (dladdr),
// and the GPU, if any (mlx/backend/gpu/device_info.h: CUDA or Metal builds; no GPU on CPU-only
// builds).
#pragma once

#include "shim_common.h"

namespace mlx_sys {

// Absolute path of the file that holds MLX's code in this process: the executable for a static
// build, libmlx.so (or .dylib) for a shared one. Throws if the loader cannot tell.
rust::String mlx_library_path();

// mlx::core::gpu::is_available() / device_count().
bool gpu_is_available();
std::int32_t gpu_device_count();

// mlx::core::gpu::device_info(index), values stringified, keys sorted. Throws when the build has
// no GPU or there is no GPU of that index.
void gpu_device_info(
    std::int32_t index,
    rust::Vec<rust::String>& keys,
    rust::Vec<rust::String>& values);

} // namespace mlx_sys
