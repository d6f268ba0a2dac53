//! Where the MLX source comes from: `MLX_SRC_DIR`, or pristine v0.32.4 recovered from the
//! `rlx-mlx-sys =0.2.19` crate (fetched by cargo, never built; its own patches reversed).

use crate::cache::Cache;
use crate::files::{copy_tree, sorted_files};
use crate::process::run_command;
use crate::{digest, Fallible};
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

const PINNED_CRATE: &str = "rlx-mlx-sys";
const PINNED_VERSION: &str = "0.2.19";

pub struct Source {
    pub dir: PathBuf,
    pub digest: String,
    /// `pinned` or the `MLX_SRC_DIR` path.
    pub origin: String,
}

/// `mlx-sys/pristine/`: the pinned crate's manifest and the source digest it must give.
fn pristine_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../mlx-sys/pristine")
}

/// `checkout` (an MLX source tree: `MLX_SRC_DIR`, `mlx-build build --source`), else the pinned
/// v0.32.4 source, staged once in the build cache.
pub fn locate(checkout: Option<&Path>, cache: &Cache) -> Fallible<Source> {
    if let Some(dir) = checkout {
        if !dir.join("mlx/mlx.h").is_file() {
            return Err(format!(
                "{} is not an MLX source tree (no mlx/mlx.h in it).",
                dir.display()
            ));
        }
        let digest = digest::tree(dir)?;
        return Ok(Source { origin: dir.display().to_string(), dir: dir.to_path_buf(), digest });
    }
    let expected = fs::read_to_string(pristine_dir().join("SOURCE_DIGEST"))
        .map_err(|e| format!("reading mlx-sys/pristine/SOURCE_DIGEST: {e}"))?;
    let expected = expected.trim().to_string();
    let dir = cache.pristine_source(&expected, |staging| {
        let crate_dir = fetch_pinned_crate(&pristine_dir().join("Cargo.toml"))?;
        copy_tree(&crate_dir.join("vendor/mlx"), staging)?;
        reverse_crate_patches(&crate_dir.join("patches"), staging)?;
        let actual = digest::tree(staging)?;
        if actual != expected {
            return Err(format!(
                "the MLX source recovered from {PINNED_CRATE} {PINNED_VERSION} has digest\n  \
                 {actual}\nbut mlx-sys/pristine/SOURCE_DIGEST records\n  {expected}\n\
                 The downloaded crate is not the pinned one. Set MLX_SRC_DIR to an MLX v0.32.4 \
                 checkout to build without it."
            ));
        }
        Ok(())
    })?;
    Ok(Source { dir, digest: expected, origin: "pinned".into() })
}

/// `cargo fetch` then `cargo metadata` on the tiny pinned manifest: the unpacked crate's path.
fn fetch_pinned_crate(manifest: &Path) -> Fallible<PathBuf> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let hint = "Check the network to the crate registry, or set MLX_SRC_DIR to an MLX checkout.";
    run_command(
        Command::new(&cargo).args(["fetch", "--locked", "--manifest-path"]).arg(manifest),
        &format!("fetching {PINNED_CRATE} {PINNED_VERSION} (the pinned MLX source). {hint}"),
    )?;
    let metadata = run_command(
        Command::new(&cargo)
            .args(["metadata", "--locked", "--offline", "--format-version", "1"])
            .arg("--manifest-path")
            .arg(manifest),
        "reading cargo metadata of the pinned MLX source crate",
    )?;
    let metadata: serde_json::Value =
        serde_json::from_str(&metadata).map_err(|e| format!("cargo metadata output: {e}"))?;
    metadata["packages"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|p| p["name"] == PINNED_CRATE && p["version"] == PINNED_VERSION)
        .and_then(|p| p["manifest_path"].as_str())
        .map(|m| PathBuf::from(m).parent().unwrap().to_path_buf())
        .ok_or_else(|| format!("cargo metadata does not list {PINNED_CRATE} {PINNED_VERSION}"))
}

/// The crate vendors MLX with three small patches of its own applied: undo them, last first.
fn reverse_crate_patches(patch_dir: &Path, tree: &Path) -> Fallible<()> {
    crate::patches::init_git(tree)?;
    for patch in sorted_files(patch_dir, "patch")?.iter().rev() {
        run_command(
            Command::new("git").arg("-C").arg(tree).args(["apply", "-R"]).arg(patch),
            &format!("reversing {} of {PINNED_CRATE}", patch.display()),
        )?;
    }
    fs::remove_dir_all(tree.join(".git")).map_err(|e| format!("removing scratch .git: {e}"))
}
