//! Sorting, partitioning and top-k.

use mlx_sys::ffi::ops::ffi::{self as sys, SortOp};

use crate::{Array, Result};

fn sort_op(op: SortOp, a: &Array, k: i32, axis: Option<i32>) -> Result<Array> {
    Array::wrap(sys::sort_op(op, a.as_raw(), k, axis.unwrap_or(0), axis.is_none()))
}

/// Sorted copy along `axis` (ascending).
pub fn sort_axis(a: &Array, axis: i32) -> Result<Array> {
    sort_op(SortOp::Sort, a, 0, Some(axis))
}

/// Sorted copy of the flattened array.
pub fn sort(a: &Array) -> Result<Array> {
    sort_op(SortOp::Sort, a, 0, None)
}

/// Indices that sort `a` along `axis` (uint32).
pub fn argsort_axis(a: &Array, axis: i32) -> Result<Array> {
    sort_op(SortOp::Argsort, a, 0, Some(axis))
}

/// Indices that sort the flattened array.
pub fn argsort(a: &Array) -> Result<Array> {
    sort_op(SortOp::Argsort, a, 0, None)
}

/// Copy along `axis` with the kth element in sorted position, smaller ones before it and
/// larger ones after (each side in unspecified order).
pub fn partition(a: &Array, kth: i32, axis: i32) -> Result<Array> {
    sort_op(SortOp::Partition, a, kth, Some(axis))
}

/// Indices that partition `a` along `axis` around the kth element (see [`partition`]).
pub fn argpartition(a: &Array, kth: i32, axis: i32) -> Result<Array> {
    sort_op(SortOp::Argpartition, a, kth, Some(axis))
}

/// The `k` largest values along `axis`, in unspecified order.
pub fn topk(a: &Array, k: i32, axis: i32) -> Result<Array> {
    sort_op(SortOp::Topk, a, k, Some(axis))
}
