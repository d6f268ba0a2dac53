//! A folder's `RUNS.json`: for each raw file, the commit whose patches its arms were built
//! from, the machine, and (op sweeps) arm B's patches and the patch each point measures. Read
//! by op-plots and `mlx-ab book`.

use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::Path;

pub const MANIFEST: &str = "RUNS.json";

/// One raw file's entry.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RunEntry {
    /// The commit whose `patches/` the arms were built from.
    pub commit: String,
    pub machine: String,
    /// Arm B's patches (op sweeps only; `all`: every patch of the commit's series).
    #[serde(default)]
    pub b: Option<String>,
    /// The current patch whose change the file measures (op sweeps only; none: a control).
    #[serde(default)]
    pub measures: Option<String>,
    /// Points whose op-bench arguments start with a key measure that patch instead (a sweep of
    /// all patches whose modes reach different patches' code), or, for `null`, none: controls,
    /// points where both arms run the same kernel.
    #[serde(default)]
    pub measures_by_prefix: BTreeMap<String, Option<String>>,
    #[serde(default)]
    pub note: Option<String>,
}

impl RunEntry {
    /// The patch a point measures: that of its longest prefix key, else the file's.
    pub fn measures_for(&self, args: &str) -> Option<&str> {
        let by_prefix =
            self.measures_by_prefix.iter().filter(|(key, _)| args.starts_with(key.as_str()));
        match by_prefix.max_by_key(|(key, _)| key.len()) {
            Some((_, id)) => id.as_deref(),
            None => self.measures.as_deref(),
        }
    }
}

/// `dir/RUNS.json`'s entries by raw file name.
pub fn read(dir: &Path) -> Result<BTreeMap<String, RunEntry>, String> {
    #[derive(Deserialize)]
    struct Manifest {
        runs: BTreeMap<String, RunEntry>,
    }
    let manifest: Manifest = crate::read_json(&dir.join(MANIFEST))?;
    Ok(manifest.runs)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_longest_matching_prefix_decides_what_a_point_measures() {
        let entry: RunEntry = serde_json::from_value(serde_json::json!({
            "commit": "c", "machine": "m", "b": "all", "measures": "affine-gather-rhs",
            "measures_by_prefix": {"gather_qmm mxfp4": "gather-qmm-tiles-cuda",
                                   "gather_qmm mxfp4 up 1 128": null}
        }))
        .unwrap();
        let measures = |args| entry.measures_for(args);
        assert_eq!(measures("gather_qmm affine4 up 4 128 2048 768"), Some("affine-gather-rhs"));
        assert_eq!(measures("gather_qmm mxfp4 up 16 128 2048 768"), Some("gather-qmm-tiles-cuda"));
        assert_eq!(measures("gather_qmm mxfp4 up 1 128 2048 768 hot"), None);
    }

    #[test]
    fn an_unknown_field_is_an_error() {
        let entry = serde_json::from_value::<RunEntry>(
            serde_json::json!({"commit": "c", "machine": "m", "measure": "typo"}),
        );
        assert!(entry.unwrap_err().to_string().contains("measure"));
    }
}
