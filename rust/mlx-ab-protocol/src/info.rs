//! What a worker reports about the MLX it runs on (`mlx-ab-worker info`, and its `ready` reply).

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

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
