//! An installed MLX to link instead of building one (`MLX_PREFIX`, as tch-rs takes LIBTORCH):
//! any `mlx-build build` install or cache entry, checked against the patches the build asks for.

use crate::builder::{PATCHES_FILE, SERIES_FILE};
use crate::patches::Selection;
use crate::Fallible;
use std::fs;
use std::path::{Path, PathBuf};

pub const ENV: &str = "MLX_PREFIX";

pub struct Installed {
    pub dir: PathBuf,
    /// `lib/libmlx.so` rather than `lib/libmlx.a`.
    pub shared: bool,
    /// `cuda` when its build flags say `MLX_BUILD_CUDA=ON`, else `cpu`.
    pub backend: &'static str,
    /// The source digest its build spec names, if it has one.
    pub source_digest: Option<String>,
}

/// The install at `dir`, if it holds MLX's headers and library and was built with exactly the
/// selected patches (its `PATCHES`, and where it has one its `SERIES`: the same patch files).
pub fn check(dir: &Path, selected: &Selection) -> Fallible<Installed> {
    let name = format!("{ENV}={}", dir.display());
    if !dir.join("include/mlx/mlx.h").is_file() {
        return Err(format!("{name}: no include/mlx/mlx.h: not an installed MLX"));
    }
    let shared = dir.join("lib/libmlx.so").is_file();
    if !shared && !dir.join("lib/libmlx.a").is_file() {
        return Err(format!("{name}: no lib/libmlx.so or lib/libmlx.a"));
    }
    if !selected.extra.is_empty() {
        return Err(format!("{name}: MLX_EXTRA_PATCHES cannot be added to an installed MLX"));
    }
    let read = |file: &str| fs::read_to_string(dir.join(file));
    let installed = read(PATCHES_FILE).map_err(|e| {
        format!("{name}: no readable {PATCHES_FILE} ({e}): which patches it has is unknown")
    })?;
    let installed: Vec<&str> = installed.lines().map(str::trim).filter(|l| !l.is_empty()).collect();
    let wanted = selected.series_ids();
    if installed != wanted {
        return Err(format!(
            "{name} was built with the patches [{}], and this build asks for [{}] (cargo \
             features): build the prefix with `mlx-build build --patches {}` or change the features",
            installed.join(", "),
            wanted.join(", "),
            match wanted.as_slice() {
                [] => "none".to_string(),
                ids if ids == crate::series::ids().as_slice() => "all".to_string(),
                ids => ids.join(","),
            }
        ));
    }
    if let Ok(series) = read(SERIES_FILE) {
        if series != selected.sha256_lines() {
            return Err(format!(
                "{name}: its {SERIES_FILE} names other patch files than this checkout's \
                 patches/ (sha256):\n{series}this checkout:\n{}",
                selected.sha256_lines()
            ));
        }
    }
    let spec = read(crate::cache::SPEC_FILE).unwrap_or_default();
    let backend = if spec.contains("MLX_BUILD_CUDA=ON") { "cuda" } else { "cpu" };
    let source_digest =
        spec.lines().find_map(|l| l.strip_prefix("source digest: ")).map(str::to_string);
    Ok(Installed { dir: dir.to_path_buf(), shared, backend, source_digest })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::patches::Patch;

    fn install(dir: &Path, patches: &str, series: Option<&str>) {
        fs::create_dir_all(dir.join("include/mlx")).unwrap();
        fs::create_dir_all(dir.join("lib")).unwrap();
        fs::write(dir.join("include/mlx/mlx.h"), "").unwrap();
        fs::write(dir.join("lib/libmlx.so"), "").unwrap();
        fs::write(dir.join(PATCHES_FILE), patches).unwrap();
        if let Some(series) = series {
            fs::write(dir.join(SERIES_FILE), series).unwrap();
        }
    }

    fn selection(dir: &Path, ids: &[&str]) -> Selection {
        let series = ids
            .iter()
            .map(|id| {
                let path = dir.join(format!("0001-{id}.patch"));
                fs::write(&path, id).unwrap();
                Patch { name: id.to_string(), path, bytes: id.as_bytes().to_vec() }
            })
            .collect();
        Selection { series, extra: Vec::new() }
    }

    #[test]
    fn an_install_with_the_asked_patches_is_linked() {
        let scratch = tempfile::tempdir().unwrap();
        let wanted = selection(scratch.path(), &["fused-causal-softmax"]);
        let dir = scratch.path().join("prefix");
        install(&dir, "fused-causal-softmax", Some(&wanted.sha256_lines()));
        let found = check(&dir, &wanted).unwrap();
        assert!(found.shared && found.backend == "cpu");
    }

    #[test]
    fn other_patches_or_other_patch_files_are_refused() {
        let scratch = tempfile::tempdir().unwrap();
        let wanted = selection(scratch.path(), &["fused-causal-softmax"]);
        let dir = scratch.path().join("prefix");
        install(&dir, "", None);
        let err = check(&dir, &wanted).err().unwrap();
        assert!(
            err.contains("built with the patches []") && err.contains("[fused-causal-softmax]"),
            "{err}"
        );
        install(&dir, "fused-causal-softmax", Some("0000  0001-fused-causal-softmax.patch\n"));
        assert!(check(&dir, &wanted).err().unwrap().contains("other patch files"));
        fs::remove_file(dir.join("include/mlx/mlx.h")).unwrap();
        assert!(check(&dir, &wanted).err().unwrap().contains("not an installed MLX"));
    }
}
