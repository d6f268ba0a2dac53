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

/// What the install prefix of a shared `libmlx` says was built into it (files written by
/// mlx-build: `<prefix>/lib/libmlx.so`, `<prefix>/PATCHES`, `<prefix>/SERIES`,
/// `<prefix>/BUILD_SPEC.txt`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoadedInstall {
    /// The loaded library ([`library_path`]).
    pub library: PathBuf,
    /// Series patch ids, one per line of `PATCHES`.
    pub patches: Vec<String>,
    /// `sha256  file` of every patch file applied, series then extra ones (`SERIES`); empty
    /// where the install has no `SERIES`.
    pub files: Vec<String>,
    /// The key of the build that made this library: its build spec's key line, or, for an
    /// install whose spec has none (written before the key was), this program's own build key
    /// where the library is the one it was built with. `None`: unknown. A program may load
    /// another install's library (same patch ids, other extra patches or another backend), so
    /// its own key is not taken for that one's.
    pub build_key: Option<String>,
}

impl LoadedInstall {
    /// The lines of `files` past the series' own: the extra patch files (an experiment built
    /// on top of the series, e.g. with `mlx-build build --extra-patch`).
    pub fn extra_files(&self) -> &[String] {
        self.files.get(self.patches.len()..).unwrap_or_default()
    }
}

/// The install a shared `libmlx` was loaded from; `None` for a static build, which holds its
/// MLX itself. An error when the library is not inside an install with a `PATCHES` file.
pub fn loaded_install() -> Result<Option<LoadedInstall>> {
    if !mlx_sys::build_info::SHARED {
        return Ok(None);
    }
    let library = library_path()?;
    let invalid = |why: String| {
        crate::Error::InvalidArgument(format!("the loaded {}: {why}", library.display()))
    };
    let prefix = library
        .parent()
        .and_then(std::path::Path::parent)
        .ok_or_else(|| invalid("not inside an install prefix".into()))?;
    let lines = |text: String| -> Vec<String> {
        text.lines().map(str::trim).filter(|l| !l.is_empty()).map(String::from).collect()
    };
    use mlx_sys::build_info::{BUILD_DIR, BUILD_KEY, PATCHES_FILE, SERIES_FILE, SPEC_FILE};
    let file = prefix.join(PATCHES_FILE);
    let patches = std::fs::read_to_string(&file)
        .map_err(|e| invalid(format!("{}: {e} (not a build of this project?)", file.display())))?;
    let files = std::fs::read_to_string(prefix.join(SERIES_FILE)).map(lines).unwrap_or_default();
    let spec = std::fs::read_to_string(prefix.join(SPEC_FILE)).unwrap_or_default();
    let own_build = || std::fs::canonicalize(BUILD_DIR).is_ok_and(|own| own == prefix);
    let build_key = spec_key(&spec).or_else(|| own_build().then(|| BUILD_KEY.to_string()));
    Ok(Some(LoadedInstall { library, patches: lines(patches), files, build_key }))
}

/// The key line of a build spec (`BUILD_SPEC.txt`).
fn spec_key(spec: &str) -> Option<String> {
    spec.lines()
        .find_map(|l| l.strip_prefix(mlx_sys::build_info::SPEC_KEY_PREFIX))
        .map(String::from)
}

/// Checks that a shared `libmlx` loaded at run time is a build of the patches this program was
/// compiled for: its install's `PATCHES` ([`loaded_install`]) must list exactly
/// [`mlx_sys::build_info::PATCHES`]. A static build holds its MLX itself and always passes.
pub fn check_loaded_build() -> Result<()> {
    let Some(install) = loaded_install()? else { return Ok(()) };
    if install.patches != mlx_sys::build_info::PATCHES {
        return Err(crate::Error::InvalidArgument(format!(
            "the loaded {}: built with patches {:?}, but this program was compiled for {:?}",
            install.library.display(),
            install.patches,
            mlx_sys::build_info::PATCHES
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::LoadedInstall;

    #[test]
    fn extra_files_are_the_series_lines_past_the_series() {
        let install = |patches: &[&str], files: &[&str]| LoadedInstall {
            library: "/prefix/lib/libmlx.so".into(),
            patches: patches.iter().map(|s| s.to_string()).collect(),
            files: files.iter().map(|s| s.to_string()).collect(),
            build_key: None,
        };
        let stock_and_experiment = install(&[], &["ab12  experiment.patch"]);
        assert_eq!(stock_and_experiment.extra_files(), ["ab12  experiment.patch"]);
        let series_only =
            install(&["fused-causal-softmax"], &["cd34  0002-fused-causal-softmax.patch"]);
        assert!(series_only.extra_files().is_empty());
        // An install without SERIES: nothing is known beyond PATCHES.
        assert!(install(&["fused-causal-softmax"], &[]).extra_files().is_empty());
    }

    #[test]
    fn the_build_key_is_the_spec_files_key_line() {
        let spec = "format: mlx-build v2\npatches:\n0001-a.patch\nflags: x\nkey: ab12\n";
        assert_eq!(super::spec_key(spec).as_deref(), Some("ab12"));
        assert_eq!(super::spec_key("format: mlx-build v2\nflags: x\n"), None);
    }
}
