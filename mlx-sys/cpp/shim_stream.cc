#include "shim_stream.h"
#include "mlx-sys/src/ffi/stream.rs.h"

#include <stdexcept>
#include <string>

namespace mlx_sys {

namespace mc = mlx::core;

namespace {

mc::Device to_device(DeviceHandle d) {
  switch (d.kind) {
    case DeviceKind::Cpu: return mc::Device(mc::Device::cpu, d.index);
    case DeviceKind::Gpu: return mc::Device(mc::Device::gpu, d.index);
  }
  throw std::invalid_argument("[mlx-sys] unknown device kind");
}

DeviceHandle from_device(const mc::Device& d) {
  DeviceHandle h;
  h.kind = d.type == mc::Device::cpu ? DeviceKind::Cpu : DeviceKind::Gpu;
  h.index = d.index;
  return h;
}

StreamHandle from_stream(const mc::Stream& s) {
  StreamHandle h;
  h.index = s.index;
  h.device = from_device(s.device);
  return h;
}

// Only streams MLX knows about: an invented index would create a stream thread on demand.
mc::Stream to_stream(StreamHandle s) {
  for (auto& known : mc::get_streams()) {
    if (known.index == s.index) {
      if (known.device != to_device(s.device)) {
        throw std::invalid_argument("[mlx-sys] stream handle has the wrong device");
      }
      return known;
    }
  }
  throw std::invalid_argument("[mlx-sys] unknown stream index " + std::to_string(s.index));
}

} // namespace

DeviceHandle default_device() {
  MLX_SYS_LOCK;
  return from_device(mc::default_device());
}

void set_default_device(DeviceHandle d) {
  MLX_SYS_LOCK;
  auto device = to_device(d);
  if (!mc::is_available(device)) {
    throw std::invalid_argument("[set_default_device] device is not available in this build");
  }
  mc::set_default_device(device);
}

bool device_is_available(DeviceHandle d) {
  MLX_SYS_LOCK;
  return mc::is_available(to_device(d));
}

StreamHandle default_stream(DeviceHandle d) {
  MLX_SYS_LOCK;
  return from_stream(mc::default_stream(to_device(d)));
}

StreamHandle new_stream(DeviceHandle d) {
  MLX_SYS_LOCK;
  auto device = to_device(d);
  if (!mc::is_available(device)) {
    throw std::invalid_argument("[new_stream] device is not available in this build");
  }
  return from_stream(mc::new_stream(device));
}

void set_default_stream(StreamHandle s) {
  MLX_SYS_LOCK;
  mc::set_default_stream(to_stream(s));
}

void synchronize(StreamHandle s) {
  MLX_SYS_LOCK;
  mc::synchronize(to_stream(s));
}

void synchronize_default() {
  MLX_SYS_LOCK;
  mc::synchronize();
}

} // namespace mlx_sys
