//! Quantized weights: quantize/dequantize and the matmuls that read quantized weights.

use std::fmt;
use std::str::FromStr;

use mlx_sys::ffi::quantized::{ffi as sys, OptionalInt};

use crate::array_list::ArrayList;
use crate::ops::opt_ptr;
use crate::{Array, Dtype, Error, Result};

/// MLX's quantization modes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum QuantMode {
    /// Per-group scale and bias (w = scale * q + bias); 2..8 bits, groups of 32/64/128.
    #[default]
    Affine,
    /// OCP MX 4-bit float with shared 8-bit exponent scales (group 32).
    Mxfp4,
    /// OCP MX 8-bit float (group 32).
    Mxfp8,
    /// NVIDIA 4-bit float with fp8 scales (group 16).
    Nvfp4,
}

impl QuantMode {
    /// MLX's name of the mode.
    pub fn as_str(self) -> &'static str {
        match self {
            QuantMode::Affine => "affine",
            QuantMode::Mxfp4 => "mxfp4",
            QuantMode::Mxfp8 => "mxfp8",
            QuantMode::Nvfp4 => "nvfp4",
        }
    }
}

impl fmt::Display for QuantMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for QuantMode {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        match s {
            "affine" => Ok(QuantMode::Affine),
            "mxfp4" => Ok(QuantMode::Mxfp4),
            "mxfp8" => Ok(QuantMode::Mxfp8),
            "nvfp4" => Ok(QuantMode::Nvfp4),
            _ => Err(Error::InvalidArgument(format!("unknown quantization mode {s:?}"))),
        }
    }
}

/// Group size, bits and mode; `None` takes MLX's default for the mode (affine: 64 and 4).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct QuantParams {
    pub group_size: Option<i32>,
    pub bits: Option<i32>,
    pub mode: QuantMode,
}

impl QuantParams {
    /// Affine with the given group size and bits.
    pub fn affine(group_size: i32, bits: i32) -> Self {
        QuantParams { group_size: Some(group_size), bits: Some(bits), mode: QuantMode::Affine }
    }

    /// Refuses a group size or bit width below 1: MLX v0.32.4 divides by them before its own
    /// checks (a group size of 0 is a SIGFPE in `quantize`).
    fn raw(&self) -> Result<(OptionalInt, OptionalInt, &'static str)> {
        for (what, value) in [("group size", self.group_size), ("bits", self.bits)] {
            if let Some(v) = value.filter(|&v| v < 1) {
                return Err(Error::InvalidArgument(format!(
                    "quantization {what} {v} is not positive"
                )));
            }
        }
        Ok((
            OptionalInt::from_option(self.group_size),
            OptionalInt::from_option(self.bits),
            self.mode.as_str(),
        ))
    }
}

/// A matrix quantized along its last axis.
#[derive(Debug, Clone)]
pub struct Quantized {
    /// Packed values (uint32).
    pub weights: Array,
    pub scales: Array,
    /// Affine mode only.
    pub biases: Option<Array>,
}

/// Quantizes `w` along its last axis.
pub fn quantize(w: &Array, params: QuantParams) -> Result<Quantized> {
    let (g, b, mode) = params.raw()?;
    // SAFETY: null global scale.
    let list = ArrayList::wrap(unsafe { sys::quantize(w.as_raw(), g, b, mode, std::ptr::null()) })?;
    let mut parts = list.to_arrays()?.into_iter();
    let (Some(weights), Some(scales)) = (parts.next(), parts.next()) else {
        return Err(Error::Mlx("quantize returned fewer than two arrays".into()));
    };
    Ok(Quantized { weights, scales, biases: parts.next() })
}

/// The floats that `weights`, `scales` and `biases` stand for; `dtype` None lets MLX choose
/// (the scales' dtype).
pub fn dequantize(
    weights: &Array,
    scales: &Array,
    biases: Option<&Array>,
    params: QuantParams,
    dtype: Option<Dtype>,
) -> Result<Array> {
    let (g, b, mode) = params.raw()?;
    let code = dtype.map_or(-1, |d| i32::from(d.code()));
    // SAFETY: pointers are null or borrow live arrays for the call.
    Array::wrap(unsafe {
        sys::dequantize(
            weights.as_raw(),
            scales.as_raw(),
            opt_ptr(biases),
            g,
            b,
            mode,
            std::ptr::null(),
            code,
        )
    })
}

/// x @ dequantize(w)^T (`transpose`) or x @ dequantize(w), without materializing w.
pub fn quantized_matmul(
    x: &Array,
    w: &Array,
    scales: &Array,
    biases: Option<&Array>,
    transpose: bool,
    params: QuantParams,
) -> Result<Array> {
    let (g, b, mode) = params.raw()?;
    // SAFETY: pointers are null or borrow live arrays for the call.
    Array::wrap(unsafe {
        sys::quantized_matmul(
            x.as_raw(),
            w.as_raw(),
            scales.as_raw(),
            opt_ptr(biases),
            transpose,
            g,
            b,
            mode,
        )
    })
}

/// Batched quantized matmul with gathered operands: output entry i multiplies
/// `x[lhs_indices[i]]` with matrix `w[rhs_indices[i]]` (the MoE expert product).
/// Absent indices mean the identity over the batch. `sorted_indices` promises that
/// `rhs_indices` is sorted, which lets MLX group rows by matrix.
#[allow(clippy::too_many_arguments)]
pub fn gather_qmm(
    x: &Array,
    w: &Array,
    scales: &Array,
    biases: Option<&Array>,
    lhs_indices: Option<&Array>,
    rhs_indices: Option<&Array>,
    transpose: bool,
    params: QuantParams,
    sorted_indices: bool,
) -> Result<Array> {
    let (g, b, mode) = params.raw()?;
    // SAFETY: pointers are null or borrow live arrays for the call.
    Array::wrap(unsafe {
        sys::gather_qmm(
            x.as_raw(),
            w.as_raw(),
            scales.as_raw(),
            opt_ptr(biases),
            opt_ptr(lhs_indices),
            opt_ptr(rhs_indices),
            transpose,
            g,
            b,
            mode,
            std::ptr::null(),
            sorted_indices,
        )
    })
}

/// Batched matmul with gathered operands: `a[lhs_indices[i]] @ b[rhs_indices[i]]`.
pub fn gather_mm(
    a: &Array,
    b: &Array,
    lhs_indices: Option<&Array>,
    rhs_indices: Option<&Array>,
    sorted_indices: bool,
) -> Result<Array> {
    // SAFETY: pointers are null or borrow live arrays for the call.
    Array::wrap(unsafe {
        sys::gather_mm(
            a.as_raw(),
            b.as_raw(),
            opt_ptr(lhs_indices),
            opt_ptr(rhs_indices),
            sorted_indices,
        )
    })
}
