//! Raw cxx bridge over MLX's C++ API (`mlx::core`), plus what this build of MLX is.
//!
//! One bridge module per C++ surface under [`ffi`]; the C++ side is the small shim in `cpp/`.
//! Every call that can throw returns `Result<_, cxx::Exception>` carrying MLX's message.
//!
//! Contract for users of this raw layer (the safe crate `mlx` follows it; so must `mlx-ext`):
//! every shim call holds one process-wide recursive mutex (`mlx_sys::api_mutex()` in
//! `cpp/shim_common.h`) while it touches MLX graph nodes, which MLX mutates without locking;
//! evaluation holds it for the graph walk but not while kernels run (`eval_then_wait`).
//! Code calling MLX directly from C++ must hold that mutex too, and handles should be dropped
//! with [`ffi::array::ffi::array_free`] / [`ffi::array::ffi::array_vec_free`], which take it.
//!
//! Other crates' bridges can name the array type as
//! `type array = mlx_sys::ffi::array::ffi::array;` (with `#[namespace = "mlx::core"]`).

pub mod build_info;

/// The cxx bridges, one module per C++ surface.
pub mod ffi {
    pub mod array;
    pub mod backend;
    pub mod export;
    pub mod fast;
    pub mod io;
    pub mod memory;
    pub mod ops;
    pub mod quantized;
    pub mod random;
    pub mod stream;
}

pub use ffi::array::ffi::array;

/// MLX's version string as reported by the linked library (`mlx::core::version()`).
pub fn mlx_version() -> String {
    ffi::array::ffi::mlx_version()
}
