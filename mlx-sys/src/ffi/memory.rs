//! MLX allocator statistics and limits (`mlx/memory.h`), in bytes.

#[cxx::bridge(namespace = "mlx_sys")]
pub mod ffi {
    unsafe extern "C++" {
        include!("shim_memory.h");

        fn get_active_memory() -> usize;
        fn get_peak_memory() -> usize;
        fn reset_peak_memory();
        fn get_cache_memory() -> usize;
        /// Returns the previous limit.
        fn set_memory_limit(limit: usize) -> Result<usize>;
        fn get_memory_limit() -> usize;
        /// Returns the previous limit.
        fn set_cache_limit(limit: usize) -> Result<usize>;
        fn clear_cache();
    }
}
