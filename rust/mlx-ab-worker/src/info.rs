//! `mlx-ab-worker info`: which MLX this binary links.

use crate::device;
use mlx_ab_protocol::Info;
use std::process::ExitCode;

/// What this process's MLX is: the build's facts and what the loader and MLX say at run time.
pub fn current() -> Info {
    let build = mlx::build_info();
    Info {
        mlx_version: build.mlx_version,
        patches: build.patches.iter().map(|p| p.to_string()).collect(),
        source_digest: build.source_digest.to_string(),
        extra_patches: mlx_sys::build_info::EXTRA_PATCHES.iter().map(|p| p.to_string()).collect(),
        source: mlx_sys::build_info::SOURCE.to_string(),
        build_key: mlx_sys::build_info::BUILD_KEY.to_string(),
        library_path: device::library_path(),
        gpu_available: mlx::backend::gpu_available().unwrap_or(false),
        gpu: device::gpu_info(),
        environment: Some(mlx_ab_protocol::info::runtime_environment()),
    }
}

pub fn print() -> Result<ExitCode, String> {
    println!("{}", serde_json::to_string_pretty(&current()).map_err(|e| e.to_string())?);
    Ok(ExitCode::SUCCESS)
}
