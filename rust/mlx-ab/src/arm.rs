//! One side of an A/B comparison: which patches, which MLX source, which extra patch files. An
//! arm is realized as a build of its worker (`mlx-ab-worker`) against that MLX, in its own cargo target
//! directory under the cache (two MLX builds cannot share one process).

use crate::cache_dir;
use serde::Serialize;
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};

#[derive(Debug, Clone, Serialize)]
pub struct ArmSpec {
    /// Patch ids (cargo features), in series order; empty = stock MLX.
    pub patches: Vec<String>,
    /// An MLX checkout to build instead of the pinned v0.32.4 source.
    pub src: Option<PathBuf>,
    /// Patch files applied after the series (`MLX_EXTRA_PATCHES`).
    pub extra_patches: Vec<PathBuf>,
    /// `KEY=VALUE` variables set for this arm's worker alone (`--a-env` / `--b-env`): run-time
    /// switches, not part of the build.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub env: Vec<String>,
}

/// `all`, `none`, or a comma-separated list of patch ids (those of `patches/series`).
pub fn parse_patch_list(text: &str) -> Result<Vec<String>, String> {
    Ok(mlx_build::series::parse_list(text)?.into_iter().map(String::from).collect())
}

impl ArmSpec {
    /// Checks the paths and makes them absolute.
    pub fn new(
        patches: Vec<String>,
        src: Option<PathBuf>,
        extra: Vec<PathBuf>,
    ) -> Result<Self, String> {
        let src = match src {
            Some(dir) => {
                let dir = cache_dir::absolute(dir)?;
                if !dir.join("mlx/mlx.h").is_file() {
                    return Err(format!("{} is not an MLX checkout (no mlx/mlx.h)", dir.display()));
                }
                Some(dir)
            }
            None => None,
        };
        let mut extra_patches = Vec::new();
        for file in extra {
            let file = cache_dir::absolute(file)?;
            if !file.is_file() {
                return Err(format!("extra patch {} does not exist", file.display()));
            }
            extra_patches.push(file);
        }
        Ok(ArmSpec { patches, src, extra_patches, env: Vec::new() })
    }

    /// The arm with `env` set for its worker alone.
    pub fn with_env(mut self, env: &[(String, String)]) -> Self {
        self.env = crate::ops::env_strings(env);
        self
    }

    /// The arm as it ran: a prebuilt arm takes no `--*-extra-patch`, so its extra patches are
    /// those its worker reports from the install (an experiment built with `mlx-build build
    /// --extra-patch`), named by file.
    pub fn with_reported_extras(mut self, info: &mlx_ab_protocol::Info) -> Self {
        if self.extra_patches.is_empty() {
            self.extra_patches = info.extra_patches.iter().map(PathBuf::from).collect();
        }
        self
    }

    /// Short human label: `stock`, `all patches`, `fused-causal-softmax + fix.patch`, `... @ /path`,
    /// `... with `KEY=VALUE``.
    pub fn label(&self) -> String {
        let mut parts = Vec::new();
        match self.patches.len() {
            0 => parts.push("stock".to_string()),
            n if n == mlx_build::series::ids().len() => parts.push("all patches".to_string()),
            _ => parts.push(self.patches.join(" + ")),
        }
        for extra in &self.extra_patches {
            parts.push(file_name(extra));
        }
        let mut label = parts.join(" + ");
        if let Some(src) = &self.src {
            label.push_str(&format!(" @ {}", src.display()));
        }
        label + &crate::ops_report::with_env(&self.env)
    }

    pub fn cargo_features(&self) -> String {
        self.patches.join(",")
    }

