//! Where an arm's worker comes from: built here by cargo, or a prebuilt arm in the installed
//! layout (`--a-prebuilt DIR`): `DIR/bin/mlx-ab-worker` (the worker, built with the arm's patch
//! features), `DIR/lib/libmlx.so` (the MLX it runs on, for example a CUDA build made on the GPU
//! machine from the same source and patches) and `DIR/include` (MLX's JIT headers). A prebuilt
//! arm needs neither cargo nor this workspace: its worker runs with `DIR/lib` first on the
//! library search path, and must report MLX code from inside `DIR/lib` (or, for a static build,
//! from its own binary).

use crate::cache_dir;
use crate::cargo_build::WORKER;
use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// The variable the dynamic loader searches (not run here: macOS).
pub const LIBRARY_PATH_VAR: &str =
    if cfg!(target_os = "macos") { "DYLD_LIBRARY_PATH" } else { "LD_LIBRARY_PATH" };

/// An arm's worker, ready to start.
pub struct ArmBinary {
    pub binary: PathBuf,
    /// Added to the worker's environment.
    pub env: Vec<(OsString, OsString)>,
    /// The cargo target directory, or the prebuilt layout.
    pub dir: PathBuf,
    pub prebuilt: Option<Prebuilt>,
}

impl ArmBinary {
    pub fn built(built: crate::cargo_build::BuiltArm) -> Self {
        ArmBinary { binary: built.binary, env: Vec::new(), dir: built.target_dir, prebuilt: None }
    }

    pub fn prebuilt(prebuilt: Prebuilt) -> Result<Self, String> {
        let env = vec![(
            OsString::from(LIBRARY_PATH_VAR),
            prepend_path(&prebuilt.lib, std::env::var_os(LIBRARY_PATH_VAR))?,
        )];
        Ok(ArmBinary {
            binary: prebuilt.binary.clone(),
            env,
            dir: prebuilt.dir.clone(),
            prebuilt: Some(prebuilt),
        })
    }
}

/// A checked installed layout (absolute, symlinks resolved).
#[derive(Debug, Clone)]
pub struct Prebuilt {
    pub dir: PathBuf,
    pub binary: PathBuf,
    pub lib: PathBuf,
}

impl Prebuilt {
    /// Checks `dir` has `bin/mlx-ab-worker` and `lib/`; `option` names the flag in messages.
    pub fn open(dir: &Path, option: &str) -> Result<Prebuilt, String> {
        let given = cache_dir::absolute(dir.to_path_buf())?;
        let dir = given.canonicalize().map_err(|e| format!("{option} {}: {e}", given.display()))?;
        let binary = dir.join("bin").join(format!("{WORKER}{}", std::env::consts::EXE_SUFFIX));
        let lib = dir.join("lib");
        let layout =
            "expected the installed layout DIR/bin/mlx-ab-worker (the worker) and DIR/lib (libmlx)";
        if !binary.is_file() {
            return Err(format!(
                "{option} {}: no worker {} ({layout})",
                given.display(),
                binary.display()
            ));
        }
        if !lib.is_dir() {
            return Err(format!(
                "{option} {}: no library directory {} ({layout})",
                given.display(),
                lib.display()
            ));
        }
        Ok(Prebuilt { dir, binary, lib })
    }

    /// The worker must run on this arm's own MLX: code from inside `DIR/lib` (shared build), or
    /// from `DIR/bin/mlx-ab-worker` itself (static build). Anything else (an rpath, a system libmlx, an
    /// `LD_LIBRARY_PATH` entry that won) is refused.
    pub fn check_library(&self, arm: &str, reported: &str) -> Result<(), String> {
        // Resolved, so that `lib/../elsewhere` or a symlink out of lib/ does not pass.
        let resolved = Path::new(reported).canonicalize().map_err(|e| {
            format!(
                "arm {arm} (prebuilt {}): its worker reports MLX code from {reported:?} ({e})",
                self.dir.display()
            )
        })?;
        let binary = self.binary.canonicalize().unwrap_or_else(|_| self.binary.clone());
        if resolved.starts_with(&self.lib) || resolved == binary {
            return Ok(());
        }
        Err(format!(
            "arm {arm} (prebuilt {}): its worker runs MLX from {reported}, not from {} — the arm \
             would not be measuring its own libmlx (an rpath or {LIBRARY_PATH_VAR} entry took \
             precedence, or {} is missing from {})",
            self.dir.display(),
            self.lib.display(),
            library_file_name(),
            self.lib.display(),
        ))
    }
}

fn library_file_name() -> &'static str {
    if cfg!(target_os = "macos") {
        "libmlx.dylib"
    } else {
        "libmlx.so"
    }
}

