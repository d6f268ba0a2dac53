//! `mlx-ab ops` over stand-in arms: shell scripts speaking op-bench's protocol (JSON lines,
//! `mlx_ab_protocol::ops`). Identical
//! digests pass with A time / B time as the ratio, one differing digest fails the run (exit 1),
//! a worker error leaves no report (exit 2), pairs run in `mlx-ab run`'s Thue-Morse order, a
//! spent budget leaves points out, SIGTERM reports the finished points (exit 3).

mod common;

use serde_json::Value;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

const SAME: &str = "00000000deadbeef";

/// How a stand-in op-bench answers.
struct Fake<'a> {
    /// The reply line to every request ([`timed`] or [`error`]).
    reply: &'a str,
    /// Each request is appended here as `NAME PID REQUEST` before the reply.
    log: Option<&'a Path>,
    /// Log the value of this environment variable (or `unset`) in place of NAME.
    log_env: Option<&'a str>,
    /// After this many replies the worker hangs (a slow op).
    hang_after: Option<usize>,
    /// Seconds to sleep before each reply.
    delay: Option<&'a str>,
}

/// A reply of `seconds` per call, `peak` bytes and `digest`.
fn timed(seconds: f64, peak: u64, digest: &str) -> String {
    format!(
        r#"{{"reply":"timed","seconds_per_call":{seconds:e},"peak_bytes":{peak},"digest":"{digest}"}}"#
    )
}

fn error(message: &str) -> String {
    format!(r#"{{"reply":"error","message":"{message}"}}"#)
}

fn fake(reply: &str) -> Fake<'_> {
    Fake { reply, log: None, log_env: None, hang_after: None, delay: None }
}

/// Writes ROOT/NAME/{bin/op-bench, lib} and returns ROOT/NAME.
fn arm(root: &Path, name: &str, f: &Fake) -> PathBuf {
    let dir = root.join(name);
    std::fs::create_dir_all(dir.join("bin")).unwrap();
    std::fs::create_dir_all(dir.join("lib")).unwrap();
    let mut script = String::from("#!/bin/sh\nn=0\nwhile read -r line; do\n");
    script
        .push_str("  case \"$line\" in *'\"request\":\"quit\"'*) exit 0 ;; esac\n  n=$((n + 1))\n");
    if let Some(log) = f.log {
        let tag = f.log_env.map_or(name.to_string(), |var| format!("${{{var}:-unset}}"));
        script.push_str(&format!("  echo \"{tag} $$ $line\" >> '{}'\n", log.display()));
    }
    if let Some(n) = f.hang_after {
        // exec: the driver's kill reaches the sleep itself, which holds no pipe of the test.
        script.push_str(&format!("  [ $n -gt {n} ] && exec sleep 600\n"));
    }
    if let Some(seconds) = f.delay {
        script.push_str(&format!("  sleep {seconds}\n"));
    }
    script.push_str(&format!("  echo '{}'\ndone\n", f.reply));
    common::write_executable(&dir.join("bin/op-bench"), &script);
    dir
}

fn ops(a: &Path, b: &Path, extra: &[&str], json: &Path) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_mlx-ab"));
    c.arg("ops").arg("--a").arg(a).arg("--b").arg(b).args(extra).arg("--json").arg(json);
    c
}

/// One sdpa point (q=2048), `pairs` pairs: the exit, output and JSON report (if written).
fn run(a: &Fake, b: &Fake, pairs: &str) -> (Output, Option<Value>) {
    let d = tempfile::tempdir().unwrap();
    let json = d.path().join("r.json");
    let (a, b) = (arm(d.path(), "a", a), arm(d.path(), "b", b));
    let args = ["--sweep", "sdpa", "--only", "q=2048", "--pairs", pairs];
    let output = ops(&a, &b, &args, &json).output().unwrap();
    let report = std::fs::read(&json).ok().map(|t| serde_json::from_slice(&t).unwrap());
    (output, report)
}

