//! `mlx-ab script`: A/B of a benchmark script between two installed builds. The command runs
//! once per arm per pair, in `run`'s balanced order (schedule.rs), with the arm's `DIR/lib`
//! first on the library path; each `Timing NAME ... T msec` line it prints (MLX's own
//! `benchmarks/` form, script_timings.rs) becomes a row with `run`'s statistics (stats.rs).
//!
//! The library path only helps if the command loads `libmlx.so` through it (MLX's Python
//! package does: its extension finds `libmlx.so` by RUNPATH, which `LD_LIBRARY_PATH` precedes).
//! A command that loads another MLX, or none, would time one build twice, so every run is
//! checked: the dynamic loader's own account (`LD_DEBUG=libs`) must show the arm's library.
//! Outputs are not compared (a script prints times only): bit identity is `run`'s and `ops`'.
//!
//! Exit status: 0 measured, 2 error (no report is written).

use crate::cli::ScriptArgs;
use crate::provenance::{self, Provenance};
use crate::schedule::{self, Arm, Step};
use crate::script_report::{ArmBuild, Meta, Report, TimingResult};
use crate::script_timings;
use crate::stats::{self, BOOTSTRAP_ITERATIONS};
use crate::{cache_dir, deterministic::Determinism};
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};
use std::time::Instant;

pub const TOOL: &str = "mlx-ab script";

/// The library every arm must load.
const LIBRARY: &str = "libmlx.so";

/// One arm: its directory, the library in it (resolved) and its JIT cache folder.
struct ArmDir {
    dir: PathBuf,
    library: PathBuf,
    ptx_cache: Option<PathBuf>,
}

impl ArmDir {
    fn new(dir: &Path, ptx_cache: Option<&Path>) -> Result<Self, String> {
        let library = dir.join("lib").join(LIBRARY);
        let library = library.canonicalize().map_err(|e| {
            format!("{}: {e}: an arm is an installed MLX with a shared lib/{LIBRARY} (`mlx-build build --shared`)", library.display())
        })?;
        Ok(ArmDir { dir: dir.to_path_buf(), library, ptx_cache: ptx_cache.map(Path::to_path_buf) })
    }

    /// `DIR/lib` before whatever the library path already holds.
    fn library_path(&self) -> OsString {
        let mut path = OsString::from(self.dir.join("lib"));
        if let Some(old) = std::env::var_os("LD_LIBRARY_PATH").filter(|p| !p.is_empty()) {
            path.push(":");
            path.push(old);
        }
        path
    }
}

/// The `libmlx.so` files the dynamic loader initialized, from its `LD_DEBUG=libs` lines
/// (`  1234:\tcalling init: /path/libmlx.so`).
fn loaded_libraries(stderr: &str) -> Vec<PathBuf> {
    stderr
        .lines()
        .filter_map(|l| l.split_once("calling init: ").map(|(_, path)| PathBuf::from(path.trim())))
        .filter(|p| p.file_name().is_some_and(|n| n.to_string_lossy().starts_with(LIBRARY)))
        .collect()
}

/// Stderr without the loader's lines, for error messages.
fn own_stderr(stderr: &str) -> String {
    let is_loader = |l: &str| {
        l.trim_start()
            .split_once(':')
            .is_some_and(|(pid, _)| pid.chars().all(|c| c.is_ascii_digit()) && !pid.is_empty())
            && l.starts_with(' ')
    };
    let kept: Vec<&str> = stderr.lines().filter(|l| !is_loader(l)).collect();
    let tail = kept.len().saturating_sub(20);
    kept[tail..].join("\n")
}

