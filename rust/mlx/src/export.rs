//! Exported functions: a function's graph written to a file ([`export_function`]) and read
//! back, by this or another MLX build, as a callable ([`import_function`]).

use std::any::Any;
use std::panic::{self, AssertUnwindSafe};
use std::path::Path;
use std::sync::{Arc, Mutex};

use cxx::UniquePtr;
use mlx_sys::ffi::array::ffi as array_sys;
use mlx_sys::ffi::export::{ffi as sys, ExportFn};

use crate::array_list::ArrayList;
use crate::{Array, Error, Result};

type PanicPayload = Box<dyn Any + Send>;

fn path_str(path: &Path) -> Result<&str> {
    path.to_str()
        .ok_or_else(|| Error::InvalidArgument(format!("path {} is not UTF-8", path.display())))
}

/// Traces `f` on arrays shaped like `inputs` and writes its graph to `path` (MLX's
/// `export_function`; `shapeless` lets the import be called with other shapes). MLX calls `f`
/// once, on this thread, with its own copies of the inputs. An `Err` from `f`, or MLX's error
/// (a primitive MLX cannot serialize, a file it cannot write), is returned; a panic in `f` is
/// resumed here once MLX has unwound.
pub fn export_function<A, F>(
    path: impl AsRef<Path>,
    mut f: F,
    inputs: &[A],
    shapeless: bool,
) -> Result<()>
where
    A: AsRef<Array>,
    F: FnMut(&[Array]) -> Result<Vec<Array>> + 'static,
{
    let path = path_str(path.as_ref())?;
    let panicked: Arc<Mutex<Option<PanicPayload>>> = Arc::default();
    let seen = Arc::clone(&panicked);
    let mut closure = ExportFn::new(move |ins, mut outs| {
        let run = panic::catch_unwind(AssertUnwindSafe(|| -> Result<()> {
            let args = (0..ins.len())
                .map(|i| Array::from_raw(array_sys::array_vec_get(ins, i)?))
                .collect::<Result<Vec<_>>>()?;
            for out in f(&args)? {
                array_sys::array_vec_push(outs.as_mut(), out.as_raw());
            }
            Ok(())
        }));
        match run {
            Ok(result) => result.map_err(|e| e.to_string()),
            Err(payload) => {
                *seen.lock().unwrap_or_else(|e| e.into_inner()) = Some(payload);
                Err("[export_function] the exported Rust function panicked".into())
            }
        }
    });
    let list = ArrayList::from_arrays(inputs);
    let result = sys::export_function(path, &mut closure, list.raw(), shapeless);
    if let Some(payload) = panicked.lock().unwrap_or_else(|e| e.into_inner()).take() {
        panic::resume_unwind(payload);
    }
    Ok(result?)
}

/// Reads the function exported to `path`. Every primitive of its graph is resolved here, so a
/// file holding one this MLX build does not know is an `Err` now (MLX's message names it).
pub fn import_function(path: impl AsRef<Path>) -> Result<ImportedFunction> {
    let inner = sys::import_function(path_str(path.as_ref())?)?;
    if inner.is_null() {
        return Err(Error::Mlx("MLX returned no function".into()));
    }
    Ok(ImportedFunction { inner })
}

/// A function read by [`import_function`].
pub struct ImportedFunction {
    // Never null until dropped.
    inner: UniquePtr<sys::ImportedFn>,
}

impl ImportedFunction {
    /// The imported graph on `inputs` (lazy, as any op: evaluate the outputs).
    pub fn call<A: AsRef<Array>>(&self, inputs: &[A]) -> Result<Vec<Array>> {
        let list = ArrayList::from_arrays(inputs);
        ArrayList::wrap(sys::call_imported(&self.inner, list.raw()))?.to_arrays()
    }
}

impl std::fmt::Debug for ImportedFunction {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ImportedFunction")
    }
}

impl Drop for ImportedFunction {
    fn drop(&mut self) {
        let f = std::mem::replace(&mut self.inner, UniquePtr::null());
        if !f.is_null() {
            sys::imported_free(f);
        }
    }
}
