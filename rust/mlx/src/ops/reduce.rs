//! Softmax and cumulative sums (reductions and arg-reductions come from the op table,
//! `table.rs`).
//!
//! mlx-rs's names: `f(a, keepdims)` reduces every axis, `f_axes(a, axes, keepdims)` the listed
//! axes, `f_axis(a, axis, keepdims)` one axis.

use mlx_sys::ffi::ops::ffi as sys;

use crate::{Array, Result};

/// exp(a - max) / sum(exp(a - max)) over `axes`. With `precise`, half-precision inputs are
/// accumulated in float32.
pub fn softmax_axes(a: &Array, axes: &[i32], precise: bool) -> Result<Array> {
    Array::wrap(sys::softmax(a.as_raw(), axes, false, precise))
}

/// Softmax over all axes.
pub fn softmax(a: &Array, precise: bool) -> Result<Array> {
    Array::wrap(sys::softmax(a.as_raw(), &[], true, precise))
}

/// Running sum along `axis`; `reverse` runs from the end, `inclusive` includes the element.
pub fn cumsum(a: &Array, axis: i32, reverse: bool, inclusive: bool) -> Result<Array> {
    Array::wrap(sys::cumsum(a.as_raw(), axis, reverse, inclusive))
}
