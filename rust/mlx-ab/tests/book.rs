//! `mlx-ab book` on a made-up repository (patches, manifests, raw files): rows grouped by the
//! series they ran, the per-patch verdicts, `--check`'s failure path; and the committed
//! `reports/series.json` against git history.

mod common;

use serde_json::{json, Value};
use std::fs;
use std::path::Path;
use std::process::{Command, Output};

const COMMIT_OLD: &str = "1111111111111111111111111111111111111111";
const COMMIT_NOW: &str = "2222222222222222222222222222222222222222";

/// The real series' file names (the book reads the list through mlx-build), with made-up bytes.
fn series_names() -> Vec<String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../patches/series");
    mlx_build::series::file_names(&fs::read_to_string(root).unwrap()).map(String::from).collect()
}

fn id(name: &str) -> &str {
    name.trim_end_matches(".patch").split_once('-').unwrap().1
}

fn sha256(bytes: &[u8]) -> String {
    use sha2::Digest;
    sha2::Sha256::digest(bytes).iter().map(|b| format!("{b:02x}")).collect()
}

/// A patch file whose message says `message` and whose diff adds the line `code`.
fn patch_text(name: &str, message: &str, code: &str) -> String {
    format!(
        "From 0 Mon Sep 17 00:00:00 2001\nSubject: [PATCH] change of {name}\n ({message})\n\nbody\n\
         diff --git a/f b/f\n--- a/f\n+++ b/f\n@@ -0,0 +1 @@\n+{code}\n"
    )
}

/// A series.json entry for a patch file's text.
fn entry(name: &str, text: &str) -> Value {
    json!({"name": name, "sha256": sha256(text.as_bytes()),
           "diff": mlx_build::digest::patch(text.as_bytes())})
}

fn ratio(median: f64, low: f64, high: f64) -> Value {
    json!({"samples": vec![median; 6], "median": median, "ci95": [low, high],
           "sign_test": {"greater": 6, "less": 0, "ties": 0, "p_value": 0.03125}})
}

fn e2e(date: &str, b: &[&str], prefill: Value, verdict: &str) -> Value {
    json!({
        "pairs": 6, "verdict": verdict,
        "arms": {"A": {"device": "gpu", "mlx": {"patches": []}},
                 "B": {"device": "gpu", "mlx": {"patches": b}}},
        "ratio": {"prefill_tps": prefill, "decode_tps": ratio(1.0, 0.9, 1.1),
                  "peak_memory_bytes": ratio(1.0, 1.0, 1.0)},
        "workload": {"preset": "bench", "prompt_len": 1024, "gen_len": 32, "prefill_chunk": 512},
        "provenance": {"date": date},
    })
}

fn write(path: &Path, text: &str) {
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, text).unwrap();
}

fn write_json(path: &Path, value: &Value) {
    write(path, &serde_json::to_string_pretty(value).unwrap());
}

/// Reads the JSON file at `path`, lets `edit` change it and writes it back.
fn edit_json(path: &Path, edit: impl FnOnce(&mut Value)) {
    let mut value: Value = serde_json::from_str(&fs::read_to_string(path).unwrap()).unwrap();
    edit(&mut value);
    write_json(path, &value);
}

