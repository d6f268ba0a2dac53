//! Does a set of patches apply to an MLX source, each patch alone and all in series order?
//! (`mlx-build apply-check`: an upstream pull request must apply to the release it targets.)

use crate::files::copy_tree;
use crate::patches::{apply_all, init_git, Selection};
use crate::Fallible;
use std::fs;
use std::path::Path;
use std::process::Command;

/// One line per check, and whether all passed. `scratch` (created, then removed) holds the copies.
pub fn check(
    source: &Path,
    selection: &Selection,
    scratch: &Path,
) -> Fallible<(Vec<String>, bool)> {
    let (alone, in_order) = (scratch.join("alone"), scratch.join("in-order"));
    copy_tree(source, &alone)?;
    init_git(&alone)?;
    let mut lines = Vec::new();
    let mut ok = true;
    for patch in selection.all() {
        let output = Command::new("git")
            .arg("-C")
            .arg(&alone)
            .args(["apply", "--check", "--whitespace=nowarn"])
            .arg(&patch.path)
            .output()
            .map_err(|e| format!("running git apply: {e}. Install git."))?;
        let stderr = String::from_utf8_lossy(&output.stderr);
        ok &= output.status.success();
        lines.push(match output.status.success() {
            true => format!("alone     {}: applies", patch.name),
            false => format!("alone     {}: does not apply\n{}", patch.name, stderr.trim_end()),
        });
    }
    copy_tree(source, &in_order)?;
    let names: Vec<&str> = selection.all().map(|p| p.name.as_str()).collect();
    lines.push(match apply_all(&in_order, selection) {
        Ok(()) => format!("in order  {}: applies", names.join(", ")),
        Err(message) => {
            ok = false;
            format!("in order  {}: {message}", names.join(", "))
        }
    });
    fs::remove_dir_all(scratch).map_err(|e| format!("removing {}: {e}", scratch.display()))?;
    Ok((lines, ok))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::patches::Patch;

    fn patch(dir: &Path, name: &str, old: &str, new: &str) -> Patch {
        let text = format!(
            "diff --git a/f.txt b/f.txt\n--- a/f.txt\n+++ b/f.txt\n@@ -1 +1 @@\n-{old}\n+{new}\n"
        );
        let path = dir.join(format!("{name}.patch"));
        fs::write(&path, &text).unwrap();
        Patch { name: name.into(), path, bytes: text.into_bytes() }
    }

    #[test]
    fn a_patch_that_needs_an_earlier_one_applies_in_order_but_not_alone() {
        let scratch = tempfile::tempdir().unwrap();
        let source = scratch.path().join("src");
        fs::create_dir_all(&source).unwrap();
        fs::write(source.join("f.txt"), "one\n").unwrap();
        let first = patch(scratch.path(), "first", "one", "two");
        let second = patch(scratch.path(), "second", "two", "three");
        let both = Selection { series: vec![first, second], extra: Vec::new() };
        let (lines, ok) = check(&source, &both, &scratch.path().join("check")).unwrap();
        assert!(!ok);
        assert!(lines[0].ends_with("first: applies"), "{lines:?}");
        assert!(lines[1].contains("second: does not apply"), "{lines:?}");
        assert!(lines[2].contains("first, second: applies"), "{lines:?}");
        assert!(!scratch.path().join("check").exists());

        let [first, _] = <[Patch; 2]>::try_from(both.series).ok().unwrap();
        let one = Selection { series: vec![first], extra: Vec::new() };
        let (lines, ok) = check(&source, &one, &scratch.path().join("check")).unwrap();
        assert!(ok, "{lines:?}");
        // The source is left as it was.
        assert_eq!(fs::read_to_string(source.join("f.txt")).unwrap(), "one\n");
    }
}
