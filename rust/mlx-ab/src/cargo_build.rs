//! Builds an arm: its worker (`mlx-ab-worker`) with the arm's cargo features and MLX environment.
//! Arms that differ in cargo features only (patch ids, `fault-injection`) build in one target
//! directory per workspace, so what they share compiles once, and each worker is copied into its
//! arm's folder under the cache before the next build replaces it; an arm with its own MLX source
//! or extra patches (environment, which cargo does not key its artifacts by) keeps a target
//! directory of its own. A spinner counts what cargo reports compiled
//! (its JSON messages; off a terminal, a line every 30 s). Cargo runs with `-vv`, so mlx-sys's build-script lines reach us: while
//! mlx-sys builds MLX itself (minutes when cold) it draws its own object counter on the terminal
//! and the spinner steps aside; off a terminal its plain progress lines are passed on.

use crate::arm::{hex, ArmSpec};
use crate::{cache_dir, ui};
use indicatif::{ProgressBar, ProgressDrawTarget};
use sha2::{Digest, Sha256};
use std::collections::VecDeque;
use std::io::{BufRead, BufReader, IsTerminal, Read};
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::{Arc, Mutex};

pub struct BuiltArm {
    pub binary: PathBuf,
    /// The arm's folder: its description (ARM.json), cargo's log and, for arms that share a
    /// target directory, its worker.
    pub target_dir: PathBuf,
}

const LOG_FILE: &str = "mlx-ab-build.log";
/// The package (and binary) an arm is: the only one that links MLX.
pub const WORKER: &str = "mlx-ab-worker";

fn cargo() -> String {
    std::env::var("CARGO").unwrap_or_else(|_| "cargo".into())
}

/// The worker's test-only feature: `serve` aborts or hangs where mlx-ab's tests ask it to.
pub const FAULT_INJECTION: &str = "fault-injection";

pub fn build(spec: &ArmSpec, arm_name: &str) -> Result<BuiltArm, String> {
    build_with(spec, arm_name, false)
}

/// `build`, optionally with the worker's `fault-injection` feature (for mlx-ab's own tests), in
/// a target directory of its own so that it never replaces the arm's production worker.
pub fn build_with(
    spec: &ArmSpec,
    arm_name: &str,
    fault_injection: bool,
) -> Result<BuiltArm, String> {
    let workspace = cache_dir::workspace()?;
    let mut dir_name = spec.hash(&workspace)?;
    let mut features = spec.patches.clone();
    if fault_injection {
        dir_name = format!("{dir_name}-{FAULT_INJECTION}");
        features.push(FAULT_INJECTION.into());
    }
    let arms = cache_dir::root()?.join("arms");
    let arm_dir = arms.join(&dir_name);
    let shared = spec.build_env()?.iter().all(|(_, value)| value.is_none());
    let target_dir = if shared {
        let workspace_key = hex(&Sha256::digest(workspace.as_os_str().as_encoded_bytes()));
        arms.join(format!("target-{}", &workspace_key[..16]))
    } else {
        arm_dir.clone()
    };
    for dir in [&arm_dir, &target_dir] {
        std::fs::create_dir_all(dir).map_err(|e| format!("creating {}: {e}", dir.display()))?;
    }
    // Held until this arm's worker is copied out of the shared target directory.
    let _lock = shared.then(|| lock(&target_dir)).transpose()?;
    std::fs::write(
        arm_dir.join("ARM.json"),
        serde_json::to_string_pretty(spec).map_err(|e| e.to_string())?,
    )
    .map_err(|e| format!("writing arm description: {e}"))?;

    let bar = ui::spinner(&format!("build {arm_name}"));
    bar.set_message(spec.label());

    let mut command = mlx_build::nested_cargo::command(cargo());
    command
        .current_dir(&workspace)
        .args(["build", "--release", "-p", WORKER, "--no-default-features"])
        .args(["--message-format", "json-render-diagnostics", "--target-dir"])
        .arg(&target_dir)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    if !features.is_empty() {
        command.args(["--features", &features.join(",")]);
    }
    // -vv: cargo passes on build-script output (mlx-sys's progress lines) on its stderr.
    command.arg("-vv");
    for (name, value) in spec.build_env()? {
        match value {
            Some(value) => command.env(name, value),
            None => command.env_remove(name),
        };
    }
    let mut child = command.spawn().map_err(|e| format!("running {}: {e}", cargo()))?;

    let stderr_tail = Arc::new(Mutex::new(VecDeque::new()));
    let stderr_thread = {
        let stderr = child.stderr.take().unwrap();
        let (tail, bar) = (stderr_tail.clone(), bar.clone());
        let log = arm_dir.join(LOG_FILE);
        let prefix = format!("build {arm_name}: ");
        std::thread::spawn(move || collect_stderr(stderr, &tail, &log, &bar, &prefix))
    };
    let (mut success, mut compiled) = (false, 0);
    for line in BufReader::new(child.stdout.take().unwrap()).lines() {
        let Ok(line) = line else { break };
        let Ok(message) = serde_json::from_str::<serde_json::Value>(&line) else { continue };
        match message["reason"].as_str() {
            Some(reason @ ("compiler-artifact" | "build-script-executed")) => {
                let package = message["package_id"].as_str().map(package_name);
                if reason == "build-script-executed" && package == Some("mlx-sys") {
                    // MLX is built: the spinner has the terminal again.
                    bar.set_draw_target(ProgressDrawTarget::stderr());
                }
                if let Some(package) = package {
                    compiled += usize::from(reason == "compiler-artifact");
                    bar.set_message(format!(
                        "{}: {compiled} crates compiled, last {package}",
                        spec.label()
                    ));
                }
            }
            Some("build-finished") => success = message["success"].as_bool() == Some(true),
            _ => {}
        }
    }
    let status = child.wait().map_err(|e| format!("waiting for cargo: {e}"))?;
    let _ = stderr_thread.join();
    bar.finish_and_clear();
    if !status.success() || !success {
        let tail: Vec<String> = stderr_tail.lock().unwrap().iter().cloned().collect();
        return Err(format!(
            "building arm {arm_name} ({}) failed ({status}). Last lines of cargo's output:\n{}\n\
             Full log: {}",
            spec.label(),
            tail.join("\n"),
            arm_dir.join(LOG_FILE).display()
        ));
    }
    let name = format!("{WORKER}{}", std::env::consts::EXE_SUFFIX);
    let built = target_dir.join("release").join(&name);
    if !built.is_file() {
        return Err(format!("cargo finished but {} is missing", built.display()));
    }
    let binary = if shared { copy_into(&built, &arm_dir.join(&name))? } else { built };
    Ok(BuiltArm { binary, target_dir: arm_dir })
}

