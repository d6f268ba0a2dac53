//! `mlx::core::fast::causal_softmax`, which the fused-causal-softmax patch adds: softmax over
//! the last axis with the causal mask of the last two axes (query i sees keys
//! `j <= i + L_kv - L_q`), equal to `softmax(where(mask, scores, finfo.min), -1, precise)`
//! without materializing the mask.

#[cxx::bridge(namespace = "mlx_ext")]
pub mod ffi {
    unsafe extern "C++" {
        include!("fused_causal_softmax.h");

        #[namespace = "mlx::core"]
        type array = mlx_sys::ffi::array::ffi::array;

        /// Errors (MLX's message) for fewer than 2 dimensions or a non-float dtype.
        fn causal_softmax(scores: &array, precise: bool) -> Result<UniquePtr<array>>;

        /// True while `a` is an unevaluated output of the fused `CausalSoftmax` primitive.
        fn is_fused_causal_softmax(a: &array) -> bool;
    }
}
