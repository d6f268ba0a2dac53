//! What `mlx-ab script` writes: per timing the pairs' seconds and `ops`' statistics; in the
//! meta, the command and the digest of every file it names, each arm's patches as its build
//! recorded them, and the run's provenance.

use crate::book_sources::SeriesFile;
use crate::ops_report::timing_cells;
use crate::provenance::Provenance;
use crate::stats::PairedTimes;
use mlx_build::builder::{PATCHES_FILE, SERIES_FILE};
use mlx_build::digest;
use serde::Serialize;
use std::path::Path;

#[derive(Debug, Serialize)]
pub struct TimingResult {
    /// The printed name; ` #2` etc. where a name comes again.
    pub name: String,
    #[serde(flatten)]
    pub timing: PairedTimes,
    /// Seconds of each pair, in pair order.
    pub a: Vec<f64>,
    pub b: Vec<f64>,
}

/// An arm's MLX as `mlx-build build` recorded it in the install: `PATCHES` (patch names) and
/// `SERIES` (`sha256  file` lines); empty where the install has none.
#[derive(Debug, Serialize)]
pub struct ArmBuild {
    pub dir: String,
    pub patches: Vec<String>,
    pub series: Vec<SeriesFile>,
    /// `sha256sum` of the `SERIES` lines, 12 digits: the series digest the book prints.
    pub series_digest: Option<String>,
}

impl ArmBuild {
    pub fn read(dir: &Path) -> Result<Self, String> {
        let read = |name: &str| match std::fs::read_to_string(dir.join(name)) {
            Ok(text) => Ok(Some(text)),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(format!("{}: {e}", dir.join(name).display())),
        };
        let lines = |text: &str| -> Vec<String> {
            text.lines().map(str::trim).filter(|l| !l.is_empty()).map(String::from).collect()
        };
        let patches = read(PATCHES_FILE)?.map(|t| lines(&t)).unwrap_or_default();
        let series_text = read(SERIES_FILE)?;
        let series = series_text
            .as_deref()
            .map(lines)
            .unwrap_or_default()
            .iter()
            .map(|l| match l.split_once("  ") {
                Some((sha256, name)) => Ok(SeriesFile { name: name.into(), sha256: sha256.into() }),
                None => Err(format!(
                    "{}: `{l}` is not a `sha256  file` line",
                    dir.join(SERIES_FILE).display()
                )),
            })
            .collect::<Result<_, _>>()?;
        Ok(ArmBuild {
            dir: dir.display().to_string(),
            patches,
            series,
            series_digest: series_text.map(|t| digest::bytes(t.as_bytes())[..12].to_string()),
        })
    }

    fn describe(&self) -> String {
        match (&self.series_digest, self.patches.is_empty()) {
            (_, true) => "no patches".into(),
            (Some(d), false) => format!("{} (series {d})", self.patches.join(", ")),
            (None, false) => self.patches.join(", "),
        }
    }
}

#[derive(Debug, Serialize)]
pub struct CommandFile {
    pub path: String,
    pub sha256: String,
}

/// The command's arguments that are files, with their sha256: the script that was run.
pub fn command_files(command: &[String]) -> Result<Vec<CommandFile>, String> {
    command
        .iter()
        .filter(|a| Path::new(a).is_file())
        .map(|a| {
            let data = std::fs::read(a).map_err(|e| format!("{a}: {e}"))?;
            Ok(CommandFile { path: a.clone(), sha256: digest::bytes(&data) })
        })
        .collect()
}

#[derive(Debug, Serialize)]
pub struct Meta {
    pub tool: &'static str,
    pub command: Vec<String>,
    pub files: Vec<CommandFile>,
    pub a: ArmBuild,
    pub b: ArmBuild,
    pub pairs: usize,
    pub warmup_rounds: usize,
    /// The measured runs, e.g. `ABBABAAB`.
    pub order: String,
    pub bootstrap_resamples: usize,
    pub bootstrap_seed: u64,
    pub quantiles: &'static str,
    /// Wall-clock seconds of the whole run.
    pub seconds: f64,
    pub provenance: Provenance,
}

#[derive(Serialize)]
pub struct Report<'a> {
    pub meta: &'a Meta,
    pub results: &'a [TimingResult],
}

pub fn markdown(results: &[TimingResult], meta: &Meta) -> String {
    let files: Vec<String> =
        meta.files.iter().map(|f| format!("`{}` (sha256 {})", f.path, &f.sha256[..12])).collect();
    let mut lines = vec![
        format!(
            "`{}`{}, run {} times per arm after {} warm-up round(s), pairs in the order {}, {}. \
             A: `{}`, {}. B: `{}`, {}. Ratio = A time / B time (above 1: B faster), median of \
             the pairs [95% bootstrap] and its exact interval (order statistics, coverage in \
             parentheses). Outputs not compared. Statistics: {} ({} bootstrap resamples, {} \
             quantiles). {}, {}, commit {}.",
            meta.command.join(" "),
            if files.is_empty() { String::new() } else { format!(" ({})", files.join(", ")) },
            meta.pairs,
            meta.warmup_rounds,
            meta.order,
            format_seconds(meta.seconds),
            meta.a.dir,
            meta.a.describe(),
            meta.b.dir,
            meta.b.describe(),
            meta.tool,
            meta.bootstrap_resamples,
            meta.quantiles,
            meta.provenance.date,
            meta.provenance.host.cpu,
            meta.provenance.repo_commit,
        ),
        String::new(),
        "| timing | A ms | B ms | A/B | 95% CI | exact CI | B faster/slower (p) |".into(),
        "|---|---:|---:|---:|---|---|---|".into(),
    ];
    for r in results {
        lines.push(format!("| {} | {} |", r.name, timing_cells(&r.timing)));
    }
    lines.join("\n") + "\n"
}

fn format_seconds(s: f64) -> String {
    if s < 120.0 {
        format!("{s:.0} s in all")
    } else {
        format!("{:.1} min in all", s / 60.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_install_without_records_has_no_patches_and_a_bad_series_line_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let arm = ArmBuild::read(dir.path()).unwrap();
        assert!(arm.patches.is_empty() && arm.series.is_empty() && arm.series_digest.is_none());
        assert_eq!(arm.describe(), "no patches");
        std::fs::write(dir.path().join("PATCHES"), "gather-qmm-tiles\n").unwrap();
        std::fs::write(dir.path().join("SERIES"), format!("{}  0001-a.patch\n", "ab".repeat(32)))
            .unwrap();
        let arm = ArmBuild::read(dir.path()).unwrap();
        assert_eq!(arm.series[0].name, "0001-a.patch");
        // The digest `sha256sum SERIES | cut -c1-12` gives.
        let expected = digest::bytes(format!("{}  0001-a.patch\n", "ab".repeat(32)).as_bytes());
        assert_eq!(arm.series_digest.as_deref(), Some(&expected[..12]));
        std::fs::write(dir.path().join("SERIES"), "not a line\n").unwrap();
        assert!(ArmBuild::read(dir.path()).unwrap_err().contains("not a `sha256  file` line"));
    }
}
