//! The patch series: `patches/series` is the only list of patch ids. A patch's id is its file
//! name without the number and `.patch` (`0002-fused-causal-softmax.patch` ->
//! `fused-causal-softmax`); each id is also a cargo feature of every crate that selects patches.

use std::path::{Path, PathBuf};

/// `patches/series`, read when this crate is compiled.
const SERIES: &str = include_str!("../../patches/series");

/// One entry of the series.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Entry {
    pub id: &'static str,
    pub file_name: &'static str,
}

/// Every patch of the series, in application order.
pub fn entries() -> Vec<Entry> {
    file_names(SERIES).map(|file_name| Entry { id: id_of(file_name), file_name }).collect()
}

/// The patch file names of a `series` file's text (this one's, or another commit's), in order:
/// its lines without blanks and `#` comments.
pub fn file_names(text: &str) -> impl Iterator<Item = &str> {
    text.lines().map(str::trim).filter(|l| !l.is_empty() && !l.starts_with('#'))
}

/// Every patch id, in series order.
pub fn ids() -> Vec<&'static str> {
    entries().into_iter().map(|e| e.id).collect()
}

/// `0002-fused-causal-softmax.patch` -> `fused-causal-softmax`.
pub fn id_of(file_name: &str) -> &str {
    let stem = file_name.strip_suffix(".patch").unwrap_or(file_name);
    match stem.split_once('-') {
        Some((number, rest)) if number.chars().all(|c| c.is_ascii_digit()) => rest,
        _ => stem,
    }
}

/// The cargo feature variable a build script sees for a patch id (`CARGO_FEATURE_FUSED_CAUSAL_SOFTMAX`).
pub fn feature_env(id: &str) -> String {
    format!("CARGO_FEATURE_{}", id.to_uppercase().replace('-', "_"))
}

/// The `patches/` folder holding this series: the nearest above the running program (a packed
/// `mlx-build` on a machine without this checkout's path), else the compiled-in checkout's.
/// A folder whose `series` differs from the compiled-in one is passed over.
pub fn patch_dir() -> Result<PathBuf, String> {
    let compiled_in = Path::new(env!("CARGO_MANIFEST_DIR")).join("../patches");
    let exe = std::env::current_exe().ok();
    let above_exe = exe.iter().flat_map(|e| e.ancestors().skip(1)).map(|d| d.join("patches"));
    above_exe
        .chain(std::iter::once(compiled_in))
        .find(|dir| std::fs::read_to_string(dir.join("series")).is_ok_and(|s| s == SERIES))
        .ok_or_else(|| {
            "no patches/ folder with this series: run mlx-build from (a folder inside) the \
             checkout it was built from"
                .to_string()
        })
}

/// `all`, `none`, or ids separated by commas: the ids, in series order.
pub fn parse_list(text: &str) -> Result<Vec<&'static str>, String> {
    let text = text.trim();
    let known = ids();
    if text == "all" {
        return Ok(known);
    }
    if text == "none" || text.is_empty() {
        return Ok(Vec::new());
    }
    let requested: Vec<&str> = text.split(',').map(str::trim).filter(|s| !s.is_empty()).collect();
    if let Some(unknown) = requested.iter().find(|id| !known.contains(id)) {
        return Err(format!(
            "unknown patch id `{unknown}`; known: {}, or all / none",
            known.join(", ")
        ));
    }
    Ok(known.into_iter().filter(|id| requested.contains(id)).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn series_names_existing_files_with_unique_ids() {
        let entries = entries();
        assert!(!entries.is_empty());
        for entry in &entries {
            assert!(
                patch_dir().unwrap().join(entry.file_name).is_file(),
                "{} missing",
                entry.file_name
            );
        }
        let mut ids = ids();
        ids.dedup();
        assert_eq!(ids.len(), entries.len());
    }

    #[test]
    fn lists_parse_in_series_order() {
        assert_eq!(parse_list("all").unwrap(), ids());
        assert!(parse_list("none").unwrap().is_empty());
        let last = *ids().last().unwrap();
        let first = ids()[0];
        assert_eq!(parse_list(&format!("{last}, {first}")).unwrap(), vec![first, last]);
        assert!(parse_list("bogus").unwrap_err().contains("bogus"));
        assert_eq!(id_of("0002-fused-causal-softmax.patch"), "fused-causal-softmax");
        assert_eq!(feature_env("fused-causal-softmax"), "CARGO_FEATURE_FUSED_CAUSAL_SOFTMAX");
    }
}
