//! A qwen3_moe-style decoder (and the dense qwen3 variant) with mlx-lm's semantics, on the
//! safe `mlx` API.
//!
//! - [`Model::load`] reads an mlx-lm checkpoint directory: `config.json` (with its
//!   `quantization` block) and one or more `model*.safetensors`.
//! - [`write_synthetic`] writes such a directory from a preset ([`presets`]) and a seed, so tests
//!   and tools go through the same loading path as a real checkpoint.
//! - [`generate`] decodes greedily the way mlx-lm's `generate_step` does: chunked prefill into a
//!   KV cache, then one token at a time, recording every step's logits.
//!
//! The forward pass follows mlx-lm's `models/qwen3_moe.py` op by op (RMSNorm, GQA attention with
//! q/k norms and RoPE, the fused SDPA with a causal mask, a top-k routed MoE whose experts run
//! through `gather_qmm` on sorted indices), so its tokens and logits can be compared with
//! mlx-lm's (see the parity test in the `mlx-tests` crate).
//!
//! One cargo feature per patch of `patches/series` (default all) builds MLX with the patch of
//! the same id; `--no-default-features` is stock MLX.

//!
//! Configs, presets, prompts and the host-side helpers come from `mlx-workload` (no MLX) and are
//! re-exported here.

mod attention;
mod cache;
pub mod determinism;
mod error;
mod generate;
mod layers;
mod mlp;
mod model;
mod synthetic;
pub mod trace;
mod weights;

pub use cache::Cache;
pub use error::{Error, Result};
pub use generate::{generate, generate_with_phases, Generation, Phases};
pub use mlx_workload::{
    argmax, median, preset_activation_dtype, preset_config, preset_description, preset_run_shape,
    presets, splitmix64, synthetic_prompt, ActivationDtype, ModelConfig, ModelKind, QuantSpec,
    QuantizationConfig, RunShape,
};
pub use model::Model;
pub use synthetic::write_synthetic;
