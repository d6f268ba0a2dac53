//! A sanitized build (`MLX_SANITIZE`, `scripts/sanitize`) must really be instrumented, in our C++
//! and in libmlx, and must stop on a finding: each case runs one deliberate bug
//! (`mlx-ext/cpp/sanitizer_probe.h`) in a child process (this test binary again) and expects the
//! sanitizer's report naming the bug's file and a failing exit. In a build without that
//! sanitizer the case says so and checks nothing: the bugs are undefined behaviour there.

use mlx_ext::ffi::sanitizer_probe::ffi as probe;
use std::process::Command;

/// Set in the child: which probe to run.
const PROBE_ENV: &str = "MLX_TESTS_SANITIZER_PROBE";

fn sanitized_with(name: &str) -> bool {
    mlx_sys::build_info::SANITIZE.split(',').any(|s| s == name)
}

/// In the child, runs the probe and reports that it survived; in the parent, runs this test in
/// a child and returns its stderr, asserting that the child failed.
fn run_probe(test: &str, probe_name: &str) -> Option<String> {
    match std::env::var(PROBE_ENV) {
        Ok(wanted) if wanted == probe_name => {
            // SAFETY: none; the point is the bug. Only reached in the child of a sanitized build.
            let value = unsafe {
                match probe_name {
                    "heap-overflow" => probe::probe_heap_overflow() as f32,
                    "signed-overflow" => probe::probe_signed_overflow(1) as f32,
                    "data-race" => probe::probe_data_race() as f32,
                    "mlx-take" => probe::probe_mlx_out_of_range_take(),
                    "mlx-default-device" => {
                        probe::probe_mlx_default_device_race();
                        0.0
                    }
                    other => panic!("unknown probe {other}"),
                }
            };
            eprintln!("probe {probe_name} survived: {value}");
            std::process::exit(0);
        }
        Ok(_) => return None,
        Err(_) => {}
    }
    let out = Command::new(std::env::current_exe().unwrap())
        .args(["--exact", test, "--nocapture", "--test-threads=1"])
        .env(PROBE_ENV, probe_name)
        // The runtimes' defaults compiled into the programs must make a finding fatal without
        // any options from the environment (mlx-sys cpp/shim_common.cc).
        .env_remove("UBSAN_OPTIONS")
        .env_remove("TSAN_OPTIONS")
        .env_remove("ASAN_OPTIONS")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(!out.status.success(), "probe {probe_name} did not fail the child:\n{stderr}");
    assert!(
        !stderr.contains("survived"),
        "probe {probe_name} went on after its finding:\n{stderr}"
    );
    Some(stderr)
}

/// Under `sanitizer`, the child running `probe` must fail with `report` naming `location`.
fn expect_finding(test: &str, sanitizer: &str, probe: &str, report: &str, location: &str) {
    if !sanitized_with(sanitizer) {
        return eprintln!("not a {sanitizer} build (MLX_SANITIZE): nothing to check");
    }
    if let Some(stderr) = run_probe(test, probe) {
        assert!(stderr.contains(report), "no `{report}` in the child's report:\n{stderr}");
        assert!(stderr.contains(location), "the report does not name `{location}`:\n{stderr}");
    }
}

#[test]
fn asan_catches_a_heap_overflow_in_our_cpp() {
    expect_finding(
        "asan_catches_a_heap_overflow_in_our_cpp",
        "address",
        "heap-overflow",
        "AddressSanitizer: heap-buffer-overflow",
        "sanitizer_probe.cc",
    );
}

#[test]
fn asan_catches_an_overflow_inside_libmlx() {
    expect_finding(
        "asan_catches_an_overflow_inside_libmlx",
        "address",
        "mlx-take",
        "AddressSanitizer: heap-buffer-overflow",
        "mlx/backend/cpu/indexing.cpp",
    );
}

#[test]
fn ubsan_stops_at_a_signed_overflow() {
    expect_finding(
        "ubsan_stops_at_a_signed_overflow",
        "undefined",
        "signed-overflow",
        "runtime error: signed integer overflow",
        "sanitizer_probe.cc",
    );
}

#[test]
fn tsan_catches_a_race_in_our_cpp() {
    expect_finding(
        "tsan_catches_a_race_in_our_cpp",
        "thread",
        "data-race",
        "ThreadSanitizer: data race",
        "sanitizer_probe.cc",
    );
}

#[test]
fn tsan_catches_a_race_inside_libmlx() {
    expect_finding(
        "tsan_catches_a_race_inside_libmlx",
        "thread",
        "mlx-default-device",
        "ThreadSanitizer: data race",
        "mlx/device.cpp",
    );
}
