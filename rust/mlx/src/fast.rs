//! MLX's fused ops (`mlx::core::fast`): normalization, rotary embedding, attention.

use mlx_sys::ffi::fast::ffi as sys;

use crate::ops::opt_ptr;
use crate::{Array, Result};

/// x / sqrt(mean(x^2, last axis) + eps) * weight (weight over the last axis, optional).
pub fn rms_norm(x: &Array, weight: Option<&Array>, eps: f32) -> Result<Array> {
    // SAFETY: the pointer is null or borrows a live Array for the call.
    Array::wrap(unsafe { sys::rms_norm(x.as_raw(), opt_ptr(weight), eps) })
}

/// (x - mean) / sqrt(var + eps) * weight + bias over the last axis.
pub fn layer_norm(
    x: &Array,
    weight: Option<&Array>,
    bias: Option<&Array>,
    eps: f32,
) -> Result<Array> {
    // SAFETY: as in rms_norm.
    Array::wrap(unsafe { sys::layer_norm(x.as_raw(), opt_ptr(weight), opt_ptr(bias), eps) })
}

/// Rotary position embedding of the first `dims` features of the last axis, positions
/// `offset, offset + 1, ...` along the second-to-last axis.
///
/// `traditional` rotates adjacent pairs (else the two halves); frequencies are
/// `base^(-2i/dims)` or the given `freqs` (give exactly one of `base` and `freqs`).
pub fn rope(
    x: &Array,
    dims: i32,
    traditional: bool,
    base: Option<f32>,
    scale: f32,
    offset: i32,
    freqs: Option<&Array>,
) -> Result<Array> {
    // SAFETY: as in rms_norm.
    Array::wrap(unsafe {
        sys::rope(
            x.as_raw(),
            dims,
            traditional,
            base.is_some(),
            base.unwrap_or(0.0),
            scale,
            offset,
            opt_ptr(freqs),
        )
    })
}

/// [`rope`] with the offset as an integer array (a scalar, or one per batch entry).
pub fn rope_with_offsets(
    x: &Array,
    dims: i32,
    traditional: bool,
    base: Option<f32>,
    scale: f32,
    offset: &Array,
    freqs: Option<&Array>,
) -> Result<Array> {
    // SAFETY: as in rms_norm.
    Array::wrap(unsafe {
        sys::rope_offset_array(
            x.as_raw(),
            dims,
            traditional,
            base.is_some(),
            base.unwrap_or(0.0),
            scale,
            offset.as_raw(),
            opt_ptr(freqs),
        )
    })
}

/// The mask of [`scaled_dot_product_attention`].
#[derive(Debug, Clone, Copy, Default)]
pub enum AttentionMask<'a> {
    /// Every query sees every key.
    #[default]
    None,
    /// Query i sees keys up to i + (keys - queries) (bottom-right aligned).
    Causal,
    /// Boolean (true = keep) or additive mask, broadcastable to the scores.
    Array(&'a Array),
}

/// softmax(scale * q @ k^T + mask) @ v with q `[B, Hq, Lq, D]`, k/v `[B, Hkv, Lkv, D]`
/// (Hq a multiple of Hkv). `sinks`, if given, adds one per-head logit to each softmax row.
pub fn scaled_dot_product_attention(
    queries: &Array,
    keys: &Array,
    values: &Array,
    scale: f32,
    mask: AttentionMask<'_>,
    sinks: Option<&Array>,
) -> Result<Array> {
    let (mode, mask_arr) = match mask {
        AttentionMask::None => ("", None),
        AttentionMask::Causal => ("causal", None),
        AttentionMask::Array(m) => ("array", Some(m)),
    };
    // SAFETY: as in rms_norm.
    Array::wrap(unsafe {
        sys::scaled_dot_product_attention(
            queries.as_raw(),
            keys.as_raw(),
            values.as_raw(),
            scale,
            mode,
            opt_ptr(mask_arr),
            opt_ptr(sinks),
        )
    })
}