/// A repository whose patches are version "now"; two runs: one on an old series (every patch
/// at version "old"), one on the current one; an op sweep that measures the first patch.
fn fixture(root: &Path) {
    let names = series_names();
    let mut series_old = Vec::new();
    let mut series_now = Vec::new();
    for name in &names {
        let now = patch_text(name, "now", "now");
        write(&root.join("patches").join(name), &now);
        series_now.push(entry(name, &now));
        series_old.push(entry(name, &patch_text(name, "old", "old")));
    }
    let mut phases = serde_json::Map::new();
    for name in &names {
        phases.insert(id(name).into(), json!("prefill"));
    }
    write_json(
        &root.join("reports/series.json"),
        &json!({"series": {
            COMMIT_OLD: {"date": "2026-11-01T00:00:00Z", "patches": series_old},
            COMMIT_NOW: {"date": "2026-12-05T00:00:00Z", "patches": series_now},
        }, "end_to_end_phase": phases}),
    );
    let first = id(&names[0]).to_string();
    let all: Vec<&str> = names.iter().map(|n| id(n)).collect();
    let e2e_dir = root.join("reports/h200/e2e");
    write_json(
        &e2e_dir.join("old.json"),
        &e2e("2026-11-02T10:00:00Z", &all, ratio(3.5, 3.1, 3.9), "identical"),
    );
    write_json(
        &e2e_dir.join("new.json"),
        &e2e("2026-12-06T10:00:00Z", &[&first], ratio(1.5, 1.2, 1.8), "identical"),
    );
    write_json(
        &e2e_dir.join("RUNS.json"),
        &json!({"runs": {"old.json": {"commit": COMMIT_OLD, "machine": "H200"},
                         "new.json": {"commit": COMMIT_NOW, "machine": "H200"}}}),
    );
    write_json(&root.join("reports/h200/RUNS.json"), &json!({"runs": {}}));
    write_json(&root.join("reports/cpu/e2e/RUNS.json"), &json!({"runs": {}}));
    let point = json!({"op": "softmax", "args": "softmax float32 8 512 2048", "a_seconds": 0.002,
        "b_seconds": 0.001, "ratio": 2.0, "ci": [1.8, 2.2], "b_faster": 6, "a_faster": 0, "p": 0.03125,
        "identical": true, "times": {"a": vec![0.002; 6], "b": vec![0.001; 6]}});
    write_json(
        &root.join("reports/cpu/ops/sweep.json"),
        &json!({"meta": {"date": "2026-11-03 10:00:00 UTC"}, "results": [point]}),
    );
    write_json(
        &root.join("reports/cpu/ops/RUNS.json"),
        &json!({"runs": {"sweep.json": {"commit": COMMIT_OLD, "machine": "CPU VM", "b": first, "measures": first}}}),
    );
    write_json(&root.join("reports/h200/ops/RUNS.json"), &json!({"runs": {}}));
    write(&root.join("README.md"), README_WITH_MARKERS);
}

const README_WITH_MARKERS: &str = "# Project\n\nIn brief:\n\n<!-- mlx-ab book: summary start -->\n\
     stale text\n<!-- mlx-ab book: summary end -->\n\nMore text.\n";

fn book(root: &Path, check: bool) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_mlx-ab"));
    cmd.args(["book", "--root"]).arg(root);
    if check {
        cmd.arg("--check");
    }
    cmd.output().unwrap()
}

fn section<'a>(md: &'a str, start: &str, end: &str) -> &'a str {
    let from = md.find(start).unwrap_or_else(|| panic!("no {start:?} in\n{md}"));
    let rest = &md[from..];
    &rest[..rest[1..].find(end).map_or(rest.len(), |i| i + 1)]
}

