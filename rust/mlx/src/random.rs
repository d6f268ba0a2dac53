//! Random numbers from MLX's counter-based generator. With `key` None the global key
//! sequence is used (see [`seed`]); with a key the result depends only on the key.

use mlx_sys::ffi::random::ffi as sys;

use crate::ops::opt_ptr;
use crate::{Array, Dtype, Result};

/// A key (uint32, shape `[2]`) derived from `seed`.
pub fn key(seed: u64) -> Result<Array> {
    Array::wrap(sys::random_key(seed))
}

/// Re-seeds the global key sequence.
pub fn seed(seed: u64) -> Result<()> {
    Ok(sys::random_seed(seed)?)
}

/// `num` new keys (shape `[num, 2]`) from `key`.
pub fn split(key: &Array, num: i32) -> Result<Array> {
    Array::wrap(sys::random_split(key.as_raw(), num))
}

/// Uniform in [low, high).
pub fn uniform(
    low: f32,
    high: f32,
    shape: &[i32],
    dtype: Dtype,
    key: Option<&Array>,
) -> Result<Array> {
    // SAFETY: the key pointer is null or borrows a live Array for the call.
    Array::wrap(unsafe { sys::random_uniform(low, high, shape, dtype.code(), opt_ptr(key)) })
}

/// Normal with mean `loc` and standard deviation `scale`.
pub fn normal(
    shape: &[i32],
    dtype: Dtype,
    loc: f32,
    scale: f32,
    key: Option<&Array>,
) -> Result<Array> {
    // SAFETY: as in uniform.
    Array::wrap(unsafe { sys::random_normal(shape, dtype.code(), loc, scale, opt_ptr(key)) })
}

/// Integers uniform in [low, high).
pub fn randint(
    low: i64,
    high: i64,
    shape: &[i32],
    dtype: Dtype,
    key: Option<&Array>,
) -> Result<Array> {
    // SAFETY: as in uniform.
    Array::wrap(unsafe { sys::random_randint(low, high, shape, dtype.code(), opt_ptr(key)) })
}

/// True with probability `p` (broadcast to `shape`).
pub fn bernoulli(p: &Array, shape: &[i32], key: Option<&Array>) -> Result<Array> {
    // SAFETY: as in uniform.
    Array::wrap(unsafe { sys::random_bernoulli(p.as_raw(), shape, opt_ptr(key)) })
}

/// One index per distribution, drawn with probabilities softmax(logits) along `axis`.
pub fn categorical(logits: &Array, axis: i32, key: Option<&Array>) -> Result<Array> {
    // SAFETY: as in uniform.
    Array::wrap(unsafe { sys::random_categorical(logits.as_raw(), axis, -1, opt_ptr(key)) })
}

/// `num_samples` indices per distribution (a new last axis).
pub fn categorical_n(
    logits: &Array,
    axis: i32,
    num_samples: i32,
    key: Option<&Array>,
) -> Result<Array> {
    if num_samples < 0 {
        return Err(crate::Error::InvalidArgument(format!(
            "num_samples {num_samples} is negative"
        )));
    }
    // SAFETY: as in uniform.
    Array::wrap(unsafe {
        sys::random_categorical(logits.as_raw(), axis, num_samples, opt_ptr(key))
    })
}
