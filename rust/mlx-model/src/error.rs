//! The crate's error type: what was wrong with a checkpoint or a call, or MLX's own message.

use std::path::PathBuf;

/// Everything that can go wrong in this crate.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// Reading or writing a file failed for another reason than its absence.
    #[error("{}: {source}", path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// A checkpoint file exists but MLX cannot read it (truncated, not safetensors, ...).
    #[error("{}: {message}", path.display())]
    BadFile { path: PathBuf, message: String },
    /// A file the checkpoint needs is not there (config.json, or no model*.safetensors).
    #[error("missing file: {}", .0.display())]
    MissingFile(PathBuf),
    /// config.json is malformed, lacks a field, or asks for something unsupported.
    #[error("config.json: {0}")]
    Config(String),
    /// config.json names a model_type this crate does not implement.
    #[error("unknown model_type {0:?} (supported: qwen3_moe, qwen3)")]
    UnknownModelType(String),
    /// A tensor's shape disagrees with what config.json implies.
    #[error("tensor {name}: shape {actual:?}, expected {expected:?}")]
    Shape { name: String, expected: Vec<i32>, actual: Vec<i32> },
    /// A tensor has a dtype the model cannot use (e.g. integer norm weights).
    #[error("tensor {name}: dtype {actual}, expected {expected}")]
    Dtype { name: String, expected: String, actual: mlx::Dtype },
    /// The checkpoint lacks a tensor the config requires.
    #[error("missing tensor {0}")]
    MissingTensor(String),
    /// The checkpoint holds a tensor the model has no place for (mlx-lm's strict loading
    /// rejects these too).
    #[error("unexpected tensor {0}")]
    UnexpectedTensor(String),
    /// `write_synthetic` was given a preset name not in [`crate::presets`].
    #[error("unknown preset {0:?} (known: {known})", known = crate::presets().join(", "))]
    UnknownPreset(String),
    /// An argument rejected before any work (empty prompt, zero chunk size, token out of range).
    #[error("invalid argument: {0}")]
    InvalidArgument(String),
    /// MLX refused an op or failed while evaluating.
    #[error("MLX: {0}")]
    Mlx(#[from] mlx::Error),
}

/// Each of `mlx-workload`'s errors as the variant of the same name, so callers match one type.
impl From<mlx_workload::Error> for Error {
    fn from(error: mlx_workload::Error) -> Self {
        match error {
            mlx_workload::Error::Config(message) => Error::Config(message),
            mlx_workload::Error::UnknownModelType(name) => Error::UnknownModelType(name),
            mlx_workload::Error::UnknownPreset(name) => Error::UnknownPreset(name),
        }
    }
}

/// `Result` with this crate's [`Error`].
pub type Result<T> = std::result::Result<T, Error>;
