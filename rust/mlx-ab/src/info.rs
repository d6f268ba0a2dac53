//! `mlx-ab info`: which MLX this binary links.

use crate::device;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
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
    /// The file holding MLX's code in this process: the executable itself (static build) or
    /// the `libmlx.so` the loader found (shared build, e.g. through `LD_LIBRARY_PATH`).
    #[serde(default)]
    pub library_path: String,
    /// Whether this MLX has a usable GPU (CUDA or Metal build, device present).
    #[serde(default)]
    pub gpu_available: bool,
    /// GPU 0 as MLX describes it (`mlx::core::gpu::device_info`): device_name, architecture,
    /// total_memory, compute_capability_major/minor, ... `None` without a GPU.
    #[serde(default)]
    pub gpu: Option<BTreeMap<String, String>>,
}

impl Info {
    pub fn current() -> Self {
        let build = mlx::build_info();
        Info {
            mlx_version: build.mlx_version,
            patches: build.patches.iter().map(|p| p.to_string()).collect(),
            source_digest: build.source_digest.to_string(),
            extra_patches: mlx_sys::build_info::EXTRA_PATCHES
                .iter()
                .map(|p| p.to_string())
                .collect(),
            source: mlx_sys::build_info::SOURCE.to_string(),
            build_key: mlx_sys::build_info::BUILD_KEY.to_string(),
            library_path: device::library_path(),
            gpu_available: mlx::backend::gpu_available().unwrap_or(false),
            gpu: device::gpu_info(),
        }
    }
}

pub fn print() -> Result<ExitCode, String> {
    println!("{}", serde_json::to_string_pretty(&Info::current()).map_err(|e| e.to_string())?);
    Ok(ExitCode::SUCCESS)
}
