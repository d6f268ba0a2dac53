//! What a worker reports about the MLX it runs on (`mlx-ab-worker info`, and its `ready` reply).

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Info {
    pub mlx_version: String,
    /// Applied patch ids, in series order.
    pub patches: Vec<String>,
    pub source_digest: String,
    /// File names of extra patches applied after the series: `MLX_EXTRA_PATCHES` of a static
    /// build; for a shared build those of the loaded library's install (its `SERIES`), which
    /// can hold an experiment the worker's own build did not have (`mlx-build --extra-patch`).
    #[serde(default)]
    pub extra_patches: Vec<String>,
    /// `sha256  file` of every patch file the loaded library's install applied, series then
    /// extra ones (its `SERIES`): shared builds only.
    #[serde(default)]
    pub patch_files: Vec<String>,
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
    /// The run-time variables of MLX, cuBLAS and cuDNN in the worker's environment
    /// (`runtime_environment`): what its MLX ran with, e.g. `MLX_CUDA_USE_CUDNN_SDPA=0` from
    /// `mlx-ab --deterministic`. `None` from a worker too old to report it.
    #[serde(default)]
    pub environment: Option<BTreeMap<String, String>>,
}

/// Build-time variables of `mlx-sys` (the build key records them) and the harness's per-arm
/// kernel cache: set, but not what MLX computes with.
const NOT_RUNTIME: &[&str] = &[
    "MLX_SRC_DIR",
    "MLX_EXTRA_PATCHES",
    "MLX_CUDA_ARCHITECTURES",
    "MLX_CUDA_DEPS_DIR",
    "MLX_PTX_CACHE_DIR",
];

/// Whether MLX, cuBLAS or cuDNN may read `name` at run time (`MLX_*` but the harness's
/// `MLX_AB_*` and the build's, `CUBLAS*`, `CUDNN*`, `NVIDIA_TF32_OVERRIDE`).
pub fn is_runtime_variable(name: &str) -> bool {
    let prefixed = ["MLX_", "CUBLAS", "CUDNN", "NVIDIA_TF32_OVERRIDE"]
        .iter()
        .any(|prefix| name.starts_with(prefix));
    prefixed && !name.starts_with("MLX_AB_") && !NOT_RUNTIME.contains(&name)
}

/// This process's run-time variables of MLX, cuBLAS and cuDNN, by name.
pub fn runtime_environment() -> BTreeMap<String, String> {
    std::env::vars_os()
        .filter_map(|(k, v)| Some((k.into_string().ok()?, v.to_string_lossy().into_owned())))
        .filter(|(k, _)| is_runtime_variable(k))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runtime_variables_are_recorded_build_ones_are_not() {
        for name in ["MLX_CUDA_USE_CUDNN_SDPA", "MLX_USE_CUDA_GRAPHS", "MLX_ENABLE_TF32"] {
            assert!(is_runtime_variable(name), "{name}");
        }
        for name in ["CUBLAS_WORKSPACE_CONFIG", "CUDNN_LOGLEVEL_DBG", "NVIDIA_TF32_OVERRIDE"] {
            assert!(is_runtime_variable(name), "{name}");
        }
        for name in ["MLX_SRC_DIR", "MLX_AB_CACHE_DIR", "MLX_PTX_CACHE_DIR", "PATH", "XMLX_A"] {
            assert!(!is_runtime_variable(name), "{name}");
        }
    }

    #[test]
    fn an_older_worker_without_environment_still_parses() {
        let old = r#"{"mlx_version": "0.32.4", "patches": [], "source_digest": "0"}"#;
        let info: Info = serde_json::from_str(old).unwrap();
        assert_eq!(info.environment, None);
        let new = r#"{"mlx_version": "0.32.4", "patches": [], "source_digest": "0",
            "environment": {"MLX_CUDA_USE_CUDNN_SDPA": "0"}}"#;
        let info: Info = serde_json::from_str(new).unwrap();
        assert_eq!(info.environment.unwrap()["MLX_CUDA_USE_CUDNN_SDPA"], "0");
    }
}
