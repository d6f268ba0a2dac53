//! `mlx-ab-worker determinism` end to end on the CPU: a synthetic `tiny` model is bit-identical
//! at every tap from one run to the next (exit 0), and bad options are errors (exit 2).

use std::process::Command;

fn worker() -> Command {
    Command::new(env!("CARGO_BIN_EXE_mlx-ab-worker"))
}

#[test]
fn every_tap_is_identical_on_the_cpu() {
    let dir = tempfile::tempdir().unwrap();
    let made = worker()
        .args(["make-model", "--preset", "tiny", "--seed", "1", "--out"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(made.status.success(), "{}", String::from_utf8_lossy(&made.stderr));
    let tokens: Vec<String> = (0..50).map(|i| (i * 37 % 512).to_string()).collect();
    let run = |extra: &[&str]| {
        worker()
            .arg("determinism")
            .arg("--model")
            .arg(dir.path())
            .args(["--tokens", &tokens.join(","), "--prefill-chunk", "40", "--device", "cpu"])
            .args(extra)
            .output()
            .unwrap()
    };
    let out = run(&["--repeats", "3", "--decode-steps", "2"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}{}", String::from_utf8_lossy(&out.stderr));
    let lines: Vec<&str> = stdout.lines().collect();
    assert!(
        lines[0].starts_with(
            "# device cpu, 50 prompt tokens, prefill chunk 40, 2 decode steps, 3 repeats"
        ),
        "{}",
        lines[0]
    );
    assert!(
        lines[1].starts_with(
            "prefill0.embed float32 [1,40,128] differ 0 elements 0/5120 max_abs 0e0 fnv1a "
        ),
        "{}",
        lines[1]
    );
    assert!(
        lines.iter().any(|l| l.starts_with("decode1.logits float32 [1,1,512] differ 0 ")),
        "{stdout}"
    );
    let taps = lines.len() - 2;
    assert_eq!(lines.last().unwrap(), &format!("all {taps} taps bit-identical over 3 repeats"));

    // Two processes: the same digests.
    let again = run(&["--repeats", "2", "--decode-steps", "2"]);
    let digests = |s: &str| -> Vec<String> {
        s.lines().filter_map(|l| l.rsplit_once(" fnv1a ").map(|(_, d)| d.to_string())).collect()
    };
    assert_eq!(digests(&stdout), digests(&String::from_utf8_lossy(&again.stdout)));

    let bad = run(&["--repeats", "1"]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("repeats must be at least 2"));
}
