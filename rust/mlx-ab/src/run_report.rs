//! The report of `mlx-ab run`: what it warns about before running, the report assembled from a
//! finished run's tally (verdict, divergences, ratios, every sample), and its files, written all
//! or none. `run` is the pipeline that feeds it.

use crate::arm::ArmSpec;
use crate::compare;
use crate::markdown;
use crate::prebuilt::ArmBinary;
use crate::provenance::Provenance;
use crate::report::{
    ArmReport, Arms, Bootstrap, PairDivergence, PairReport, Ratios, Report, Samples, Verdict,
};
use crate::schedule;
use crate::stats::{summarize_ratios, BOOTSTRAP_ITERATIONS};
use crate::tally::{ArmTally, Tally};
use crate::worker_process::Ready;
use crate::workload::Workload;
use mlx_ab_protocol::protocol;
use std::path::Path;

/// Warnings known before anything runs: paths the workload leaves unexercised, too few pairs.
pub fn workload_warnings(workload: &Workload, pairs: usize) -> Vec<String> {
    let mut warnings = workload.coverage_gaps();
    if pairs < 6 {
        warnings
            .push(format!("{pairs} pairs: the sign test cannot reach p < 0.05 with fewer than 6"));
    }
    warnings
}

/// A report path that cannot be written is refused at the start, not after the run.
pub fn check_writable(path: &Path) -> Result<(), String> {
    let refuse = |why: String| Err(format!("cannot write the report {}: {why}", path.display()));
    if path.is_dir() {
        return refuse("it is a directory".into());
    }
    let dir = path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let probe = dir.join(format!(".mlx-ab-probe-{}", std::process::id()));
    match std::fs::write(&probe, b"") {
        Ok(()) => {
            let _ = std::fs::remove_file(&probe);
            Ok(())
        }
        Err(e) => refuse(e.to_string()),
    }
}

/// Writes the report as JSON and as Markdown (either path may be absent), all or none; returns
/// the Markdown, which `run` also prints.
pub fn write(
    report: &Report,
    json_path: Option<&Path>,
    md_path: Option<&Path>,
) -> Result<String, String> {
    let markdown = markdown::render(report);
    write_json_and_markdown(report, json_path, md_path, &markdown)?;
    Ok(markdown)
}

/// Writes `report` as JSON and `markdown` where a path is given (either may be absent), all
/// or none: the report of every mlx-ab command.
pub(crate) fn write_json_and_markdown(
    report: &impl serde::Serialize,
    json_path: Option<&Path>,
    md_path: Option<&Path>,
    markdown: &str,
) -> Result<(), String> {
    let json = serde_json::to_string_pretty(report).map_err(|e| e.to_string())? + "\n";
    let reports: Vec<(&Path, &[u8])> =
        [(json_path, json.as_bytes()), (md_path, markdown.as_bytes())]
            .into_iter()
            .filter_map(|(path, text)| path.map(|p| (p, text)))
            .collect();
    write_all_or_none(&reports)
}

/// Writes every file or none: each to a temporary sibling, renamed once all are written.
fn write_all_or_none(files: &[(&Path, &[u8])]) -> Result<(), String> {
    let temp = |path: &Path| {
        let name = path.file_name().unwrap_or_default().to_string_lossy();
        path.with_file_name(format!(".{name}.mlx-ab-{}.tmp", std::process::id()))
    };
    let written = files.iter().try_for_each(|(path, bytes)| {
        std::fs::write(temp(path), bytes).map_err(|e| format!("writing {}: {e}", path.display()))
    });
    let published = written.and_then(|()| {
        files.iter().try_for_each(|(path, _)| {
            std::fs::rename(temp(path), path)
                .map_err(|e| format!("writing {}: {e}", path.display()))
        })
    });
    for (path, _) in files {
        let _ = std::fs::remove_file(temp(path));
    }
    published
}

/// What `summarize` needs of the command line.
pub struct Settings {
    pub pairs: usize,
    pub warmup: usize,
    pub bootstrap_seed: u64,
}

/// One arm as it ran: what was asked, which worker, what it reported.
pub struct ArmRun {
    pub spec: ArmSpec,
    pub binary: ArmBinary,
    pub ready: Ready,
}

