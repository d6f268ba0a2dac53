//! `mlx::core::fast`: rms_norm, layer_norm, rope and scaled_dot_product_attention.
//!
//! Optional arrays are nullable raw pointers (null = not given), hence `unsafe fn`: the
//! caller guarantees each non-null pointer refers to a live `array` for the call.

#[allow(clippy::missing_safety_doc, clippy::too_many_arguments)] // Safety: see the module docs.
#[cxx::bridge(namespace = "mlx_sys")]
pub mod ffi {
    unsafe extern "C++" {
        include!("shim_fast.h");

        #[namespace = "mlx::core"]
        type array = crate::ffi::array::ffi::array;

        unsafe fn rms_norm(x: &array, weight: *const array, eps: f32) -> Result<UniquePtr<array>>;
        unsafe fn layer_norm(
            x: &array,
            weight: *const array,
            bias: *const array,
            eps: f32,
        ) -> Result<UniquePtr<array>>;
        /// `has_base == false` passes no base (then `freqs` must be given).
        unsafe fn rope(
            x: &array,
            dims: i32,
            traditional: bool,
            has_base: bool,
            base: f32,
            scale: f32,
            offset: i32,
            freqs: *const array,
        ) -> Result<UniquePtr<array>>;
        unsafe fn rope_offset_array(
            x: &array,
            dims: i32,
            traditional: bool,
            has_base: bool,
            base: f32,
            scale: f32,
            offset: &array,
            freqs: *const array,
        ) -> Result<UniquePtr<array>>;
        /// `mask_mode` is "", "causal" or "array" (then `mask` must be non-null), as in MLX.
        unsafe fn scaled_dot_product_attention(
            queries: &array,
            keys: &array,
            values: &array,
            scale: f32,
            mask_mode: &str,
            mask: *const array,
            sinks: *const array,
        ) -> Result<UniquePtr<array>>;
    }
}