#[test]
fn equal_digests_pass_and_the_report_has_op_ab_py_s_fields() {
    let (out, report) =
        run(&fake(&timed(2.0e-3, 100, SAME)), &fake(&timed(1.0e-3, 300, SAME)), "6");
    assert_eq!(out.status.code(), Some(0), "{}", common::describe(&out));
    let report = report.unwrap();
    let r = &report["results"][0];
    // The fields op_ab.py wrote, which the book, op-plots and `mlx-ab roofline` read.
    for field in [
        "op",
        "dtype",
        "heads",
        "q_len",
        "kv_len",
        "args",
        "calls",
        "flops",
        "a_seconds",
        "b_seconds",
        "ratio",
        "ci",
        "b_faster",
        "a_faster",
        "p",
        "identical",
        "a_tflops",
        "b_tflops",
        "b_gbps",
        "a_peak_bytes",
        "b_peak_bytes",
        "times",
    ] {
        assert!(r.get(field).is_some(), "no {field} in {r}");
    }
    assert_eq!(r["args"], "sdpa float32 8 2048 2048");
    assert_eq!((r["ratio"].as_f64(), r["identical"].as_bool()), (Some(2.0), Some(true)));
    assert_eq!(r["ci"], serde_json::json!([2.0, 2.0]));
    // 6 pairs: the exact interval is the smallest and largest ratio, covering 1 - 2/64.
    assert_eq!(r["ci_exact"], serde_json::json!([2.0, 2.0]));
    assert_eq!(r["ci_exact_coverage"].as_f64(), Some(1.0 - 2.0 / 64.0));
    // Every pair B faster: exact two-sided sign test, 2 / 2^6.
    assert_eq!((r["b_faster"].as_u64(), r["a_faster"].as_u64()), (Some(6), Some(0)));
    assert!((r["p"].as_f64().unwrap() - 2.0 / 64.0).abs() < 1e-12, "{}", r["p"]);
    assert_eq!((r["a_peak_bytes"].as_u64(), r["b_peak_bytes"].as_u64()), (Some(100), Some(300)));
    assert_eq!(r["times"]["a"].as_array().unwrap().len(), 6);
    let flops = 4.0 * 8.0 * 2048.0 * 2048.0 * 128.0;
    assert!((r["a_tflops"].as_f64().unwrap() - flops / 2e-3 / 1e12).abs() < 1e-9);
    let meta = &report["meta"];
    assert_eq!((meta["points_planned"].as_u64(), meta["points_run"].as_u64()), (Some(1), Some(1)));
    assert_eq!(meta["tool"], "mlx-ab ops");
    assert_eq!(meta["bootstrap_resamples"], 10_000);
    assert!(meta.get("stopped_by").is_none());
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("| sdpa float32 H=8 q=2048 kv=2048 | 2.0000 | 1.0000 | 2.000 |"));
    // These workers send no host time (as older op-benches): none reported, a dash printed.
    assert!(r.get("a_host_seconds").is_none() && r.get("b_host_seconds").is_none(), "{r}");
    assert!(stdout.contains("| - / - | yes |"), "{stdout}");
}

