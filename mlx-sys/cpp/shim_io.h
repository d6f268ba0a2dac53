// Safetensors load/save (io.h).
#pragma once

#include "shim_common.h"

namespace mlx_sys {

// Parses the header eagerly (bad files throw here); tensor data is read when evaluated.
// Appends names[i] / arrays[i] pairs and the metadata as parallel key/value lists.
void load_safetensors(
    rust::Str path,
    rust::Vec<rust::String>& names,
    std::vector<array>& arrays,
    rust::Vec<rust::String>& metadata_keys,
    rust::Vec<rust::String>& metadata_values);
// names[i] is the key of arrays[i]; metadata is given as parallel key/value lists.
void save_safetensors(
    rust::Str path,
    const rust::Vec<rust::String>& names,
    const std::vector<array>& arrays,
    const rust::Vec<rust::String>& metadata_keys,
    const rust::Vec<rust::String>& metadata_values);

} // namespace mlx_sys
