//! Content digests: of a source tree (what `SOURCE_DIGEST` records) and of byte strings.

use crate::Fallible;
use sha2::{Digest, Sha256};
use std::ffi::OsStr;
use std::fs;
use std::path::Path;

/// Entries of a checkout's top level that are not source: version control and build trees.
pub fn is_skipped(top_level_name: &OsStr) -> bool {
    let name = top_level_name.to_string_lossy();
    name == ".git" || name == "build" || name.starts_with("build-") || name == "target"
}

/// SHA-256 over every regular file's relative path and bytes, in sorted path order.
pub fn tree(root: &Path) -> Fallible<String> {
    let mut files = Vec::new();
    collect(root, root, &mut files)?;
    files.sort();
    let mut hasher = Sha256::new();
    for relative in &files {
        let bytes = fs::read(root.join(relative))
            .map_err(|e| format!("reading {}: {e}", root.join(relative).display()))?;
        hasher.update(relative.as_bytes());
        hasher.update([0]);
        hasher.update((bytes.len() as u64).to_le_bytes());
        hasher.update(&bytes);
    }
    Ok(hex(&hasher.finalize()))
}

/// SHA-256 over each file's length and bytes, in the order given (read in chunks: libraries
/// run to hundreds of MB).
pub fn files(paths: &[&Path]) -> Fallible<String> {
    use std::io::Read;
    let mut hasher = Sha256::new();
    let mut buf = vec![0u8; 1 << 20];
    for path in paths {
        let mut file =
            fs::File::open(path).map_err(|e| format!("reading {}: {e}", path.display()))?;
        let len = file.metadata().map_err(|e| format!("reading {}: {e}", path.display()))?.len();
        hasher.update(len.to_le_bytes());
        loop {
            let n = file.read(&mut buf).map_err(|e| format!("reading {}: {e}", path.display()))?;
            if n == 0 {
                break;
            }
            hasher.update(&buf[..n]);
        }
    }
    Ok(hex(&hasher.finalize()))
}

pub fn bytes(data: &[u8]) -> String {
    hex(&Sha256::digest(data))
}

fn collect(root: &Path, dir: &Path, files: &mut Vec<String>) -> Fallible<()> {
    for entry in fs::read_dir(dir).map_err(|e| format!("reading {}: {e}", dir.display()))? {
        let entry = entry.map_err(|e| e.to_string())?;
        if dir == root && is_skipped(&entry.file_name()) {
            continue;
        }
        let kind = entry.file_type().map_err(|e| e.to_string())?;
        if kind.is_dir() {
            collect(root, &entry.path(), files)?;
        } else if kind.is_file() {
            let relative = entry.path().strip_prefix(root).unwrap().to_string_lossy().into_owned();
            files.push(relative.replace('\\', "/"));
        }
    }
    Ok(())
}

pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}