#[test]
fn the_host_share_of_each_arm_is_its_replies_median() {
    let with_host = |seconds: f64, host: f64| {
        timed(seconds, 100, SAME).replace('}', &format!(r#","host_seconds_per_call":{host:e}}}"#))
    };
    let (out, report) =
        run(&fake(&with_host(2.0e-3, 1.9e-3)), &fake(&with_host(1.0e-3, 0.25e-3)), "3");
    assert_eq!(out.status.code(), Some(0), "{}", common::describe(&out));
    let r = &report.unwrap()["results"][0];
    assert_eq!(
        (r["a_host_seconds"].as_f64(), r["b_host_seconds"].as_f64()),
        (Some(1.9e-3), Some(0.25e-3))
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("| 1.9000 / 0.2500 | yes |"));
}

#[test]
fn one_differing_digest_fails_the_run() {
    let (out, report) =
        run(&fake(&timed(1.0e-3, 100, SAME)), &fake(&timed(1.0e-3, 100, "00000000deadbeee")), "2");
    assert_eq!(out.status.code(), Some(1), "{}", common::describe(&out));
    assert_eq!(report.unwrap()["results"][0]["identical"], false);
    assert!(String::from_utf8_lossy(&out.stdout).contains("**NO**"));
}

#[test]
fn a_worker_error_leaves_no_report() {
    let (out, report) =
        run(&fake(&timed(1.0e-3, 100, SAME)), &fake(&error("[sdpa] out of memory")), "2");
    assert_eq!(out.status.code(), Some(2), "{}", common::describe(&out));
    assert!(String::from_utf8_lossy(&out.stderr).contains("out of memory"));
    assert!(report.is_none());
}

#[test]
fn a_missing_op_bench_is_an_error() {
    let d = tempfile::tempdir().unwrap();
    let a = arm(d.path(), "a", &fake(&timed(1.0e-3, 100, SAME)));
    let out = ops(&a, &d.path().join("nothing"), &[], &d.path().join("r.json")).output().unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", common::describe(&out));
    assert!(String::from_utf8_lossy(&out.stderr).contains("op-bench is not an executable"));
}

/// Arms a and b under `root` whose workers reply `timed(1.0e-3, 100, SAME)` to every request
/// and log each one to the returned file.
fn logging_arms(root: &Path) -> (PathBuf, PathBuf, PathBuf) {
    let log = root.join("requests");
    let reply = timed(1.0e-3, 100, SAME);
    let f = Fake { log: Some(&log), ..fake(&reply) };
    let (a, b) = (arm(root, "a", &f), arm(root, "b", &f));
    (log, a, b)
}

/// The request log's lines as (arm, worker pid, request).
fn requests(log: &str) -> Vec<(&str, &str, &str)> {
    log.lines()
        .map(|l| {
            let mut words = l.splitn(3, ' ');
            (words.next().unwrap(), words.next().unwrap(), words.next().unwrap())
        })
        .collect()
}

#[test]
fn pairs_run_in_thue_morse_order_after_one_warm_up_each() {
    let d = tempfile::tempdir().unwrap();
    let (log, a, b) = logging_arms(d.path());
    let args = ["--sweep", "sdpa", "--only", "q=2048", "--pairs", "8", "--reps", "5"];
    let out = ops(&a, &b, &args, &d.path().join("r.json")).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", common::describe(&out));
    let lines: Vec<String> =
        std::fs::read_to_string(&log).unwrap().lines().map(String::from).collect();
    // Warm-ups (both arms at once, so in either order), one call per graph, one rep.
    let mut warm: Vec<&str> = lines[..2].iter().map(|l| &l[..1]).collect();
    warm.sort();
    assert_eq!(warm, ["a", "b"]);
    let request = r#"{"request":"time","op":{"op":"sdpa","dtype":"float32","heads":8,"q_len":2048,"kv_len":2048},"calls":1,"reps":"#;
    assert!(lines[..2].iter().all(|l| l.ends_with(&format!("{request}1}}"))), "{lines:?}");
    // Pair k runs B first when k has an odd number of set bits.
    let expected: String =
        (0..8u32).map(|k| if k.count_ones() % 2 == 1 { "ba" } else { "ab" }).collect();
    let order: String = lines[2..].iter().map(|l| &l[..1]).collect();
    assert_eq!(order, expected);
    assert!(lines[2..].iter().all(|l| l.ends_with(&format!("{request}5}}"))), "{lines:?}");
}

/// `--fresh-workers`: pair 0 runs in the first two workers, every later pair in two new ones,
/// each warmed up before it is timed, in the same Thue-Morse order; without it one worker per
/// arm takes every request.
#[test]
fn fresh_workers_time_each_pair_in_new_processes() {
    let request = r#"{"request":"time","op":{"op":"sdpa","dtype":"float32","heads":8,"q_len":2048,"kv_len":2048},"calls":1,"reps":"#;
    for (extra, processes) in [(None, 1), (Some("--fresh-workers"), 4)] {
        let d = tempfile::tempdir().unwrap();
        let (log, a, b) = logging_arms(d.path());
        let json = d.path().join("r.json");
        let mut args = vec!["--sweep", "sdpa", "--only", "q=2048", "--pairs", "4", "--reps", "5"];
        args.extend(extra);
        let out = ops(&a, &b, &args, &json).output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{}", common::describe(&out));
        let text = std::fs::read_to_string(&log).unwrap();
        // (arm, pid, reps) of each request.
        let requests: Vec<(&str, &str, &str)> = requests(&text)
            .into_iter()
            .map(|(arm, pid, r)| (arm, pid, r.strip_prefix(request).unwrap().trim_end_matches('}')))
            .collect();
        for name in ["a", "b"] {
            let mine: Vec<_> = requests.iter().filter(|r| r.0 == name).collect();
            let mut pids: Vec<&str> = mine.iter().map(|r| r.1).collect();
            pids.dedup();
            assert_eq!(pids.len(), processes, "{text}");
            // Each process: one warm-up (1 rep), then its timed requests (5 reps).
            for pid in pids {
                let reps: Vec<&str> = mine.iter().filter(|r| r.1 == pid).map(|r| r.2).collect();
                assert_eq!(reps[0], "1", "{text}");
                assert_eq!(reps.len(), 1 + 4 / processes, "{text}");
                assert!(reps[1..].iter().all(|&r| r == "5"), "{text}");
            }
        }
        let timed_order: String =
            requests.iter().filter(|r| r.2 == "5").map(|r| r.0).collect::<Vec<_>>().concat();
        assert_eq!(timed_order, "abbabaab");
        let report: Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
        assert_eq!(report["meta"]["fresh_workers"].as_bool(), extra.map(|_| true), "{report}");
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert_eq!(
            stdout.contains("pairs: 4 (each in worker processes of its own)"),
            extra.is_some()
        );
    }
}

/// `--dtypes`: each dtype's points ask op-bench for it, and a non-bf16 point's args, label and
/// `dtype` field name it (a bf16 point's stay as before dtypes); an unknown dtype is refused.
#[test]
fn dtypes_reach_the_requests_and_the_report() {
    let d = tempfile::tempdir().unwrap();
    let (log, a, b) = logging_arms(d.path());
    let json = d.path().join("r.json");
    let sweep = ["--sweep", "qmm", "--modes", "affine4", "--rows", "2", "--only", "up r="];
    let args = [&sweep[..], &["--gather-shape", "32:512:1024", "--pairs", "1"]].concat();
    let out = ops(&a, &b, &[&args[..], &["--dtypes", "bfloat16,float32"]].concat(), &json)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", common::describe(&out));
    let report: Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    let [bf16, f32] = &report["results"].as_array().unwrap()[..] else { panic!("{report}") };
    assert_eq!(bf16["args"], "qmm affine4 up 2 32 512 1024");
    assert!(bf16.get("dtype").is_none(), "{bf16}");
    assert_eq!(
        (&f32["args"], &f32["dtype"]),
        (&"qmm affine4 up 2 32 512 1024 float32".into(), &"float32".into())
    );
    // Per point and arm, a warm-up and one pair.
    let requests = std::fs::read_to_string(&log).unwrap();
    assert_eq!(requests.matches(r#""dtype":"bfloat16""#).count(), 4, "{requests}");
    assert_eq!(requests.matches(r#""dtype":"float32""#).count(), 4, "{requests}");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("| qmm affine4 up r=2 E=32 H=512 W=1024 float32 |"), "{stdout}");
    let out = ops(&a, &b, &[&args[..], &["--dtypes", "float64"]].concat(), &json).output().unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", common::describe(&out));
    assert!(String::from_utf8_lossy(&out.stderr).contains("float64"));
}

/// `--rows-per-graph`: a gather point's requests ask for as many calls as make that many rows
/// per expert (one at least), the report's meta and its Markdown say so, and 0 is refused.
#[test]
fn rows_per_graph_reaches_the_requests_and_the_report() {
    let d = tempfile::tempdir().unwrap();
    let json = d.path().join("r.json");
    let sweep = ["--sweep", "gather_qmm", "--modes", "affine4", "--only", "up r="];
    let args = [&sweep[..], &["--gather-shape", "32:512:1024", "--rows", "4,256", "--pairs", "1"]]
        .concat();
    for (rows_per_graph, calls) in [(None, [8, 1]), (Some("1024"), [256, 4])] {
        let (log, a, b) = logging_arms(&d.path().join(rows_per_graph.unwrap_or("default")));
        let extra: Vec<&str> =
            rows_per_graph.map(|r| vec!["--rows-per-graph", r]).unwrap_or_default();
        let out = ops(&a, &b, &[&args[..], &extra[..]].concat(), &json).output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{}", common::describe(&out));
        let requests = std::fs::read_to_string(&log).unwrap();
        for (r, c) in [4, 256].into_iter().zip(calls) {
            // Per point and arm, a warm-up and one pair.
            let asked = format!(r#""rows_per_expert":{r},"#);
            let with_calls = format!(r#""calls":{c},"#);
            let lines: Vec<&str> = requests.lines().filter(|l| l.contains(&asked)).collect();
            assert_eq!(lines.len(), 4, "{requests}");
            assert!(lines.iter().all(|l| l.contains(&with_calls)), "{requests}");
        }
        let report: Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
        let expected = rows_per_graph.map_or(32, |r| r.parse().unwrap());
        assert_eq!(report["meta"]["rows_per_graph"].as_u64(), Some(expected), "{report}");
        let points: Vec<u64> = report["results"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p["calls"].as_u64().unwrap())
            .collect();
        assert_eq!(points, calls.map(|c| c as u64));
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert_eq!(
            stdout.contains("as many as make 1024 rows per expert"),
            rows_per_graph.is_some()
        );
    }
    let (_, a, b) = logging_arms(d.path());
    let out =
        ops(&a, &b, &[&args[..], &["--rows-per-graph", "0"]].concat(), &json).output().unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", common::describe(&out));
}

#[test]
fn a_spent_budget_leaves_the_later_points_out() {
    // Each point takes over a second (5 requests of 0.25 s, 4 of them in turn), so with a
    // one-second budget only the first starts.
    let reply = timed(1.0e-3, 100, SAME);
    let f = Fake { delay: Some("0.25"), ..fake(&reply) };
    let d = tempfile::tempdir().unwrap();
    let (a, b) = (arm(d.path(), "a", &f), arm(d.path(), "b", &f));
    let json = d.path().join("r.json");
    let args = ["--sweep", "softmax", "--pairs", "2", "--budget", "1"];
    let out = ops(&a, &b, &args, &json).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", common::describe(&out));
    let report: Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    assert_eq!(
        (report["meta"]["points_planned"].as_u64(), report["meta"]["points_run"].as_u64()),
        (Some(5), Some(1))
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("4 points left out"), "{stdout}");
    assert!(stdout.contains("points: 1 of 5."), "{stdout}");
}

#[test]
fn sigterm_reports_the_finished_points_and_exits_3() {
    let d = tempfile::tempdir().unwrap();
    let reply = timed(1.0e-3, 100, SAME);
    // Each arm answers the first point's requests (warm-up + 2 pairs), then hangs.
    let f = Fake { hang_after: Some(3), ..fake(&reply) };
    let (a, b) = (arm(d.path(), "a", &f), arm(d.path(), "b", &f));
    let json = d.path().join("r.json");
    let args = ["--sweep", "sdpa", "--only", "float32 H=8", "--pairs", "2"];
    let mut child = ops(&a, &b, &args, &json).stdout(Stdio::piped()).spawn().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut first = String::new();
    stdout.read_line(&mut first).unwrap();
    // The first point's line: the second point is now hanging.
    assert!(first.contains("q=2048"), "{first}");
    let kill = Command::new("kill").args(["-TERM", &child.id().to_string()]).status().unwrap();
    assert!(kill.success());
    let mut rest = String::new();
    stdout.read_to_string(&mut rest).unwrap();
    assert_eq!(child.wait().unwrap().code(), Some(3), "{rest}");
    let report: Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    assert_eq!(report["meta"]["stopped_by"], "SIGTERM");
    assert_eq!(report["results"].as_array().unwrap().len(), 1);
    assert!(rest.contains("points: 1 of 4 (stopped by SIGTERM)"), "{rest}");
}

/// `--precompile 2`: before the timed workers' first request, two more workers per arm send
/// every point's warm-up (1 rep) exactly once between them; the timed run then goes on as
/// without it. A warm-up that fails there is named and the timed run fails on it as before.
#[test]
fn precompile_sends_each_warm_up_once_per_arm_before_the_timed_run() {
    let d = tempfile::tempdir().unwrap();
    let (log, a, b) = logging_arms(d.path());
    let args = ["--sweep", "sdpa", "--pairs", "2", "--reps", "5", "--precompile", "2"];
    let out = ops(&a, &b, &args, &d.path().join("r.json")).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", common::describe(&out));
    let text = std::fs::read_to_string(&log).unwrap();
    // The timed workers are the ones asked for 5 reps.
    let lines = requests(&text);
    let timed_pids: Vec<&str> =
        lines.iter().filter(|l| l.2.ends_with(r#""reps":5}"#)).map(|l| l.1).collect();
    let first_timed = lines.iter().position(|l| timed_pids.contains(&l.1)).unwrap();
    assert!(lines[first_timed..].iter().all(|l| timed_pids.contains(&l.1)), "{text}");
    let points =
        lines[first_timed..].iter().filter(|l| l.0 == "a" && l.2.ends_with(r#""reps":1}"#));
    let mut warmups: Vec<&str> = points.map(|l| l.2).collect();
    assert!(warmups.len() > 1, "{text}");
    warmups.sort();
    for arm in ["a", "b"] {
        let early: Vec<_> = lines[..first_timed].iter().filter(|l| l.0 == arm).collect();
        let mut pids: Vec<&str> = early.iter().map(|l| l.1).collect();
        pids.sort();
        pids.dedup();
        assert!(!pids.is_empty() && pids.len() <= 2, "{text}");
        let mut sent: Vec<&str> = early.iter().map(|l| l.2).collect();
        sent.sort();
        assert_eq!(sent, warmups, "arm {arm}: {text}");
    }
    assert!(String::from_utf8_lossy(&out.stdout).contains("warm-ups sent to 2 workers per arm"));

    let (out, report) = {
        let d = tempfile::tempdir().unwrap();
        let json = d.path().join("r.json");
        let a = arm(d.path(), "a", &fake(&timed(1.0e-3, 100, SAME)));
        let b = arm(d.path(), "b", &fake(&error("[sdpa] out of memory")));
        let args = ["--sweep", "sdpa", "--only", "q=2048", "--pairs", "2", "--precompile", "2"];
        let out = ops(&a, &b, &args, &json).output().unwrap();
        (out, std::fs::read(&json).ok())
    };
    assert_eq!(out.status.code(), Some(2), "{}", common::describe(&out));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("precompile: sdpa float32 H=8 q=2048 kv=2048: worker b-precompile"),
        "{stderr}"
    );
    assert!(stderr.contains("out of memory"), "{stderr}");
    assert!(report.is_none());
}

/// `--a-env` / `--b-env`: one build as both arms, a variable set for arm B's workers alone (the
/// precompile workers' too), named in both reports; a malformed assignment is refused.
#[test]
fn an_arm_s_environment_reaches_its_workers_alone_and_the_report() {
    let d = tempfile::tempdir().unwrap();
    let log = d.path().join("requests");
    let reply = timed(1.0e-3, 100, SAME);
    let same = arm(
        d.path(),
        "same",
        &Fake { log: Some(&log), log_env: Some("ARM_SWITCH"), ..fake(&reply) },
    );
    let json = d.path().join("r.json");
    let args = ["--sweep", "sdpa", "--only", "q=2048", "--pairs", "2", "--precompile", "1"];
    let out = ops(&same, &same, &args, &json).args(["--b-env", "ARM_SWITCH=on"]).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", common::describe(&out));
    let text = std::fs::read_to_string(&log).unwrap();
    let lines = requests(&text);
    let count = |tag: &str| lines.iter().filter(|l| l.0 == tag).count();
    // Per arm: a precompile warm-up, the timed worker's warm-up, two timed requests.
    assert_eq!((count("unset"), count("on")), (4, 4), "{text}");
    let report: Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    assert_eq!(report["meta"]["b_env"], serde_json::json!(["ARM_SWITCH=on"]));
    assert!(report["meta"].get("a_env").is_none(), "{report}");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("/same`  B: `"), "{stdout}");
    assert!(stdout.contains("/same` with `ARM_SWITCH=on`  pairs"), "{stdout}");

    let out = ops(&same, &same, &args, &json).args(["--a-env", "=on"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", common::describe(&out));
    assert!(String::from_utf8_lossy(&out.stderr).contains("expected KEY=VALUE"));
}
