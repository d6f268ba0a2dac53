//! Reductions, arg-reductions, softmax and cumulative sums.
//!
//! mlx-rs's names: `f(a, keepdims)` reduces every axis, `f_axes(a, axes, keepdims)` the listed
//! axes, `f_axis(a, axis, keepdims)` one axis.

use mlx_sys::ffi::ops::ffi::{self as sys, ArgReduceOp, ReduceOp};

use crate::{Array, Result};

fn reduce(op: ReduceOp, a: &Array, axes: &[i32], all: bool, keepdims: bool) -> Result<Array> {
    Array::wrap(sys::reduce(op, a.as_raw(), axes, all, keepdims))
}

macro_rules! reductions {
    ($($(#[$doc:meta])* $all:ident, $axes:ident => $op:ident;)*) => {$(
        $(#[$doc])*
        /// Over `axes`.
        pub fn $axes(a: &Array, axes: &[i32], keepdims: bool) -> Result<Array> {
            reduce(ReduceOp::$op, a, axes, false, keepdims)
        }
        $(#[$doc])*
        /// Over all axes.
        pub fn $all(a: &Array, keepdims: bool) -> Result<Array> {
            reduce(ReduceOp::$op, a, &[], true, keepdims)
        }
    )*};
}

reductions! {
    /// Sum.
    sum, sum_axes => Sum;
    /// Arithmetic mean.
    mean, mean_axes => Mean;
    /// Maximum.
    max, max_axes => Max;
    /// Minimum.
    min, min_axes => Min;
    /// Product.
    prod, prod_axes => Prod;
    /// True if every element is true (non-zero).
    all, all_axes => All;
    /// True if any element is true (non-zero).
    any, any_axes => Any;
    /// log(sum(exp(a))), computed stably.
    logsumexp, logsumexp_axes => LogSumExp;
    /// Population variance (ddof 0).
    var, var_axes => Var;
}

/// Index of the maximum along `axis` (first one on ties), as uint32.
pub fn argmax_axis(a: &Array, axis: i32, keepdims: bool) -> Result<Array> {
    Array::wrap(sys::arg_reduce(ArgReduceOp::Argmax, a.as_raw(), axis, false, keepdims))
}

/// Index of the maximum of the flattened array.
pub fn argmax(a: &Array, keepdims: bool) -> Result<Array> {
    Array::wrap(sys::arg_reduce(ArgReduceOp::Argmax, a.as_raw(), 0, true, keepdims))
}

/// Index of the minimum along `axis` (first one on ties), as uint32.
pub fn argmin_axis(a: &Array, axis: i32, keepdims: bool) -> Result<Array> {
    Array::wrap(sys::arg_reduce(ArgReduceOp::Argmin, a.as_raw(), axis, false, keepdims))
}

/// Index of the minimum of the flattened array.
pub fn argmin(a: &Array, keepdims: bool) -> Result<Array> {
    Array::wrap(sys::arg_reduce(ArgReduceOp::Argmin, a.as_raw(), 0, true, keepdims))
}

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
