#include "shim_export.h"

#include <string>

#include "mlx-sys/src/ffi/export.rs.h"

namespace mlx_sys {

namespace mc = mlx::core;

void export_function(
    rust::Str path,
    ExportFn& f,
    const std::vector<array>& inputs,
    bool shapeless) {
  MLX_SYS_LOCK;
  auto traced = [&f](const mc::Args& args) {
    std::vector<array> outputs;
    call_export_fn(f, args, outputs);
    return outputs;
  };
  mc::export_function(std::string(path), traced, inputs, shapeless);
}

std::unique_ptr<ImportedFn> import_function(rust::Str path) {
  MLX_SYS_LOCK;
  return std::make_unique<ImportedFn>(mc::import_function(std::string(path)));
}

std::unique_ptr<std::vector<array>> call_imported(
    const ImportedFn& f,
    const std::vector<array>& inputs) {
  MLX_SYS_LOCK;
  return std::make_unique<std::vector<array>>(f.f(inputs));
}

void imported_free(std::unique_ptr<ImportedFn> f) {
  MLX_SYS_LOCK;
  f.reset();
}

} // namespace mlx_sys
