//! What an MLX build is, where it lives and how it is made: the patch series, the source, the
//! cmake flags, the build key and cache, and the build itself. One place for these facts and
//! steps, used by mlx-sys's build script, the harness, the tests and (through the `mlx-build`
//! binary) the GPU scripts.

pub mod apply_check;
pub mod builder;
pub mod cache;
pub mod cmake_build;
pub mod cmake_flags;
pub mod cuda;
pub mod digest;
pub mod env_vars;
pub mod files;
pub mod nested_cargo;
pub mod op_table;
pub mod patches;
pub mod prefix;
pub mod process;
pub mod progress;
pub mod sanitize;
pub mod series;
pub mod source;

/// A failure, as one message saying what failed and what to do.
pub type Fallible<T> = Result<T, String>;
