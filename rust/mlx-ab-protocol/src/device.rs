//! The device a worker runs the model on (`--device gpu|cpu`), and the rule that picks it.

use serde::{Deserialize, Serialize};

/// `--device`: where every arm's worker runs. Unset: the GPU when the worker's MLX has one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
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
}
