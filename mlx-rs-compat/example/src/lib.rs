//! mlx-rs 0.33.0 on this workspace's MLX (through the drop-in mlx-sys 0.7.0): a qwen3-style
//! transformer block — RMSNorm, q/k/v projections with per-head q/k norms, RoPE, causal
//! grouped-query attention, SwiGLU MLP, residuals — on fixed pseudo-random inputs.
//!
//! `tests/bit_identity.rs` runs the same block through the workspace's `mlx` crate and
//! requires every output bit to match.

pub mod block;
pub mod data;

pub use block::forward;
pub use data::{first_difference, Config, Inputs};
