#include "shim_stream.h"

#include <stdexcept>
#include <string>

namespace mlx_sys {

namespace mc = mlx::core;

namespace {

mc::Device to_device(DeviceKind kind, std::int32_t index) {
  switch (kind) {
    case DeviceKind::Cpu: return mc::Device(mc::Device::cpu, index);
    case DeviceKind::Gpu: return mc::Device(mc::Device::gpu, index);
  }
  throw std::invalid_argument("[mlx-sys] unknown device kind");
}

DeviceKind kind_of(const mc::Device& d) {
  return d.type == mc::Device::cpu ? DeviceKind::Cpu : DeviceKind::Gpu;
}

// Only streams MLX made: an invented index would make a stream thread on demand.
mc::Stream known_stream(std::int32_t index) {
  for (auto& s : mc::get_streams()) {
    if (s.index == index) {
      return s;
    }
  }
  throw std::invalid_argument("[mlx-sys] unknown stream index " + std::to_string(index));
}

} // namespace

DeviceKind default_device_kind() {
  MLX_SYS_LOCK;
  return kind_of(mc::default_device());
}

std::int32_t default_device_index() {
  MLX_SYS_LOCK;
  return mc::default_device().index;
}

void set_default_device(DeviceKind kind, std::int32_t index) {
  MLX_SYS_LOCK;
  auto device = to_device(kind, index);
  if (!mc::is_available(device)) {
    throw std::invalid_argument("[set_default_device] device is not available in this build");
  }
  mc::set_default_device(device);
}

bool device_is_available(DeviceKind kind, std::int32_t index) {
  MLX_SYS_LOCK;
  return mc::is_available(to_device(kind, index));
}

std::int32_t default_stream(DeviceKind kind, std::int32_t index) {
  MLX_SYS_LOCK;
  return mc::default_stream(to_device(kind, index)).index;
}

std::int32_t new_stream(DeviceKind kind, std::int32_t index) {
  MLX_SYS_LOCK;
  auto device = to_device(kind, index);
  if (!mc::is_available(device)) {
    throw std::invalid_argument("[new_stream] device is not available in this build");
  }
  return mc::new_stream(device).index;
}

DeviceKind stream_device_kind(std::int32_t stream) {
  MLX_SYS_LOCK;
  return kind_of(known_stream(stream).device);
}

std::int32_t stream_device_index(std::int32_t stream) {
  MLX_SYS_LOCK;
  return known_stream(stream).device.index;
}

void set_default_stream(std::int32_t stream) {
  MLX_SYS_LOCK;
  mc::set_default_stream(known_stream(stream));
}

void synchronize(std::int32_t stream) {
  // get_streams() is guarded by MLX's own mutex.
  synchronize_stream(known_stream(stream));
}

void synchronize_default() {
  mc::Stream s = [] {
    MLX_SYS_LOCK; // the default device is a plain global
    return mc::default_stream(mc::default_device());
  }();
  synchronize_stream(s);
}

} // namespace mlx_sys