/// The report of a finished run: the verdict from the pairs and each arm against itself, the
/// divergences, B/A ratios with their bootstrap intervals, and every arm's samples.
pub fn summarize(
    settings: &Settings,
    tally: Tally,
    workload: Workload,
    arms: [ArmRun; 2],
    warnings: Vec<String>,
    provenance: Provenance,
) -> Result<Report, String> {
    let comparisons: Vec<_> = tally
        .comparisons
        .into_iter()
        .enumerate()
        .map(|(pair, c)| c.ok_or_else(|| format!("pair {pair} did not complete")))
        .collect::<Result<_, _>>()?;
    let token_identical = comparisons.iter().all(|c| c.tokens_equal);
    let logits_bitwise_identical = comparisons.iter().all(|c| c.logits_bitwise_equal);
    let nondeterministic_arms: Vec<String> = [("A", &tally.a), ("B", &tally.b)]
        .into_iter()
        .filter(|(_, t)| t.first_nondeterministic_run.is_some())
        .map(|(name, _)| name.to_string())
        .collect();
    let arms_deterministic = nondeterministic_arms.is_empty();
    let verdict = Verdict::of(token_identical && logits_bitwise_identical, arms_deterministic);
    let ab_divergence = compare::summarize(&comparisons);
    let noise: Vec<_> = [&tally.a, &tally.b]
        .into_iter()
        .filter(|t| t.first_nondeterministic_run.is_some())
        .map(|t| compare::summarize(&t.self_comparisons))
        .collect();
    let ab_against_noise = (verdict == Verdict::Nondeterministic)
        .then(|| compare::against_noise(&ab_divergence, &noise.iter().collect::<Vec<_>>()));
    let first_divergence = comparisons.iter().enumerate().find_map(|(pair, c)| {
        c.first_divergence.clone().map(|at| PairDivergence {
            pair,
            at,
            kl_mean: c.kl_mean,
            top1_agreement: c.top1_agreement,
        })
    });
    let metric = |t: &ArmTally, f: fn(&protocol::RunResult) -> f64| -> Vec<f64> {
        t.measured.iter().flatten().map(f).collect()
    };
    let ratios = |f: fn(&protocol::RunResult) -> f64, seed: u64| {
        let (a, b) = (metric(&tally.a, f), metric(&tally.b, f));
        summarize_ratios(a.iter().zip(&b).map(|(x, y)| y / x).collect(), seed)
    };
    let seed = settings.bootstrap_seed;
    let ratio = Ratios {
        prefill_tps: ratios(|r| r.prefill_tps, seed),
        decode_tps: ratios(|r| r.decode_tps, seed.wrapping_add(1)),
        peak_memory_bytes: ratios(|r| r.peak_memory_bytes as f64, seed.wrapping_add(2)),
    };
    let arm_report = |run: ArmRun, t: &ArmTally| ArmReport {
        label: run.spec.label(),
        spec: run.spec,
        mlx: run.ready.info,
        device: run.ready.device,
        worker: run.binary.binary.display().to_string(),
        prebuilt: run.binary.prebuilt.is_some(),
        build_dir: run.binary.dir.display().to_string(),
        load_seconds: run.ready.load_seconds,
        deterministic: t.first_nondeterministic_run.is_none(),
        first_nondeterministic_run: t.first_nondeterministic_run,
        self_divergence: compare::summarize(&t.self_comparisons),
        prefill_tps: Samples::new(metric(t, |r| r.prefill_tps)),
        decode_tps: Samples::new(metric(t, |r| r.decode_tps)),
        peak_memory_bytes: Samples::new(metric(t, |r| r.peak_memory_bytes as f64)),
        prefill_seconds: Samples::new(metric(t, |r| r.prefill_seconds)),
        decode_seconds: Samples::new(metric(t, |r| r.decode_seconds)),
    };
    let [run_a, run_b] = arms;
    Ok(Report {
        pairs: settings.pairs,
        warmup_rounds: settings.warmup,
        order: schedule::order_string(settings.pairs),
        verdict,
        nondeterministic_arms,
        ab_divergence,
        ab_against_noise,
        token_identical,
        logits_bitwise_identical,
        arms_deterministic,
        first_divergence,
        per_pair: comparisons
            .into_iter()
            .enumerate()
            .map(|(pair, comparison)| PairReport {
                pair,
                order: Tally::order_of(pair).into(),
                comparison,
            })
            .collect(),
        arms: Arms { a: arm_report(run_a, &tally.a), b: arm_report(run_b, &tally.b) },
        ratio,
        workload,
        bootstrap: Bootstrap {
            method: "percentile, median of per-pair ratios",
            iterations: BOOTSTRAP_ITERATIONS,
            seed,
        },
        provenance,
        warnings,
        exit_status: verdict.exit_status(),
    })
}

