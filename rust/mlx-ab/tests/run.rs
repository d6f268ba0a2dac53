//! End-to-end tests of `mlx-ab run`: each arm is built (or reused from the cache) and run as
//! its own process on the tiny synthetic model. The first build of an arm takes minutes (MLX and
//! the crate graph); later runs reuse it.

mod common;

use common::describe;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn mlx_ab() -> Command {
    Command::new(env!("CARGO_BIN_EXE_mlx-ab"))
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("mlx-ab-test-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Small shapes: quick, but below every patch's threshold.
const SMALL: [&str; 4] = ["--prompt-len", "48", "--prefill-chunk", "16"];
/// Shapes that engage all three patches on the tiny model (8 experts, top-2): 512 attention rows
/// per chunk (the long-row causal softmax), 1024 expert rows (>= 64: SwitchGLU sorts them, the
/// tiled gather_qmm) at 128 rows per expert, and every eval.
const ENGAGING: [&str; 4] = ["--prompt-len", "520", "--prefill-chunk", "512"];

/// `run` on the tiny model; returns the process output and the JSON report.
fn run_tiny(name: &str, shape: [&str; 4], extra_args: &[&str]) -> (Output, Option<Value>) {
    let dir = scratch(name);
    let json = dir.join("report.json");
    let md = dir.join("report.md");
    let output = mlx_ab()
        .args(["run", "--preset", "tiny"])
        .args(shape)
        .args(["--gen-len", "6", "--pairs", "2", "--warmup", "1"])
        .arg("--json")
        .arg(&json)
        .arg("--md")
        .arg(&md)
        .args(extra_args)
        .output()
        .expect("mlx-ab runs");
    let report = std::fs::read_to_string(&json)
        .ok()
        .map(|t| serde_json::from_str(&t).expect("report is JSON"));
    if report.is_some() {
        let markdown = std::fs::read_to_string(&md).expect("markdown written");
        assert!(markdown.starts_with("### MLX A/B"), "{markdown}");
        assert_eq!(markdown, String::from_utf8_lossy(&output.stdout), "stdout carries the summary");
    }
    let _ = std::fs::remove_dir_all(&dir);
    (output, report)
}

fn check_arm_samples(report: &Value, arm: &str, pairs: usize) {
    for metric in ["prefill_tps", "decode_tps", "peak_memory_bytes"] {
        let samples = report["arms"][arm][metric]["samples"].as_array().unwrap();
        assert_eq!(samples.len(), pairs, "{arm} {metric}");
        assert!(samples.iter().all(|s| s.as_f64().unwrap() > 0.0), "{arm} {metric}: {samples:?}");
        assert!(report["arms"][arm][metric]["median"].as_f64().unwrap() > 0.0);
    }
}

#[test]
fn stock_against_all_patches_is_identical() {
    let (output, report) = run_tiny("identical", ENGAGING, &[]);
    assert_eq!(output.status.code(), Some(0), "{}", describe(&output));
    let r = report.expect("report written");
    assert_eq!(r["pairs"], 2);
    assert_eq!(r["order"], "ABBA");
    assert_eq!(r["token_identical"], true);
    assert_eq!(r["logits_bitwise_identical"], true);
    assert_eq!(r["arms_deterministic"], true);
    assert!(r["first_divergence"].is_null());
    assert_eq!(r["exit_status"], 0);
    assert_eq!(r["per_pair"].as_array().unwrap().len(), 2);
    assert_eq!(r["per_pair"][1]["order"], "BA");
    check_arm_samples(&r, "A", 2);
    check_arm_samples(&r, "B", 2);
    for metric in ["prefill_tps", "decode_tps", "peak_memory_bytes"] {
        let ratio = &r["ratio"][metric];
        assert!(ratio["median"].as_f64().unwrap() > 0.0, "{metric}");
        let ci = ratio["ci95"].as_array().unwrap();
        assert!(ci[0].as_f64().unwrap() <= ci[1].as_f64().unwrap());
        assert_eq!(ratio["samples"].as_array().unwrap().len(), 2);
        assert!(ratio["sign_test"]["p_value"].as_f64().unwrap() >= 0.5); // 2 pairs: p >= 2/4
    }
    // The arms really are the builds asked for: A stock, B with the series' patches.
    assert_eq!(r["arms"]["A"]["mlx"]["patches"], serde_json::json!([]));
    let all = serde_json::json!(mlx_build::series::ids());
    assert_eq!(r["arms"]["B"]["mlx"]["patches"], all);
    assert_eq!(r["arms"]["B"]["spec"]["patches"], all);
    assert_eq!(r["arms"]["A"]["mlx"]["mlx_version"], "0.32.4");
    let p = &r["provenance"];
    for field in ["date", "cxx_compiler", "rustc", "repo_commit"] {
        assert!(!p[field].as_str().unwrap().is_empty(), "{field}");
    }
    assert!(p["host"]["logical_cpus"].as_u64().unwrap() >= 1);
    assert_eq!(r["arms"]["A"]["mlx"]["source_digest"].as_str().unwrap().len(), 64);
    assert_eq!(r["workload"]["prompt_len"], 520);
    assert_eq!(r["workload"]["gen_len"], 6);
    // Every patch's path ran: no coverage warning (the sign test's few-pairs warning aside).
    let warnings: Vec<&str> =
        r["warnings"].as_array().unwrap().iter().map(|w| w.as_str().unwrap()).collect();
    assert!(warnings.iter().all(|w| w.contains("pairs")), "{warnings:?}");
}

#[test]
fn a_perturbed_softmax_is_reported_as_a_divergence() {
    let patch = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/perturb-softmax.patch");
    let patch = patch.to_str().unwrap();
    let (output, report) =
        run_tiny("perturbed", SMALL, &["--b-patches", "none", "--b-extra-patch", patch]);
    assert_eq!(output.status.code(), Some(1), "{}", describe(&output));
    let r = report.expect("report written");
    assert_eq!(r["logits_bitwise_identical"], false);
    assert_eq!(r["exit_status"], 1);
    assert_eq!(r["arms"]["B"]["mlx"]["extra_patches"][0], "perturb-softmax.patch");
    // Each arm still reproduces itself: the difference is the patch, not noise.
    assert_eq!(r["arms_deterministic"], true);
    let d = &r["first_divergence"];
    assert_eq!(d["pair"], 0);
    assert!(d["step"].as_u64().unwrap() < 6);
    assert!(d["token_a"].is_u64() && d["token_b"].is_u64());
    assert!(d["differing_logits"].as_u64().unwrap() >= 1);
    let diff = d["max_abs_logit_diff"].as_f64().unwrap();
    assert!(diff > 0.0 && diff < 1.0, "a 2^-20 relative change moves logits a little: {diff}");
    for pair in r["per_pair"].as_array().unwrap() {
        assert_eq!(pair["logits_bitwise_equal"], false);
        assert!(pair["kl_mean"].as_f64().unwrap() > 0.0);
    }
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        stdout.contains("**Outputs differ**") && stdout.contains("First divergence: pair 0"),
        "{stdout}"
    );
}

#[test]
fn bad_arguments_exit_with_status_2_and_a_message() {
    let output = mlx_ab().args(["run", "--b-patches", "gather-qmm-tiles,bogus"]).output().unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("unknown patch id `bogus`"));

    let output = mlx_ab().args(["run", "--model", "/nonexistent/model"]).output().unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&output.stderr).contains("config.json"),
        "{}",
        describe(&output)
    );

    let output = mlx_ab().args(["run", "--b-extra-patch", "/nonexistent.patch"]).output().unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("does not exist"));

    let output = mlx_ab().args(["run", "--pairs", "0"]).output().unwrap();
    assert_eq!(output.status.code(), Some(2));

    // Report paths that cannot be written stop the run before any work, naming the path.
    let dir = scratch("unwritable");
    for (flag, path) in [("--json", dir.join("no/such/dir/r.json")), ("--md", dir.clone())] {
        let output = mlx_ab().args(["run", flag]).arg(&path).output().unwrap();
        assert_eq!(output.status.code(), Some(2), "{}", describe(&output));
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(stderr.contains("cannot write the report"), "{stderr}");
        assert!(!stderr.contains("pair 1/"), "the run started: {stderr}");
    }
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 0, "a probe or report was left behind");
}