/// An exclusive lock on `dir`'s lock file, released when the file is dropped.
fn lock(dir: &Path) -> Result<std::fs::File, String> {
    let path = dir.join("mlx-ab.lock");
    let file = std::fs::File::create(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    file.lock().map_err(|e| format!("locking {}: {e}", path.display()))?;
    Ok(file)
}

/// `from` copied to `to` through a temporary name, so that a worker another process is
/// starting is never half-written.
fn copy_into(from: &Path, to: &Path) -> Result<PathBuf, String> {
    let partial = to.with_extension("part");
    std::fs::copy(from, &partial)
        .and_then(|_| std::fs::rename(&partial, to))
        .map_err(|e| format!("copying {} to {}: {e}", from.display(), to.display()))?;
    Ok(to.to_path_buf())
}

/// The name in a package id: `path+file:///ws/mlx-sys#0.1.0` -> `mlx-sys`,
/// `registry+https://.../index#serde@1.0.1` -> `serde`, `path+file:///ws/x#name@0.1.0` -> `name`.
fn package_name(id: &str) -> &str {
    match id.rsplit_once('#') {
        Some((_, fragment)) if fragment.contains('@') => fragment.split('@').next().unwrap(),
        Some((url, _)) => url.rsplit('/').next().unwrap(),
        None => id,
    }
}

/// Keeps cargo's stderr (the log, and its last lines for an error) and acts on mlx-sys's lines:
/// "building MLX KEY: started" hides the spinner (mlx-sys draws its own bar on a terminal), and
/// off a terminal every "building MLX ..." line is passed on behind `prefix`.
fn collect_stderr(
    stderr: impl Read,
    tail: &Mutex<VecDeque<String>>,
    log: &Path,
    bar: &ProgressBar,
    prefix: &str,
) {
    let plain = !std::io::stderr().is_terminal();
    let mut full = String::new();
    for line in BufReader::new(stderr).lines().map_while(Result::ok) {
        if let Some(progress) = mlx_sys_progress(&line) {
            if progress.ends_with(": started") {
                ui::note(Some(bar), "building MLX with cmake (a cold build takes several minutes; cached afterwards)");
                bar.set_draw_target(ProgressDrawTarget::hidden());
            }
            if plain {
                eprintln!("{prefix}{progress}");
            }
        }
        full.push_str(&line);
        full.push('\n');
        // -vv's command lines stay in the log, out of the tail an error quotes.
        let trimmed = line.trim_start();
        if ["Running `", "Fresh ", "Dirty "].iter().any(|p| trimmed.starts_with(p)) {
            continue;
        }
        let mut tail = tail.lock().unwrap();
        if tail.len() == 60 {
            tail.pop_front();
        }
        tail.push_back(line);
    }
    let _ = std::fs::write(log, full);
}

/// `[mlx-sys 0.1.0] building MLX KEY: 12/231 objects after 30 s` -> the text after the tag.
fn mlx_sys_progress(line: &str) -> Option<&str> {
    let rest = line.strip_prefix("[mlx-sys ")?;
    let (_, text) = rest.split_once("] ")?;
    text.starts_with("building MLX").then_some(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn package_names_from_ids() {
        assert_eq!(package_name("path+file:///ws/mlx-sys#0.1.0"), "mlx-sys");
        assert_eq!(
            package_name("registry+https://example.org/index#proc-macro2@1.0.107"),
            "proc-macro2"
        );
        assert_eq!(package_name("path+file:///ws/tests#mlx-tests@0.1.0"), "mlx-tests");
    }

    #[test]
    fn passes_on_only_mlx_sys_progress_lines() {
        let line = "[mlx-sys 0.1.0] building MLX 0123abcd: 12/231 objects after 30 s";
        assert_eq!(
            mlx_sys_progress(line),
            Some("building MLX 0123abcd: 12/231 objects after 30 s")
        );
        assert_eq!(mlx_sys_progress("[mlx-sys 0.1.0] cargo:rerun-if-changed=build"), None);
        assert_eq!(mlx_sys_progress("[cxx 1.0.0] building MLX"), None);
        assert_eq!(mlx_sys_progress("   Compiling mlx-sys v0.1.0"), None);
    }
}
