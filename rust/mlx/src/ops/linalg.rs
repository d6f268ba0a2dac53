//! Matrix products.

use mlx_sys::ffi::ops::ffi as sys;

use crate::{Array, Result};

/// Matrix product over the last two axes, batch axes broadcast (1-d operands as in NumPy).
pub fn matmul(a: &Array, b: &Array) -> Result<Array> {
    Array::wrap(sys::matmul(a.as_raw(), b.as_raw()))
}

/// beta * c + alpha * (a @ b).
pub fn addmm(c: &Array, a: &Array, b: &Array, alpha: f32, beta: f32) -> Result<Array> {
    Array::wrap(sys::addmm(c.as_raw(), a.as_raw(), b.as_raw(), alpha, beta))
}
