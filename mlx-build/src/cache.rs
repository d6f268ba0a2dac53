//! The build cache outside `target/`: one directory per build key, filled under a file lock in a
//! `.partial` directory and published by an atomic rename, so concurrent builds share work and an
//! interrupted build never leaves a half-built entry behind.

use crate::{digest, Fallible};
use std::fs::{self, File};
use std::path::{Path, PathBuf};
use std::process::Command;

const COMPLETE_MARKER: &str = "COMPLETE";
/// The description of a build, written into its cache entry.
pub const SPEC_FILE: &str = "BUILD_SPEC.txt";

/// `MLX_BUILD_CACHE` (or its former name `MLX_AB_CACHE_DIR`), else `$XDG_CACHE_HOME/mlx-ab`,
/// else `~/.cache/mlx-ab` (the default keeps its old name: existing caches stay warm).
pub fn root() -> Fallible<PathBuf> {
    if let Some(dir) =
        std::env::var_os("MLX_BUILD_CACHE").or_else(|| std::env::var_os("MLX_AB_CACHE_DIR"))
    {
        return Ok(PathBuf::from(dir));
    }
    Ok(std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))
        .ok_or("neither MLX_BUILD_CACHE, XDG_CACHE_HOME nor HOME is set")?
        .join("mlx-ab"))
}

/// The line of a build spec that gives its key: a program that loads an install's `libmlx.so`
/// reports the key of that build, not the one it was compiled against.
pub const SPEC_KEY_PREFIX: &str = "key: ";

/// Everything that changes the built library, hashed into its cache key.
pub struct BuildSpec {
    pub key: String,
    /// The facts, one per line, then the key (`SPEC_KEY_PREFIX`).
    pub description: String,
}

impl BuildSpec {
    /// `facts` are `(name, value)` lines; a `source` line (a path, not content) is described but
    /// left out of the key.
    pub fn new(facts: &[(&str, String)]) -> Self {
        // A value of several lines (the patch list) goes below its name, one entry per line.
        let line = |(name, value): &(&str, String)| match value.contains('\n') {
            true => format!("{name}:\n{}\n", value.trim_end_matches('\n')),
            false => format!("{name}: {value}\n"),
        };
        let keyed: String = facts
            .iter()
            .filter(|(name, _)| *name != "source")
            .map(|(n, v)| format!("{n}: {v}\n"))
            .collect();
        let key = digest::bytes(keyed.as_bytes())[..24].to_string();
        let description: String = std::iter::once("format: mlx-build v2\n".to_string())
            .chain(facts.iter().map(line))
            .chain(std::iter::once(format!("{SPEC_KEY_PREFIX}{key}\n")))
            .collect();
        BuildSpec { key, description }
    }
}

/// First line of `tool --version`, for build keys.
pub fn tool_version(tool: &str) -> String {
    Command::new(tool)
        .arg("--version")
        .output()
        .ok()
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .and_then(|s| s.lines().find(|l| !l.trim().is_empty()).map(str::to_string))
        .unwrap_or_else(|| format!("{tool} (version unknown)"))
}

pub struct Cache {
    root: PathBuf,
}

