//! Ops on arrays, by topic. All return `Result`: MLX checks shapes, axes and dtypes when an op
//! is built and its message comes back as [`crate::Error::Mlx`]. Ops are lazy: they build
//! graph nodes; evaluation happens later.
//!
//! Axes may be negative (counted from the end), as in MLX.

mod arith;
mod compare;
mod create;
mod index;
mod linalg;
mod reduce;
mod shape;
mod table;

pub use arith::*;
pub use compare::*;
pub use create::*;
pub use index::*;
pub use linalg::*;
pub use reduce::*;
pub use shape::*;
pub use table::*;

use crate::Array;

/// Null for `None`: the bridge's encoding of an optional array.
pub(crate) fn opt_ptr(a: Option<&Array>) -> *const mlx_sys::array {
    a.map_or(std::ptr::null(), |a| a.as_raw() as *const mlx_sys::array)
}
