//! Gathering and scattering by index arrays.

use mlx_sys::ffi::ops::ffi as sys;

use crate::{Array, Result};

/// Entries of `a` at `indices` along `axis` (the axis is replaced by the indices' shape).
pub fn take(a: &Array, indices: &Array, axis: i32) -> Result<Array> {
    Array::wrap(sys::take(a.as_raw(), indices.as_raw(), axis))
}

/// Entries of the flattened `a` at `indices`.
pub fn take_flat(a: &Array, indices: &Array) -> Result<Array> {
    Array::wrap(sys::take_flat(a.as_raw(), indices.as_raw()))
}

/// `a[..., indices[...], ...]` pairing each index with its position along the other axes.
pub fn take_along_axis(a: &Array, indices: &Array, axis: i32) -> Result<Array> {
    Array::wrap(sys::take_along_axis(a.as_raw(), indices.as_raw(), axis))
}

/// A copy of `a` with `values` written at `indices` along `axis`.
pub fn put_along_axis(a: &Array, indices: &Array, values: &Array, axis: i32) -> Result<Array> {
    Array::wrap(sys::put_along_axis(a.as_raw(), indices.as_raw(), values.as_raw(), axis))
}
