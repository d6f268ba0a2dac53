//! The two file-tree chores of the build scripts (mlx-sys's and mlx-rs-compat's drop-in).

use crate::{digest, Fallible};
use std::fs;
use std::path::{Path, PathBuf};

/// The files of `dir` (not its subfolders) ending in `.extension`, sorted; none if `dir` is absent.
pub fn sorted_files(dir: &Path, extension: &str) -> Fallible<Vec<PathBuf>> {
    let Ok(entries) = fs::read_dir(dir) else {
        return Ok(Vec::new());
    };
    let mut files: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == extension))
        .collect();
    files.sort();
    Ok(files)
}

/// Copies the tree `from` into `to`, leaving out the top-level entries that are not source
/// (`digest::is_skipped`: version control and build trees).
pub fn copy_tree(from: &Path, to: &Path) -> Fallible<()> {
    copy_dir(from, to, true)
}

fn copy_dir(from: &Path, to: &Path, top_level: bool) -> Fallible<()> {
    fs::create_dir_all(to).map_err(|e| format!("creating {}: {e}", to.display()))?;
    for entry in fs::read_dir(from).map_err(|e| format!("reading {}: {e}", from.display()))? {
        let entry = entry.map_err(|e| e.to_string())?;
        let name = entry.file_name();
        if top_level && digest::is_skipped(&name) {
            continue;
        }
        let (src, dst) = (entry.path(), to.join(&name));
        let kind = entry.file_type().map_err(|e| e.to_string())?;
        if kind.is_dir() {
            copy_dir(&src, &dst, false)?;
        } else if kind.is_file() {
            fs::copy(&src, &dst)
                .map_err(|e| format!("copying {} to {}: {e}", src.display(), dst.display()))?;
        }
    }
    Ok(())
}
