//! Which patches a build applies (ids of `patches/series`, then extra patch files such as
//! `MLX_EXTRA_PATCHES`), and applying them: a patch that does not apply stops the build.

use crate::process::run_command;
use crate::{digest, series, Fallible};
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The files a patch changes, as its `diff --git a/PATH b/PATH` lines name them (the `b/` side).
pub fn touched_files(data: &[u8]) -> Vec<String> {
    String::from_utf8_lossy(data)
        .lines()
        .filter_map(|l| l.strip_prefix("diff --git a/"))
        .filter_map(|rest| rest.split_once(" b/").map(|(_, b)| b.to_string()))
        .collect()
}

pub struct Patch {
    /// Series id (`gather-qmm-tiles`) or, for an extra patch, its file name.
    pub name: String,
    pub path: PathBuf,
    pub bytes: Vec<u8>,
}

pub struct Selection {
    pub series: Vec<Patch>,
    pub extra: Vec<Patch>,
}

impl Selection {
    pub fn series_ids(&self) -> Vec<&str> {
        self.series.iter().map(|p| p.name.as_str()).collect()
    }

    pub fn extra_names(&self) -> Vec<&str> {
        self.extra.iter().map(|p| p.name.as_str()).collect()
    }

    pub fn all(&self) -> impl Iterator<Item = &Patch> {
        self.series.iter().chain(&self.extra)
    }

    /// Part of the cache key: names and the exact bytes of each diff, in application order.
    pub fn fingerprint(&self) -> String {
        self.all().map(|p| format!("{}={}\n", p.name, digest::patch(&p.bytes))).collect()
    }

    /// `sha256sum` lines (`HASH  FILE`) of every patch file, for an install's `SERIES`.
    pub fn sha256_lines(&self) -> String {
        self.all()
            .map(|p| {
                let file = p.path.file_name().unwrap_or_default().to_string_lossy();
                format!("{}  {file}\n", digest::bytes(&p.bytes))
            })
            .collect()
    }
}

/// The series' patches with these ids (series order), then `extra` files in the order given.
pub fn select(ids: &[&str], extra: &[PathBuf]) -> Fallible<Selection> {
    let dir = series::patch_dir()?;
    let mut selection = Selection { series: Vec::new(), extra: Vec::new() };
    for entry in series::entries().into_iter().filter(|e| ids.contains(&e.id)) {
        selection.series.push(read_patch(entry.id, &dir.join(entry.file_name))?);
    }
    for path in extra {
        let name = path.file_name().unwrap_or_default().to_string_lossy().into_owned();
        selection.extra.push(read_patch(&name, path)?);
    }
    Ok(selection)
}

/// `MLX_EXTRA_PATCHES` (path-list syntax), empty entries left out.
pub fn extra_from_env() -> Vec<PathBuf> {
    std::env::var_os("MLX_EXTRA_PATCHES")
        .map(|list| std::env::split_paths(&list).filter(|p| !p.as_os_str().is_empty()).collect())
        .unwrap_or_default()
}

fn read_patch(name: &str, path: &Path) -> Fallible<Patch> {
    let bytes = fs::read(path).map_err(|e| {
        format!(
            "patch {name}: cannot read {}: {e}\nIs the path (or patches/series) right?",
            path.display()
        )
    })?;
    Ok(Patch { name: name.to_string(), path: path.to_path_buf(), bytes })
}

/// Applies every selected patch in order; the first that fails stops the build, naming the patch
/// and the files git could not patch.
pub fn apply_all(tree: &Path, selection: &Selection) -> Fallible<()> {
    init_git(tree)?;
    for patch in selection.all() {
        let output = Command::new("git")
            .arg("-C")
            .arg(tree)
            .args(["apply", "--whitespace=nowarn"])
            .arg(&patch.path)
            .output()
            .map_err(|e| format!("running git apply: {e}. Install git."))?;
        if !output.status.success() {
            return Err(format!(
                "patch {} ({}) does not apply to this MLX source:\n{}\
                 Rebase the patch onto this source, or drop it (cargo feature / MLX_EXTRA_PATCHES).",
                patch.name,
                patch.path.display(),
                String::from_utf8_lossy(&output.stderr)
            ));
        }
    }
    fs::remove_dir_all(tree.join(".git")).map_err(|e| format!("removing scratch .git: {e}"))
}

/// A scratch repository so `git apply` patches this tree even when it sits inside another one.
pub fn init_git(tree: &Path) -> Fallible<()> {
    run_command(Command::new("git").arg("-C").arg(tree).args(["init", "-q"]), "git init").map(drop)
}

#[cfg(test)]
mod tests {
    use super::touched_files;

    #[test]
    fn touched_files_are_the_b_sides_of_diff_lines() {
        let patch = b"Subject: x\n\ndiff --git a/mlx/a.cpp b/mlx/a.cpp\n--- a/mlx/a.cpp\n\
            +++ b/mlx/a.cpp\n@@ -1 +1 @@\n-a\n+b\ndiff --git a/tests/t.cpp b/tests/t.cpp\n";
        assert_eq!(touched_files(patch), ["mlx/a.cpp", "tests/t.cpp"]);
        assert!(touched_files(b"no diff").is_empty());
    }
}
