//! The unit tests of the project's Python scripts (`tests/python/test_*.py`: the GPU stages'
//! summaries of ncu and phase logs), run by `python3 -m unittest` so that `cargo test` holds
//! them too. Fails, not skips, without `python3` (`./quickstart test` installs it).

use std::process::Command;

#[test]
fn python_unit_tests_pass() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/python");
    let python = std::env::var("MLX_TESTS_PYTHON").unwrap_or_else(|_| "python3".to_owned());
    let output = Command::new(&python)
        .args(["-m", "unittest", "discover", "-s", dir, "-p", "test_*.py"])
        .output()
        .unwrap_or_else(|e| panic!("cannot run {python}: {e} (./quickstart test installs it)"));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "python unit tests failed ({}):\n{stderr}", output.status);
    // unittest prints "Ran N tests": none found would be a silent pass.
    assert!(!stderr.contains("Ran 0 tests"), "no python unit test found in {dir}:\n{stderr}");
}
