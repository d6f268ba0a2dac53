//! The build cache outside `target/`: one directory per build key, filled under a file lock in a
//! `.partial` directory and published by an atomic rename, so concurrent cargo builds share work
//! and an interrupted build never leaves a half-built entry behind.

use crate::patches::Selection;
use crate::source::Source;
use crate::{digest, Fallible};
use std::fs::{self, File};
use std::path::{Path, PathBuf};
use std::process::Command;

const COMPLETE_MARKER: &str = "COMPLETE";

pub struct Cache {
    root: PathBuf,
}

/// Everything that changes the built library, hashed into its cache key.
pub struct BuildSpec {
    pub key: String,
    pub description: String,
}

impl BuildSpec {
    pub fn new(source: &Source, patches: &Selection, flags: &[String]) -> Self {
        let description = format!(
            "format: mlx-sys build v1\nsource: {}\nsource digest: {}\npatches:\n{}flags: {}\n\
             compiler: {}\ncmake: {}\ntarget: {}\n",
            source.origin,
            source.digest,
            patches.fingerprint(),
            flags.join(" "),
            tool_version(&std::env::var("CXX").unwrap_or_else(|_| "c++".into())),
            tool_version("cmake"),
            std::env::var("TARGET").unwrap_or_default(),
        );
        // The source's origin names a path, not content: leave it out of the key.
        let keyed: String =
            description.lines().filter(|l| !l.starts_with("source:")).collect::<Vec<_>>().join("\n");
        BuildSpec { key: digest::bytes(keyed.as_bytes())[..24].to_string(), description }
    }
}

fn tool_version(tool: &str) -> String {
    Command::new(tool)
        .arg("--version")
        .output()
        .ok()
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .and_then(|s| s.lines().next().map(str::to_string))
        .unwrap_or_else(|| format!("{tool} (version unknown)"))
}

impl Cache {
    pub fn open() -> Fallible<Self> {
        let root = match std::env::var_os("MLX_AB_CACHE_DIR") {
            Some(dir) => PathBuf::from(dir),
            None => std::env::var_os("XDG_CACHE_HOME")
                .map(PathBuf::from)
                .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))
                .ok_or("neither MLX_AB_CACHE_DIR, XDG_CACHE_HOME nor HOME is set")?
                .join("mlx-ab"),
        };
        for sub in ["sources", "builds"] {
            fs::create_dir_all(root.join(sub))
                .map_err(|e| format!("creating cache dir {}: {e}", root.join(sub).display()))?;
        }
        Ok(Cache { root })
    }

    /// The pristine source tree with this digest, staged once.
    pub fn pristine_source(
        &self,
        digest: &str,
        fill: impl FnOnce(&Path) -> Fallible<()>,
    ) -> Fallible<PathBuf> {
        publish_once(&self.root.join("sources").join(&digest[..24]), fill)
    }

    /// The install prefix (`include/`, `lib/libmlx.a`) of this build, built once.
    pub fn build(
        &self,
        spec: &BuildSpec,
        fill: impl FnOnce(&Path) -> Fallible<()>,
    ) -> Fallible<PathBuf> {
        publish_once(&self.root.join("builds").join(&spec.key), |staging| {
            fs::write(staging.join("BUILD_SPEC.txt"), &spec.description)
                .map_err(|e| format!("writing build spec: {e}"))?;
            fill(staging)
        })
    }
}

/// Fills `dir` exactly once across processes: lock, re-check, fill a `.partial` sibling, rename.
fn publish_once(dir: &Path, fill: impl FnOnce(&Path) -> Fallible<()>) -> Fallible<PathBuf> {
    if dir.join(COMPLETE_MARKER).exists() {
        return Ok(dir.to_path_buf());
    }
    let lock_path = dir.with_extension("lock");
    let lock = File::create(&lock_path)
        .map_err(|e| format!("creating lock {}: {e}", lock_path.display()))?;
    lock.lock().map_err(|e| format!("locking {}: {e}", lock_path.display()))?;
    if dir.join(COMPLETE_MARKER).exists() {
        return Ok(dir.to_path_buf());
    }
    let staging = dir.with_extension("partial");
    for stale in [&staging, &dir.to_path_buf()] {
        if stale.exists() {
            fs::remove_dir_all(stale)
                .map_err(|e| format!("removing stale {}: {e}", stale.display()))?;
        }
    }
    fs::create_dir_all(&staging).map_err(|e| format!("creating {}: {e}", staging.display()))?;
    fill(&staging)?;
    fs::write(staging.join(COMPLETE_MARKER), b"")
        .map_err(|e| format!("marking {} complete: {e}", staging.display()))?;
    fs::rename(&staging, dir)
        .map_err(|e| format!("publishing {} as {}: {e}", staging.display(), dir.display()))?;
    Ok(dir.to_path_buf())
}
