//! The mlx-sys 0.7.0 crate that cargo fetched: `upstream/Cargo.toml` depends on it and is
//! never built; its Cargo.lock pins the crate's checksum, `upstream/SOURCE_DIGEST` the
//! digest of its `src/mlx-c` tree.

use crate::Fallible;
use mlx_build::{digest, nested_cargo};
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

const NAME: &str = "mlx-sys";
const VERSION: &str = "0.7.0";

/// The verified `src/mlx-c` of the upstream crate.
pub fn locate(upstream: &Path) -> Fallible<PathBuf> {
    let manifest = upstream.join("Cargo.toml");
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    run(
        nested_cargo::command(&cargo).args(["fetch", "--locked", "--manifest-path"]).arg(&manifest),
        &format!(
            "fetching {NAME} {VERSION} (the mlx-c source). With network, run once:\n  \
             cargo fetch --locked --manifest-path {}",
            manifest.display()
        ),
    )?;
    let metadata = run(
        nested_cargo::command(&cargo)
            .args(["metadata", "--locked", "--offline", "--format-version", "1"])
            .arg("--manifest-path")
            .arg(&manifest),
        "reading cargo metadata of upstream/Cargo.toml",
    )?;
    let metadata: serde_json::Value =
        serde_json::from_str(&metadata).map_err(|e| format!("cargo metadata output: {e}"))?;
    let crate_dir = metadata["packages"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|p| p["name"] == NAME && p["version"] == VERSION && p["source"].is_string())
        .and_then(|p| p["manifest_path"].as_str())
        .map(|m| Path::new(m).parent().unwrap().to_path_buf())
        .ok_or_else(|| format!("cargo metadata of upstream/ does not list {NAME} {VERSION}"))?;

    let tree = crate_dir.join("src/mlx-c");
    let expected = fs::read_to_string(upstream.join("SOURCE_DIGEST"))
        .map_err(|e| format!("reading upstream/SOURCE_DIGEST: {e}"))?;
    let actual = digest::tree(&tree)?;
    if actual != expected.trim() {
        return Err(format!(
            "{} has digest\n  {actual}\nbut upstream/SOURCE_DIGEST records\n  {}\n\
             The unpacked crate is not the mlx-c 0.7.0 these patches were written for.",
            tree.display(),
            expected.trim()
        ));
    }
    Ok(tree)
}

fn run(command: &mut Command, what: &str) -> Fallible<String> {
    let output = command.output().map_err(|e| format!("{what}: could not run cargo: {e}"))?;
    if !output.status.success() {
        return Err(format!("{what}\n{}", String::from_utf8_lossy(&output.stderr)));
    }
    Ok(String::from_utf8_lossy(&output.stdout).into_owned())
}
