//! `mlx-ab run` with prebuilt arms: the installed layout `DIR/bin/mlx-ab-worker` + `DIR/lib` (+
//! `DIR/include`), as shipped to a GPU machine that has no Rust toolchain. The layouts here are
//! made from the all-patches arm's worker (`common::worker`; the crash and hang tests give arm B
//! its `fault-injection` build, `common::fault_injection_worker`); it links MLX statically, so
//! its MLX code is the worker binary itself and `lib/` is empty. Every run here has `cargo`
//! replaced by a script that records being called and `MLX_AB_WORKSPACE` pointing nowhere, so a
//! prebuilt run that needed either would fail. No arm is built by `run`: once the workers are,
//! these tests take seconds.

mod common;

use common::{describe, fault_injection_worker, worker};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const BIN: &str = env!("CARGO_BIN_EXE_mlx-ab");

struct Scratch(PathBuf);

impl Scratch {
    fn new(name: &str) -> Scratch {
        let dir =
            std::env::temp_dir().join(format!("mlx-ab-prebuilt-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        Scratch(dir.canonicalize().unwrap())
    }

    fn path(&self, rel: &str) -> PathBuf {
        self.0.join(rel)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn write_script(path: &Path, body: &str) {
    common::write_executable(path, &format!("#!/bin/sh\n{body}\n"));
}

/// An installed layout whose worker is a copy of this test's binary.
fn layout(scratch: &Scratch, name: &str) -> PathBuf {
    let dir = scratch.path(name);
    for sub in ["bin", "lib", "include"] {
        std::fs::create_dir_all(dir.join(sub)).unwrap();
    }
    common::copy_executable(worker(), &dir.join("bin/mlx-ab-worker"));
    dir
}

/// `mlx-ab` with no cargo and no workspace: `cargo` (on PATH and as `$CARGO`) is a script that
/// leaves `cargo-was-called` behind, a fake `nvidia-smi` answers like an H200 host, and the
/// cache (where the synthetic model is written) is fresh.
/// `mlx-ab run` on the tiny shapes with two prebuilt arms, both asking for `patches`.
fn run_prebuilt(scratch: &Scratch, a: &Path, b: &Path, patches: &str) -> Command {
    let mut command = mlx_ab(scratch);
    command.args(TINY).args(["--a-patches", patches, "--b-patches", patches]);
    command.arg("--a-prebuilt").arg(a).arg("--b-prebuilt").arg(b);
    command
}

fn mlx_ab(scratch: &Scratch) -> Command {
    let tools = scratch.path("tools");
    let marker = scratch.path("cargo-was-called");
    write_script(&tools.join("cargo"), &format!("touch '{}'\nexit 101", marker.display()));
    write_script(
        &tools.join("nvidia-smi"),
        "case \"$1\" in\n\
         --query-gpu=*) echo 'NVIDIA H200, 550.54.15' ;;\n\
         *) echo '| NVIDIA-SMI 550.54.15      Driver Version: 550.54.15      CUDA Version: 12.4     |' ;;\n\
         esac",
    );
    let path = std::env::join_paths(
        std::iter::once(tools.clone())
            .chain(std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())),
    )
    .unwrap();
    let mut command = Command::new(BIN);
    command
        .env("PATH", path)
        .env("CARGO", tools.join("cargo"))
        .env("MLX_AB_WORKSPACE", scratch.path("no-workspace"))
        .env("MLX_AB_CACHE_DIR", scratch.path("cache"));
    command
}

fn cargo_was_called(scratch: &Scratch) -> bool {
    scratch.path("cargo-was-called").exists()
}

/// The patches the layouts' worker was built with, as `--a-patches` takes them.
fn own_patches() -> String {
    let output = Command::new(worker()).arg("info").output().unwrap();
    assert!(output.status.success(), "{}", describe(&output));
    let info: Value = serde_json::from_slice(&output.stdout).unwrap();
    let patches: Vec<&str> =
        info["patches"].as_array().unwrap().iter().map(|p| p.as_str().unwrap()).collect();
    if patches.is_empty() {
        "none".into()
    } else {
        patches.join(",")
    }
}

const TINY: &[&str] = &[
    "run",
    "--preset",
    "tiny",
    "--prompt-len",
    "48",
    "--prefill-chunk",
    "16",
    "--gen-len",
    "6",
    "--pairs",
    "2",
    "--warmup",
    "1",
];

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

#[test]
fn info_says_where_mlx_is_and_that_there_is_no_gpu() {
    let output = Command::new(worker()).arg("info").output().unwrap();
    let info: Value = serde_json::from_slice(&output.stdout).unwrap();
    let exe = worker().canonicalize().unwrap();
    // Static build: MLX's code is in the binary itself.
    assert_eq!(info["library_path"], exe.display().to_string());
    assert_eq!(info["gpu_available"], false);
    assert!(info["gpu"].is_null());
}

#[test]
fn two_prebuilt_arms_run_without_cargo_or_workspace() {
    let scratch = Scratch::new("run");
    let (a, b) = (layout(&scratch, "arm-a"), layout(&scratch, "arm-b"));
    let (r, markdown) =
        run_expecting_reports(&scratch, run_prebuilt(&scratch, &a, &b, &own_patches()));
    assert!(!cargo_was_called(&scratch), "a prebuilt run must not call cargo");
    assert_eq!(r["verdict"], "identical");
    assert_eq!(r["nondeterministic_arms"], serde_json::json!([]));
    for (name, dir) in [("A", &a), ("B", &b)] {
        let arm = &r["arms"][name];
        assert_eq!(arm["prebuilt"], true, "{name}");
        assert_eq!(arm["build_dir"], dir.display().to_string());
        assert_eq!(arm["worker"], dir.join("bin/mlx-ab-worker").display().to_string());
        assert_eq!(arm["device"], "cpu", "no GPU here: the default is the CPU");
        // Each arm ran its own copy: MLX code from its own layout.
        assert_eq!(arm["mlx"]["library_path"], dir.join("bin/mlx-ab-worker").display().to_string());
        assert_eq!(arm["mlx"]["gpu_available"], false);
        assert_eq!(arm["self_divergence"]["compared"], 2); // warm-up + 2 pairs, against the first
        assert_eq!(arm["self_divergence"]["differing"], 0);
    }
    assert_eq!(r["ab_divergence"]["compared"], 2);
    assert_eq!(r["ab_divergence"]["kl_max"], 0.0);
    let nvidia = &r["provenance"]["nvidia"];
    assert_eq!(nvidia["nvidia_smi"], true);
    assert_eq!(nvidia["gpus"][0]["name"], "NVIDIA H200");
    assert_eq!(nvidia["gpus"][0]["driver_version"], "550.54.15");
    assert_eq!(nvidia["cuda_version"], "12.4");
    assert_eq!(r["provenance"]["repo_commit"], "unknown", "no workspace was reachable");
    assert!(markdown.contains("**Outputs identical** (on cpu)"), "{markdown}");
    assert!(
        markdown.contains("NVIDIA: 1x NVIDIA H200 (driver 550.54.15); CUDA 12.4"),
        "{markdown}"
    );
    assert!(
        markdown.contains(&format!("prebuilt worker `{}`", a.join("bin/mlx-ab-worker").display())),
        "{markdown}"
    );
    // The synthetic model went into the given cache.
    assert!(scratch.path("cache/models").is_dir());
}

/// `--deterministic` on the CPU: the workers get the knob (their own report of their
/// environment says so), the report records it, and both say it does not apply on the CPU.
#[test]
fn deterministic_mode_reaches_the_workers_and_says_it_does_not_apply_on_the_cpu() {
    let scratch = Scratch::new("deterministic");
    let (a, b) = (layout(&scratch, "arm-a"), layout(&scratch, "arm-b"));
    let mut command = run_prebuilt(&scratch, &a, &b, &own_patches());
    command.arg("--deterministic");
    command.env("MLX_CUDA_USE_CUDNN_SDPA", "1"); // overridden by the mode, recorded as inherited
    let (r, markdown) = run_expecting_reports(&scratch, command);
    assert_eq!(r["verdict"], "identical");
    for name in ["A", "B"] {
        let arm = &r["arms"][name];
        assert_eq!(arm["mlx"]["environment"]["MLX_CUDA_USE_CUDNN_SDPA"], "0", "{name}");
        assert_eq!(arm["self_divergence"]["differing"], 0);
    }
    let mode = &r["provenance"]["determinism"];
    assert_eq!(mode["deterministic_mode"], true);
    assert_eq!(mode["backend"], "cpu");
    assert_eq!(mode["knobs"][0]["name"], "MLX_CUDA_USE_CUDNN_SDPA");
    assert_eq!(mode["knobs"][0]["applies"], false);
    assert_eq!(mode["environment"]["MLX_CUDA_USE_CUDNN_SDPA"], "1");
    assert!(markdown.contains("Verdict: `identical` (exit status 0)."), "{markdown}");
    assert!(
        markdown.contains("inherited: `MLX_CUDA_USE_CUDNN_SDPA=1` (overridden by the mode)"),
        "{markdown}"
    );
    assert!(
        markdown.contains(
            "Deterministic mode on: `MLX_CUDA_USE_CUDNN_SDPA=0` (set, but does not apply on the \
             CPU: only MLX's CUDA backend reads it)."
        ),
        "{markdown}"
    );
}

/// `--b-env`: the variable reaches arm B's worker alone (each worker's own report of its
/// environment says so), and the report names it with the arm; one deterministic mode sets is
/// refused before anything runs.
#[test]
fn an_arm_variable_reaches_that_arm_alone_and_the_report_names_it() {
    let scratch = Scratch::new("arm-env");
    let (a, b) = (layout(&scratch, "arm-a"), layout(&scratch, "arm-b"));
    let mut command = run_prebuilt(&scratch, &a, &b, &own_patches());
    command.args(["--b-env", "MLX_QMM_SM90=off"]);
    let (r, markdown) = run_expecting_reports(&scratch, command);
    assert_eq!(r["arms"]["B"]["mlx"]["environment"]["MLX_QMM_SM90"], "off");
    assert!(r["arms"]["A"]["mlx"]["environment"].get("MLX_QMM_SM90").is_none(), "{r}");
    assert_eq!(r["arms"]["B"]["spec"]["env"], serde_json::json!(["MLX_QMM_SM90=off"]));
    assert!(r["arms"]["A"]["spec"].get("env").is_none(), "{r}");
    assert!(markdown.contains("with `MLX_QMM_SM90=off` (B)"), "{markdown}");

    let output = run_prebuilt(&scratch, &a, &b, &own_patches())
        .args(["--deterministic", "--b-env", "MLX_CUDA_USE_CUDNN_SDPA=1"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2), "{}", describe(&output));
    assert!(
        stderr(&output).contains("--b-env MLX_CUDA_USE_CUDNN_SDPA: --deterministic sets"),
        "{}",
        describe(&output)
    );
}

/// Whether a live process runs the executable `exe` (compared through /proc/PID/exe).
fn a_process_runs(exe: &Path) -> bool {
    let exe = exe.canonicalize().unwrap();
    std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .any(|p| std::fs::read_link(p.path().join("exe")).is_ok_and(|target| target == exe))
}

/// Runs `command` (an `mlx-ab run`) asking for both reports, expects exit 0; the JSON report
/// and the Markdown one.
fn run_expecting_reports(scratch: &Scratch, mut command: Command) -> (Value, String) {
    let (json, md) = (scratch.path("report.json"), scratch.path("report.md"));
    let output = command.arg("--json").arg(&json).arg("--md").arg(&md).output().unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", describe(&output));
    let report = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    (report, std::fs::read_to_string(&md).unwrap())
}

/// Runs `command` (an `mlx-ab run`) asking for both reports, expects exit 2 and neither report.
fn run_expecting_exit_2(scratch: &Scratch, mut command: Command) -> Output {
    let (json, md) = (scratch.path("report.json"), scratch.path("report.md"));
    let output = command.arg("--json").arg(&json).arg("--md").arg(&md).output().unwrap();
    assert_eq!(output.status.code(), Some(2), "{}", describe(&output));
    assert!(!json.exists() && !md.exists(), "a failed run leaves no report");
    output
}

/// An installed layout whose `bin/mlx-ab-worker` is a script running `worker` (copied into
/// `lib/`) with `hooks` (`MLX_AB_WORKER_..._AT_RUN=N ...`) in its environment.
fn hooked_layout(scratch: &Scratch, name: &str, worker: &Path, hooks: &str) -> PathBuf {
    let dir = layout(scratch, name);
    common::copy_executable(worker, &dir.join("lib/mlx-ab-worker"));
    write_script(
        &dir.join("bin/mlx-ab-worker"),
        &format!("{hooks} exec \"$(dirname \"$0\")/../lib/mlx-ab-worker\" \"$@\""),
    );
    dir
}

/// Runs the tiny A/B with arm B's worker (built with `fault-injection`) under the fault `hook`
/// (`MLX_AB_WORKER_..._AT_RUN=2`: its second run, after the warm-up, in the first pair) and
/// `extra` arguments; checks that the run stops with exit 2, no report and no worker left;
/// returns stderr.
fn run_with_a_failing_worker(name: &str, hook: &str, extra: &[&str]) -> String {
    let scratch = Scratch::new(name);
    let a = layout(&scratch, "arm-a");
    let b = hooked_layout(&scratch, "arm-b", fault_injection_worker(), &format!("{hook}=2"));
    let mut command = run_prebuilt(&scratch, &a, &b, &own_patches());
    command.args(extra);
    let output = run_expecting_exit_2(&scratch, command);
    assert!(!a_process_runs(&a.join("bin/mlx-ab-worker")), "arm A's worker was left running");
    assert!(!a_process_runs(&b.join("lib/mlx-ab-worker")), "arm B's worker was left running");
    stderr(&output)
}

#[test]
fn a_worker_that_crashes_mid_run_stops_the_run() {
    let err = run_with_a_failing_worker("crash", "MLX_AB_WORKER_ABORT_AT_RUN", &[]);
    assert!(err.contains("worker B ended without replying"), "{err}");
    assert!(err.contains("signal: 6"), "the abort is named: {err}");
}

#[test]
fn a_worker_that_hangs_mid_run_is_killed_at_the_timeout() {
    let err =
        run_with_a_failing_worker("hang", "MLX_AB_WORKER_HANG_AT_RUN", &["--worker-timeout", "3"]);
    assert!(err.contains("worker B did not reply within 3 s and was killed"), "{err}");
}

/// A production worker (no `fault-injection`) reads neither fault variable: under both it runs
/// to the end. So the two tests above fail unless their worker has the feature.
#[test]
fn a_production_worker_ignores_the_fault_variables() {
    let scratch = Scratch::new("no-faults");
    let a = layout(&scratch, "arm-a");
    let hooks = "MLX_AB_WORKER_ABORT_AT_RUN=2 MLX_AB_WORKER_HANG_AT_RUN=3";
    let b = hooked_layout(&scratch, "arm-b", worker(), hooks);
    let output = run_prebuilt(&scratch, &a, &b, &own_patches())
        .args(["--worker-timeout", "60"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", describe(&output));
}

#[test]
fn a_prebuilt_worker_running_another_mlx_is_refused_and_lib_comes_first() {
    let scratch = Scratch::new("foreign");
    let a = layout(&scratch, "arm-a");
    // Arm B's worker is a wrapper that records its library path and runs an MLX outside B.
    let b = scratch.path("arm-b");
    std::fs::create_dir_all(b.join("lib")).unwrap();
    let (seen, ptx) = (scratch.path("b-library-path"), scratch.path("b-ptx-cache"));
    write_script(
        &b.join("bin/mlx-ab-worker"),
        &format!(
            "echo \"$LD_LIBRARY_PATH\" > '{}'\necho \"$MLX_PTX_CACHE_DIR\" > '{}'\nexec '{}' \"$@\"",
            seen.display(),
            ptx.display(),
            worker().display()
        ),
    );
    let patches = own_patches();
    let json = scratch.path("report.json");
    let output = run_prebuilt(&scratch, &a, &b, &patches)
        .env("LD_LIBRARY_PATH", "/driver/lib")
        .arg("--json")
        .arg(&json)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2), "{}", describe(&output));
    let message = stderr(&output);
    assert!(message.contains("arm B") && message.contains("not from"), "{message}");
    assert!(message.contains(&worker().canonicalize().unwrap().display().to_string()), "{message}");
    assert!(!json.exists(), "no partial report");
    assert!(!cargo_was_called(&scratch));
    // B's own lib/ came first, then what the driver had.
    let seen = std::fs::read_to_string(&seen).unwrap();
    assert_eq!(seen.trim(), format!("{}:/driver/lib", b.join("lib").display()));
    // And its own JIT kernel cache (MLX's CUDA cache is keyed by MLX version and kernel name
    // only), named by its code: not A's, whose worker and lib/ differ.
    let ptx = std::fs::read_to_string(&ptx).unwrap();
    let ptx = Path::new(ptx.trim());
    assert_eq!(ptx.parent().unwrap(), scratch.path("cache/ptx"), "{}", ptx.display());
}

#[test]
fn patches_of_a_prebuilt_arm_are_checked() {
    let scratch = Scratch::new("patches");
    let a = layout(&scratch, "arm-a");
    let b = layout(&scratch, "arm-b");
    let wrong = if own_patches() == "none" { "all" } else { "none" };
    let output = run_prebuilt(&scratch, &a, &b, wrong).output().unwrap();
    assert_eq!(output.status.code(), Some(2), "{}", describe(&output));
    let message = stderr(&output);
    assert!(
        message.contains("arm A asked for patches") && message.contains("prebuilt"),
        "{message}"
    );
    assert!(!cargo_was_called(&scratch));
}

#[test]
fn bad_prebuilt_layouts_exit_2_before_anything_runs() {
    let scratch = Scratch::new("layouts");
    let run = |args: &[&str]| mlx_ab(&scratch).arg("run").args(args).output().unwrap();
    let missing = scratch.path("missing").display().to_string();
    let output = run(&["--a-prebuilt", &missing]);
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr(&output).contains("--a-prebuilt"), "{}", describe(&output));

    let no_bin = scratch.path("no-bin");
    std::fs::create_dir_all(no_bin.join("lib")).unwrap();
    let output = run(&["--b-prebuilt", no_bin.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr(&output).contains("bin/mlx-ab-worker"), "{}", describe(&output));

    let no_lib = scratch.path("no-lib");
    std::fs::create_dir_all(no_lib.join("bin")).unwrap();
    common::copy_executable(worker(), &no_lib.join("bin/mlx-ab-worker"));
    let output = run(&["--a-prebuilt", no_lib.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr(&output).contains("no library directory"), "{}", describe(&output));

    // A prebuilt arm cannot also be built from another source or with extra patches.
    let arm = layout(&scratch, "arm");
    let output = run(&["--a-prebuilt", arm.to_str().unwrap(), "--a-src", "/tmp"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr(&output).contains("cannot be used with"), "{}", describe(&output));
    assert!(!cargo_was_called(&scratch));
    assert!(!scratch.path("cache/models").exists(), "refused before the model is written");
}

#[test]
fn device_gpu_without_a_gpu_is_a_clear_error() {
    let scratch = Scratch::new("gpu");
    let (a, b) = (layout(&scratch, "arm-a"), layout(&scratch, "arm-b"));
    let mut command = run_prebuilt(&scratch, &a, &b, &own_patches());
    command.args(["--device", "gpu"]);
    let output = run_expecting_exit_2(&scratch, command);
    let message = stderr(&output);
    assert!(message.contains("--device gpu") && message.contains("no GPU"), "{message}");
    assert!(output.stdout.is_empty(), "no summary either: {}", describe(&output));

    // generate, handed by the driver to a prebuilt worker: the same refusal; --device cpu works.
    let model = tiny_model(&scratch);
    let generate = |device: &str| {
        mlx_ab(&scratch)
            .args(["generate", "--prebuilt"])
            .arg(&a)
            .args(["--tokens", "1,2,3", "--max-tokens", "2", "--device", device, "--model"])
            .arg(&model)
            .output()
            .unwrap()
    };
    let output = generate("gpu");
    assert_eq!(output.status.code(), Some(2), "{}", describe(&output));
    assert!(stderr(&output).contains("--device gpu"), "{}", describe(&output));
    let output = generate("cpu");
    assert!(output.status.success(), "{}", describe(&output));
    let result: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(result["device"], "cpu");
    assert_eq!(result["mlx"]["library_path"], a.join("bin/mlx-ab-worker").display().to_string());
    assert!(!cargo_was_called(&scratch), "a prebuilt worker needs no cargo");
    let output = generate("tpu");
    assert_eq!(output.status.code(), Some(2), "clap refuses an unknown device");
}

/// The tiny preset's checkpoint, written by the all-patches worker into the scratch folder.
fn tiny_model(scratch: &Scratch) -> PathBuf {
    let model = scratch.path("model");
    let made = Command::new(worker())
        .args(["make-model", "--preset", "tiny", "--out"])
        .arg(&model)
        .output()
        .unwrap();
    assert!(made.status.success(), "{}", describe(&made));
    model
}

/// A checkpoint whose `model.safetensors` is corrupt, in a table: a header length MLX refuses,
/// and tensor data cut short (MLX checks the offsets against the file size on load). Either
/// way: exit 2, the file and MLX's message (from its io/safetensors.cpp) on stderr, no report,
/// no worker left.
#[test]
fn a_corrupt_safetensors_file_exits_2_without_a_report() {
    type Corrupt = fn(&mut Vec<u8>);
    let cases: &[(&str, Corrupt, &str)] = &[
        (
            "bad-header",
            |bytes| bytes[..8].copy_from_slice(&u64::MAX.to_le_bytes()),
            "Invalid json header length",
        ),
        ("cut-data", |bytes| bytes.truncate(bytes.len() - 64), "exceeding the size of the file"),
    ];
    for (name, corrupt, message) in cases {
        let scratch = Scratch::new(&format!("corrupt-{name}"));
        let model = tiny_model(&scratch);
        let file = model.join("model.safetensors");
        let mut bytes = std::fs::read(&file).unwrap();
        corrupt(&mut bytes);
        std::fs::write(&file, bytes).unwrap();

        let (a, b) = (layout(&scratch, "arm-a"), layout(&scratch, "arm-b"));
        let patches = own_patches();
        let mut command = mlx_ab(&scratch);
        command.args(["run", "--model"]).arg(&model);
        command.args(&TINY[3..]).args(["--a-patches", &patches, "--b-patches", &patches]);
        command.arg("--a-prebuilt").arg(&a).arg("--b-prebuilt").arg(&b);
        let output = run_expecting_exit_2(&scratch, command);
        let err = stderr(&output);
        assert!(err.contains("model.safetensors"), "{name}: the file is named: {err}");
        assert!(err.contains(message), "{name}: MLX's message: {err}");
        assert!(!a_process_runs(&a.join("bin/mlx-ab-worker")), "{name}: a worker was left running");
        assert!(!a_process_runs(&b.join("bin/mlx-ab-worker")), "{name}: a worker was left running");
    }
}

/// Forwarded subcommands run in the arm's own kernel cache, the folder `run` gives its worker,
/// so a `generate` warms the kernels that a later `run` finds.
#[test]
fn forwarded_subcommands_use_the_arms_kernel_cache() {
    let scratch = Scratch::new("ptx");
    let arm = scratch.path("arm");
    std::fs::create_dir_all(arm.join("lib")).unwrap();
    write_script(&arm.join("bin/mlx-ab-worker"), "echo \"$MLX_PTX_CACHE_DIR\"");
    let output = mlx_ab(&scratch).args(["info", "--prebuilt"]).arg(&arm).output().unwrap();
    assert!(output.status.success(), "{}", describe(&output));
    let stdout = String::from_utf8_lossy(&output.stdout);
    let dir = Path::new(stdout.trim());
    assert_eq!(dir.parent(), Some(scratch.path("cache/ptx").as_path()), "{}", describe(&output));
}
