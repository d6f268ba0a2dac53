//! This project's own C++ beside MLX. Modules named after a patch id exist only in builds with
//! that patch (`cfg(mlx_patch = "ID")`, from the patches mlx-sys applied), because they call
//! what the patch adds to MLX; those under [`ffi`] exist in every build.

#[cfg(mlx_patch = "fused-causal-softmax")]
pub mod fused_causal_softmax;

/// Bindings that need no patch.
pub mod ffi {
    pub mod bench_graphs;
    pub mod gate;
    pub mod sanitizer_probe;
    pub mod thread_stress;
}
