//! Which MLX this process runs and its backend: the file holding MLX's code (the executable
//! for a static build, `libmlx.so` for a shared one) and the GPU, if the build has one
//! (`mlx/backend/gpu/device_info.h`).

#[cxx::bridge(namespace = "mlx_sys")]
pub mod ffi {
    unsafe extern "C++" {
        include!("shim_backend.h");

        /// Absolute, symlink-free path of the object holding MLX's code (dladdr).
        fn mlx_library_path() -> Result<String>;
        /// `mlx::core::gpu::is_available()`.
        fn gpu_is_available() -> Result<bool>;
        /// `mlx::core::gpu::device_count()`, 0 without a GPU backend.
        fn gpu_device_count() -> Result<i32>;
        /// `mlx::core::gpu::device_info(index)` with every value as text, sorted by key.
        /// Throws without a GPU backend or for an index out of range.
        fn gpu_device_info(
            index: i32,
            keys: &mut Vec<String>,
            values: &mut Vec<String>,
        ) -> Result<()>;
    }
}