impl Cache {
    pub fn open() -> Fallible<Self> {
        let root = root()?;
        for sub in ["sources", "builds"] {
            fs::create_dir_all(root.join(sub))
                .map_err(|e| format!("creating cache dir {}: {e}", root.join(sub).display()))?;
        }
        Ok(Cache { root })
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The pristine source tree with this digest, staged once.
    pub fn pristine_source(
        &self,
        digest: &str,
        fill: impl FnOnce(&Path) -> Fallible<()>,
    ) -> Fallible<PathBuf> {
        publish_once(&self.source_dir(digest), fill)
    }

    fn source_dir(&self, digest: &str) -> PathBuf {
        self.root.join("sources").join(&digest[..24.min(digest.len())])
    }

    /// The install prefix (`include/`, `lib/`) of this build, built once.
    pub fn build(
        &self,
        spec: &BuildSpec,
        fill: impl FnOnce(&Path) -> Fallible<()>,
    ) -> Fallible<PathBuf> {
        publish_once(&self.root.join("builds").join(&spec.key), |staging| {
            fs::write(staging.join(SPEC_FILE), &spec.description)
                .map_err(|e| format!("writing build spec: {e}"))?;
            fill(staging)
        })
    }
}

/// Fills `dir` exactly once across processes: lock, re-check, fill a `.partial` sibling, rename.
pub fn publish_once(dir: &Path, fill: impl FnOnce(&Path) -> Fallible<()>) -> Fallible<PathBuf> {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_ignores_the_source_path_but_not_content() {
        let spec = |src: &str, digest: &str| {
            BuildSpec::new(&[("source", src.into()), ("source digest", digest.into())]).key
        };
        assert_eq!(spec("/a", "d1"), spec("/b", "d1"));
        assert_ne!(spec("/a", "d1"), spec("/a", "d2"));
    }

    #[test]
    fn the_description_ends_with_the_key() {
        let spec = BuildSpec::new(&[("source", "/a".into()), ("patches", "p1\np2".into())]);
        let last = spec.description.lines().last().unwrap();
        assert_eq!(last.strip_prefix(SPEC_KEY_PREFIX), Some(spec.key.as_str()));
    }

    fn fill_ok(staging: &Path) -> Fallible<()> {
        fs::write(staging.join("lib"), b"ok").map_err(|e| e.to_string())
    }

    #[test]
    fn racing_builds_of_one_key_fill_it_once() {
        let scratch = tempfile::tempdir().unwrap();
        let dir = scratch.path();
        let entry = dir.join("entry");
        let fills = std::sync::atomic::AtomicUsize::new(0);
        std::thread::scope(|s| {
            let racers: Vec<_> = (0..4)
                .map(|_| {
                    s.spawn(|| {
                        publish_once(&entry, |staging| {
                            fills.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                            std::thread::sleep(std::time::Duration::from_millis(50));
                            fill_ok(staging)
                        })
                    })
                })
                .collect();
            for racer in racers {
                assert_eq!(racer.join().unwrap().unwrap(), entry);
            }
        });
        assert_eq!(fills.into_inner(), 1);
        assert_eq!(fs::read(entry.join("lib")).unwrap(), b"ok");
    }

    #[test]
    fn a_build_that_dies_half_way_leaves_nothing_that_counts() {
        let scratch = tempfile::tempdir().unwrap();
        let dir = scratch.path();
        let entry = dir.join("entry");
        let died = std::panic::catch_unwind(|| {
            publish_once(&entry, |staging| {
                fs::write(staging.join("lib"), b"half").unwrap();
                panic!("killed");
            })
        });
        assert!(died.is_err());
        assert!(!entry.exists() && entry.with_extension("partial").exists());
        assert_eq!(fs::read(publish_once(&entry, fill_ok).unwrap().join("lib")).unwrap(), b"ok");
        assert!(!entry.with_extension("partial").exists());
    }

    #[test]
    fn an_entry_without_its_marker_is_rebuilt() {
        // A truncated copy or a hand-edited cache: the directory is there, the marker is not.
        let scratch = tempfile::tempdir().unwrap();
        let dir = scratch.path();
        let entry = dir.join("entry");
        fs::create_dir_all(&entry).unwrap();
        fs::write(entry.join("lib"), b"trunc").unwrap();
        assert_eq!(fs::read(publish_once(&entry, fill_ok).unwrap().join("lib")).unwrap(), b"ok");
        assert!(entry.join(COMPLETE_MARKER).exists());
    }

    #[test]
    fn a_failed_write_at_publish_publishes_nothing() {
        // The marker cannot be written (as on a full disk): an error, and no entry.
        let scratch = tempfile::tempdir().unwrap();
        let dir = scratch.path();
        let entry = dir.join("entry");
        let failed = publish_once(&entry, |staging| {
            fill_ok(staging)?;
            fs::create_dir(staging.join(COMPLETE_MARKER)).map_err(|e| e.to_string())
        });
        assert!(failed.unwrap_err().contains("complete"));
        assert!(!entry.exists());
        assert_eq!(fs::read(publish_once(&entry, fill_ok).unwrap().join("lib")).unwrap(), b"ok");
    }

    #[test]
    fn a_failed_fill_publishes_nothing_and_the_next_fill_wins() {
        let scratch = tempfile::tempdir().unwrap();
        let dir = scratch.path();
        let entry = dir.join("entry");
        let failed = publish_once(&entry, |staging| {
            fs::write(staging.join("half"), b"x").unwrap();
            Err("killed".into())
        });
        assert_eq!(failed.unwrap_err(), "killed");
        assert!(!entry.exists());
        let published = publish_once(&entry, fill_ok);
        assert_eq!(fs::read(published.unwrap().join("lib")).unwrap(), b"ok");
        assert!(!entry.join("half").exists(), "the half-written staging dir leaked into the entry");
    }
}
