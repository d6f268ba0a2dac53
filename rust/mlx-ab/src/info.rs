//! `mlx-ab info`: which MLX this binary links.

use serde::Serialize;
use std::process::ExitCode;

#[derive(Serialize)]
pub struct Info {
    pub mlx_version: String,
    /// Applied patch ids, in series order.
    pub patches: Vec<String>,
    pub source_digest: String,
}

impl Info {
    pub fn current() -> Self {
        let build = mlx::build_info();
        Info {
            mlx_version: build.mlx_version,
            patches: build.patches.iter().map(|p| p.to_string()).collect(),
            source_digest: build.source_digest.to_string(),
        }
    }
}

pub fn print() -> Result<ExitCode, Box<dyn std::error::Error>> {
    println!("{}", serde_json::to_string_pretty(&Info::current())?);
    Ok(ExitCode::SUCCESS)
}
