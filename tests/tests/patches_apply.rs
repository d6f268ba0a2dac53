//! The patch series against the source MLX is built from (pinned v0.32.4 unless `MLX_SRC_DIR`):
//! every patch applies alone, all of them apply in series order, and each experiment patch applies
//! alone or on the series.

use std::path::{Path, PathBuf};
use std::process::Command;

use mlx_build::series;

fn series_files() -> Vec<PathBuf> {
    series::entries().iter().map(|e| series::patch_dir().unwrap().join(e.file_name)).collect()
}

/// `cargo build -p mlx-sys --no-default-features` in a scratch target dir, nested in this test:
/// the outer cargo's jobserver and target dir stay out.
fn nested_mlx_sys_build(target: &str) -> Command {
    let mut cargo = mlx_build::nested_cargo::command(env!("CARGO"));
    cargo.args(["build", "--offline", "-p", "mlx-sys", "--no-default-features"]);
    cargo.arg("--target-dir").arg(Path::new(env!("CARGO_TARGET_TMPDIR")).join(target));
    cargo.current_dir(env!("CARGO_MANIFEST_DIR"));
    cargo
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
fn series_files_exist() {
    for file in series_files() {
        assert!(file.is_file(), "{} is missing", file.display());
    }
}

/// `cargo metadata --no-deps` packages of the workspace whose manifest is `manifest`.
fn workspace_packages(manifest: &Path) -> Vec<serde_json::Value> {
    let out = Command::new(env!("CARGO"))
        .args(["metadata", "--no-deps", "--offline", "--format-version", "1", "--manifest-path"])
        .arg(manifest)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let metadata: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    metadata["packages"].as_array().unwrap().clone()
}

/// Every crate that selects patches has exactly one feature per series id, default all of them:
/// this workspace's and mlx-rs-compat's (the drop-in mlx-sys 0.7.0 and its example). Each such
/// feature is forwarded once, to the one crate below (mlx-sys applies it); a crate that only
/// binds what a patch adds (mlx-ext) has no patch features and follows mlx-sys's build.
#[test]
fn every_patch_selecting_crate_has_the_series_as_features() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    let mut packages = workspace_packages(&root.join("Cargo.toml"));
    packages.extend(workspace_packages(&root.join("mlx-rs-compat/Cargo.toml")));
    let ids = series::ids();
    // Features that are not patches (`metal`, `metal-jit`, `accelerate`: mlx-rs's, on the drop-in;
    // `fault-injection`: the worker's test-only faults).
    let other = [
        "default",
        "cpp-suite",
        "shared",
        "cuda",
        "metal",
        "metal-jit",
        "accelerate",
        "fault-injection",
    ];
    let mut checked = Vec::new();
    for package in &packages {
        let features = package["features"].as_object().unwrap();
        if !ids.iter().any(|id| features.contains_key(*id)) {
            continue;
        }
        let name = package["name"].as_str().unwrap();
        let patch_features: Vec<&str> =
            features.keys().map(String::as_str).filter(|f| !other.contains(f)).collect();
        let mut want = ids.clone();
        want.sort();
        assert_eq!(patch_features, want, "{name}: patch features vs patches/series");
        let default: Vec<&str> =
            features["default"].as_array().unwrap().iter().map(|v| v.as_str().unwrap()).collect();
        assert_eq!(default, ids, "{name}: default features must be the whole series, in order");
        for id in &ids {
            let forwarded: Vec<&str> = features[*id]
                .as_array()
                .unwrap()
                .iter()
                .map(|v| v.as_str().unwrap())
                .filter(|f| !f.starts_with("dep:"))
                .collect();
            let applies = name == "mlx-sys" && package["version"] == "0.1.0";
            let want = if applies { 0 } else { 1 };
            assert_eq!(forwarded.len(), want, "{name}: feature {id} forwards to {forwarded:?}");
            assert!(forwarded.iter().all(|f| f.ends_with(&format!("/{id}"))), "{name}: {id}");
        }
        checked.push(format!("{name} {}", package["version"].as_str().unwrap()));
    }
    assert!(checked.len() >= 8, "only {checked:?} select patches");
    // The A/B driver links no MLX, so it selects no patches; its worker does.
    assert!(checked.iter().any(|c| c.starts_with("mlx-ab-worker ")), "{checked:?}");
    assert!(!checked.iter().any(|c| c.starts_with("mlx-ab ")), "the driver selects patches");
    assert!(!checked.iter().any(|c| c.starts_with("mlx-ext ")), "mlx-ext has patch features");
    for drop_in in ["mlx-sys 0.7.0", "mlx-rs-example 0.1.0"] {
        assert!(checked.iter().any(|c| c == drop_in), "{drop_in} not checked: {checked:?}");
    }
}

