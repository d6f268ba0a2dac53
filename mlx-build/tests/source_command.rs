//! `mlx-build source`: the pinned source with the asked patches applied, in a new folder.

use std::path::Path;
use std::process::Command;

fn mlx_build(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_mlx-build")).args(args).output().unwrap()
}

fn read(tree: &Path, file: &str) -> String {
    std::fs::read_to_string(tree.join(file)).unwrap()
}

#[test]
fn source_applies_the_asked_patches_only() {
    let d = tempfile::tempdir().unwrap();
    let (stock, patched) = (d.path().join("stock"), d.path().join("patched"));
    let file = "mlx/backend/cuda/quantized/quantized.cpp";
    for (dest, list) in [(&stock, "none"), (&patched, "affine-gather-rhs")] {
        let out = mlx_build(&["source", "--patches", list, "--dest", dest.to_str().unwrap()]);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), dest.to_str().unwrap());
        assert!(!dest.join(".git").exists(), "the scratch repository is gone");
    }
    assert_ne!(read(&stock, file), read(&patched, file));
    // The other patches' files are as in stock.
    let walk = "mlx/transforms.cpp";
    assert_eq!(read(&stock, walk), read(&patched, walk));

    let again = mlx_build(&["source", "--patches", "none", "--dest", stock.to_str().unwrap()]);
    assert_eq!(again.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&again.stderr).contains("exists"));
    let unknown = d.path().join("unknown");
    let out =
        mlx_build(&["source", "--patches", "no-such-patch", "--dest", unknown.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(!unknown.exists());
}

#[test]
fn pristine_source_stages_the_pinned_source_in_an_empty_cache() {
    let cache = tempfile::tempdir().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_mlx-build"))
        .arg("pristine-source")
        .env("MLX_BUILD_CACHE", cache.path())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let dir = std::path::PathBuf::from(String::from_utf8_lossy(&out.stdout).trim());
    assert!(dir.starts_with(cache.path()), "{} is not in the cache", dir.display());
    let version = read(&dir, "mlx/version.h");
    for part in ["MLX_VERSION_MAJOR 0", "MLX_VERSION_MINOR 32", "MLX_VERSION_PATCH 4"] {
        assert!(version.contains(part), "mlx/version.h lacks {part}");
    }
}

/// The SERIES an install holds, which the GPU machine's build stage compares with a prebuilt
/// arm's: each patch file's sha256 and name, series order, then the extra patches.
#[test]
fn series_names_each_patch_file_by_its_sha256() {
    use sha2::{Digest, Sha256};
    let out = mlx_build(&["patches", "all"]);
    let files: Vec<String> =
        String::from_utf8_lossy(&out.stdout).lines().map(String::from).collect();
    assert!(files.len() > 1, "{files:?}");
    let line = |path: &str| {
        let name = Path::new(path).file_name().unwrap().to_string_lossy().into_owned();
        format!("{:x}  {name}", Sha256::digest(std::fs::read(path).unwrap()))
    };
    let expected: Vec<String> = files.iter().map(|f| line(f)).collect();
    let out = mlx_build(&["series", "--patches", "all"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(String::from_utf8_lossy(&out.stdout).lines().collect::<Vec<_>>(), expected);

    let out = mlx_build(&["series", "--patches", "none", "--extra-patch", &files[1]]);
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), line(&files[1]));
    let out = mlx_build(&["series", "--patches", "none"]);
    assert!(out.status.success() && out.stdout.is_empty());
    let out = mlx_build(&["series", "--patches", "no-such-patch"]);
    assert_eq!(out.status.code(), Some(2));
}

/// `mlx-build cache-root`: the scripts' one way to the build cache (scripts/gpu/ptx-cache.sh,
/// scripts/cuda-flags.sh), so they follow the same variables as the Rust code.
#[test]
fn cache_root_follows_the_environment() {
    let root = |vars: &[(&str, &str)]| {
        let mut command = Command::new(env!("CARGO_BIN_EXE_mlx-build"));
        command.arg("cache-root");
        for name in ["MLX_BUILD_CACHE", "MLX_AB_CACHE_DIR", "XDG_CACHE_HOME"] {
            command.env_remove(name);
        }
        let out = command.envs(vars.iter().copied()).output().unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8_lossy(&out.stdout).trim().to_string()
    };
    assert_eq!(root(&[("MLX_BUILD_CACHE", "/a"), ("MLX_AB_CACHE_DIR", "/b")]), "/a");
    assert_eq!(root(&[("MLX_AB_CACHE_DIR", "/b"), ("XDG_CACHE_HOME", "/c")]), "/b");
    assert_eq!(root(&[("XDG_CACHE_HOME", "/c"), ("HOME", "/h")]), "/c/mlx-ab");
    assert_eq!(root(&[("HOME", "/h")]), "/h/.cache/mlx-ab");
}