#[test]
fn rows_are_grouped_by_the_series_they_ran_and_patches_get_verdicts() {
    let dir = tempfile::tempdir().unwrap();
    fixture(dir.path());
    let out = book(dir.path(), false);
    assert!(out.status.success(), "{}", common::describe(&out));
    let md = fs::read_to_string(dir.path().join("BENCHMARKS.md")).unwrap();
    assert!(md.contains("1 of the 3 raw files below ran the current series"), "{md}");
    let e2e = section(&md, "## End to end", "\n## ");
    let groups: Vec<&str> = e2e.split("\n### ").skip(1).collect();
    assert_eq!(groups.len(), 2, "{e2e}");
    assert!(groups[0].contains("(current series)") && groups[0].contains("new.json"), "{e2e}");
    assert!(!groups[0].contains("old.json"), "an older row among current ones:\n{e2e}");
    assert!(groups[1].contains("(archive)") && groups[1].contains("old.json"), "{e2e}");
    assert!(groups[1].contains("commit 1111111 (2026-11-01)"), "{e2e}");
    let names = series_names();
    let per_patch = section(&md, "## Per patch", "\n## ");
    let first_row =
        per_patch.lines().find(|l| l.starts_with(&format!("| `{}`", names[0]))).unwrap();
    assert!(first_row.contains(&format!("change of {} (now)", names[0])), "{first_row}");
    assert!(first_row.contains("**1.500 [1.200, 1.800]** (6/0) prefill"), "{first_row}");
    assert!(first_row.contains("**2.000 [1.800, 2.200]**"), "{first_row}");
    assert!(
        first_row.contains("patch file changed since"),
        "the op sweep ran old bytes: {first_row}"
    );
    // The op sweep ran the patch's older code, and no newer row stands beside it.
    assert!(first_row.contains("**older code**: **2.000"), "{first_row}");
    assert!(first_row.ends_with("| faster (CPU VM op level: older code, H200) |"), "{first_row}");
    let second_row =
        per_patch.lines().find(|l| l.starts_with(&format!("| `{}`", names[1]))).unwrap();
    assert!(second_row.ends_with("| not measured |"), "{second_row}");
    assert!(second_row.contains("Metal (no Apple hardware)"), "{second_row}");
    assert!(md.contains("(non-square)"), "{md}");
    // The Plots section: one figure per machine folder, from the raw files alone.
    let plots = section(&md, "## Plots", "\n## ");
    let line = plots
        .lines()
        .find(|l| {
            l.starts_with("[`causal_attention-cpu.png`](reports/plots/causal_attention-cpu.png):")
        })
        .unwrap_or_else(|| panic!("{plots}"));
    assert!(line.contains("](reports/cpu/ops/sweep.json)"), "{line}");
    assert!(line.contains("1 of 1 points drawn, 1 of them non-square"), "{line}");
    assert!(!plots.contains("gather_qmm-"), "no gather_qmm points, no gather_qmm plot:\n{plots}");
    let book_check = book(dir.path(), true);
    assert!(book_check.status.success(), "{}", common::describe(&book_check));
}

/// A series that differs from today's in its messages only built today's code: its rows count
/// as current, and say so.
#[test]
fn a_series_with_todays_diffs_and_older_messages_counts_as_current_code() {
    let dir = tempfile::tempdir().unwrap();
    fixture(dir.path());
    let old: Vec<Value> =
        series_names().iter().map(|n| entry(n, &patch_text(n, "old", "now"))).collect();
    edit_json(&dir.path().join("reports/series.json"), |series| {
        series["series"][COMMIT_OLD]["patches"] = json!(old)
    });
    let out = book(dir.path(), false);
    assert!(out.status.success(), "{}", common::describe(&out));
    let md = fs::read_to_string(dir.path().join("BENCHMARKS.md")).unwrap();
    let e2e = section(&md, "## End to end", "\n## ");
    assert!(e2e.contains("(archive: the current series' diffs, older messages)"), "{e2e}");
    let names = series_names();
    let per_patch = section(&md, "## Per patch", "\n## ");
    let first_row =
        per_patch.lines().find(|l| l.starts_with(&format!("| `{}`", names[0]))).unwrap();
    assert!(first_row.contains("its diff as now, the message changed"), "{first_row}");
    // The whole-series row rests on the old commit's run alone, which built today's code.
    let whole = per_patch.lines().find(|l| l.starts_with("| all patches of a series")).unwrap();
    assert!(!whole.contains("older series only"), "{whole}");
    assert!(!whole.contains("a measurement of the current series"), "{whole}");
}

