#include "shim_backend.h"

// dladdr1 and RTLD_DL_LINKMAP are GNU extensions; g++ and clang++ define _GNU_SOURCE on Linux.
#include <dlfcn.h>
#if defined(__linux__)
#include <link.h>
#endif
#include <climits>
#include <cstdlib>
#include <map>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <unistd.h>
#include <variant>

#include "mlx/backend/gpu/device_info.h"
#include "mlx/version.h"

namespace mlx_sys {

namespace mc = mlx::core;

namespace {

std::string canonical(const std::string& path) {
  char buf[PATH_MAX];
  return ::realpath(path.c_str(), buf) ? std::string(buf) : path;
}

#if defined(__linux__)
std::string self_exe() {
  char buf[PATH_MAX];
  auto n = ::readlink("/proc/self/exe", buf, sizeof(buf) - 1);
  if (n <= 0) {
    throw std::runtime_error("[mlx_library_path] cannot read /proc/self/exe");
  }
  buf[n] = '\0';
  return buf;
}
#endif

} // namespace

rust::String mlx_library_path() {
  MLX_SYS_LOCK;
  // The string literal version() returns lives in the read-only data of whichever object holds
  // MLX's code. (A function's address could be a PLT stub in the executable instead.)
  const void* inside_mlx = mc::version();
  Dl_info info{};
#if defined(__linux__)
  struct link_map* map = nullptr;
  if (::dladdr1(inside_mlx, &info, reinterpret_cast<void**>(&map), RTLD_DL_LINKMAP) == 0 ||
      map == nullptr) {
    throw std::runtime_error("[mlx_library_path] dladdr found no object holding MLX's code");
  }
  // The main program's link map has an empty name (dladdr would give argv[0]).
  std::string path = map->l_name[0] == '\0' ? self_exe() : std::string(map->l_name);
#else
  // Not run here (macOS): dyld reports full image paths, the executable's included.
  if (::dladdr(inside_mlx, &info) == 0 || info.dli_fname == nullptr) {
    throw std::runtime_error("[mlx_library_path] dladdr found no object holding MLX's code");
  }
  std::string path = info.dli_fname;
#endif
  return rust::String(canonical(path));
}

bool gpu_is_available() {
  MLX_SYS_LOCK;
  return mc::gpu::is_available();
}

std::int32_t gpu_device_count() {
  MLX_SYS_LOCK;
  return mc::gpu::is_available() ? mc::gpu::device_count() : 0;
}

void gpu_device_info(
    std::int32_t index,
    rust::Vec<rust::String>& keys,
    rust::Vec<rust::String>& values) {
  MLX_SYS_LOCK;
  if (!mc::gpu::is_available()) {
    throw std::runtime_error(
        "[gpu_device_info] this MLX build has no GPU backend (CPU only)");
  }
  if (index < 0 || index >= mc::gpu::device_count()) {
    throw std::out_of_range(
        "[gpu_device_info] no GPU with index " + std::to_string(index) + " (" +
        std::to_string(mc::gpu::device_count()) + " available)");
  }
  std::map<std::string, std::string> sorted;
  for (const auto& [key, value] : mc::gpu::device_info(index)) {
    sorted[key] = std::visit(
        [](const auto& v) -> std::string {
          if constexpr (std::is_same_v<std::decay_t<decltype(v)>, std::string>) {
            return v;
          } else {
            return std::to_string(v);
          }
        },
        value);
  }
  for (const auto& [key, value] : sorted) {
    keys.push_back(rust::String(key));
    values.push_back(rust::String(value));
  }
}

} // namespace mlx_sys
