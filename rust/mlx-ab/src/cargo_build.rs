//! Builds an arm: this crate's binary with the arm's cargo features and MLX environment, in the
//! arm's own target directory under the cache. Cargo's JSON messages drive a progress bar;
//! while mlx-sys builds MLX itself (minutes when cold), mlx-sys draws its own object counter on
//! the terminal, so this bar steps aside until it is done.

use crate::arm::ArmSpec;
use crate::{cache_dir, ui};
use indicatif::{ProgressBar, ProgressDrawTarget};
use std::collections::{HashMap, HashSet, VecDeque};
use std::io::{BufRead, BufReader, IsTerminal, Read};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

pub struct BuiltArm {
    pub binary: PathBuf,
    pub target_dir: PathBuf,
}

const UNITS_FILE: &str = "mlx-ab-units";
const LOG_FILE: &str = "mlx-ab-build.log";

fn cargo() -> String {
    std::env::var("CARGO").unwrap_or_else(|_| "cargo".into())
}

pub fn build(spec: &ArmSpec, arm_name: &str) -> Result<BuiltArm, String> {
    let workspace = cache_dir::workspace()?;
    let hash = spec.hash(&workspace)?;
    let target_dir = cache_dir::root()?.join("arms").join(&hash);
    std::fs::create_dir_all(&target_dir)
        .map_err(|e| format!("creating {}: {e}", target_dir.display()))?;
    std::fs::write(
        target_dir.join("ARM.json"),
        serde_json::to_string_pretty(spec).map_err(|e| e.to_string())?,
    )
    .map_err(|e| format!("writing arm description: {e}"))?;

    let expected_units = std::fs::read_to_string(target_dir.join(UNITS_FILE))
        .ok()
        .and_then(|s| s.trim().parse().ok())
        .or_else(|| estimate_units(&workspace, spec).ok())
        .unwrap_or(100);
    let bar = ui::bar(expected_units, &format!("build {arm_name}"), "units");
    bar.set_message(spec.label());

    let mut command = mlx_build::nested_cargo::command(cargo());
    command
        .current_dir(&workspace)
        .args(["build", "--release", "-p", "mlx-ab", "--no-default-features"])
        .args(["--message-format", "json-render-diagnostics", "--target-dir"])
        .arg(&target_dir)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    if !spec.patches.is_empty() {
        command.args(["--features", &spec.cargo_features()]);
    }
    // Off a terminal no bar draws: with -vv cargo passes on mlx-sys's plain progress lines.
    let plain = !std::io::stderr().is_terminal();
    if plain {
        command.arg("-vv");
    }
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
        let tail = stderr_tail.clone();
        let log = target_dir.join(LOG_FILE);
        let forward = plain.then(|| format!("build {arm_name}: "));
        std::thread::spawn(move || collect_stderr(stderr, &tail, &log, forward.as_deref()))
    };
    let mlx_sys_done = Arc::new(AtomicBool::new(false));
    let watcher = MlxBuildWatcher::start(
        bar.clone(),
        cache_dir::root()?.join("builds"),
        MlxBuildIdentity::of(spec),
        mlx_sys_done.clone(),
    );
    let mut units = 0u64;
    let mut success = false;
    for line in BufReader::new(child.stdout.take().unwrap()).lines() {
        let Ok(line) = line else { break };
        let Ok(message) = serde_json::from_str::<serde_json::Value>(&line) else { continue };
        match message["reason"].as_str() {
            Some(reason @ ("compiler-artifact" | "build-script-executed")) => {
                let package = message["package_id"].as_str().map(package_name);
                if reason == "build-script-executed" && package == Some("mlx-sys") {
                    mlx_sys_done.store(true, Ordering::Relaxed);
                }
                units += 1;
                bar.set_position(units.min(bar.length().unwrap_or(units)));
                if let Some(package) = package {
                    bar.set_message(format!("{} ({package})", spec.label()));
                }
            }
            Some("build-finished") => success = message["success"].as_bool() == Some(true),
            _ => {}
        }
    }
    let status = child.wait().map_err(|e| format!("waiting for cargo: {e}"))?;
    drop(watcher);
    let _ = stderr_thread.join();
    bar.finish_and_clear();
    if !status.success() || !success {
        let tail: Vec<String> = stderr_tail.lock().unwrap().iter().cloned().collect();
        return Err(format!(
            "building arm {arm_name} ({}) failed ({status}). Last lines of cargo's output:\n{}\n\
             Full log: {}",
            spec.label(),
            tail.join("\n"),
            target_dir.join(LOG_FILE).display()
        ));
    }
    let _ = std::fs::write(target_dir.join(UNITS_FILE), units.to_string());
    let binary = target_dir.join("release").join(format!("mlx-ab{}", std::env::consts::EXE_SUFFIX));
    if !binary.is_file() {
        return Err(format!("cargo finished but {} is missing", binary.display()));
    }
    Ok(BuiltArm { binary, target_dir })
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

