//! Which MLX this process runs and what backend it has.
//!
//! ```
//! let lib = mlx::backend::library_path()?; // this executable (static build) or libmlx.so
//! assert!(lib.is_file());
//! if !mlx::backend::gpu_available()? {
//!     assert!(mlx::backend::gpu_device_info(0).is_err()); // CPU-only build: no GPU
//! }
//! # Ok::<(), mlx::Error>(())
//! ```

use std::path::PathBuf;

use mlx_sys::ffi::backend::ffi as sys;

use crate::Result;

/// The file that holds MLX's code in this process (absolute, symlinks resolved): the executable
/// for a static build, `libmlx.so` (`.dylib` on macOS) for a shared one. Found with `dladdr`.
pub fn library_path() -> Result<PathBuf> {
    Ok(PathBuf::from(sys::mlx_library_path()?))
}

/// Whether this MLX has a GPU backend with a usable device (CUDA or Metal builds).
pub fn gpu_available() -> Result<bool> {
    Ok(sys::gpu_is_available()?)
}

/// Number of GPUs MLX can use (0 for a CPU-only build).
pub fn gpu_device_count() -> Result<usize> {
    Ok(usize::try_from(sys::gpu_device_count()?).unwrap_or(0))
}

/// MLX's description of GPU `index` (`mlx::core::gpu::device_info`), every value as text,
/// sorted by key. CUDA reports `device_name`, `architecture` (`sm_90`), `total_memory`,
/// `free_memory` (bytes), `compute_capability_major` / `_minor`, `uuid`, `pci_bus_id`; Metal
/// its own set. An error, with MLX's message, when the build has no GPU or no such device.
pub fn gpu_device_info(index: usize) -> Result<Vec<(String, String)>> {
    let index = i32::try_from(index)
        .map_err(|_| crate::Error::InvalidArgument(format!("GPU index {index} is out of range")))?;
    let (mut keys, mut values) = (Vec::new(), Vec::new());
    sys::gpu_device_info(index, &mut keys, &mut values)?;
    Ok(keys.into_iter().zip(values).collect())
}

/// Checks that a shared `libmlx` loaded at run time is a build of the patches this program was
/// compiled for: the `PATCHES` file of its install prefix (`<prefix>/lib/libmlx.so`,
/// `<prefix>/PATCHES`, written by mlx-sys and by scripts/gpu/run) must list exactly
/// [`mlx_sys::build_info::PATCHES`]. A static build holds its MLX itself and always passes.
pub fn check_loaded_build() -> Result<()> {
    if !mlx_sys::build_info::SHARED {
        return Ok(());
    }
    let library = library_path()?;
    let file = library.parent().and_then(std::path::Path::parent).map(|p| p.join("PATCHES"));
    let invalid = |why: String| {
        crate::Error::InvalidArgument(format!("the loaded {}: {why}", library.display()))
    };
    let file = file.ok_or_else(|| invalid("not inside an install prefix".into()))?;
    let text = std::fs::read_to_string(&file)
        .map_err(|e| invalid(format!("{}: {e} (not a build of this project?)", file.display())))?;
    let loaded: Vec<&str> = text.lines().map(str::trim).filter(|l| !l.is_empty()).collect();
    if loaded != mlx_sys::build_info::PATCHES {
        return Err(invalid(format!(
            "built with patches {loaded:?}, but this program was compiled for {:?}",
            mlx_sys::build_info::PATCHES
        )));
    }
    Ok(())
}
