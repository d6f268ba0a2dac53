//! Comparisons, logic, NaN/inf tests and `where`.

use mlx_sys::ffi::ops::ffi::{self as sys, BinaryOp, UnaryOp};

use super::arith::binary;
use crate::{Array, Result};

macro_rules! compare_ops {
    ($($(#[$doc:meta])* $name:ident => $op:ident;)*) => {$(
        $(#[$doc])*
        pub fn $name(a: &Array, b: &Array) -> Result<Array> {
            binary(BinaryOp::$op, a, b)
        }
    )*};
}

compare_ops! {
    /// a == b, element-wise (bool).
    equal => Equal;
    /// a != b, element-wise (bool).
    not_equal => NotEqual;
    /// a > b, element-wise (bool).
    greater => Greater;
    /// a >= b, element-wise (bool).
    greater_equal => GreaterEqual;
    /// a < b, element-wise (bool).
    less => Less;
    /// a <= b, element-wise (bool).
    less_equal => LessEqual;
    logical_and => LogicalAnd;
    logical_or => LogicalOr;
}

fn unary(op: UnaryOp, a: &Array) -> Result<Array> {
    Array::wrap(sys::unary(op, a.as_raw()))
}

pub fn logical_not(a: &Array) -> Result<Array> {
    unary(UnaryOp::LogicalNot, a)
}

pub fn isnan(a: &Array) -> Result<Array> {
    unary(UnaryOp::IsNan, a)
}

/// True for +inf and -inf.
pub fn isinf(a: &Array) -> Result<Array> {
    unary(UnaryOp::IsInf, a)
}

pub fn isfinite(a: &Array) -> Result<Array> {
    unary(UnaryOp::IsFinite, a)
}

/// A 0-d bool array: same shape and equal values (NaN equals NaN if `equal_nan`).
pub fn array_equal(a: &Array, b: &Array, equal_nan: bool) -> Result<Array> {
    Array::wrap(sys::array_equal(a.as_raw(), b.as_raw(), equal_nan))
}

/// MLX's `where`: `x` where `cond` is true, else `y` (all three broadcast together).
pub fn where_(cond: &Array, x: &Array, y: &Array) -> Result<Array> {
    Array::wrap(sys::where_(cond.as_raw(), x.as_raw(), y.as_raw()))
}
