//! The table-driven ops: one wrapper per line of mlx-sys's `cpp/ops.def`, written into
//! `OUT_DIR/ops_table.rs` by this crate's build script as invocations of the macros below.
//! The number after `=>` is the op's selector on the bridge.

use mlx_sys::ffi::ops::ffi as sys;

use crate::{Array, Result};

macro_rules! unary_ops {
    ($($(#[$doc:meta])* $name:ident => $op:literal;)*) => {$(
        $(#[$doc])*
        pub fn $name(a: &Array) -> Result<Array> {
            Array::wrap(sys::unary($op, a.as_raw()))
        }
    )*};
}

macro_rules! binary_ops {
    ($($(#[$doc:meta])* $name:ident => $op:literal;)*) => {$(
        $(#[$doc])*
        pub fn $name(a: &Array, b: &Array) -> Result<Array> {
            Array::wrap(sys::binary($op, a.as_raw(), b.as_raw()))
        }
    )*};
}

macro_rules! reductions {
    ($($(#[$doc:meta])* $all:ident, $axes:ident => $op:literal;)*) => {$(
        $(#[$doc])*
        /// Over `axes`.
        pub fn $axes(a: &Array, axes: &[i32], keepdims: bool) -> Result<Array> {
            Array::wrap(sys::reduce($op, a.as_raw(), axes, false, keepdims))
        }
        $(#[$doc])*
        /// Over all axes.
        pub fn $all(a: &Array, keepdims: bool) -> Result<Array> {
            Array::wrap(sys::reduce($op, a.as_raw(), &[], true, keepdims))
        }
    )*};
}

macro_rules! arg_reductions {
    ($($(#[$doc:meta])* $all:ident, $axis:ident => $op:literal;)*) => {$(
        $(#[$doc])*
        /// Along `axis`.
        pub fn $axis(a: &Array, axis: i32, keepdims: bool) -> Result<Array> {
            Array::wrap(sys::arg_reduce($op, a.as_raw(), axis, false, keepdims))
        }
        $(#[$doc])*
        /// Of the flattened array.
        pub fn $all(a: &Array, keepdims: bool) -> Result<Array> {
            Array::wrap(sys::arg_reduce($op, a.as_raw(), 0, true, keepdims))
        }
    )*};
}

macro_rules! sorts {
    ($($(#[$doc:meta])* $all:ident, $axis:ident => $op:literal;)*) => {$(
        $(#[$doc])*
        /// Along `axis`.
        pub fn $axis(a: &Array, axis: i32) -> Result<Array> {
            Array::wrap(sys::sort_op($op, a.as_raw(), 0, axis, false))
        }
        $(#[$doc])*
        /// Of the flattened array.
        pub fn $all(a: &Array) -> Result<Array> {
            Array::wrap(sys::sort_op($op, a.as_raw(), 0, 0, true))
        }
    )*};
}

macro_rules! sorts_k {
    ($($(#[$doc:meta])* $name:ident($k:ident) => $op:literal;)*) => {$(
        $(#[$doc])*
        pub fn $name(a: &Array, $k: i32, axis: i32) -> Result<Array> {
            Array::wrap(sys::sort_op($op, a.as_raw(), $k, axis, false))
        }
    )*};
}

include!(concat!(env!("OUT_DIR"), "/ops_table.rs"));
