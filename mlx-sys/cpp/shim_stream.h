// Devices and streams (device.h, stream.h). Streams made by new_stream belong to the thread
// that made them: MLX keeps one command encoder per stream per thread, and evaluating work
// of another thread's stream throws.
#pragma once

#include "shim_common.h"

namespace mlx_sys {

struct DeviceHandle;   // shared structs, defined by the bridge (src/ffi/stream.rs)
struct StreamHandle;

DeviceHandle default_device();
void set_default_device(DeviceHandle d);
bool device_is_available(DeviceHandle d);
StreamHandle default_stream(DeviceHandle d);
StreamHandle new_stream(DeviceHandle d);
void set_default_stream(StreamHandle s);
void synchronize(StreamHandle s);
void synchronize_default();

} // namespace mlx_sys