/// Where a machine has a row of the patch's current code, its older rows no longer stand for
/// the patch there (they stay in the tables below); a machine with older rows only says so.
#[test]
fn current_code_rows_replace_older_ones_per_machine() {
    let dir = tempfile::tempdir().unwrap();
    fixture(dir.path());
    let first = id(&series_names()[0]).to_string();
    let mut sweep: Value = serde_json::from_str(
        &fs::read_to_string(dir.path().join("reports/cpu/ops/sweep.json")).unwrap(),
    )
    .unwrap();
    sweep["meta"]["date"] = json!("2026-12-06 10:00:00 UTC");
    sweep["results"][0]["ratio"] = json!(1.3);
    sweep["results"][0]["ci"] = json!([1.1, 1.5]);
    write_json(&dir.path().join("reports/cpu/ops/sweep-now.json"), &sweep);
    edit_json(&dir.path().join("reports/cpu/ops/RUNS.json"), |runs| {
        runs["runs"]["sweep-now.json"] =
            json!({"commit": COMMIT_NOW, "machine": "CPU VM", "b": first, "measures": first});
    });
    let row = first_patch_row(dir.path());
    assert!(row.contains("**1.300 [1.100, 1.500]**"), "{row}");
    assert!(!row.contains("2.000") && !row.contains("older code"), "an older row stands: {row}");
    assert!(row.ends_with("| faster (CPU VM, H200) |"), "{row}");
    let md = fs::read_to_string(dir.path().join("BENCHMARKS.md")).unwrap();
    assert!(md.contains("2.000 [1.800, 2.200]"), "the older row left the tables: {md}");
}

/// README's summary block is generated from the same rows as the book's per-patch table, the
/// text around it kept; `--check` fails when the block differs, and a README without the block
/// is an error that names the markers.
#[test]
fn readme_summary_is_generated_and_checked() {
    let dir = tempfile::tempdir().unwrap();
    fixture(dir.path());
    let out = book(dir.path(), false);
    assert!(out.status.success(), "{}", common::describe(&out));
    let readme = fs::read_to_string(dir.path().join("README.md")).unwrap();
    assert!(readme.starts_with("# Project\n\nIn brief:\n\n<!-- mlx-ab book: summary start -->\n"));
    assert!(readme.ends_with("<!-- mlx-ab book: summary end -->\n\nMore text.\n"), "{readme}");
    assert!(!readme.contains("stale text"), "{readme}");
    let first = &series_names()[0];
    let row = readme.lines().find(|l| l.starts_with(&format!("| `{first}`"))).unwrap();
    assert!(row.contains("**2.000 [1.800, 2.200]**"), "the strongest figure: {row}");
    assert!(row.ends_with("| faster (CPU VM op level: older code, H200) |"), "{row}");
    assert!(readme.contains("| all patches of a series |"), "{readme}");
    assert!(book(dir.path(), true).status.success());

    fs::write(dir.path().join("README.md"), readme.replace("faster (", "slower (")).unwrap();
    let check = book(dir.path(), true);
    assert_eq!(check.status.code(), Some(1), "{}", common::describe(&check));
    assert!(String::from_utf8_lossy(&check.stderr).contains("README.md differs"));

    fs::write(dir.path().join("README.md"), "# Project without a summary block\n").unwrap();
    let out = book(dir.path(), false);
    assert!(!out.status.success(), "{}", common::describe(&out));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("<!-- mlx-ab book: summary start -->"),
        "{}",
        common::describe(&out)
    );
}

/// The book of `root`, written; its per-patch row of the series' first patch.
fn first_patch_row(root: &Path) -> String {
    let out = book(root, false);
    assert!(out.status.success(), "{}", common::describe(&out));
    let md = fs::read_to_string(root.join("BENCHMARKS.md")).unwrap();
    let first = &series_names()[0];
    let per_patch = section(&md, "## Per patch", "\n## ");
    per_patch.lines().find(|l| l.starts_with(&format!("| `{first}`"))).unwrap().to_string()
}

/// A loss at one point is shown beside the best gain, and named in the verdict.
#[test]
fn a_slower_row_shows_as_worst_and_in_the_verdict() {
    let dir = tempfile::tempdir().unwrap();
    fixture(dir.path());
    edit_json(&dir.path().join("reports/cpu/ops/sweep.json"), |sweep| {
        let mut slower = sweep["results"][0].clone();
        slower["args"] = json!("softmax float32 8 2048 2048");
        slower["ratio"] = json!(0.8);
        slower["ci"] = json!([0.7, 0.9]);
        sweep["results"].as_array_mut().unwrap().push(slower);
    });
    let row = first_patch_row(dir.path());
    assert!(row.contains("best: **older code**: **2.000 [1.800, 2.200]**"), "{row}");
    assert!(
        row.contains(
            "<br>worst: **older code**: 0.800 [0.700, 0.900] (6/0) `softmax float32 8 2048 2048`"
        ),
        "{row}"
    );
    assert!(
        row.ends_with(
            "| faster (CPU VM op level: older code, H200); **slower at some rows** (CPU VM op \
             level: older code) |"
        ),
        "{row}"
    );
}

