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

/// Writes `text` to `path` as an executable (mode 755). Executables that tests start are written
/// by a child process (here and in [`copy_executable`]) so that this test process never holds
/// one open for writing: a child forked meanwhile by another test's thread would inherit that
/// descriptor until its exec, and starting the file then fails with "Text file busy" (ETXTBSY).
#[allow(dead_code)] // not every test binary writes executables
pub fn write_executable(path: &std::path::Path, text: &str) {
    use std::io::Write;
    use std::process::{Command, Stdio};
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let mut child = Command::new("sh")
        .args(["-c", "cat > \"$1\" && chmod 755 \"$1\"", "sh"])
        .arg(path)
        .stdin(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(text.as_bytes()).unwrap();
    assert!(child.wait().unwrap().success(), "writing {}", path.display());
}

/// Copies the executable `from` to `to` by `cp` (why a child process: [`write_executable`]).
#[allow(dead_code)] // not every test binary copies executables
pub fn copy_executable(from: &std::path::Path, to: &std::path::Path) {
    let status = std::process::Command::new("cp").arg(from).arg(to).status().unwrap();
    assert!(status.success(), "copying {} to {}", from.display(), to.display());
}
