//! The book's benchmark scripts: `mlx-ab script` reports (`reports/*/scripts/`), read with
//! their folder's manifest like every raw file, and checked against it: the patch files arm B
//! recorded at its build must be those of the commit the manifest names.

use crate::book_render::{arm_b, group_heading, link, ratio, series_cell, series_groups};
use crate::book_sources::{
    folder, no_op_fields, read_json, PairedJson, Series, SeriesFile, Source, Sources,
};
use crate::stats::RatioSummary;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::fmt::Write;
use std::path::Path;

/// Folders that may hold `mlx-ab script` reports (a missing one holds none).
pub const SCRIPT_FOLDERS: &[&str] = &["reports/cpu/scripts", "reports/h200/scripts"];

#[derive(Debug, Clone)]
pub struct ScriptRun {
    pub source: Source,
    /// The command, its words joined by spaces.
    pub command: String,
    pub b_patches: Vec<String>,
    pub pairs: usize,
    pub timings: Vec<ScriptTiming>,
}

#[derive(Debug, Clone)]
pub struct ScriptTiming {
    pub name: String,
    pub a_seconds: f64,
    pub b_seconds: f64,
    pub ratio: RatioSummary,
}

#[derive(Deserialize)]
struct ScriptJson {
    meta: Meta,
    results: Vec<TimingJson>,
}

#[derive(Deserialize)]
struct Meta {
    command: Vec<String>,
    b: ArmJson,
    pairs: usize,
    provenance: ProvenanceJson,
}

#[derive(Deserialize)]
struct ProvenanceJson {
    date: String,
}

#[derive(Deserialize)]
struct ArmJson {
    patches: Vec<String>,
    series: Vec<SeriesFile>,
}

#[derive(Deserialize)]
struct TimingJson {
    name: String,
    #[serde(flatten)]
    paired: PairedJson,
    a: Vec<f64>,
}

/// An error unless every patch file arm B was built from is the file of that name in `series`.
fn check_b_series(b: &ArmJson, series: &Series, path: &str) -> Result<(), String> {
    for file in &b.series {
        match series.patches.iter().find(|p| p.name == file.name) {
            Some(p) if p.sha256 == file.sha256 => {}
            _ => {
                return Err(format!(
                    "{path}: arm B was built from {} (sha256 {}), which is not a patch file of {}: \
                     is its commit in RUNS.json right?",
                    file.name,
                    &file.sha256[..file.sha256.len().min(12)],
                    series.label()
                ))
            }
        }
    }
    Ok(())
}

pub fn read(root: &Path, series: &BTreeMap<String, Series>) -> Result<Vec<ScriptRun>, String> {
    let mut runs = Vec::new();
    for f in SCRIPT_FOLDERS.iter().filter(|f| root.join(f).is_dir()) {
        for (file, entry, mut source) in folder(root, f, series)? {
            let json: ScriptJson = read_json(&file)?;
            no_op_fields(&entry, &source.path)?;
            check_b_series(&json.meta.b, &source.series, &source.path)?;
            source.date = json.meta.provenance.date.chars().take(10).collect();
            let timings = json
                .results
                .into_iter()
                .map(|t| ScriptTiming {
                    ratio: t.paired.summary(Vec::new(), t.a.len()),
                    a_seconds: t.paired.a_seconds,
                    b_seconds: t.paired.b_seconds,
                    name: t.name,
                })
                .collect();
            runs.push(ScriptRun {
                source,
                command: json.meta.command.join(" "),
                b_patches: json.meta.b.patches,
                pairs: json.meta.pairs,
                timings,
            });
        }
    }
    Ok(runs)
}

pub fn section(md: &mut String, s: &Sources) {
    let _ = writeln!(md, "## Benchmark scripts: `mlx-ab script`\n");
    let _ = writeln!(
        md,
        "Scripts in MLX's `benchmarks/` form (`patches/prs/benchmarks/`), each run once per build \
         and pair with that build's `libmlx.so` (checked by the loader's account), pairs in \
         `mlx-ab run`'s order; stock time / B time per printed timing, median [95% bootstrap] \
         (pairs B faster / A faster): above 1, B is faster. Outputs are not compared here (the \
         end-to-end and single-op runs compare them). Each file's B arm recorded the patch files \
         it was built from; the book checks them against its commit's.\n"
    );
    for (digest, members) in series_groups(s) {
        let runs: Vec<&ScriptRun> =
            s.scripts.iter().filter(|r| r.source.series.digest() == digest).collect();
        if runs.is_empty() {
            continue;
        }
        group_heading(md, "###", &digest, &members, &s.current);
        for r in runs {
            let _ = writeln!(
                md,
                "{}: run {} on the {}, the patch files of {}; B {}; `{}`, {} pairs.\n",
                link(&r.source.path),
                r.source.date,
                r.source.machine,
                series_cell(&r.source.series),
                arm_b(&r.b_patches, &r.source.series),
                r.command,
                r.pairs
            );
            if let Some(note) = &r.source.note {
                let _ = writeln!(md, "Note: {note}.\n");
            }
            let _ = writeln!(md, "| timing | stock ms | B ms | stock/B |\n|---|---:|---:|---|");
            for t in &r.timings {
                let _ = writeln!(
                    md,
                    "| {} | {:.3} | {:.3} | {} |",
                    t.name,
                    t.a_seconds * 1e3,
                    t.b_seconds * 1e3,
                    ratio(&t.ratio)
                );
            }
            md.push('\n');
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::book_sources::PatchFile;

    #[test]
    fn arm_b_must_have_been_built_from_the_commits_patch_files() {
        let series = Series {
            commit: Some("0123456789abcdef".into()),
            date: "2026-12-04".into(),
            patches: vec![PatchFile {
                name: "0001-a.patch".into(),
                sha256: "aa".repeat(32),
                diff: "bb".repeat(32),
                files: vec![],
            }],
        };
        let arm = |sha256: String| ArmJson {
            patches: vec!["a".into()],
            series: vec![SeriesFile { name: "0001-a.patch".into(), sha256 }],
        };
        assert!(check_b_series(&arm("aa".repeat(32)), &series, "x.json").is_ok());
        let other = check_b_series(&arm("cc".repeat(32)), &series, "x.json").unwrap_err();
        assert!(other.contains("not a patch file of 2026-12-04, commit 0123456"), "{other}");
        let unknown = ArmJson {
            patches: vec![],
            series: vec![SeriesFile { name: "0009-z.patch".into(), sha256: "aa".repeat(32) }],
        };
        assert!(check_b_series(&unknown, &series, "x.json").is_err());
    }
}
