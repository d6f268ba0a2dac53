//! Stock MLX v0.32.4 bugs that this workspace steps around, each reproduced in a child process
//! (this test binary, run again with `--ignored --exact NAME`): the checks pass while the bug
//! is there and fail once the linked MLX fixes it, so that the workaround can go. The reports
//! are in reports/upstream/.

use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The ignored test `name` of this binary, started in a child process.
fn spawn_child(name: &str) -> Child {
    Command::new(std::env::current_exe().unwrap())
        .args(["--ignored", "--exact", name, "--test-threads", "1"])
        .env(CHILD, "1")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("running this test binary again")
}

/// Set in the child: the ignored tests do nothing when run any other way.
const CHILD: &str = "MLX_TESTS_UPSTREAM_CHILD";

/// In the child: sets the CPU device and returns true; anywhere else false.
fn in_child_on_cpu() -> bool {
    let child = std::env::var_os(CHILD).is_some();
    if child {
        mlx_tests::on_cpu();
    }
    child
}

/// Runs the ignored test `name` of this binary; true if it was still running after `limit`
/// (then it is killed).
fn child_hangs(name: &str, limit: Duration) -> bool {
    let mut child = spawn_child(name);
    let start = Instant::now();
    while start.elapsed() < limit {
        if let Some(status) = child.try_wait().unwrap() {
            assert!(status.success(), "{name} failed in the child: {status}");
            return false;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    true
}

/// The reduction that hangs: a float16 sum over axis 0 of `transpose(zeros([3, 0]))`, on the CPU.
#[test]
#[ignore = "run in a child process by empty_strided_half_sum_still_hangs_sometimes"]
fn half_sum_of_transposed_empty() {
    if !in_child_on_cpu() {
        return;
    }
    let a = mlx::ops::zeros(&[3, 0], mlx::Dtype::Float16).unwrap();
    let t = mlx::ops::transpose(&a).unwrap();
    let s = mlx::ops::sum_axes(&t, &[0], true).unwrap();
    s.eval().unwrap();
    assert_eq!(s.shape(), vec![1, 3]);
}

/// reports/upstream/empty-strided-reduce-hang.md: the CPU reduction of a half-precision empty
/// strided array loops in `nd_loop` in about half the runs (never in float32); the random graphs
/// of `mlx_tests::graphs` therefore never reduce an empty array. Sixteen runs all finishing
/// (chance 2^-16 while the bug is there) means MLX fixed it.
#[test]
fn empty_strided_half_sum_still_hangs_sometimes() {
    let runs = 16;
    let hung =
        (0..runs).any(|_| child_hangs("half_sum_of_transposed_empty", Duration::from_secs(3)));
    assert!(
        hung,
        "{runs} of {runs} runs finished: this MLX no longer hangs on an empty strided f16 \
         reduction; let tests/src/graphs.rs reduce empty arrays again and retire \
         reports/upstream/empty-strided-reduce-hang.md"
    );
}

/// A function exported and imported on one thread, then called and evaluated on another, all
/// on the CPU: this thread makes the process's first CPU stream, the other its own.
#[test]
#[ignore = "run in a child process by imported_functions_run_only_on_the_first_streams_thread"]
fn import_on_a_second_thread() {
    if !in_child_on_cpu() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("double.mlxfn");
    let double = |args: &[mlx::Array]| Ok(vec![args[0].add(&args[0])?]);
    let x = mlx::Array::from_slice(&[1.0f32, 2.0], &[2]).unwrap();
    mlx::export::export_function(&path, double, &[&x], false).unwrap();
    let here = mlx::export::import_function(&path).unwrap().call(&[&x]).unwrap();
    assert_eq!(here[0].to_vec::<f32>().unwrap(), [2.0, 4.0]);
    let there = std::thread::spawn(move || {
        mlx_tests::on_cpu();
        let x = mlx::Array::from_slice(&[1.0f32, 2.0], &[2]).unwrap();
        x.eval().unwrap();
        let out = mlx::export::import_function(&path).unwrap().call(&[&x]).unwrap();
        mlx::eval(&out).map(|()| out[0].to_vec::<f32>().unwrap())
    })
    .join()
    .unwrap();
    let message = there.expect_err("the second thread evaluated the imported function").to_string();
    assert!(message.contains("no Stream(cpu"), "{message}");
}

/// reports/upstream/import-function-first-stream.md: `import_function` binds imported ops to
/// the first stream of their device in the process (`resolve_stream` in mlx/export.cpp), not
/// the calling thread's, and v0.32's streams belong to the thread that made them. So tests that
/// import run their MLX work on one thread (`mlx_tests::on_mlx_thread`).
#[test]
fn imported_functions_run_only_on_the_first_streams_thread() {
    let status = spawn_child("import_on_a_second_thread").wait().unwrap();
    assert!(
        status.success(),
        "an imported function ran on a thread that did not make the first CPU stream: this MLX \
         fixed import_function's stream; drop mlx_tests::on_mlx_thread and retire \
         reports/upstream/import-function-first-stream.md"
    );
}