#[test]
fn generate_prints_tokens_and_one_digest_per_step_also_after_a_warmup() {
    let dir = scratch("generate");
    let model = dir.join("model");
    let made =
        mlx_ab().args(["make-model", "--preset", "tiny", "--out"]).arg(&model).output().unwrap();
    assert!(made.status.success(), "{}", describe(&made));
    let run = |warmup: &str| {
        let output = mlx_ab()
            .args(["generate", "--tokens", "1,2,3,4,5", "--max-tokens", "4", "--warmup", warmup])
            .arg("--model")
            .arg(&model)
            .output()
            .unwrap();
        assert!(output.status.success(), "{}", describe(&output));
        serde_json::from_slice::<Value>(&output.stdout).unwrap()
    };
    let first = run("0");
    assert_eq!(first["tokens"].as_array().unwrap().len(), 4);
    assert_eq!(first["warmup"], 0);
    let digests = first["logits_sha256"].as_array().unwrap();
    assert_eq!(digests.len(), 4);
    assert!(digests.iter().all(|d| d.as_str().unwrap().len() == 64));
    // Deterministic: same tokens and digests again, also after discarded generations, which
    // the report names.
    let second = run("2");
    assert_eq!(second["warmup"], 2);
    assert_eq!(first["tokens"], second["tokens"]);
    assert_eq!(first["logits_sha256"], second["logits_sha256"]);
    let _ = std::fs::remove_dir_all(&dir);
}