#[cfg(test)]
pub(crate) mod tests {
    //! Also the fixtures of `run`'s tests: an arm as it ran, a worker's ready reply.

    use super::*;
    use crate::compare::AgainstNoise;
    use crate::deterministic::{Backend, Determinism};
    use crate::provenance;
    use crate::schedule::{Arm, Step};
    use crate::tally::RunOutput;
    use crate::workload::ModelSummary;
    use mlx_ab_protocol::protocol::RunResult;
    use mlx_ab_protocol::DeviceKind;
    use mlx_ab_protocol::Info;
    use std::path::PathBuf;

    const VOCAB: usize = 4;

    fn output(tokens: &[u32], logits: &[f32]) -> RunOutput {
        RunOutput {
            result: RunResult {
                tokens: tokens.to_vec(),
                vocab: VOCAB,
                prompt_tokens: 8,
                prefill_seconds: 1.0,
                decode_seconds: 1.0,
                prefill_tps: 8.0,
                decode_tps: 2.0,
                peak_memory_bytes: 1 << 20,
            },
            logits: logits.to_vec(),
        }
    }

    fn info() -> Info {
        Info {
            mlx_version: "0.32.4".into(),
            patches: vec![],
            source_digest: "0".repeat(64),
            extra_patches: vec![],
            patch_files: vec![],
            source: "pinned".into(),
            build_key: "key".into(),
            library_path: "/arm/lib/libmlx.so".into(),
            gpu_available: false,
            gpu: None,
            environment: None,
        }
    }

    pub(crate) fn ready(device: DeviceKind) -> Ready {
        Ready { info: info(), device, load_seconds: 0.1, model_dtype: "float32".into() }
    }

    pub(crate) fn arm_run() -> ArmRun {
        ArmRun {
            spec: ArmSpec { patches: vec![], src: None, extra_patches: vec![], env: vec![] },
            binary: ArmBinary {
                binary: PathBuf::from("/arm/bin/mlx-ab-worker"),
                env: vec![],
                dir: PathBuf::from("/arm"),
                prebuilt: None,
            },
            ready: ready(DeviceKind::Cpu),
        }
    }

    fn workload() -> Workload {
        Workload {
            model_dir: PathBuf::from("/model"),
            preset: Some("tiny".into()),
            seed: 0,
            model: ModelSummary {
                model_type: "qwen3_moe".into(),
                layers: 1,
                hidden_size: 8,
                vocab_size: VOCAB,
                experts: 4,
                experts_per_token: 2,
                quantization: "none".into(),
                dtype: Some("float32".into()),
            },
            prompt_len: 8,
            gen_len: 2,
            prefill_chunk: 8,
            rows_per_expert_per_chunk: Some(4.0),
            attention_rows: 7,
            prompt: vec![1; 8],
        }
    }

    /// Runs the plan (1 warm-up round, `pairs` pairs), taking each arm's outputs in run order.
    fn tally(pairs: usize, a: &[RunOutput], b: &[RunOutput]) -> Tally {
        tally_with(pairs, 1, a, b)
    }

    fn tally_with(pairs: usize, warmup: usize, a: &[RunOutput], b: &[RunOutput]) -> Tally {
        let mut tally = Tally::new(pairs);
        let (mut next_a, mut next_b) = (0, 0);
        for step in schedule::plan(pairs, warmup) {
            let (arm, pair) = match step {
                Step::Warmup { arm, .. } => (arm, None),
                Step::Measure { arm, pair } => (arm, Some(pair)),
            };
            let (list, next) = if arm == Arm::A { (a, &mut next_a) } else { (b, &mut next_b) };
            let run = &list[*next % list.len()];
            *next += 1;
            tally
                .record(
                    arm,
                    pair,
                    RunOutput { result: run.result.clone(), logits: run.logits.clone() },
                )
                .unwrap();
        }
        tally
    }