/// A sweep whose points reach two patches' code: each point counts for its own patch only.
#[test]
fn points_measure_the_patch_their_prefix_names() {
    let dir = tempfile::tempdir().unwrap();
    fixture(dir.path());
    let names = series_names();
    let second = id(&names[1]).to_string();
    edit_json(&dir.path().join("reports/cpu/ops/sweep.json"), |sweep| {
        let mut slower = sweep["results"][0].clone();
        slower["args"] = json!("softmax float16 8 512 2048");
        slower["ratio"] = json!(0.8);
        slower["ci"] = json!([0.7, 0.9]);
        sweep["results"].as_array_mut().unwrap().push(slower);
    });
    edit_json(&dir.path().join("reports/cpu/ops/RUNS.json"), |runs| {
        runs["runs"]["sweep.json"]["b"] = json!("all");
        runs["runs"]["sweep.json"]["measures_by_prefix"] = json!({"softmax float16": second});
    });
    let row = first_patch_row(dir.path());
    assert!(row.contains("**2.000 [1.800, 2.200]**"), "{row}");
    assert!(!row.contains("float16") && !row.contains("slower"), "another patch's point: {row}");
    let md = fs::read_to_string(dir.path().join("BENCHMARKS.md")).unwrap();
    let per_patch = section(&md, "## Per patch", "\n## ");
    let second_row =
        per_patch.lines().find(|l| l.starts_with(&format!("| `{}`", names[1]))).unwrap();
    assert!(
        second_row.contains("0.800 [0.700, 0.900] (6/0) `softmax float16 8 512 2048`"),
        "{second_row}"
    );
    assert!(
        second_row.contains("**slower at some rows** (CPU VM op level: older code)"),
        "{second_row}"
    );
    let all = format!("all {} patches", names.len());
    assert!(md.contains(&format!("{all} ({second}) | `softmax float16")), "{md}");
    // A null prefix makes its points controls: no patch's evidence.
    edit_json(&dir.path().join("reports/cpu/ops/RUNS.json"), |runs| {
        runs["runs"]["sweep.json"]["measures_by_prefix"] = json!({"softmax float16": null});
    });
    let row = first_patch_row(dir.path());
    let md = fs::read_to_string(dir.path().join("BENCHMARKS.md")).unwrap();
    assert!(!row.contains("float16"), "{row}");
    assert!(md.contains(&format!("{all} (none: a control) | `softmax float16")), "{md}");
}

#[test]
fn outputs_that_differ_decide_the_verdict() {
    let dir = tempfile::tempdir().unwrap();
    fixture(dir.path());
    edit_json(&dir.path().join("reports/h200/e2e/new.json"), |run| {
        run["verdict"] = json!("different")
    });
    let row = first_patch_row(dir.path());
    assert!(row.ends_with("| **outputs differ** |"), "{row}");
}

#[test]
fn check_fails_naming_the_line_that_differs() {
    let dir = tempfile::tempdir().unwrap();
    fixture(dir.path());
    assert!(book(dir.path(), false).status.success());
    // A patch edited after the book was written: the current series, and the book, change.
    let name = &series_names()[2];
    write(&dir.path().join("patches").join(name), &patch_text(name, "edited", "edited"));
    let out = book(dir.path(), true);
    assert_eq!(out.status.code(), Some(1), "{}", common::describe(&out));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("BENCHMARKS.md differs from what reports/ gives"), "{stderr}");
    assert!(
        stderr.contains("first at line") && stderr.contains("committed: \"## The current series"),
        "{stderr}"
    );
    assert!(stderr.contains("cargo run -p mlx-ab -- book"), "{stderr}");
    // --check writes nothing; the book written again passes.
    assert_eq!(book(dir.path(), true).status.code(), Some(1));
    assert!(book(dir.path(), false).status.success());
    assert!(book(dir.path(), true).status.success());
}

