//! Shape and layout: reshape, transposes, slicing, joining and splitting.

use mlx_sys::ffi::ops::ffi as sys;

use crate::array_list::ArrayList;
use crate::{Array, Error, Result};

/// Same elements in `shape`; one dimension may be -1 (inferred).
pub fn reshape(a: &Array, shape: &[i32]) -> Result<Array> {
    Array::wrap(sys::reshape(a.as_raw(), shape))
}

/// Reverses the axes.
pub fn transpose(a: &Array) -> Result<Array> {
    Array::wrap(sys::transpose(a.as_raw()))
}

/// Permutes the axes: output axis i is input axis `axes[i]`.
pub fn transpose_axes(a: &Array, axes: &[i32]) -> Result<Array> {
    Array::wrap(sys::transpose_axes(a.as_raw(), axes))
}

pub fn swapaxes(a: &Array, axis1: i32, axis2: i32) -> Result<Array> {
    Array::wrap(sys::swapaxes(a.as_raw(), axis1, axis2))
}

pub fn moveaxis(a: &Array, source: i32, destination: i32) -> Result<Array> {
    Array::wrap(sys::moveaxis(a.as_raw(), source, destination))
}

/// Inserts size-1 axes at `axes` (positions in the output).
pub fn expand_dims(a: &Array, axes: &[i32]) -> Result<Array> {
    Array::wrap(sys::expand_dims(a.as_raw(), axes))
}

/// Removes the size-1 `axes`.
pub fn squeeze_axes(a: &Array, axes: &[i32]) -> Result<Array> {
    Array::wrap(sys::squeeze(a.as_raw(), axes, false))
}

/// Removes every size-1 axis.
pub fn squeeze(a: &Array) -> Result<Array> {
    Array::wrap(sys::squeeze(a.as_raw(), &[], true))
}

/// Merges axes `start_axis..=end_axis` into one.
pub fn flatten(a: &Array, start_axis: i32, end_axis: i32) -> Result<Array> {
    Array::wrap(sys::flatten(a.as_raw(), start_axis, end_axis))
}

/// Splits `axis` into `shape` (one entry may be -1).
pub fn unflatten(a: &Array, axis: i32, shape: &[i32]) -> Result<Array> {
    // MLX v0.32.4 infers the -1 by dividing by the other entries' product: 0 is a SIGFPE.
    if shape.contains(&-1) && shape.contains(&0) {
        return Err(Error::InvalidArgument(format!(
            "[unflatten] cannot infer the -1 of shape {shape:?} beside a 0"
        )));
    }
    Array::wrap(sys::unflatten(a.as_raw(), axis, shape))
}

pub fn broadcast_to(a: &Array, shape: &[i32]) -> Result<Array> {
    Array::wrap(sys::broadcast_to(a.as_raw(), shape))
}

/// Row-major contiguous copy if `a` is a strided view, else `a` itself.
pub fn contiguous(a: &Array) -> Result<Array> {
    Array::wrap(sys::contiguous(a.as_raw()))
}

/// MLX v0.32.4 divides by each stride when sizing a slice: a zero stride is a SIGFPE.
fn check_strides(op: &str, strides: &[i32]) -> Result<()> {
    if let Some(axis) = strides.iter().position(|&s| s == 0) {
        return Err(Error::InvalidArgument(format!("[{op}] stride 0 on axis {axis}")));
    }
    Ok(())
}

/// `a[start[0]:stop[0]:strides[0], ...]`, one entry per axis; strides must be nonzero.
pub fn slice(a: &Array, start: &[i32], stop: &[i32], strides: &[i32]) -> Result<Array> {
    check_strides("slice", strides)?;
    Array::wrap(sys::slice(a.as_raw(), start, stop, strides))
}

/// A copy of `src` with `update` written into the slice `start:stop:strides`.
pub fn slice_update(
    src: &Array,
    update: &Array,
    start: &[i32],
    stop: &[i32],
    strides: &[i32],
) -> Result<Array> {
    check_strides("slice_update", strides)?;
    Array::wrap(sys::slice_update(src.as_raw(), update.as_raw(), start, stop, strides))
}

/// Joins `arrays` along an existing `axis`.
pub fn concatenate<A: AsRef<Array>>(arrays: &[A], axis: i32) -> Result<Array> {
    let list = ArrayList::from_arrays(arrays);
    Array::wrap(sys::concatenate(list.raw(), axis))
}

/// Joins `arrays` along a new `axis`.
pub fn stack<A: AsRef<Array>>(arrays: &[A], axis: i32) -> Result<Array> {
    let list = ArrayList::from_arrays(arrays);
    Array::wrap(sys::stack(list.raw(), axis))
}

/// `num` equal parts along `axis` (the axis must divide evenly).
pub fn split(a: &Array, num: i32, axis: i32) -> Result<Vec<Array>> {
    ArrayList::wrap(sys::split_sections(a.as_raw(), num, axis))?.to_arrays()
}

/// Parts along `axis` cut before each of `indices`.
pub fn split_at(a: &Array, indices: &[i32], axis: i32) -> Result<Vec<Array>> {
    ArrayList::wrap(sys::split_indices(a.as_raw(), indices, axis))?.to_arrays()
}
