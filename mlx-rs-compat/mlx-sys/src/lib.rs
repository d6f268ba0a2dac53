//! Drop-in `mlx-sys` 0.7.0 for mlx-rs: mlx-c 0.7.0's C API (the bindings mlx-sys 0.7.0's bindgen
//! configuration produces, checked in as `bindings.rs`), backed by this workspace's MLX build.
//!
//! Extra to upstream's API: [`patches`], the MLX patches the linked build carries.

#![allow(non_upper_case_globals)]
#![allow(non_camel_case_types)]
#![allow(non_snake_case)]
#![allow(clippy::all)]

include!("bindings.rs");

/// Patch ids of this workspace's `patches/series` applied to the linked MLX, in series order
/// (empty: stock MLX).
pub fn patches() -> &'static [&'static str] {
    mlx_build_sys::build_info::PATCHES
}
