//! The patch series against the source MLX is built from (pinned v0.32.4 unless `MLX_SRC_DIR`):
//! every patch applies alone, and all of them apply in series order.

use std::path::{Path, PathBuf};
use std::process::Command;

const SERIES_IDS: [&str; 3] = ["gather-qmm-tiles", "fused-causal-softmax", "eval-walk"];

fn patches_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../patches")
}

fn series() -> Vec<PathBuf> {
    let text = std::fs::read_to_string(patches_dir().join("series")).expect("patches/series");
    text.lines().filter(|l| !l.trim().is_empty()).map(|l| patches_dir().join(l.trim())).collect()
}

/// Applies `patches` in order to a fresh copy of the unpatched source; Err names what failed.
fn apply_to_fresh_source(patches: &[PathBuf]) -> Result<(), String> {
    let scratch = tempfile::tempdir().unwrap();
    let tree = scratch.path().join("mlx");
    let source = mlx_sys::build_info::SOURCE_DIR;
    let copied = Command::new("cp").arg("-r").arg(source).arg(&tree).status().unwrap();
    assert!(copied.success(), "copying {source}");
    let git = |args: &[&str]| Command::new("git").arg("-C").arg(&tree).args(args).output().unwrap();
    assert!(git(&["init", "-q"]).status.success());
    for patch in patches {
        let out = git(&["apply", "--whitespace=nowarn", patch.to_str().unwrap()]);
        if !out.status.success() {
            return Err(format!("{}: {}", patch.display(), String::from_utf8_lossy(&out.stderr)));
        }
    }
    Ok(())
}

#[test]
fn series_lists_the_three_patches_in_order_and_their_files_exist() {
    let files = series();
    let ids: Vec<String> = files
        .iter()
        .map(|p| p.file_stem().unwrap().to_str().unwrap().split_once('-').unwrap().1.to_string())
        .collect();
    assert_eq!(ids, SERIES_IDS);
    for file in &files {
        assert!(file.is_file(), "{} is missing", file.display());
    }
}

#[test]
fn each_patch_applies_alone() {
    for patch in series() {
        apply_to_fresh_source(std::slice::from_ref(&patch)).unwrap();
    }
}

#[test]
fn all_patches_apply_in_series_order() {
    apply_to_fresh_source(&series()).unwrap();
}

/// The real build script, stopped before cmake by an extra patch that cannot apply.
#[test]
fn a_patch_that_does_not_apply_stops_the_build_naming_patch_and_file() {
    let scratch = tempfile::tempdir().unwrap();
    let bogus = scratch.path().join("0099-bogus.patch");
    let hunk = "--- a/mlx/array.h\n+++ b/mlx/array.h\n@@ -1,3 +1,3 @@\n-no such line\n+x\n a\n b\n";
    std::fs::write(&bogus, hunk).unwrap();
    let output = Command::new(env!("CARGO"))
        .args(["build", "--offline", "-p", "mlx-sys", "--no-default-features", "--target-dir"])
        .arg(Path::new(env!("CARGO_TARGET_TMPDIR")).join("bogus-patch"))
        .env("MLX_EXTRA_PATCHES", &bogus)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success(), "the build must stop:\n{stderr}");
    assert!(stderr.contains("patch 0099-bogus.patch"), "names the patch:\n{stderr}");
    assert!(stderr.contains("mlx/array.h"), "names the file:\n{stderr}");
}

#[test]
fn the_build_applied_exactly_the_patches_its_features_select() {
    assert_eq!(mlx_sys::build_info::PATCHES, mlx::requested_patches().as_slice());
}