    /// Identifies the arm's build directory: the workspace it is built from, features, source
    /// path and extra patches' bytes. (The MLX source's content is keyed by mlx-sys's own cache.)
    pub fn hash(&self, workspace: &Path) -> Result<String, String> {
        let mut hasher = Sha256::new();
        hasher.update(format!("workspace={}\n", workspace.display()));
        hasher.update(format!("features={}\n", self.cargo_features()));
        hasher.update(format!(
            "src={}\n",
            self.src.as_deref().map_or("pinned".to_string(), |p| p.display().to_string())
        ));
        for file in &self.extra_patches {
            let bytes =
                std::fs::read(file).map_err(|e| format!("reading {}: {e}", file.display()))?;
            hasher.update(format!("extra={} {}\n", file_name(file), hex(&Sha256::digest(&bytes))));
        }
        Ok(hex(&hasher.finalize())[..16].to_string())
    }

    /// Environment for the arm's cargo build: set what the arm asks for, clear the rest (so a
    /// variable in the caller's environment cannot leak into the other arm).
    pub fn build_env(&self) -> Result<Vec<(&'static str, Option<std::ffi::OsString>)>, String> {
        let extra = if self.extra_patches.is_empty() {
            None
        } else {
            Some(
                std::env::join_paths(&self.extra_patches)
                    .map_err(|e| format!("extra patch paths: {e}"))?,
            )
        };
        Ok(vec![
            ("MLX_SRC_DIR", self.src.as_ref().map(|p| p.clone().into_os_string())),
            ("MLX_EXTRA_PATCHES", extra),
        ])
    }
}

pub fn file_name(path: &Path) -> String {
    path.file_name()
        .map_or_else(|| path.display().to_string(), |n| n.to_string_lossy().into_owned())
}

pub use mlx_build::digest::hex;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patch_lists() {
        assert_eq!(parse_patch_list("all").unwrap(), mlx_build::series::ids());
        assert!(parse_patch_list("none").unwrap().is_empty());
        assert!(parse_patch_list("bogus").unwrap_err().contains("bogus"));
    }

    /// A prebuilt experiment arm (stock's worker on stock + an extra patch) is labelled and
    /// reported by what its install applied, not as stock.
    #[test]
    fn a_prebuilt_arm_takes_the_extra_patches_its_worker_reports() {
        let info: mlx_ab_protocol::Info = serde_json::from_str(
            r#"{"mlx_version": "0.32.4", "patches": [], "source_digest": "0",
                "extra_patches": ["experiment.patch"]}"#,
        )
        .unwrap();
        let stock = ArmSpec::new(vec![], None, vec![]).unwrap();
        assert_eq!(stock.clone().with_reported_extras(&info).label(), "stock + experiment.patch");
        let plain = mlx_ab_protocol::Info { extra_patches: vec![], ..info };
        assert_eq!(stock.with_reported_extras(&plain).label(), "stock");
    }

    #[test]
    fn hash_covers_features_and_extra_patch_bytes() {
        let ws = Path::new("/ws");
        let stock = ArmSpec::new(vec![], None, vec![]).unwrap();
        let all = ArmSpec::new(parse_patch_list("all").unwrap(), None, vec![]).unwrap();
        assert_ne!(stock.hash(ws).unwrap(), all.hash(ws).unwrap());
        assert_eq!(
            stock.hash(ws).unwrap(),
            ArmSpec::new(vec![], None, vec![]).unwrap().hash(ws).unwrap()
        );
        assert_ne!(stock.hash(ws).unwrap(), stock.hash(Path::new("/other")).unwrap());
        let dir = std::env::temp_dir().join(format!("mlx-ab-arm-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let patch = dir.join("x.patch");
        std::fs::write(&patch, "one").unwrap();
        let with_extra = ArmSpec::new(vec![], None, vec![patch.clone()]).unwrap();
        let first = with_extra.hash(ws).unwrap();
        assert_ne!(first, stock.hash(ws).unwrap());
        std::fs::write(&patch, "two").unwrap();
        assert_ne!(first, with_extra.hash(ws).unwrap());
        assert_eq!(with_extra.label(), "stock + x.patch");
        std::fs::remove_dir_all(&dir).unwrap();
        assert!(ArmSpec::new(vec![], None, vec![patch]).is_err());
    }
}