/// Runs the command once for `arm`; its timings in seconds.
fn run_once(command: &[String], arm: &ArmDir) -> Result<Vec<(String, f64)>, String> {
    let mut run = Command::new(&command[0]);
    run.args(&command[1..]).env("LD_LIBRARY_PATH", arm.library_path()).env("LD_DEBUG", "libs");
    if let Some(dir) = &arm.ptx_cache {
        run.env("MLX_PTX_CACHE_DIR", dir);
    }
    let out = run.output().map_err(|e| format!("could not start `{}`: {e}", command[0]))?;
    let stderr = String::from_utf8_lossy(&out.stderr);
    if !out.status.success() {
        return Err(format!(
            "`{}` failed ({}):\n{}",
            command.join(" "),
            out.status,
            own_stderr(&stderr)
        ));
    }
    // Every process the command starts reports its own loads: all must be the arm's library.
    let loaded = loaded_libraries(&stderr);
    let ours = |p: &PathBuf| p.canonicalize().is_ok_and(|p| p == arm.library);
    if loaded.is_empty() {
        return Err(format!(
            "`{}` loaded no {LIBRARY}: it must load MLX dynamically, through the library path",
            command.join(" ")
        ));
    }
    if let Some(other) = loaded.iter().find(|p| !ours(p)) {
        return Err(format!(
            "`{}` loaded {}, not {}: the arm's library did not take precedence",
            command.join(" "),
            other.display(),
            arm.library.display()
        ));
    }
    script_timings::parse(&String::from_utf8_lossy(&out.stdout))
        .map_err(|e| format!("`{}` ({}): {e}", command.join(" "), arm.dir.display()))
}

/// The names of one run, to compare with another's.
fn names(timings: &[(String, f64)]) -> Vec<&str> {
    timings.iter().map(|(n, _)| n.as_str()).collect()
}

