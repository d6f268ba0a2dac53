//! Safe, idiomatic Rust API over Apple's MLX (C++), as built by `mlx-sys`.
//!
//! - [`Array`]: lazy n-d arrays of every MLX [`Dtype`]; host data in and out through the
//!   [`Element`] types (`f16`/`bf16` from the `half` crate).
//! - [`ops`]: arithmetic, comparisons, shapes, indexing, reductions, sorting, creation, matmul.
//! - [`fast`], [`quantized`], [`random`], [`io`] (safetensors), [`export`] (exported functions),
//!   [`memory`], [`stream`].
//! - [`eval`] / [`async_eval`]: evaluation of several arrays at once.
//! - [`build_info()`]: MLX version, patches applied, source digest; [`backend`]: the file
//!   holding MLX's code, the GPU if any.
//!
//! ```
//! use mlx::{ops, Array};
//! let a = Array::from_slice(&[1.0f32, 2.0, 3.0, 4.0], &[2, 2])?;
//! let b = ops::matmul(&a, &a)?; // builds a graph node
//! assert_eq!(b.to_vec::<f32>()?, [7.0, 10.0, 15.0, 22.0]); // evaluates it
//! assert!(a.reshape(&[3]).is_err()); // MLX's message, as mlx::Error::Mlx
//! # Ok::<(), mlx::Error>(())
//! ```
//!
//! Errors: every call that reaches MLX returns [`Result`]; MLX's exceptions arrive as
//! [`Error::Mlx`] with MLX's message, including errors raised during evaluation. Inputs MLX
//! would not check (host data that does not fill the shape, reading an array as the wrong
//! element type, a zero stride or group size) are rejected on the Rust side. One known input
//! still aborts the process: an index value out of range in `take` (likely the other gathers
//! too, untested); MLX does not check index values, known only once evaluated. Only the
//! `+ - * /` and unary `-` operators panic, on inputs MLX rejects; the functions of the same
//! name in [`ops`] return `Result` instead.
//!
//! Threads: [`Array`] is `Send + Sync`; see its documentation for what that covers.
//!
//! Cargo features, one per patch of `patches/series` (all on by default), build MLX with the
//! patch of the same id; `--no-default-features` is stock MLX.

mod array;
mod array_list;
mod build_info;
mod dtype;
mod error;
mod methods;
mod transforms;

pub mod backend;
pub mod export;
pub mod fast;
pub mod io;
pub mod memory;
pub mod ops;
pub mod quantized;
pub mod random;
pub mod stream;

pub use array::Array;
pub use build_info::{build_info, requested_patches, BuildInfo};
pub use dtype::{Complex64, Dtype, Element};
pub use error::{Error, Result};
pub use stream::{synchronize, Device, DeviceType, Stream};
pub use transforms::{async_eval, eval};

/// `half::f16` and `half::bf16`, the host types of MLX's float16 and bfloat16.
pub use half::{bf16, f16};
