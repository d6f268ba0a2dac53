//! What can be wrong with a config or a preset name.

/// Everything that can go wrong in this crate.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    /// config.json is malformed, lacks a field, or asks for something unsupported.
    #[error("config.json: {0}")]
    Config(String),
    /// config.json names a model_type that is not implemented.
    #[error("unknown model_type {0:?} (supported: qwen3_moe, qwen3)")]
    UnknownModelType(String),
    /// A preset name not in [`crate::presets`].
    #[error("unknown preset {0:?} (known: {known})", known = crate::presets().join(", "))]
    UnknownPreset(String),
}

/// `Result` with this crate's [`Error`].
pub type Result<T> = std::result::Result<T, Error>;
