//! `mlx-ab book`: writes BENCHMARKS.md, and README.md's summary between its markers, from the
//! raw files under `reports/`; `--check` exits 1 when either differs from what they give;
//! `--record-series` adds a commit's series to `reports/series.json` (`book_record`).

use crate::book_render::{render, Plots};
use crate::{book_patches, book_sources};
use std::fs;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

pub const BOOK: &str = "BENCHMARKS.md";
pub const README: &str = "README.md";
/// README's generated summary lies between these lines.
pub const SUMMARY_START: &str = "<!-- mlx-ab book: summary start -->";
pub const SUMMARY_END: &str = "<!-- mlx-ab book: summary end -->";

/// The repository root of this checkout (mlx-build's `patches/` is in it).
pub fn default_root() -> Result<PathBuf, String> {
    let patches = mlx_build::series::patch_dir()?;
    let root = patches.parent().map(Path::to_path_buf).unwrap_or(patches);
    Ok(root.canonicalize().unwrap_or(root))
}

/// The book and README's summary from `root`'s raw files.
pub fn generate(root: &Path) -> Result<(String, String), String> {
    let folders: Vec<String> = book_sources::OPS_FOLDERS.iter().map(|f| f.to_string()).collect();
    let (figures, elsewhere) = op_plots::plan(root, &folders)?;
    let sources = book_sources::read(root)?;
    Ok((render(&sources, &Plots { figures, elsewhere }), book_patches::summary(&sources)))
}

/// `readme` with the text between its summary markers replaced by `summary`; an error naming
/// the markers when it lacks them.
pub fn with_summary(readme: &str, summary: &str) -> Result<String, String> {
    let start = readme.find(SUMMARY_START).map(|i| i + SUMMARY_START.len());
    let end = readme.find(SUMMARY_END);
    match (start, end) {
        (Some(start), Some(end)) if start <= end => {
            Ok(format!("{}\n{summary}{}", &readme[..start], &readme[end..]))
        }
        _ => Err(format!(
            "{README} has no summary block: a line {SUMMARY_START} followed by a line {SUMMARY_END}"
        )),
    }
}

/// None when equal; else what differs: how many lines, and the first with both versions.
pub fn difference(committed: &str, generated: &str) -> Option<String> {
    if committed == generated {
        return None;
    }
    let old: Vec<&str> = committed.lines().collect();
    let new: Vec<&str> = generated.lines().collect();
    let differing = (0..old.len().max(new.len())).filter(|&i| old.get(i) != new.get(i)).count();
    let first = (0..old.len().max(new.len())).find(|&i| old.get(i) != new.get(i));
    let Some(i) = first else {
        return Some("only the line endings or the final newline differ".into());
    };
    let show = |l: Option<&&str>| l.map_or("(no line)".to_string(), |l| format!("{l:?}"));
    Some(format!(
        "{differing} of {} lines differ; first at line {}:\n  committed: {}\n  generated: {}",
        old.len().max(new.len()),
        i + 1,
        show(old.get(i)),
        show(new.get(i))
    ))
}

pub fn main(
    root: Option<PathBuf>,
    check: bool,
    record_series: Option<String>,
) -> Result<ExitCode, String> {
    let root = match root {
        Some(root) => root,
        None => default_root()?,
    };
    if let Some(commit) = record_series {
        let full = crate::book_record::record(&root, &commit)?;
        println!("recorded the series of {full} in {}", book_sources::SERIES_FILE);
        return Ok(ExitCode::SUCCESS);
    }
    let (book, summary) = generate(&root)?;
    let readme_path = root.join(README);
    let readme = fs::read_to_string(&readme_path)
        .map_err(|e| format!("reading {}: {e}", readme_path.display()))?;
    let files = [(BOOK, book), (README, with_summary(&readme, &summary)?)];
    if check {
        let mut differ = false;
        for (name, generated) in &files {
            let committed = fs::read_to_string(root.join(name)).unwrap_or_default();
            if let Some(what) = difference(&committed, generated) {
                eprintln!("mlx-ab: {name} differs from what reports/ gives: {what}");
                differ = true;
            }
        }
        if differ {
            eprintln!("Regenerate with `cargo run -p mlx-ab -- book` and commit.");
            return Ok(ExitCode::from(1));
        }
        println!("{BOOK} and {README}'s summary are what reports/ gives");
        return Ok(ExitCode::SUCCESS);
    }
    for (name, generated) in files {
        let path = root.join(name);
        fs::write(&path, generated).map_err(|e| format!("writing {}: {e}", path.display()))?;
        println!("wrote {}", path.display());
    }
    Ok(ExitCode::SUCCESS)
}