#[test]
fn a_raw_file_without_a_manifest_entry_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    fixture(dir.path());
    let e2e = dir.path().join("reports/h200/e2e");
    fs::copy(e2e.join("new.json"), e2e.join("stray.json")).unwrap();
    let out = book(dir.path(), true);
    assert_eq!(out.status.code(), Some(2), "{}", common::describe(&out));
    assert!(String::from_utf8_lossy(&out.stderr)
        .contains("stray.json is not in reports/h200/e2e/RUNS.json"));
    // A manifest entry whose commit has no recorded series.
    fs::remove_file(e2e.join("stray.json")).unwrap();
    let manifest = e2e.join("RUNS.json");
    let text = fs::read_to_string(&manifest).unwrap().replace(COMMIT_NOW, &"3".repeat(40));
    write(&manifest, &text);
    let out = book(dir.path(), true);
    assert_eq!(out.status.code(), Some(2), "{}", common::describe(&out));
    assert!(String::from_utf8_lossy(&out.stderr).contains("has no series in reports/series.json"));
}

/// A run whose arm had a variable of its own (`mlx-ab run --b-env`) timed a run-time switch, not
/// its series: the book refuses it rather than show it as the series' figure.
#[test]
fn a_run_with_an_arm_variable_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    fixture(dir.path());
    edit_json(&dir.path().join("reports/h200/e2e/new.json"), |run| {
        run["arms"]["B"]["spec"] = json!({"patches": [], "env": ["MLX_QMM_SM90=off"]});
    });
    let out = book(dir.path(), true);
    assert_eq!(out.status.code(), Some(2), "{}", common::describe(&out));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("new.json: arm B ran with MLX_QMM_SM90=off set for it alone"), "{err}");
}

/// An op sweep with other rows to a graph than the default is refused, and the default passes:
/// its points' keys leave the calls out, so they would pass for the default's.
#[test]
fn an_op_sweep_with_other_rows_to_a_graph_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    fixture(dir.path());
    let sweep = dir.path().join("reports/cpu/ops/sweep.json");
    edit_json(&sweep, |run| run["meta"]["rows_per_graph"] = json!(32));
    assert_eq!(book(dir.path(), false).status.code(), Some(0));
    edit_json(&sweep, |run| run["meta"]["rows_per_graph"] = json!(1024));
    let out = book(dir.path(), false);
    assert_eq!(out.status.code(), Some(2), "{}", common::describe(&out));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("sweep.json: 1024 rows per expert to a graph"), "{err}");
}

/// Every series recorded in `reports/series.json` is what git history holds at that commit.
#[test]
fn recorded_series_match_git_history() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let recorded: Value =
        serde_json::from_str(&fs::read_to_string(root.join("reports/series.json")).unwrap())
            .unwrap();
    let git = |args: &[&str]| Command::new("git").args(args).current_dir(&root).output();
    for (commit, series) in recorded["series"].as_object().unwrap() {
        let Ok(out) = git(&["show", &format!("{commit}:patches/series")]) else {
            eprintln!("no git here: series.json not checked");
            return;
        };
        if !out.status.success() {
            // A shallow clone lacks old commits; say so rather than pass quietly on a wrong entry.
            eprintln!("commit {commit} is not in this clone's history: not checked");
            continue;
        }
        let text = String::from_utf8(out.stdout).unwrap();
        let names: Vec<&str> = mlx_build::series::file_names(&text).collect();
        let patches = series["patches"].as_array().unwrap();
        let recorded_names: Vec<&str> =
            patches.iter().map(|p| p["name"].as_str().unwrap()).collect();
        assert_eq!(recorded_names, names, "commit {commit}");
        for p in patches {
            let name = p["name"].as_str().unwrap();
            let bytes = git(&["show", &format!("{commit}:patches/{name}")]).unwrap();
            assert!(bytes.status.success());
            assert_eq!(p["sha256"].as_str().unwrap(), sha256(&bytes.stdout), "{commit}:{name}");
            let diff = mlx_build::digest::patch(&bytes.stdout);
            assert_eq!(p["diff"].as_str().unwrap(), diff, "{commit}:{name} (diff)");
        }
    }
}

