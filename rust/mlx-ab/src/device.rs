//! The device a worker runs the model on (`--device gpu|cpu`), and what it says about its MLX:
//! the file holding MLX's code and, when there is one, the GPU.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// `--device`: where every arm's worker runs. Unset: the GPU when the worker's MLX has one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum DeviceKind {
    Gpu,
    Cpu,
}

impl DeviceKind {
    pub fn name(self) -> &'static str {
        match self {
            DeviceKind::Gpu => "gpu",
            DeviceKind::Cpu => "cpu",
        }
    }

    fn mlx(self) -> mlx::Device {
        match self {
            DeviceKind::Gpu => mlx::Device::gpu(0),
            DeviceKind::Cpu => mlx::Device::cpu(),
        }
    }
}

impl std::fmt::Display for DeviceKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// The device to use given the request and whether this MLX has a GPU; `Err` for a GPU that
/// is not there.
pub fn resolve(
    requested: Option<DeviceKind>,
    gpu_available: bool,
    library: &str,
) -> Result<DeviceKind, String> {
    match requested {
        Some(DeviceKind::Gpu) if !gpu_available => Err(format!(
            "--device gpu: this MLX has no GPU (MLX code from {library}; built without CUDA or \
             Metal, or no GPU visible). Use --device cpu, or run on an arm built with a GPU backend"
        )),
        Some(device) => Ok(device),
        None if gpu_available => Ok(DeviceKind::Gpu),
        None => Ok(DeviceKind::Cpu),
    }
}

/// Makes the resolved device MLX's default for this process (before any model is loaded).
pub fn select(requested: Option<DeviceKind>) -> Result<DeviceKind, String> {
    let gpu = mlx::backend::gpu_available().map_err(|e| format!("asking MLX for a GPU: {e}"))?;
    let library = library_path();
    let device = resolve(requested, gpu, &library)?;
    device.mlx().set_default().map_err(|e| format!("making {device} MLX's default device: {e}"))?;
    Ok(device)
}

/// The file holding this process's MLX code (`unknown: <why>` if the loader cannot tell).
pub fn library_path() -> String {
    match mlx::backend::library_path() {
        Ok(path) => path.display().to_string(),
        Err(e) => format!("unknown: {e}"),
    }
}

/// GPU 0 as MLX describes it, or `None` without a GPU.
pub fn gpu_info() -> Option<BTreeMap<String, String>> {
    if !mlx::backend::gpu_available().unwrap_or(false) {
        return None;
    }
    mlx::backend::gpu_device_info(0).ok().map(|pairs| pairs.into_iter().collect())
}

/// `NVIDIA H200 (sm_90, compute capability 9.0, 140.4 GiB)` from MLX's device info (CUDA keys;
/// Metal's `memory_size` is used when there is no `total_memory`).
pub fn describe_gpu(info: &BTreeMap<String, String>) -> String {
    let name = info.get("device_name").map_or("GPU", String::as_str);
    let mut details = Vec::new();
    if let Some(arch) = info.get("architecture") {
        details.push(arch.clone());
    }
    if let (Some(major), Some(minor)) =
        (info.get("compute_capability_major"), info.get("compute_capability_minor"))
    {
        details.push(format!("compute capability {major}.{minor}"));
    }
    let memory = info.get("total_memory").or_else(|| info.get("memory_size"));
    if let Some(bytes) = memory.and_then(|m| m.parse::<u64>().ok()) {
        details.push(format!("{:.1} GiB", bytes as f64 / (1u64 << 30) as f64));
    }
    if details.is_empty() {
        name.to_string()
    } else {
        format!("{name} ({})", details.join(", "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_is_the_gpu_when_there_is_one() {
        assert_eq!(resolve(None, true, "x"), Ok(DeviceKind::Gpu));
        assert_eq!(resolve(None, false, "x"), Ok(DeviceKind::Cpu));
        assert_eq!(resolve(Some(DeviceKind::Cpu), true, "x"), Ok(DeviceKind::Cpu));
        assert_eq!(resolve(Some(DeviceKind::Gpu), true, "x"), Ok(DeviceKind::Gpu));
        let error = resolve(Some(DeviceKind::Gpu), false, "/opt/a/lib/libmlx.so").unwrap_err();
        assert!(error.contains("no GPU") && error.contains("/opt/a/lib/libmlx.so"), "{error}");
    }

    #[test]
    fn this_cpu_build_runs_on_the_cpu() {
        if mlx::backend::gpu_available().unwrap() {
            return; // a GPU build (not this project's Linux CPU build)
        }
        assert_eq!(select(None), Ok(DeviceKind::Cpu));
        assert!(select(Some(DeviceKind::Gpu)).unwrap_err().contains("--device gpu"));
        assert_eq!(gpu_info(), None);
        assert!(std::path::Path::new(&library_path()).is_file());
    }

    #[test]
    fn gpu_descriptions() {
        let cuda: BTreeMap<String, String> = [
            ("device_name", "NVIDIA H200"),
            ("architecture", "sm_90"),
            ("compute_capability_major", "9"),
            ("compute_capability_minor", "0"),
            ("total_memory", "150754820096"),
            ("free_memory", "1"),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
        assert_eq!(describe_gpu(&cuda), "NVIDIA H200 (sm_90, compute capability 9.0, 140.4 GiB)");
        let metal: BTreeMap<String, String> = [
            ("device_name".to_string(), "Apple M3".to_string()),
            ("memory_size".into(), "17179869184".into()),
        ]
        .into();
        assert_eq!(describe_gpu(&metal), "Apple M3 (16.0 GiB)");
        assert_eq!(describe_gpu(&BTreeMap::new()), "GPU");
    }
}