pub fn main(args: ScriptArgs) -> Result<ExitCode, String> {
    let arms = [
        ArmDir::new(&args.a, args.a_ptx_cache.as_deref())?,
        ArmDir::new(&args.b, args.b_ptx_cache.as_deref())?,
    ];
    let command = &args.command;
    let began = Instant::now();
    let plan = schedule::plan(args.pairs, args.warmup_rounds);
    // times[name index][arm][pair]
    let mut order: Option<Vec<String>> = None;
    let mut times: Vec<[Vec<f64>; 2]> = Vec::new();
    for (i, step) in plan.iter().enumerate() {
        let (arm, pair) = match *step {
            Step::Warmup { arm, .. } => (arm, None),
            Step::Measure { arm, pair } => (arm, Some(pair)),
        };
        let side = usize::from(arm == Arm::B);
        let started = Instant::now();
        let timings = run_once(command, &arms[side])?;
        println!(
            "mlx-ab script: run {}/{} ({}, {}): {} timings in {:.1} s",
            i + 1,
            plan.len(),
            arm.name(),
            pair.map_or("warm-up".into(), |p| format!("pair {}", p + 1)),
            timings.len(),
            started.elapsed().as_secs_f64()
        );
        let expected =
            order.get_or_insert_with(|| names(&timings).iter().map(|s| s.to_string()).collect());
        if names(&timings) != *expected {
            return Err(format!(
                "the runs printed different timings: first {expected:?}, then ({}) {:?}",
                arm.name(),
                names(&timings)
            ));
        }
        let Some(pair) = pair else { continue };
        times.resize_with(timings.len(), || [vec![0.0; args.pairs], vec![0.0; args.pairs]]);
        for (slot, (_, seconds)) in times.iter_mut().zip(&timings) {
            slot[side][pair] = *seconds;
        }
    }
    let results: Vec<TimingResult> = order
        .unwrap_or_default()
        .into_iter()
        .zip(times)
        .map(|(name, [a, b])| TimingResult {
            timing: stats::paired_times(&a, &b, args.report.bootstrap_seed),
            name,
            a,
            b,
        })
        .collect();
    let provenance: Provenance =
        provenance::collect(cache_dir::workspace().ok().as_deref(), Determinism::new(false, None));
    let meta = Meta {
        tool: TOOL,
        command: command.clone(),
        files: crate::script_report::command_files(command)?,
        a: ArmBuild::read(&args.a)?,
        b: ArmBuild::read(&args.b)?,
        pairs: args.pairs,
        warmup_rounds: args.warmup_rounds,
        order: schedule::order_string(args.pairs),
        bootstrap_resamples: BOOTSTRAP_ITERATIONS,
        bootstrap_seed: args.report.bootstrap_seed,
        quantiles: "Hyndman-Fan type 7",
        seconds: began.elapsed().as_secs_f64(),
        provenance,
    };
    let md = crate::script_report::markdown(&results, &meta);
    println!("{md}");
    args.report.write(&Report { meta: &meta, results: &results }, &md)?;
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_loaders_account_names_the_library_it_initialized() {
        let stderr = "     17:\tfind library=libmlx.so [0]; searching\n\
                      \x20    17:\tcalling init: /lib/x86_64-linux-gnu/libc.so.6\n\
                      \x20    17:\tcalling init: /opt/arm/lib/libmlx.so\n\
                      Traceback: something failed\n";
        assert_eq!(loaded_libraries(stderr), [PathBuf::from("/opt/arm/lib/libmlx.so")]);
        assert_eq!(own_stderr(stderr), "Traceback: something failed");
        assert!(loaded_libraries("no loader lines\n").is_empty());
    }

    /// An arm whose lib/libmlx.so is this test's own libgcc_s (any shared library with an
    /// initializer will do: the loader names the path it opened).
    fn fake_arm() -> (tempfile::TempDir, ArmDir) {
        let maps = std::fs::read_to_string("/proc/self/maps").unwrap();
        let gcc_s = maps.split_whitespace().find(|w| w.ends_with("/libgcc_s.so.1")).unwrap();
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("lib")).unwrap();
        std::os::unix::fs::symlink(gcc_s, dir.path().join("lib").join(LIBRARY)).unwrap();
        let arm = ArmDir::new(dir.path(), None).unwrap();
        (dir, arm)
    }

    fn command(preload: Option<&Path>, script: &str) -> Vec<String> {
        let mut c: Vec<String> = vec!["env".into()];
        c.extend(preload.map(|p| format!("LD_PRELOAD={}", p.join("lib").join(LIBRARY).display())));
        c.extend(["sh".into(), "-c".into(), script.into()]);
        c
    }

    #[test]
    fn a_run_counts_only_when_the_arms_library_was_loaded() {
        let (dir, arm) = fake_arm();
        let (other_dir, _other) = fake_arm();
        // Two processes (sh and env) both load it.
        let timing = "echo 'Timing x ... 2.5 msec'; env true";
        let loaded = run_once(&command(Some(dir.path()), timing), &arm).unwrap();
        assert_eq!(loaded, [("x".to_string(), 0.0025)]);
        let none = run_once(&command(None, timing), &arm).unwrap_err();
        assert!(none.contains("loaded no libmlx.so"), "{none}");
        // Another file, even of the same contents, is another build.
        let other = run_once(&command(Some(other_dir.path()), timing), &arm);
        assert!(other.is_ok(), "same file behind both links: {other:?}");
        let copy = tempfile::tempdir().unwrap();
        std::fs::create_dir(copy.path().join("lib")).unwrap();
        std::fs::copy(&arm.library, copy.path().join("lib").join(LIBRARY)).unwrap();
        let foreign = run_once(&command(Some(copy.path()), timing), &arm).unwrap_err();
        assert!(foreign.contains("the arm's library did not take precedence"), "{foreign}");
        let failed = run_once(&command(Some(dir.path()), "echo boom >&2; exit 3"), &arm);
        assert!(failed.unwrap_err().contains("boom"));
        let silent = run_once(&command(Some(dir.path()), "echo nothing"), &arm).unwrap_err();
        assert!(silent.contains("no `Timing"), "{silent}");
        // The arm's JIT cache folder reaches the command.
        let cached = ArmDir { ptx_cache: Some("/arm-a-ptx".into()), ..arm };
        let named = run_once(
            &command(Some(dir.path()), "echo \"Timing $MLX_PTX_CACHE_DIR ... 1 msec\""),
            &cached,
        );
        assert_eq!(named.unwrap()[0].0, "/arm-a-ptx");
    }
}
