//! `mlx-ab book --record-series COMMIT`: adds to `reports/series.json` the series that COMMIT's
//! `patches/` held (each file's sha256 and its diff's, `mlx_build::digest`), read from git, so
//! that raw files of that commit can enter the book.

use crate::book_sources::SERIES_FILE;
use mlx_build::digest;
use mlx_build::process::run_command;
use serde_json::{json, Map, Value};
use std::fs;
use std::path::Path;
use std::process::Command;

/// `git ARGS` in `root`, its output (patch files are UTF-8 text, so bytes survive).
fn git(root: &Path, args: &[&str]) -> Result<String, String> {
    let mut cmd = Command::new("git");
    cmd.args(args).current_dir(root).env("TZ", "UTC");
    run_command(&mut cmd, &format!("git {}", args.join(" ")))
}

/// The series.json entry of `commit` (full id) as git holds it.
fn entry(root: &Path, commit: &str) -> Result<Value, String> {
    let series = git(root, &["show", &format!("{commit}:patches/series")])?;
    let patches = mlx_build::series::file_names(&series)
        .map(|name| {
            let text = git(root, &["show", &format!("{commit}:patches/{name}")])?;
            let bytes = text.as_bytes();
            Ok(json!({
                "name": name,
                "sha256": digest::bytes(bytes),
                "diff": digest::patch(bytes),
            }))
        })
        .collect::<Result<Vec<Value>, String>>()?;
    let date = git(
        root,
        &["show", "-s", "--format=%cd", "--date=format-local:%Y-%m-%dT%H:%M:%SZ", commit],
    )?;
    Ok(json!({ "date": date.trim(), "patches": patches }))
}

/// Adds (or replaces) `commit`'s entry in `root`'s series.json; returns its full commit id.
pub fn record(root: &Path, commit: &str) -> Result<String, String> {
    let full = git(root, &["rev-parse", "--verify", &format!("{commit}^{{commit}}")])?;
    let full = full.trim().to_string();
    let path = root.join(SERIES_FILE);
    let text = fs::read_to_string(&path).map_err(|e| format!("reading {}: {e}", path.display()))?;
    let mut file: Map<String, Value> =
        serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))?;
    let series = file
        .get_mut("series")
        .and_then(Value::as_object_mut)
        .ok_or_else(|| format!("{}: no `series` object", path.display()))?;
    series.insert(full.clone(), entry(root, &full)?);
    let mut out = Vec::new();
    let formatter = serde_json::ser::PrettyFormatter::with_indent(b" ");
    let mut serializer = serde_json::Serializer::with_formatter(&mut out, formatter);
    serde::Serialize::serialize(&file, &mut serializer).map_err(|e| e.to_string())?;
    out.push(b'\n');
    fs::write(&path, out).map_err(|e| format!("writing {}: {e}", path.display()))?;
    Ok(full)
}
