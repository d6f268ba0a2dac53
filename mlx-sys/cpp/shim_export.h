// Exported functions (export.h): export_function with a Rust closure, import_function.
#pragma once

#include <memory>
#include <vector>

#include "shim_common.h"

namespace mlx_sys {

// The Rust closure to trace (mlx-sys/src/ffi/export.rs).
struct ExportFn;

struct ImportedFn {
  explicit ImportedFn(mlx::core::ImportedFunction f) : f(std::move(f)) {}
  mlx::core::ImportedFunction f;
};

// Traces `f` on `inputs` and writes the graph to `path`. An error returned by the closure
// arrives as an exception (rust::Error) through MLX's export and is rethrown to Rust.
void export_function(
    rust::Str path,
    ExportFn& f,
    const std::vector<array>& inputs,
    bool shapeless);
// Throws what MLX's import throws: a missing file, or a primitive this build cannot
// deserialize ("[import_function] Unable to deserialize primitive NAME").
std::unique_ptr<ImportedFn> import_function(rust::Str path);
std::unique_ptr<std::vector<array>> call_imported(
    const ImportedFn& f,
    const std::vector<array>& inputs);
void imported_free(std::unique_ptr<ImportedFn> f);

} // namespace mlx_sys
