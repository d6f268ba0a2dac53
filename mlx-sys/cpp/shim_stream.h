// Devices and streams (device.h, stream.h). A stream is named by its MLX index; a device by
// kind and index. Streams made by new_stream belong to the thread that made them: MLX keeps
// one command encoder per stream per thread, and evaluating another thread's work throws.
#pragma once

#include "shim_common.h"

namespace mlx_sys {

// Repeated in the bridge (src/ffi/stream.rs) as an extern shared enum.
enum class DeviceKind : std::uint8_t {
  Cpu,
  Gpu,
};

DeviceKind default_device_kind();
std::int32_t default_device_index();
void set_default_device(DeviceKind kind, std::int32_t index);
bool device_is_available(DeviceKind kind, std::int32_t index);
// Stream indices.
std::int32_t default_stream(DeviceKind kind, std::int32_t index);
std::int32_t new_stream(DeviceKind kind, std::int32_t index);
DeviceKind stream_device_kind(std::int32_t stream);
std::int32_t stream_device_index(std::int32_t stream);
void set_default_stream(std::int32_t stream);
void synchronize(std::int32_t stream);
void synchronize_default();

} // namespace mlx_sys
