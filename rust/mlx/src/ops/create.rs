//! Arrays made from nothing: ranges, constants, triangles.

use mlx_sys::ffi::ops::ffi as sys;

use crate::{Array, Dtype, Result};

/// start, start + step, ... below `stop` (above it for a negative step), as `dtype`.
pub fn arange(start: f64, stop: f64, step: f64, dtype: Dtype) -> Result<Array> {
    Array::wrap(sys::arange(start, stop, step, dtype.code()))
}

pub fn zeros(shape: &[i32], dtype: Dtype) -> Result<Array> {
    Array::wrap(sys::zeros(shape, dtype.code()))
}

pub fn ones(shape: &[i32], dtype: Dtype) -> Result<Array> {
    Array::wrap(sys::ones(shape, dtype.code()))
}

/// `shape` filled with `value` converted to `dtype`.
pub fn full(shape: &[i32], value: f64, dtype: Dtype) -> Result<Array> {
    let v = Array::scalar_as(value, dtype)?;
    full_array(shape, &v, dtype)
}

/// `vals` broadcast to `shape`, as `dtype`.
pub fn full_array(shape: &[i32], vals: &Array, dtype: Dtype) -> Result<Array> {
    Array::wrap(sys::full(shape, vals.as_raw(), dtype.code()))
}

pub fn zeros_like(a: &Array) -> Result<Array> {
    zeros(&a.shape(), a.dtype())
}

pub fn ones_like(a: &Array) -> Result<Array> {
    ones(&a.shape(), a.dtype())
}

/// n x m with ones on and below diagonal `k`, zeros above.
pub fn tri(n: i32, m: i32, k: i32, dtype: Dtype) -> Result<Array> {
    Array::wrap(sys::tri(n, m, k, dtype.code()))
}

/// Zeros above diagonal `k` of the last two axes.
pub fn tril(a: &Array, k: i32) -> Result<Array> {
    Array::wrap(sys::tril(a.as_raw(), k))
}

/// Zeros below diagonal `k` of the last two axes.
pub fn triu(a: &Array, k: i32) -> Result<Array> {
    Array::wrap(sys::triu(a.as_raw(), k))
}
