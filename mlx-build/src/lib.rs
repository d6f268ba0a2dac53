//! What an MLX build is and where it lives: the patch series, the cmake flags, the build key
//! and the build cache, and how a cargo nested in another starts one. One place for these
//! facts, read by mlx-sys's build script, the harness, the tests and (through the `mlx-build`
//! binary) the GPU scripts.

pub mod cache;
pub mod cmake_flags;
pub mod digest;
pub mod env_vars;
pub mod files;
pub mod nested_cargo;
pub mod op_table;
pub mod sanitize;
pub mod series;

/// A failure, as one message saying what failed and what to do.
pub type Fallible<T> = Result<T, String>;