    fn report(tally: Tally) -> Report {
        report_in(tally, Determinism::new(false, Some(Backend::Cpu)))
    }

    fn report_in(tally: Tally, determinism: Determinism) -> Report {
        summarize(
            &Settings { pairs: 2, warmup: 1, bootstrap_seed: 1 },
            tally,
            workload(),
            [arm_run(), arm_run()],
            vec![],
            provenance::collect(None, determinism),
        )
        .unwrap()
    }

    const X: [f32; 8] = [2.0, 0.0, 0.0, 0.0, 0.0, 3.0, 0.0, 0.0];

    #[test]
    fn deterministic_identical_arms_are_identical() {
        let r = report(tally(2, &[output(&[0, 1], &X)], &[output(&[0, 1], &X)]));
        assert_eq!((r.verdict, r.exit_status), (Verdict::Identical, 0));
        assert!(r.arms_deterministic && r.nondeterministic_arms.is_empty());
        assert_eq!((r.ab_divergence.compared, r.ab_divergence.differing), (2, 0));
        assert_eq!(r.arms.a.self_divergence.compared, 2);
        let md = markdown::render(&r);
        assert!(md.contains("**Outputs identical** (on cpu)"), "{md}");
    }

    #[test]
    fn deterministic_arms_that_differ_are_different() {
        let mut y = X;
        y[5] = f32::from_bits(X[5].to_bits() + 1);
        let r = report(tally(2, &[output(&[0, 1], &X)], &[output(&[0, 1], &y)]));
        assert_eq!((r.verdict, r.exit_status), (Verdict::Different, 1));
        assert_eq!(r.ab_divergence.differing, 2);
        let md = markdown::render(&r);
        assert!(md.contains("**Outputs differ** (on cpu) in 2/2 pairs"), "{md}");
        assert!(
            md.contains(
                "each arm reproduced its first run bit for bit (A: 2/2 runs, B: 2/2), so the \
                 difference is the arms', not noise."
            ),
            "{md}"
        );
        assert!(md.contains("First divergence: pair 0, step 1"), "{md}");
    }

    /// Arm B's third run (pair 1) moves one logit and picks another token at step 1: B is not
    /// deterministic, so the report must not claim bit identity, must name B, and must give KL
    /// and top-1 agreement for A vs B and for B against itself.
    #[test]
    fn a_nondeterministic_arm_falls_back_to_kl_and_top1() {
        let mut noisy = X;
        noisy[6] = 3.5; // step 1 now picks token 2
        let b_runs = [output(&[0, 1], &X), output(&[0, 1], &X), output(&[0, 2], &noisy)];
        let r = report(tally(2, &[output(&[0, 1], &X)], &b_runs));
        assert_eq!((r.verdict, r.exit_status), (Verdict::Nondeterministic, 1));
        assert_eq!(r.nondeterministic_arms, ["B"]);
        assert!(!r.arms_deterministic);
        assert!(r.arms.a.deterministic && !r.arms.b.deterministic);
        assert_eq!(r.arms.b.first_nondeterministic_run, Some(2));
        // B against its warm-up: run 1 identical, run 2 not.
        let own = &r.arms.b.self_divergence;
        assert_eq!((own.compared, own.differing, own.token_identical), (2, 1, 1));
        assert!(own.kl_max.unwrap() > 0.1, "{own:?}");
        assert_eq!(own.top1_agreement_min, 0.5);
        assert_eq!(r.arms.a.self_divergence.differing, 0);
        // A vs B: pair 0 identical, pair 1 differs at step 1 (both steps share the context).
        let ab = &r.ab_divergence;
        assert_eq!((ab.compared, ab.differing, ab.token_identical), (2, 1, 1));
        assert!((ab.top1_agreement_mean - 0.75).abs() < 1e-12, "{ab:?}");
        assert!(ab.kl_mean.unwrap() > 0.0 && ab.kl_max.unwrap() >= ab.kl_mean.unwrap());
        assert_eq!(ab.max_abs_logit_diff, 3.5);

        let md = markdown::render(&r);
        assert!(!md.contains("Outputs identical") && !md.contains("bit-identical in"), "{md}");
        assert!(
            md.contains("**Not comparable bit for bit** (on cpu): arm B is not deterministic"),
            "{md}"
        );
        assert!(md.contains("- Arm A reproduced its first run bit for bit in 2/2 runs."), "{md}");
        assert!(
            md.contains("- Arm B against its own first run: 1/2 runs differ (first: run 2)"),
            "{md}"
        );
        assert!(
            md.contains("- A against B: 1/2 pairs differ, tokens identical in 1/2; mean KL"),
            "{md}"
        );
        assert!(md.contains("top-1 agreement 75.0% (lowest 50.0%)"), "{md}");
        let json: serde_json::Value = serde_json::to_value(&r).unwrap();
        assert_eq!(json["verdict"], "nondeterministic");
        assert_eq!(json["arms"]["B"]["self_divergence"]["differing"], 1);
    }

