//! What a model run is made of, without MLX: the `config.json` of an mlx-lm checkpoint, the
//! synthetic presets (their configs, shapes and descriptions), deterministic prompts, and small
//! computations on values read back from MLX.
//!
//! `mlx-model` builds and runs models from these; the A/B driver (`mlx-ab`) plans workloads with
//! them and links no MLX. This crate must never depend on MLX (`mlx-ab`'s tests check the
//! driver's dependency tree).

mod config;
mod error;
mod host;
mod presets;
mod prompt;

pub use config::{ModelConfig, ModelKind, QuantSpec, QuantizationConfig};
pub use error::{Error, Result};
pub use host::{argmax, median};
pub use presets::{
    preset_activation_dtype, preset_config, preset_description, preset_run_shape, presets,
    ActivationDtype, RunShape,
};
pub use prompt::{splitmix64, synthetic_prompt};