/// Without nvcc and cuDNN, the `cuda` feature stops at once with one message naming both.
#[test]
fn cuda_feature_without_a_toolkit_names_what_is_missing() {
    let output = nested_mlx_sys_build("no-cuda")
        .args(["--features", "cuda"])
        .env("CUDA_HOME", "/nonexistent/cuda")
        .env("CUDNN_ROOT", "/nonexistent/cudnn")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success(), "the build must stop:\n{stderr}");
    assert!(stderr.contains("this machine lacks"), "{stderr}");
    assert!(stderr.contains("nvcc (looked for /nonexistent/cuda/bin/nvcc)"), "{stderr}");
    assert!(stderr.contains("cuDNN (include/cudnn.h"), "{stderr}");
    assert!(!stderr.contains("CMake Error"), "cmake must not run:\n{stderr}");
}

#[test]
fn each_patch_applies_alone() {
    for patch in series_files() {
        apply_to_fresh_source(std::slice::from_ref(&patch)).unwrap();
    }
}

#[test]
fn all_patches_apply_in_series_order() {
    apply_to_fresh_source(&series_files()).unwrap();
}

/// Every experiment patch (`scripts/repro/experiments/`) applies to the pinned source alone or on
/// top of the whole series (`EXTRA_BASE=all` on the GPU machine): a series change that leaves one
/// stale fails here, not in a build on the GPU machine.
#[test]
fn every_experiment_applies_to_the_source_or_on_the_series() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../scripts/repro/experiments");
    let mut experiments: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "patch"))
        .collect();
    experiments.sort();
    assert!(!experiments.is_empty(), "no experiment patches in {}", dir.display());
    for experiment in experiments {
        let Err(alone) = apply_to_fresh_source(std::slice::from_ref(&experiment)) else {
            continue;
        };
        let mut on_series = series_files();
        on_series.push(experiment.clone());
        if let Err(with_series) = apply_to_fresh_source(&on_series) {
            panic!("applies neither alone ({alone}) nor on the series ({with_series})");
        }
    }
}

/// The real build script, stopped before cmake by an extra patch that cannot apply.
#[test]
fn a_patch_that_does_not_apply_stops_the_build_naming_patch_and_file() {
    let scratch = tempfile::tempdir().unwrap();
    let bogus = scratch.path().join("0099-bogus.patch");
    let hunk = "--- a/mlx/array.h\n+++ b/mlx/array.h\n@@ -1,3 +1,3 @@\n-no such line\n+x\n a\n b\n";
    std::fs::write(&bogus, hunk).unwrap();
    let output =
        nested_mlx_sys_build("bogus-patch").env("MLX_EXTRA_PATCHES", &bogus).output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success(), "the build must stop:\n{stderr}");
    assert!(stderr.contains("patch 0099-bogus.patch"), "names the patch:\n{stderr}");
    assert!(stderr.contains("mlx/array.h"), "names the file:\n{stderr}");
}

#[test]
fn the_build_applied_exactly_the_patches_its_features_select() {
    assert_eq!(mlx_sys::build_info::PATCHES, mlx::requested_patches().as_slice());
}

/// From `Subject:` through the `-- ` signature separator: the message and the diff, without the
/// header lines (commit id, author, date) and git's version, and without the diff's `index`
/// lines: their blob ids name the file before and after the patch, so they change when an
/// earlier patch of the series changes that file (0001 and 0006 both touch blas_tests.cpp),
/// while the lines the patch changes do not.
fn message_and_diff(patch: &str) -> String {
    let start = patch.find("\nSubject: ").expect("a Subject line") + 1;
    let end = patch.rfind("\n-- \n").expect("a signature separator");
    patch[start..end]
        .lines()
        .filter(|line| !line.starts_with("index "))
        .collect::<Vec<_>>()
        .join("\n")
}

/// scripts/export-series re-authors every patch to whoever runs it and changes nothing else.
#[test]
fn export_series_reauthors_without_changing_messages_or_diffs() {
    let out = tempfile::tempdir().unwrap();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../scripts/export-series");
    let who = [("NAME", "Ada Contributor"), ("EMAIL", "ada@example.org")];
    let mut command = Command::new(script);
    command.arg(out.path()).arg(mlx_sys::build_info::SOURCE_DIR);
    for role in ["AUTHOR", "COMMITTER"] {
        for (field, value) in who {
            command.env(format!("GIT_{role}_{field}"), value);
        }
    }
    let output = command.output().unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    for patch in series_files() {
        let name = patch.file_name().unwrap();
        let ours = std::fs::read_to_string(&patch).unwrap();
        let exported = std::fs::read_to_string(out.path().join(name)).unwrap();
        assert!(
            exported.contains("\nFrom: Ada Contributor <ada@example.org>\n"),
            "{name:?} is not authored by the runner:\n{}",
            &exported[..300.min(exported.len())]
        );
        assert_eq!(message_and_diff(&exported), message_and_diff(&ours), "{name:?}");
    }
}
