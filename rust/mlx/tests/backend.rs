//! Backend facts on this (CPU-only) build: where MLX's code lives, and no GPU.

use std::path::Path;

#[test]
fn library_path_is_a_real_file_holding_mlx() {
    let path = mlx::backend::library_path().unwrap();
    assert!(path.is_absolute(), "{}", path.display());
    assert!(path.is_file(), "{} is not a file", path.display());
    assert_eq!(path, path.canonicalize().unwrap(), "symlinks resolved");
    let exe = std::env::current_exe().unwrap().canonicalize().unwrap();
    let name = path.file_name().unwrap().to_string_lossy().into_owned();
    if name.starts_with("libmlx") {
        // A shared build: the library is not this test binary.
        assert_ne!(path, exe);
    } else {
        // A static build: MLX is linked into this very executable.
        assert_eq!(path, exe);
    }
    // The file really contains MLX: its version string is in there.
    let bytes = std::fs::read(Path::new(&path)).unwrap();
    let version = mlx::build_info().mlx_version;
    assert!(bytes.windows(version.len()).any(|w| w == version.as_bytes()));
}

/// A shared build's install names the patches the library was built with, the same as this
/// program's; a static build has no install to read.
#[test]
fn loaded_install_is_this_builds() {
    let install = mlx::backend::loaded_install().unwrap();
    assert_eq!(install.is_some(), mlx_sys::build_info::SHARED);
    if let Some(install) = install {
        assert_eq!(install.patches, mlx_sys::build_info::PATCHES);
        assert_eq!(install.extra_files().len(), mlx_sys::build_info::EXTRA_PATCHES.len());
        // This test loads the library it was built with: its key is this build's.
        assert_eq!(install.build_key.as_deref(), Some(mlx_sys::build_info::BUILD_KEY));
    }
    mlx::backend::check_loaded_build().unwrap();
}

/// Whether this MLX was built with a GPU backend (CUDA or Metal), from the cmake flags that
/// mlx-sys records next to the build.
fn gpu_build() -> bool {
    let spec = std::fs::read_to_string(
        Path::new(mlx_sys::build_info::BUILD_DIR).join(mlx_sys::build_info::SPEC_FILE),
    )
    .unwrap_or_default();
    cfg!(target_os = "macos")
        || spec.contains("MLX_BUILD_CUDA=ON")
        || spec.contains("MLX_BUILD_METAL=ON")
}

#[test]
fn cpu_build_has_no_gpu() {
    if gpu_build() {
        // A GPU build: device info exists exactly when a GPU does.
        let available = mlx::backend::gpu_available().unwrap();
        assert_eq!(mlx::backend::gpu_device_info(0).is_ok(), available);
        return;
    }
    assert!(!mlx::backend::gpu_available().unwrap());
    assert_eq!(mlx::backend::gpu_device_count().unwrap(), 0);
    assert!(!mlx::Device::gpu(0).is_available());
}

#[test]
fn gpu_device_info_without_a_gpu_is_an_error_not_an_abort() {
    if gpu_build() {
        return;
    }
    let error = mlx::backend::gpu_device_info(0).unwrap_err();
    let message = error.mlx_message().expect("MLX's message").to_string();
    assert!(message.contains("no GPU"), "{message}");
    assert!(mlx::backend::gpu_device_info(usize::MAX).is_err());
    // Still usable afterwards.
    assert!(mlx::backend::library_path().is_ok());
}
