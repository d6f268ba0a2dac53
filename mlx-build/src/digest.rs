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

/// Digest of what a patch changes: its bytes from the first `diff --git` line on (all of them
/// if it has none). The message above, which git apply ignores, stays out of build keys, so
/// editing a patch's message does not rebuild MLX.
pub fn patch(data: &[u8]) -> String {
    const DIFF: &[u8] = b"diff --git ";
    let start = (0..data.len())
        .find(|&i| data[i..].starts_with(DIFF) && (i == 0 || data[i - 1] == b'\n'))
        .unwrap_or(0);
    bytes(&data[start..])
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

#[cfg(test)]
mod tests {
    use super::patch;

    const DIFF: &str = "diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n";

    #[test]
    fn a_patch_digest_covers_the_diff_not_the_message() {
        let one =
            format!("From 1 Mon Sep 17\nSubject: [PATCH] one\n\nWhy.\n---\n x | 2 +-\n\n{DIFF}");
        let other = format!(
            "From 2 Mon Sep 17\nSubject: [PATCH] two\n\nOther words: diff --git a\n---\n\n{DIFF}"
        );
        assert_eq!(patch(one.as_bytes()), patch(other.as_bytes()));
        // One changed byte in the diff is another build.
        assert_ne!(patch(one.as_bytes()), patch(one.replace("+b", "+c").as_bytes()));
        // Without a diff line (not a git patch), every byte counts.
        assert_ne!(patch(b"-a\n+b\n"), patch(b"-a\n+c\n"));
        assert_eq!(patch(DIFF.as_bytes()), super::bytes(DIFF.as_bytes()));
    }
}