/// Keeps cargo's stderr (the log, and its last lines for an error); with `forward`, passes on
/// mlx-sys's "building MLX ..." progress lines behind that prefix.
fn collect_stderr(
    stderr: impl Read,
    tail: &Mutex<VecDeque<String>>,
    log: &Path,
    forward: Option<&str>,
) {
    let mut full = String::new();
    for line in BufReader::new(stderr).lines().map_while(Result::ok) {
        if let (Some(prefix), Some(progress)) = (forward, mlx_sys_progress(&line)) {
            eprintln!("{prefix}{progress}");
        }
        full.push_str(&line);
        full.push('\n');
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

/// What an MLX build of this arm records in its `BUILD_SPEC.txt`: the source, and the patch names
/// in order (series ids, then extra patch file names).
struct MlxBuildIdentity {
    source: String,
    patches: Vec<String>,
}

impl MlxBuildIdentity {
    fn of(spec: &ArmSpec) -> Self {
        MlxBuildIdentity {
            source: spec.src.as_ref().map_or("pinned".into(), |p| p.display().to_string()),
            patches: spec
                .patches
                .iter()
                .cloned()
                .chain(spec.extra_patches.iter().map(|p| crate::arm::file_name(p)))
                .collect(),
        }
    }

    fn matches(&self, build_spec: &str) -> bool {
        let source = build_spec.lines().find_map(|l| l.strip_prefix("source: "));
        let patches: Vec<&str> = build_spec
            .lines()
            .skip_while(|l| *l != "patches:")
            .skip(1)
            .take_while(|l| !l.starts_with("flags:"))
            .filter_map(|l| l.rsplit_once('=').map(|(name, _)| name))
            .collect();
        source == Some(self.source.as_str()) && patches == self.patches
    }
}

/// Hides the bar while this arm's MLX cmake build is in progress (mlx-sys then draws its own
/// object counter on the terminal): a `.partial` entry of the MLX build cache with this arm's
/// source and patches, before mlx-sys's build script has finished.
struct MlxBuildWatcher {
    stop: Arc<AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl MlxBuildWatcher {
    fn start(
        bar: ProgressBar,
        builds: PathBuf,
        identity: MlxBuildIdentity,
        mlx_sys_done: Arc<AtomicBool>,
    ) -> Self {
        let stop = Arc::new(AtomicBool::new(false));
        let flag = stop.clone();
        let thread = std::thread::spawn(move || {
            let mut hidden = false;
            while !flag.load(Ordering::Relaxed) {
                let building = !mlx_sys_done.load(Ordering::Relaxed)
                    && mlx_build_in_progress(&builds, &identity);
                if building && !hidden {
                    ui::note(Some(&bar), "building MLX with cmake (a cold build takes several minutes; cached afterwards)");
                    bar.set_draw_target(ProgressDrawTarget::hidden());
                    hidden = true;
                } else if !building && hidden {
                    bar.set_draw_target(ProgressDrawTarget::stderr());
                    hidden = false;
                }
                std::thread::sleep(Duration::from_millis(500));
            }
            if hidden {
                bar.set_draw_target(ProgressDrawTarget::stderr());
            }
        });
        MlxBuildWatcher { stop, thread: Some(thread) }
    }
}

impl Drop for MlxBuildWatcher {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

fn mlx_build_in_progress(builds: &Path, identity: &MlxBuildIdentity) -> bool {
    std::fs::read_dir(builds).into_iter().flatten().flatten().any(|entry| {
        let path = entry.path();
        path.extension().is_some_and(|x| x == "partial")
            && path.join("build").is_dir()
            && std::fs::read_to_string(path.join("BUILD_SPEC.txt"))
                .is_ok_and(|s| identity.matches(&s))
    })
}

/// Units cargo will report for a cold build: every package mlx-ab reaches through normal and
/// build dependencies, plus two per build script (compiled, then run).
fn estimate_units(workspace: &Path, spec: &ArmSpec) -> Result<u64, String> {
    let mut command = Command::new(cargo());
    command.current_dir(workspace).args([
        "metadata",
        "--format-version",
        "1",
        "--offline",
        "--no-default-features",
    ]);
    if !spec.patches.is_empty() {
        command.args(["--features", &spec.cargo_features()]);
    }
    let output = command.stderr(Stdio::null()).output().map_err(|e| e.to_string())?;
    let metadata: serde_json::Value =
        serde_json::from_slice(&output.stdout).map_err(|e| e.to_string())?;
    let build_scripts: HashSet<&str> =
        metadata["packages"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|p| {
                p["targets"].as_array().into_iter().flatten().any(|t| {
                    t["kind"].as_array().into_iter().flatten().any(|k| k == "custom-build")
                })
            })
            .filter_map(|p| p["id"].as_str())
            .collect();
    let nodes: HashMap<&str, Vec<&str>> = metadata["resolve"]["nodes"]
        .as_array()
        .ok_or("no resolve graph")?
        .iter()
        .filter_map(|n| {
            let deps = n["deps"]
                .as_array()?
                .iter()
                .filter(|d| {
                    d["dep_kinds"].as_array().into_iter().flatten().any(|k| k["kind"] != "dev")
                })
                .filter_map(|d| d["pkg"].as_str())
                .collect();
            Some((n["id"].as_str()?, deps))
        })
        .collect();
    let root = metadata["packages"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|p| p["name"] == "mlx-ab")
        .and_then(|p| p["id"].as_str())
        .ok_or("mlx-ab not in metadata")?;
    let mut seen = HashSet::from([root]);
    let mut stack = vec![root];
    while let Some(id) = stack.pop() {
        for dep in nodes.get(id).into_iter().flatten() {
            if seen.insert(dep) {
                stack.push(dep);
            }
        }
    }
    let scripts = seen.iter().filter(|id| build_scripts.contains(*id)).count();
    Ok((seen.len() + 2 * scripts) as u64)
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

    #[test]
    fn recognizes_its_own_mlx_build_spec() {
        let spec = "format: mlx-sys build v1\nsource: pinned\nsource digest: ab\npatches:\n\
                    eval-walk=00\nfix.patch=11\nflags: X=1\ncompiler: c++\n";
        let arm = |patches: &[&str], extra: &[&str]| ArmSpec {
            patches: patches.iter().map(|s| s.to_string()).collect(),
            src: None,
            extra_patches: extra.iter().map(PathBuf::from).collect(),
        };
        assert!(MlxBuildIdentity::of(&arm(&["eval-walk"], &["/x/fix.patch"])).matches(spec));
        assert!(!MlxBuildIdentity::of(&arm(&["eval-walk"], &[])).matches(spec));
        assert!(!MlxBuildIdentity::of(&arm(&[], &[])).matches(spec));
        let stock = "source: pinned\npatches:\nflags: X=1\n";
        assert!(MlxBuildIdentity::of(&arm(&[], &[])).matches(stock));
        let other_source = ArmSpec { src: Some(PathBuf::from("/mlx")), ..arm(&[], &[]) };
        assert!(!MlxBuildIdentity::of(&other_source).matches(stock));
    }
}
