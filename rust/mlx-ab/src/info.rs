//! `mlx-ab info`: which MLX this binary links.

use serde::{Deserialize, Serialize};
use std::process::ExitCode;

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Info {
    pub mlx_version: String,
    /// Applied patch ids, in series order.
    pub patches: Vec<String>,
    pub source_digest: String,
    /// File names of extra patches (`MLX_EXTRA_PATCHES`) applied after the series.
    #[serde(default)]
    pub extra_patches: Vec<String>,
    /// `pinned` (MLX v0.32.4) or the `MLX_SRC_DIR` the build used.
    #[serde(default)]
    pub source: String,
    /// Cache key of the MLX build (source, patches, flags, compiler).
    #[serde(default)]
    pub build_key: String,
}

impl Info {
    pub fn current() -> Self {
        let build = mlx::build_info();
        Info {
            mlx_version: build.mlx_version,
            patches: build.patches.iter().map(|p| p.to_string()).collect(),
            source_digest: build.source_digest.to_string(),
            extra_patches: mlx_sys::build_info::EXTRA_PATCHES.iter().map(|p| p.to_string()).collect(),
            source: mlx_sys::build_info::SOURCE.to_string(),
            build_key: mlx_sys::build_info::BUILD_KEY.to_string(),
        }
    }
}

pub fn print() -> Result<ExitCode, String> {
    println!("{}", serde_json::to_string_pretty(&Info::current()).map_err(|e| e.to_string())?);
    Ok(ExitCode::SUCCESS)
}
