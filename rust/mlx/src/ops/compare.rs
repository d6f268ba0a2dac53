//! Whole-array equality and `where` (comparisons, logic and NaN/inf tests come from the op
//! table, `table.rs`).

use mlx_sys::ffi::ops::ffi as sys;

use crate::{Array, Result};

/// A 0-d bool array: same shape and equal values (NaN equals NaN if `equal_nan`).
pub fn array_equal(a: &Array, b: &Array, equal_nan: bool) -> Result<Array> {
    Array::wrap(sys::array_equal(a.as_raw(), b.as_raw(), equal_nan))
}

/// MLX's `where`: `x` where `cond` is true, else `y` (all three broadcast together).
pub fn where_(cond: &Array, x: &Array, y: &Array) -> Result<Array> {
    Array::wrap(sys::where_(cond.as_raw(), x.as_raw(), y.as_raw()))
}
