//! MLX's own C++ test suite (doctest), built by mlx-sys from the same source and patches as
//! everything else here: nothing may fail beyond the cases that fail on stock MLX as well.
//! Needs the `cpp-suite` feature (scripts/test-all runs it).
#![cfg(feature = "cpp-suite")]

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;

/// Cases that fail on stock v0.32.4 too, one name per line (`#` comments).
fn known_failures() -> BTreeSet<String> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/mlx-suite-known-failures.txt");
    std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(String::from)
        .collect()
}

#[test]
fn mlx_cpp_suite_fails_only_where_stock_fails() {
    let suite = Path::new(mlx_sys::build_info::BUILD_DIR).join("build/tests/tests");
    assert!(
        suite.is_file(),
        "{} is missing: mlx-sys must build with feature cpp-suite",
        suite.display()
    );
    let scratch = tempfile::tempdir().unwrap();
    let output =
        Command::new(&suite).arg("--no-colors=true").current_dir(scratch.path()).output().unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    let failed = failing_cases(&stdout);
    let summary = stdout.lines().find(|l| l.contains("test cases:")).unwrap_or_default();
    println!("MLX C++ suite with patches {:?}: {summary}", mlx_sys::build_info::PATCHES);
    let total: usize = summary
        .split("test cases:")
        .nth(1)
        .and_then(|s| s.split('|').next())
        .and_then(|s| s.trim().parse().ok())
        .unwrap_or_else(|| panic!("no doctest summary in the output:\n{stdout}"));
    assert!(total >= 260, "the suite ran only {total} cases:\n{stdout}");
    let known = known_failures();
    let unexpected: Vec<_> = failed.difference(&known).collect();
    assert!(unexpected.is_empty(), "failing only here: {unexpected:?}\n{stdout}");
    assert_eq!(output.status.success(), failed.is_empty(), "exit status vs failures:\n{stdout}");
}

/// Cases with an error in one of their report blocks. doctest also names a case in a block for
/// a `MESSAGE` (the patches' GPU cases say so when they do not run), which is not a failure.
fn failing_cases(output: &str) -> BTreeSet<String> {
    let separator = "=".repeat(20);
    let mut failing = BTreeSet::new();
    let mut name: Option<String> = None;
    let mut error = false;
    for line in output.lines().chain(std::iter::once(separator.as_str())) {
        if line.starts_with(&separator) {
            if let (Some(case), true) = (name.take(), error) {
                failing.insert(case);
            }
            error = false;
        } else if let Some(case) = line.strip_prefix("TEST CASE:") {
            name = Some(case.trim().to_string());
        } else if line.contains(": ERROR: ")
            || line.contains(": FATAL ERROR: ")
            || line.contains("CRASHED")
        {
            error = true;
        }
    }
    failing
}

#[test]
fn messages_are_not_failures() {
    let sep = "=".repeat(79);
    let output = format!(
        "{sep}\nf.cpp:1:\nTEST CASE:  a gpu case\n\nf.cpp:2: MESSAGE: not run\n\n{sep}\nf.cpp:3:\n\
         TEST CASE:  broken\n\nf.cpp:4: ERROR: CHECK( x ) is NOT correct!\n\n{sep}\n"
    );
    assert_eq!(failing_cases(&output), BTreeSet::from(["broken".to_string()]));
}
