//! Exported functions (`mlx/export.h`): a function's traced graph written to a file
//! (`export_function`) and read back as a callable (`import_function`).
//!
//! The function to export is a Rust closure, [`ExportFn`], that MLX calls while tracing, on
//! the thread of the export call (under the API lock, which is recursive, so the closure calls
//! the shim as any code does). Its `Err` becomes a C++ exception there, which MLX's export
//! lets through, so the export returns it as its error.

use std::pin::Pin;

use cxx::CxxVector;

#[cxx::bridge(namespace = "mlx_sys")]
pub mod ffi {
    extern "Rust" {
        type ExportFn;

        /// Called by the C++ side: appends the closure's outputs for `inputs` to `outputs`.
        fn call_export_fn(
            f: &mut ExportFn,
            inputs: &CxxVector<array>,
            outputs: Pin<&mut CxxVector<array>>,
        ) -> Result<()>;
    }

    unsafe extern "C++" {
        include!("shim_export.h");

        #[namespace = "mlx::core"]
        type array = crate::ffi::array::ffi::array;

        /// A function read back by `import_function`; drop it with `imported_free`.
        type ImportedFn;

        /// Traces `f` on `inputs` and writes the graph to `path`.
        fn export_function(
            path: &str,
            f: &mut ExportFn,
            inputs: &CxxVector<array>,
            shapeless: bool,
        ) -> Result<()>;
        /// Reads the function of `path` (every primitive is resolved here: one this MLX does
        /// not know is an error now, not at the call).
        fn import_function(path: &str) -> Result<UniquePtr<ImportedFn>>;
        /// Builds the imported graph on `inputs` (lazily; evaluate the outputs).
        fn call_imported(
            f: &ImportedFn,
            inputs: &CxxVector<array>,
        ) -> Result<UniquePtr<CxxVector<array>>>;
        fn imported_free(f: UniquePtr<ImportedFn>);
    }
}

type Closure =
    dyn FnMut(&CxxVector<ffi::array>, Pin<&mut CxxVector<ffi::array>>) -> Result<(), String>;

/// The function `export_function` traces: reads the inputs, appends the outputs.
pub struct ExportFn(Box<Closure>);

impl ExportFn {
    pub fn new(
        f: impl FnMut(&CxxVector<ffi::array>, Pin<&mut CxxVector<ffi::array>>) -> Result<(), String>
            + 'static,
    ) -> Self {
        ExportFn(Box::new(f))
    }
}

fn call_export_fn(
    f: &mut ExportFn,
    inputs: &CxxVector<ffi::array>,
    outputs: Pin<&mut CxxVector<ffi::array>>,
) -> Result<(), String> {
    (f.0)(inputs, outputs)
}
