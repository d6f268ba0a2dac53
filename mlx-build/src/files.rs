//! File-tree chores of the builds: listing, copying and syncing source trees.

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

/// Makes the tree `to` hold exactly the files of `from`, rewriting only files whose bytes differ
/// (so a build tree rebuilds only what changed); returns how many files it wrote or removed.
pub fn sync_tree(from: &Path, to: &Path) -> Fallible<usize> {
    let mut changed = 0;
    for rel in relative_files(from)? {
        let (src, dst) = (from.join(&rel), to.join(&rel));
        let new = fs::read(&src).map_err(|e| format!("reading {}: {e}", src.display()))?;
        if fs::read(&dst).is_ok_and(|old| old == new) {
            continue;
        }
        if let Some(dir) = dst.parent() {
            fs::create_dir_all(dir).map_err(|e| format!("creating {}: {e}", dir.display()))?;
        }
        fs::write(&dst, new).map_err(|e| format!("writing {}: {e}", dst.display()))?;
        changed += 1;
    }
    for rel in relative_files(to)? {
        if !from.join(&rel).exists() {
            let stale = to.join(&rel);
            fs::remove_file(&stale).map_err(|e| format!("removing {}: {e}", stale.display()))?;
            changed += 1;
        }
    }
    Ok(changed)
}

/// Every file under `root`, as paths relative to it (none if `root` is absent).
fn relative_files(root: &Path) -> Fallible<Vec<PathBuf>> {
    let mut files = Vec::new();
    let mut pending = vec![PathBuf::new()];
    while let Some(rel) = pending.pop() {
        let Ok(entries) = fs::read_dir(root.join(&rel)) else { continue };
        for entry in entries {
            let entry = entry.map_err(|e| e.to_string())?;
            let kind = entry.file_type().map_err(|e| e.to_string())?;
            let path = rel.join(entry.file_name());
            if kind.is_dir() {
                pending.push(path);
            } else if kind.is_file() {
                files.push(path);
            }
        }
    }
    Ok(files)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sync_writes_only_what_differs_and_removes_what_is_gone() {
        let scratch = tempfile::tempdir().unwrap();
        let (from, to) = (scratch.path().join("from"), scratch.path().join("to"));
        for (dir, files) in
            [(&from, [("a", "same"), ("d/b", "new")]), (&to, [("a", "same"), ("d/b", "old")])]
        {
            for (name, text) in files {
                fs::create_dir_all(dir.join(name).parent().unwrap()).unwrap();
                fs::write(dir.join(name), text).unwrap();
            }
        }
        fs::write(to.join("stale"), "x").unwrap();
        let before = fs::metadata(to.join("a")).unwrap().modified().unwrap();
        std::thread::sleep(std::time::Duration::from_millis(20));
        assert_eq!(sync_tree(&from, &to).unwrap(), 2);
        assert_eq!(fs::read_to_string(to.join("d/b")).unwrap(), "new");
        assert!(!to.join("stale").exists());
        // An unchanged file keeps its time stamp: make/ninja do not rebuild what includes it.
        assert_eq!(fs::metadata(to.join("a")).unwrap().modified().unwrap(), before);
        assert_eq!(sync_tree(&from, &to).unwrap(), 0);
    }
}