/// `dir` first, then the existing entries.
pub fn prepend_path(dir: &Path, existing: Option<OsString>) -> Result<OsString, String> {
    let mut entries = vec![dir.to_path_buf()];
    if let Some(existing) = existing.filter(|e| !e.is_empty()) {
        entries.extend(std::env::split_paths(&existing));
    }
    std::env::join_paths(entries).map_err(|e| format!("{}: {e}", dir.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("mlx-ab-prebuilt-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn layouts_are_checked() {
        let dir = scratch("layout");
        let missing = Prebuilt::open(&dir.join("nope"), "--a-prebuilt").unwrap_err();
        assert!(missing.starts_with("--a-prebuilt "), "{missing}");
        let no_bin = Prebuilt::open(&dir, "--b-prebuilt").unwrap_err();
        assert!(
            no_bin.contains("bin/mlx-ab-worker") && no_bin.contains("--b-prebuilt"),
            "{no_bin}"
        );
        std::fs::create_dir_all(dir.join("bin")).unwrap();
        std::fs::write(dir.join("bin/mlx-ab-worker"), "").unwrap();
        let no_lib = Prebuilt::open(&dir, "--a-prebuilt").unwrap_err();
        assert!(no_lib.contains("no library directory"), "{no_lib}");
        std::fs::write(dir.join("lib"), "").unwrap(); // a file is not a directory
        assert!(Prebuilt::open(&dir, "--a-prebuilt").is_err());
        std::fs::remove_file(dir.join("lib")).unwrap();
        std::fs::create_dir_all(dir.join("lib")).unwrap();
        let ok = Prebuilt::open(&dir, "--a-prebuilt").unwrap();
        assert_eq!(ok.dir, dir.canonicalize().unwrap());
        assert_eq!(ok.binary, ok.dir.join("bin/mlx-ab-worker"));
        assert_eq!(ok.lib, ok.dir.join("lib"));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn the_worker_must_run_on_the_arms_own_mlx() {
        let dir = scratch("library");
        std::fs::create_dir_all(dir.join("bin")).unwrap();
        std::fs::create_dir_all(dir.join("lib")).unwrap();
        std::fs::write(dir.join("bin/mlx-ab-worker"), "").unwrap();
        std::fs::write(dir.join("lib/libmlx.so.0.32.4"), "").unwrap();
        std::os::unix::fs::symlink("libmlx.so.0.32.4", dir.join("lib/libmlx.so")).unwrap();
        let arm = Prebuilt::open(&dir, "--a-prebuilt").unwrap();
        let inside = |p: &str| arm.dir.join(p).display().to_string();
        assert_eq!(arm.check_library("A", &inside("lib/libmlx.so.0.32.4")), Ok(()));
        assert_eq!(arm.check_library("A", &inside("lib/libmlx.so")), Ok(()));
        // A static worker holds its MLX itself.
        assert_eq!(arm.check_library("A", &inside("bin/mlx-ab-worker")), Ok(()));
        // Elsewhere: refused, naming the arm and both places.
        let other = scratch("other");
        std::fs::write(other.join("libmlx.so"), "").unwrap();
        let error =
            arm.check_library("B", &other.join("libmlx.so").display().to_string()).unwrap_err();
        assert!(
            error.starts_with("arm B") && error.contains(&other.display().to_string()),
            "{error}"
        );
        assert!(error.contains(&arm.lib.display().to_string()), "{error}");
        // Paths that only look inside are refused: a sibling lib2/, `..` out of lib/, a symlink
        // in lib/ to a library elsewhere, a path that does not exist.
        for sibling in ["lib2", "other"] {
            std::fs::create_dir_all(dir.join(sibling)).unwrap();
            std::fs::write(dir.join(sibling).join("libmlx.so"), "").unwrap();
        }
        assert!(arm.check_library("A", &inside("lib2/libmlx.so")).is_err());
        assert!(arm
            .check_library("A", &format!("{}/../other/libmlx.so", arm.lib.display()))
            .is_err());
        std::os::unix::fs::symlink(dir.join("other/libmlx.so"), dir.join("lib/libmlx-other.so"))
            .unwrap();
        assert!(arm.check_library("A", &inside("lib/libmlx-other.so")).is_err());
        assert!(arm.check_library("A", &inside("lib/missing.so")).is_err());
        assert!(arm.check_library("A", "unknown: dladdr failed").is_err());
        std::fs::remove_dir_all(&dir).unwrap();
        std::fs::remove_dir_all(&other).unwrap();
    }

    #[test]
    fn library_path_is_prepended_for_that_arm_only() {
        let lib = Path::new("/arms/a/lib");
        assert_eq!(prepend_path(lib, None).unwrap(), OsString::from("/arms/a/lib"));
        assert_eq!(prepend_path(lib, Some("".into())).unwrap(), OsString::from("/arms/a/lib"));
        assert_eq!(
            prepend_path(lib, Some("/usr/local/cuda/lib64:/opt/x".into())).unwrap(),
            OsString::from("/arms/a/lib:/usr/local/cuda/lib64:/opt/x")
        );
        assert!(prepend_path(Path::new("/a:b"), None).is_err());
        // The driver's own environment is left alone.
        let dir = scratch("env");
        std::fs::create_dir_all(dir.join("bin")).unwrap();
        std::fs::create_dir_all(dir.join("lib")).unwrap();
        std::fs::write(dir.join("bin/mlx-ab-worker"), "").unwrap();
        let before = std::env::var_os(LIBRARY_PATH_VAR);
        let arm = ArmBinary::prebuilt(Prebuilt::open(&dir, "--a-prebuilt").unwrap()).unwrap();
        assert_eq!(std::env::var_os(LIBRARY_PATH_VAR), before);
        assert_eq!(arm.env.len(), 1);
        assert_eq!(arm.env[0].0, LIBRARY_PATH_VAR);
        let first = std::env::split_paths(&arm.env[0].1).next().unwrap();
        assert_eq!(first, dir.canonicalize().unwrap().join("lib"));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
