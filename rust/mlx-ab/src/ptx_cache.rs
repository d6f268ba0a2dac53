//! Where an arm's worker keeps MLX's JIT-compiled CUDA kernels (`MLX_PTX_CACHE_DIR`).
//!
//! MLX names a cached kernel by the MLX version and the kernel's name only, not by its source:
//! two arms sharing a folder would run each other's kernels (a patch that edits a JIT kernel
//! would then measure stock's). So each arm gets a folder named by the digest of the code it
//! runs, the worker binary and, for a prebuilt arm, its lib/ folder's MLX libraries. Kept
//! across runs: compiling the kernels of a large model takes minutes on a fresh folder.

use crate::prebuilt::ArmBinary;
use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// The arm's environment plus its own kernel cache: every process of an arm (`run`'s workers
/// and the forwarded `generate`, `make-model`, `info`) compiles into and reuses one folder.
pub fn worker_env(binary: &ArmBinary) -> Result<Vec<(OsString, OsString)>, String> {
    let mut env = binary.env.clone();
    env.push(("MLX_PTX_CACHE_DIR".into(), dir(binary)?.into_os_string()));
    Ok(env)
}

/// `<cache root>/ptx/<digest>` for the code `binary` runs.
pub fn dir(binary: &ArmBinary) -> Result<PathBuf, String> {
    let mut files = vec![binary.binary.clone()];
    if let Some(prebuilt) = &binary.prebuilt {
        files.extend(mlx_libraries(&prebuilt.lib)?);
    }
    let paths: Vec<&Path> = files.iter().map(PathBuf::as_path).collect();
    let digest = mlx_build::digest::files(&paths)?;
    Ok(crate::cache_dir::root()?.join("ptx").join(&digest[..24]))
}

/// The `libmlx*` files of `lib`, sorted, so the digest does not depend on listing order.
fn mlx_libraries(lib: &Path) -> Result<Vec<PathBuf>, String> {
    let entries = std::fs::read_dir(lib).map_err(|e| format!("reading {}: {e}", lib.display()))?;
    let mut found = Vec::new();
    for entry in entries {
        let path = entry.map_err(|e| e.to_string())?.path();
        let name = path.file_name().unwrap_or_default().to_string_lossy();
        if name.starts_with("libmlx") && path.is_file() {
            found.push(path);
        }
    }
    found.sort();
    Ok(found)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::prebuilt::Prebuilt;

    fn arm(dir: &Path) -> ArmBinary {
        ArmBinary {
            binary: dir.join("bin/mlx-ab-worker"),
            env: Vec::new(),
            dir: dir.to_path_buf(),
            prebuilt: Some(Prebuilt {
                dir: dir.to_path_buf(),
                binary: dir.join("bin/mlx-ab-worker"),
                lib: dir.join("lib"),
            }),
        }
    }

    fn write(path: &Path, bytes: &[u8]) {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, bytes).unwrap();
    }

    #[test]
    fn the_folder_follows_the_code_not_the_path() {
        let scratch = tempfile::tempdir().unwrap();
        let (a, b) = (scratch.path().join("a"), scratch.path().join("b"));
        for d in [&a, &b] {
            write(&d.join("bin/mlx-ab-worker"), b"worker");
            write(&d.join("lib/libmlx.so"), b"stock");
            write(&d.join("lib/unrelated.txt"), d.to_string_lossy().as_bytes());
        }
        // Same bytes in two places: one folder.
        assert_eq!(dir(&arm(&a)).unwrap(), dir(&arm(&b)).unwrap());
        // One byte of the library differs: another folder; so does the worker binary.
        write(&b.join("lib/libmlx.so"), b"stocK");
        assert_ne!(dir(&arm(&a)).unwrap(), dir(&arm(&b)).unwrap());
        write(&b.join("lib/libmlx.so"), b"stock");
        write(&b.join("bin/mlx-ab-worker"), b"Worker");
        assert_ne!(dir(&arm(&a)).unwrap(), dir(&arm(&b)).unwrap());
    }

    #[test]
    fn a_missing_lib_folder_is_an_error() {
        let scratch = tempfile::tempdir().unwrap();
        write(&scratch.path().join("bin/mlx-ab-worker"), b"worker");
        let err = dir(&arm(scratch.path())).unwrap_err();
        assert!(err.contains("lib"), "{err}");
    }
}
