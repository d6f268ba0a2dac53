//! Helpers shared by mlx-ab's integration tests.

use std::process::Output;

/// A finished command's status and both streams, for assertion messages.
pub fn describe(output: &Output) -> String {
    format!(
        "status {:?}\nstdout:\n{}\nstderr:\n{}",
        output.status.code(),
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

/// The worker of the all-patches arm, built (or reused) by `mlx-ab build-worker`, once per test
/// process: the tests of a driver that links no MLX need a worker that does.
#[allow(dead_code)] // run.rs builds its arms through `mlx-ab run` instead
pub fn worker() -> &'static std::path::Path {
    static WORKER: std::sync::OnceLock<std::path::PathBuf> = std::sync::OnceLock::new();
    WORKER.get_or_init(|| build_worker(&[]))
}

/// The same arm's worker with the test-only `fault-injection` feature: it aborts or hangs at
/// the run `MLX_AB_WORKER_ABORT_AT_RUN` / `MLX_AB_WORKER_HANG_AT_RUN` names, which `worker()`
/// ignores.
#[allow(dead_code)] // only prebuilt.rs crashes workers
pub fn fault_injection_worker() -> &'static std::path::Path {
    static WORKER: std::sync::OnceLock<std::path::PathBuf> = std::sync::OnceLock::new();
    WORKER.get_or_init(|| build_worker(&["--fault-injection"]))
}

/// `mlx-ab build-worker --patches all EXTRA...`: the worker's path.
#[allow(dead_code)] // as its callers
fn build_worker(extra: &[&str]) -> std::path::PathBuf {
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_mlx-ab"))
        .args(["build-worker", "--patches", "all"])
        .args(extra)
        .output()
        .expect("mlx-ab runs");
    assert!(output.status.success(), "{}", describe(&output));
    let path = String::from_utf8(output.stdout).unwrap().trim().to_string();
    std::path::PathBuf::from(path)
}
