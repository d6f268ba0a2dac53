//! `mlx-ab book`: writes BENCHMARKS.md from the raw files under `reports/`; `--check` exits 1
//! when the committed file differs from what they give.

use crate::book_render::{render, Plots};
use crate::book_sources;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

pub const BOOK: &str = "BENCHMARKS.md";

/// The repository root of this checkout (mlx-build's `patches/` is in it).
pub fn default_root() -> Result<PathBuf, String> {
    let patches = mlx_build::series::patch_dir()?;
    let root = patches.parent().map(Path::to_path_buf).unwrap_or(patches);
    Ok(root.canonicalize().unwrap_or(root))
}

/// The book from `root`'s raw files.
pub fn generate(root: &Path) -> Result<String, String> {
    let folders: Vec<String> = book_sources::OPS_FOLDERS.iter().map(|f| f.to_string()).collect();
    let (figures, elsewhere) = op_plots::plan(root, &folders)?;
    Ok(render(&book_sources::read(root)?, &Plots { figures, elsewhere }))
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

pub fn main(root: Option<PathBuf>, check: bool) -> Result<ExitCode, String> {
    let root = match root {
        Some(root) => root,
        None => default_root()?,
    };
    let generated = generate(&root)?;
    let path = root.join(BOOK);
    if check {
        let committed = fs::read_to_string(&path).unwrap_or_default();
        return Ok(match difference(&committed, &generated) {
            None => {
                println!("{BOOK} is what reports/ gives");
                ExitCode::SUCCESS
            }
            Some(what) => {
                eprintln!(
                    "mlx-ab: {BOOK} differs from what reports/ gives: {what}\nRegenerate it with \
                     `cargo run -p mlx-ab -- book` and commit it."
                );
                ExitCode::from(1)
            }
        });
    }
    fs::write(&path, generated).map_err(|e| format!("writing {}: {e}", path.display()))?;
    println!("wrote {}", path.display());
    Ok(ExitCode::SUCCESS)
}
