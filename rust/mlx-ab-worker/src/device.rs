//! The device this worker runs the model on, and what it says about its MLX: the file holding
//! MLX's code and, when there is one, the GPU.

use mlx_ab_protocol::device::{resolve, DeviceKind};
use std::collections::BTreeMap;

fn mlx_device(kind: DeviceKind) -> mlx::Device {
    match kind {
        DeviceKind::Gpu => mlx::Device::gpu(0),
        DeviceKind::Cpu => mlx::Device::cpu(),
    }
}

/// Makes the resolved device MLX's default for this process (before any model is loaded), once
/// a shared libmlx found at run time is known to be the build of this worker's patches: every
/// subcommand that runs a model (`serve`, `generate`, `determinism`) starts here.
pub fn select(requested: Option<DeviceKind>) -> Result<DeviceKind, String> {
    mlx::backend::check_loaded_build().map_err(|e| e.to_string())?;
    let gpu = mlx::backend::gpu_available().map_err(|e| format!("asking MLX for a GPU: {e}"))?;
    let library = library_path();
    let device = resolve(requested, gpu, &library)?;
    mlx_device(device)
        .set_default()
        .map_err(|e| format!("making {device} MLX's default device: {e}"))?;
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

#[cfg(test)]
mod tests {
    use super::*;

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
}
