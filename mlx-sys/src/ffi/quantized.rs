//! Quantization: quantize, dequantize, quantized_matmul, gather_qmm, gather_mm.
//!
//! Optional arrays are nullable raw pointers (null = not given), hence `unsafe fn`: the
//! caller guarantees each non-null pointer refers to a live `array` for the call.

#[allow(clippy::missing_safety_doc, clippy::too_many_arguments)] // Safety: see the module docs.
#[cxx::bridge(namespace = "mlx_sys")]
pub mod ffi {
    unsafe extern "C++" {
        include!("shim_quantized.h");

        #[namespace = "mlx::core"]
        type array = crate::ffi::array::ffi::array;

        type OptionalInt = super::OptionalInt;

        /// Returns `[w_q, scales]` or `[w_q, scales, biases]` (affine).
        unsafe fn quantize(
            w: &array,
            group_size: OptionalInt,
            bits: OptionalInt,
            mode: &str,
            global_scale: *const array,
        ) -> Result<UniquePtr<CxxVector<array>>>;
        /// `dtype < 0` lets MLX choose the output dtype.
        unsafe fn dequantize(
            w: &array,
            scales: &array,
            biases: *const array,
            group_size: OptionalInt,
            bits: OptionalInt,
            mode: &str,
            global_scale: *const array,
            dtype: i32,
        ) -> Result<UniquePtr<array>>;
        unsafe fn quantized_matmul(
            x: &array,
            w: &array,
            scales: &array,
            biases: *const array,
            transpose: bool,
            group_size: OptionalInt,
            bits: OptionalInt,
            mode: &str,
        ) -> Result<UniquePtr<array>>;
        unsafe fn gather_qmm(
            x: &array,
            w: &array,
            scales: &array,
            biases: *const array,
            lhs_indices: *const array,
            rhs_indices: *const array,
            transpose: bool,
            group_size: OptionalInt,
            bits: OptionalInt,
            mode: &str,
            global_scale: *const array,
            sorted_indices: bool,
        ) -> Result<UniquePtr<array>>;
        unsafe fn gather_mm(
            a: &array,
            b: &array,
            lhs_indices: *const array,
            rhs_indices: *const array,
            sorted_indices: bool,
        ) -> Result<UniquePtr<array>>;
    }
}

/// `std::optional<int>` across the bridge (same layout as `mlx_sys::OptionalInt` in C++).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct OptionalInt {
    pub present: bool,
    pub value: i32,
}

// SAFETY: shim_quantized.h defines `mlx_sys::OptionalInt` as { bool; int32_t; }, plain data
// with the same layout as this #[repr(C)] struct.
unsafe impl cxx::ExternType for OptionalInt {
    type Id = cxx::type_id!("mlx_sys::OptionalInt");
    type Kind = cxx::kind::Trivial;
}

impl OptionalInt {
    pub fn from_option(v: Option<i32>) -> Self {
        match v {
            Some(value) => Self { present: true, value },
            None => Self { present: false, value: 0 },
        }
    }
}
