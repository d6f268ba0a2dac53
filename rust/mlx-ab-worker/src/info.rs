//! `mlx-ab-worker info`: which MLX this binary links.

use crate::device;
use mlx_ab_protocol::Info;
use std::process::ExitCode;

/// What this process's MLX is: the build's facts and what the loader and MLX say at run time.
pub fn current() -> Info {
    let build = mlx::build_info();
    // A shared libmlx's install says what it was built with; an unreadable one is refused when
    // the worker starts (`check_loaded_build`), so here it only goes unreported.
    let install = mlx::backend::loaded_install().ok().flatten();
    // A loaded install's key: the worker may run another build's libmlx.so (an arm built
    // beside the one it was compiled against).
    let build_key = match &install {
        Some(install) => install.build_key.clone().unwrap_or_else(|| "unknown".into()),
        None => mlx_sys::build_info::BUILD_KEY.to_string(),
    };
    let extra_patches = match &install {
        Some(install) => install.extra_files().iter().map(|l| file_of(l).to_string()).collect(),
        None => mlx_sys::build_info::EXTRA_PATCHES.iter().map(|p| p.to_string()).collect(),
    };
    Info {
        mlx_version: build.mlx_version,
        patches: build.patches.iter().map(|p| p.to_string()).collect(),
        source_digest: build.source_digest.to_string(),
        extra_patches,
        patch_files: install.map(|i| i.files).unwrap_or_default(),
        source: mlx_sys::build_info::SOURCE.to_string(),
        build_key,
        library_path: device::library_path(),
        gpu_available: mlx::backend::gpu_available().unwrap_or(false),
        gpu: device::gpu_info(),
        environment: Some(mlx_ab_protocol::info::runtime_environment()),
    }
}

/// The file of a `sha256sum` line (`HASH  FILE`).
fn file_of(line: &str) -> &str {
    line.split_once("  ").map_or(line, |(_, file)| file)
}

pub fn print() -> Result<ExitCode, String> {
    println!("{}", serde_json::to_string_pretty(&current()).map_err(|e| e.to_string())?);
    Ok(ExitCode::SUCCESS)
}
