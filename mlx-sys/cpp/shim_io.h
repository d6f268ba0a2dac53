// Safetensors load/save (io.h).
#pragma once

#include "shim_common.h"

namespace mlx_sys {

struct SafetensorsData;   // shared struct, defined by the bridge (src/ffi/io.rs)

// Parses the header eagerly (bad files throw here); tensor data is read when evaluated.
SafetensorsData load_safetensors(rust::Str path);
// names[i] is the key of arrays[i]; metadata is given as parallel key/value lists.
void save_safetensors(
    rust::Str path,
    const rust::Vec<rust::String>& names,
    const std::vector<array>& arrays,
    const rust::Vec<rust::String>& metadata_keys,
    const rust::Vec<rust::String>& metadata_values);

} // namespace mlx_sys