    /// What a report's Markdown may say, checked against its JSON: each verdict word there
    /// must be one the JSON's fields hold.
    fn check_markdown_follows_json(r: &Report) -> String {
        let md = markdown::render(r);
        let json: serde_json::Value = serde_json::to_value(r).unwrap();
        let verdict = json["verdict"].as_str().unwrap();
        let exit = json["exit_status"].as_u64().unwrap();
        assert!(md.contains(&format!("Verdict: `{verdict}` (exit status {exit}).")), "{md}");
        assert_eq!(
            md.contains("consistent"),
            json["ab_against_noise"] == "within",
            "'consistent' against ab_against_noise = {}:\n{md}",
            json["ab_against_noise"]
        );
        assert_eq!(
            md.contains("Outputs identical") || md.contains("bit-identical in"),
            verdict == "identical" && exit == 0 && json["arms_deterministic"] == true,
            "{md}"
        );
        let reproduced = ["A", "B"].iter().all(|arm| {
            let own = &json["arms"][arm]["self_divergence"];
            own["differing"] == 0 && own["compared"].as_u64().unwrap() > 0
        });
        if md.contains("each arm reproduced") {
            assert!(reproduced, "{md}");
        }
        let mode = &json["provenance"]["determinism"];
        assert_eq!(md.contains("Deterministic mode on"), mode["deterministic_mode"] == true);
        md
    }

    /// The regression: the summary said "consistent" whatever the numbers (and the exit status)
    /// were. Arm B differs from itself by one bit in one logit, but from A by a token: the JSON
    /// says `beyond`, so the Markdown must not call it consistent.
    #[test]
    fn markdown_never_claims_consistency_the_json_does_not_hold() {
        let mut other = X;
        other[6] = 3.5; // step 1 picks token 2
        let mut other_ulp = other;
        other_ulp[0] = f32::from_bits(other[0].to_bits() + 1);
        let b_runs =
            [output(&[0, 2], &other), output(&[0, 2], &other), output(&[0, 2], &other_ulp)];
        let beyond = report(tally(2, &[output(&[0, 1], &X)], &b_runs));
        assert_eq!((beyond.verdict, beyond.exit_status), (Verdict::Nondeterministic, 1));
        assert_eq!(beyond.ab_against_noise, Some(AgainstNoise::Beyond));
        let md = check_markdown_follows_json(&beyond);
        assert!(md.contains("run-to-run noise does not explain the difference"), "{md}");

        // The same arm B against an A it matches but for its noise: within.
        let within = report(tally(2, &[output(&[0, 2], &other)], &b_runs));
        assert_eq!(within.ab_against_noise, Some(AgainstNoise::Within));
        let md = check_markdown_follows_json(&within);
        assert!(md.contains("consistent with the arms computing the same thing"), "{md}");

        // Deterministic verdicts carry no noise comparison.
        let mut y = X;
        y[5] = f32::from_bits(X[5].to_bits() + 1);
        for (a, b) in [(X, X), (X, y)] {
            let r = report(tally(2, &[output(&[0, 1], &a)], &[output(&[0, 1], &b)]));
            assert_eq!(r.ab_against_noise, None);
            check_markdown_follows_json(&r);
        }
    }

