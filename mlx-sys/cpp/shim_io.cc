#include "shim_io.h"

#include <stdexcept>
#include <string>
#include <unordered_map>

namespace mlx_sys {

namespace mc = mlx::core;

void load_safetensors(
    rust::Str path,
    rust::Vec<rust::String>& names,
    std::vector<array>& arrays,
    rust::Vec<rust::String>& metadata_keys,
    rust::Vec<rust::String>& metadata_values) {
  MLX_SYS_LOCK;
  auto [tensors, metadata] = mc::load_safetensors(std::string(path));
  for (auto& [name, a] : tensors) {
    names.push_back(rust::String(name));
    arrays.push_back(a);
  }
  for (auto& [k, v] : metadata) {
    metadata_keys.push_back(rust::String(k));
    metadata_values.push_back(rust::String(v));
  }
}

void save_safetensors(
    rust::Str path,
    const rust::Vec<rust::String>& names,
    const std::vector<array>& arrays,
    const rust::Vec<rust::String>& metadata_keys,
    const rust::Vec<rust::String>& metadata_values) {
  MLX_SYS_LOCK;
  if (names.size() != arrays.size() || metadata_keys.size() != metadata_values.size()) {
    throw std::invalid_argument("[save_safetensors] names and values differ in length");
  }
  std::unordered_map<std::string, array> tensors;
  for (std::size_t i = 0; i < arrays.size(); ++i) {
    if (!tensors.emplace(std::string(names[i]), arrays[i]).second) {
      throw std::invalid_argument(
          "[save_safetensors] duplicate tensor name " + std::string(names[i]));
    }
  }
  std::unordered_map<std::string, std::string> metadata;
  for (std::size_t i = 0; i < metadata_keys.size(); ++i) {
    metadata[std::string(metadata_keys[i])] = std::string(metadata_values[i]);
  }
  mc::save_safetensors(std::string(path), std::move(tensors), std::move(metadata));
}

} // namespace mlx_sys