/// `book --record-series` adds the commit's series as git holds it (by the same digests the
/// history test above checks) and refuses a commit git does not know.
#[test]
fn record_series_adds_what_git_holds_at_the_commit() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let git = |args: &[&str]| {
        let out = Command::new("git")
            .args(["-c", "user.name=t", "-c", "user.email=t@t"])
            .args(args)
            .current_dir(root)
            .output()
            .unwrap();
        assert!(out.status.success(), "git {args:?}: {}", common::describe(&out));
        String::from_utf8(out.stdout).unwrap()
    };
    let text = patch_text("a", "first", "x");
    write(&root.join("patches/series"), "0001-a.patch\n");
    write(&root.join("patches/0001-a.patch"), &text);
    write(
        &root.join("reports/series.json"),
        r#"{"about": "", "series": {}, "end_to_end_phase": {}}"#,
    );
    git(&["init", "-q"]);
    git(&["add", "patches"]);
    git(&["commit", "-qm", "one"]);
    let record = |commit: &str| {
        Command::new(env!("CARGO_BIN_EXE_mlx-ab"))
            .args(["book", "--root"])
            .arg(root)
            .args(["--record-series", commit])
            .output()
            .unwrap()
    };
    let out = record("HEAD");
    assert!(out.status.success(), "{}", common::describe(&out));
    let head = git(&["rev-parse", "HEAD"]).trim().to_string();
    let file: Value =
        serde_json::from_str(&fs::read_to_string(root.join("reports/series.json")).unwrap())
            .unwrap();
    let recorded = &file["series"][&head];
    assert_eq!(recorded["patches"], json!([entry("0001-a.patch", &text)]), "{file}");
    let date = recorded["date"].as_str().unwrap();
    assert!(date.len() == 20 && date.ends_with('Z'), "{date}");
    let out = record("0123456789abcdef0123456789abcdef01234567");
    assert!(!out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("git rev-parse"),
        "{}",
        common::describe(&out)
    );
}

/// A patch in an older series but not in today's: the book names it under the per-patch table
/// and README's summary, and an op sweep of that series may still say it measured that patch.
#[test]
fn a_patch_that_left_the_series_is_named_and_its_sweeps_still_read() {
    let dir = tempfile::tempdir().unwrap();
    fixture(dir.path());
    let gone = patch_text("0009-gone.patch", "old", "old");
    edit_json(&dir.path().join("reports/series.json"), |series| {
        let patches = series["series"][COMMIT_OLD]["patches"].as_array_mut().unwrap();
        patches.push(entry("0009-gone.patch", &gone));
    });
    edit_json(&dir.path().join("reports/cpu/ops/RUNS.json"), |runs| {
        runs["runs"]["sweep.json"]["b"] = json!("all");
        runs["runs"]["sweep.json"]["measures"] = json!("gone");
    });
    let out = book(dir.path(), false);
    assert!(out.status.success(), "{}", common::describe(&out));
    let md = fs::read_to_string(dir.path().join("BENCHMARKS.md")).unwrap();
    let per_patch = section(&md, "## Per patch", "\n## ");
    assert!(
        per_patch.contains("No longer in the series: `0009-gone.patch` (last run in 2026-11-01"),
        "{per_patch}"
    );
    let readme = fs::read_to_string(dir.path().join("README.md")).unwrap();
    assert!(readme.contains("No longer in the series: `0009-gone.patch`"), "{readme}");
    // A patch in no series at all is still an error.
    edit_json(&dir.path().join("reports/cpu/ops/RUNS.json"), |runs| {
        runs["runs"]["sweep.json"]["measures"] = json!("never-was");
    });
    let out = book(dir.path(), false);
    assert!(!out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("`never-was`"),
        "{}",
        common::describe(&out)
    );
}