    /// Both arms move the same logit in their last run: every pair is bit-identical A against B,
    /// but neither arm reproduced itself, so the run is not called identical.
    #[test]
    fn identical_pairs_from_arms_that_do_not_reproduce_themselves_are_not_identical() {
        let mut noisy = X;
        noisy[0] = f32::from_bits(X[0].to_bits() + 1);
        let runs = [output(&[0, 1], &X), output(&[0, 1], &X), output(&[0, 1], &noisy)];
        let cuda = Determinism::new(true, Some(Backend::Cuda));
        let r = report_in(tally(2, &runs, &runs), cuda);
        assert!(r.token_identical && r.logits_bitwise_identical);
        assert_eq!((r.verdict, r.exit_status), (Verdict::Nondeterministic, 1));
        assert_eq!(r.nondeterministic_arms, ["A", "B"]);
        let md = check_markdown_follows_json(&r);
        assert!(
            md.contains(
                "Deterministic mode was on, yet arm A and arm B did not reproduce themselves"
            ),
            "{md}"
        );
    }

    #[test]
    fn deterministic_mode_is_recorded_with_where_its_knobs_act() {
        let same = [output(&[0, 1], &X)];
        let cpu = report_in(tally(2, &same, &same), Determinism::new(true, Some(Backend::Cpu)));
        assert_eq!(cpu.verdict, Verdict::Identical);
        let json: serde_json::Value = serde_json::to_value(&cpu).unwrap();
        let mode = &json["provenance"]["determinism"];
        assert_eq!(mode["deterministic_mode"], true);
        assert_eq!(mode["backend"], "cpu");
        assert_eq!(mode["knobs"][0]["name"], "MLX_CUDA_USE_CUDNN_SDPA");
        assert_eq!(mode["knobs"][0]["value"], "0");
        assert_eq!(mode["knobs"][0]["applies"], false);
        let md = check_markdown_follows_json(&cpu);
        assert!(
            md.contains(
                "Deterministic mode on: `MLX_CUDA_USE_CUDNN_SDPA=0` (set, but does not apply on \
                 the CPU: only MLX's CUDA backend reads it)."
            ),
            "{md}"
        );
        assert!(md.contains("- determinism: deterministic mode on: `MLX_CUDA"), "{md}");

        let cuda = report_in(tally(2, &same, &same), Determinism::new(true, Some(Backend::Cuda)));
        let md = check_markdown_follows_json(&cuda);
        assert!(md.contains("(applies on a CUDA GPU: cuDNN's SDPA off"), "{md}");

        let off = report(tally(2, &same, &same));
        let json: serde_json::Value = serde_json::to_value(&off).unwrap();
        assert_eq!(json["provenance"]["determinism"]["deterministic_mode"], false);
        assert_eq!(json["provenance"]["determinism"]["knobs"], serde_json::json!([]));
        let md = check_markdown_follows_json(&off);
        assert!(md.contains("- determinism: deterministic mode off;"), "{md}");
    }

    /// One run per arm checks nothing against itself: the summary says so instead of claiming
    /// it reproduced itself (and deterministic mode refuses such a run before it starts, see
    /// `run`'s tests).
    #[test]
    fn an_arm_that_ran_once_was_not_checked_against_itself() {
        let same = [output(&[0, 1], &X)];
        let r = summarize(
            &Settings { pairs: 1, warmup: 0, bootstrap_seed: 1 },
            tally_with(1, 0, &same, &same),
            workload(),
            [arm_run(), arm_run()],
            vec![],
            provenance::collect(None, Determinism::new(false, Some(Backend::Cpu))),
        )
        .unwrap();
        assert_eq!(r.arms.a.self_divergence.compared, 0);
        let md = check_markdown_follows_json(&r);
        assert!(
            md.contains("arm A and arm B ran only once, so whether they reproduce themselves"),
            "{md}"
        );
        assert!(!md.contains("reproduced"), "{md}");
    }

    #[test]
    fn reports_are_written_all_or_none() {
        let dir = std::env::temp_dir().join(format!("mlx-ab-reports-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let (json, md) = (dir.join("r.json"), dir.join("r.md"));
        write_all_or_none(&[(&json, b"{}"), (&md, b"# r")]).unwrap();
        assert_eq!(std::fs::read(&json).unwrap(), b"{}");
        assert_eq!(std::fs::read(&md).unwrap(), b"# r");
        let (json2, missing) = (dir.join("s.json"), dir.join("no/such/s.md"));
        assert!(write_all_or_none(&[(&json2, b"{}"), (&missing, b"# s")]).is_err());
        assert!(!json2.exists(), "a partial report was left");
        let mut left: Vec<_> =
            std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().file_name()).collect();
        left.sort();
        assert_eq!(left, ["r.json", "r.md"], "temporary files were left");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
