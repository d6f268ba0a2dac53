//! `mlx-ab run`: build both arms (or take them prebuilt), run them on the same workload in a
//! balanced order on one device, compare outputs bit for bit, summarize speed and memory, write
//! the report.

use crate::arm::{parse_patch_list, ArmSpec};
use crate::cargo_build;
use crate::cli::RunArgs;
use crate::compare;
use crate::deterministic::{self, Backend, Determinism};
use crate::prebuilt::{ArmBinary, Prebuilt};
use crate::provenance::Provenance;
use crate::report::{
    ArmReport, Arms, Bootstrap, PairDivergence, PairReport, Ratios, Report, Samples, Verdict,
};
use crate::schedule::{self, Arm, Step};
use crate::stats::{summarize_ratios, BOOTSTRAP_ITERATIONS};
use crate::tally::{ArmTally, RunOutput, Tally};
use crate::worker_process::{Ready, Worker};
use crate::workload::{self, Workload};
use crate::{cache_dir, markdown, provenance, ptx_cache, ui};
use mlx_ab_protocol::protocol::{self, Job};
use std::path::Path;
use std::process::ExitCode;
use std::time::Duration;

pub fn main(args: RunArgs) -> Result<ExitCode, String> {
    if args.pairs == 0 {
        return Err("--pairs must be at least 1".into());
    }
    check_deterministic_runs(&args)?;
    let spec_a = ArmSpec::new(
        parse_patch_list(&args.a.patches)?,
        args.a.src.clone(),
        args.a.extra_patch.clone(),
    )?;
    let spec_b = ArmSpec::new(
        parse_patch_list(&args.b.patches)?,
        args.b.src.clone(),
        args.b.extra_patch.clone(),
    )?;
    // Report paths and prebuilt layouts are checked before anything is built or written.
    for path in [&args.json, &args.md].into_iter().flatten() {
        check_writable(path)?;
    }
    let prebuilt_a =
        args.a.prebuilt.as_deref().map(|d| Prebuilt::open(d, "--a-prebuilt")).transpose()?;
    let prebuilt_b =
        args.b.prebuilt.as_deref().map(|d| Prebuilt::open(d, "--b-prebuilt")).transpose()?;
    let workload = workload::prepare(&workload::Request {
        model: args.model.as_deref(),
        preset: &args.preset,
        seed: args.seed,
        prompt_len: args.prompt_len,
        gen_len: args.gen_len,
        prefill_chunk: args.prefill_chunk,
    })?;
    let mut warnings = workload.coverage_gaps();
    if args.pairs < 6 {
        warnings.push(format!(
            "{} pairs: the sign test cannot reach p < 0.05 with fewer than 6",
            args.pairs
        ));
    }
    for warning in &warnings {
        ui::note(None, &format!("warning: {warning}"));
    }

    let binary_a = obtain(&spec_a, prebuilt_a, "A")?;
    let binary_b = obtain(&spec_b, prebuilt_b, "B")?;
    // Arm A's worker makes the synthetic weights (the driver has no MLX); both arms load them.
    workload.write_model_if_missing(|dir, preset, seed| {
        crate::forward::write_model(&binary_a, dir, preset, seed)
    })?;

    let run_dir =
        cache_dir::root()?.join("runs").join(format!("{}-{}", unix_seconds(), std::process::id()));
    std::fs::create_dir_all(&run_dir)
        .map_err(|e| format!("creating {}: {e}", run_dir.display()))?;
    let job = Job {
        protocol: protocol::VERSION,
        model_dir: workload.model_dir.clone(),
        prompt: workload.prompt.clone(),
        max_tokens: workload.gen_len,
        prefill_chunk: workload.prefill_chunk,
        device: args.device,
    };
    let outcome = run_arms(&args, &job, [&binary_a, &binary_b], [&spec_a, &spec_b], &run_dir);
    let _ = std::fs::remove_dir_all(&run_dir);
    let (tally, ready_a, ready_b, mode_warnings) = outcome?;
    warnings.extend(mode_warnings);

    let mut workload = workload;
    workload.model.dtype = Some(ready_a.model_dtype.clone());
    // Both arms run on one device (`check_same_footing`), so arm A's says where the knobs act.
    let backend = Backend::of(ready_a.device, ready_a.info.gpu.as_ref());
    let determinism = Determinism::new(args.deterministic, Some(backend));
    let report = summarize(
        &Settings { pairs: args.pairs, warmup: args.warmup, bootstrap_seed: args.bootstrap_seed },
        tally,
        workload,
        [
            ArmRun { spec: spec_a, binary: binary_a, ready: ready_a },
            ArmRun { spec: spec_b, binary: binary_b, ready: ready_b },
        ],
        warnings,
        provenance::collect(cache_dir::workspace().ok().as_deref(), determinism),
    )?;
    let markdown = markdown::render(&report);
    let json = serde_json::to_string_pretty(&report).map_err(|e| e.to_string())? + "\n";
    let reports: Vec<(&Path, &[u8])> =
        [(&args.json, json.as_bytes()), (&args.md, markdown.as_bytes())]
            .into_iter()
            .filter_map(|(path, text)| path.as_deref().map(|p| (p, text)))
            .collect();
    write_all_or_none(&reports)?;
    print!("{markdown}");
    Ok(ExitCode::from(report.exit_status))
}

/// Deterministic mode calls a run identical only when each arm reproduced itself, so each arm
/// must run at least twice (a warm-up counts).
fn check_deterministic_runs(args: &RunArgs) -> Result<(), String> {
    if args.deterministic && args.pairs + args.warmup < 2 {
        return Err(format!(
            "--deterministic needs each arm to run at least twice to check it against itself, \
             but --pairs {} --warmup {} runs it once",
            args.pairs, args.warmup
        ));
    }
    Ok(())
}

/// A report path that cannot be written is refused at the start, not after the run.
fn check_writable(path: &Path) -> Result<(), String> {
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

/// The arm's worker: prebuilt, or built by cargo from this workspace.
fn obtain(spec: &ArmSpec, prebuilt: Option<Prebuilt>, name: &str) -> Result<ArmBinary, String> {
    match prebuilt {
        Some(prebuilt) => ArmBinary::prebuilt(prebuilt),
        None => Ok(ArmBinary::built(cargo_build::build(spec, name)?)),
    }
}

/// Starts both workers, checks they are the arms asked for, runs the plan, stops them; with the
/// warnings of deterministic mode's check of each worker.
fn run_arms(
    args: &RunArgs,
    job: &Job,
    binaries: [&ArmBinary; 2],
    specs: [&ArmSpec; 2],
    run_dir: &Path,
) -> Result<(Tally, Ready, Ready, Vec<String>), String> {
    let start = |i: usize, name: &str| -> Result<(Worker, Ready, Option<String>), String> {
        let mut env = ptx_cache::worker_env(binaries[i])?;
        env.extend(deterministic::env(args.deterministic));
        let timeout = (args.worker_timeout > 0).then(|| Duration::from_secs(args.worker_timeout));
        let (worker, ready) =
            Worker::start(name, &binaries[i].binary, &env, job, run_dir, timeout)?;
        check_arm(name, specs[i], binaries[i], &ready)?;
        let warning = deterministic::confirm(name, &ready.info, args.deterministic)?;
        if let Some(warning) = &warning {
            ui::note(None, &format!("warning: {warning}"));
        }
        Ok((worker, ready, warning))
    };
    let (mut worker_a, ready_a, warning_a) = start(0, "A")?;
    let (mut worker_b, ready_b, warning_b) = start(1, "B")?;
    check_same_footing(&ready_a, &ready_b)?;
    let tally = execute(args, &mut worker_a, &mut worker_b, run_dir)?;
    worker_a.quit()?;
    worker_b.quit()?;
    Ok((tally, ready_a, ready_b, warning_a.into_iter().chain(warning_b).collect()))
}

/// The worker is the arm asked for: the patches it asked for (a report on patches that were not
/// applied would be misleading), and, prebuilt, running on its own MLX.
fn check_arm(name: &str, spec: &ArmSpec, binary: &ArmBinary, ready: &Ready) -> Result<(), String> {
    if ready.info.patches != spec.patches {
        return Err(format!(
            "arm {name} asked for patches [{}] but its MLX build applied [{}] ({})",
            spec.patches.join(", "),
            ready.info.patches.join(", "),
            match &binary.prebuilt {
                Some(p) => format!(
                    "prebuilt {}: pass the arm's patches with --{}-patches",
                    p.dir.display(),
                    name.to_lowercase()
                ),
                None => "is a patch file missing from patches/?".to_string(),
            }
        ));
    }
    match &binary.prebuilt {
        Some(prebuilt) => prebuilt.check_library(name, &ready.info.library_path),
        None => Ok(()),
    }
}

/// Both arms run the same model the same way: same device, same activation dtype.
fn check_same_footing(a: &Ready, b: &Ready) -> Result<(), String> {
    if a.device != b.device {
        let (without, with) =
            if a.device == mlx_ab_protocol::DeviceKind::Cpu { ("A", "B") } else { ("B", "A") };
        return Err(format!(
            "arm A runs on {} but arm B on {} (arm {without}'s MLX has no GPU, arm {with}'s has): pass \
             --device cpu to compare both on the CPU, or give arm {without} a GPU build",
            a.device, b.device
        ));
    }
    if a.model_dtype != b.model_dtype {
        return Err(format!(
            "the arms load the model with different dtypes: A {} vs B {}",
            a.model_dtype, b.model_dtype
        ));
    }
    Ok(())
}

/// Runs the plan (warm-up, then the pairs), feeding every run to the tally.
fn execute(args: &RunArgs, a: &mut Worker, b: &mut Worker, dir: &Path) -> Result<Tally, String> {
    let steps = schedule::plan(args.pairs, args.warmup);
    let bar = ui::bar(steps.len() as u64, "run", "runs");
    let mut tally = Tally::new(args.pairs);
    let logits_path = dir.join("logits.f32");
    for step in steps {
        let (arm, pair) = match step {
            Step::Warmup { arm, round } => {
                bar.set_message(format!("warm-up {} {}", round + 1, arm.name()));
                (arm, None)
            }
            Step::Measure { arm, pair } => {
                bar.set_message(format!("pair {}/{} {}", pair + 1, args.pairs, arm.name()));
                (arm, Some(pair))
            }
        };
        let worker = if arm == Arm::A { &mut *a } else { &mut *b };
        let result = worker.run(Some(&logits_path))?;
        let bytes = std::fs::read(&logits_path)
            .map_err(|e| format!("reading {}: {e}", logits_path.display()))?;
        let logits = protocol::logits_from_bytes(&bytes)?;
        tally.record(arm, pair, RunOutput { result, logits })?;
        if let Some(pair) = pair {
            if let Some(line) = pair_line(&tally, pair, args.pairs) {
                ui::note(Some(&bar), &line);
            }
        }
        bar.inc(1);
    }
    bar.finish_and_clear();
    Ok(tally)
}

/// `pair 3/8 (BA): identical; B/A prefill 1.021, decode 1.004` once both arms of a pair ran.
fn pair_line(tally: &Tally, pair: usize, pairs: usize) -> Option<String> {
    let comparison = tally.comparisons[pair].as_ref()?;
    let (a, b) = (tally.a.measured[pair].as_ref()?, tally.b.measured[pair].as_ref()?);
    let verdict = if comparison.tokens_equal && comparison.logits_bitwise_equal {
        "identical".to_string()
    } else {
        match &comparison.first_divergence {
            Some(d) => format!("DIFFERENT from step {}", d.step),
            None => "DIFFERENT".to_string(),
        }
    };
    Some(format!(
        "pair {}/{pairs} ({}): {verdict}; B/A prefill {:.3}, decode {:.3}",
        pair + 1,
        Tally::order_of(pair),
        b.prefill_tps / a.prefill_tps,
        b.decode_tps / a.decode_tps
    ))
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

fn unix_seconds() -> u64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compare::AgainstNoise;
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
            source: "pinned".into(),
            build_key: "key".into(),
            library_path: "/arm/lib/libmlx.so".into(),
            gpu_available: false,
            gpu: None,
            environment: None,
        }
    }

    fn ready(device: DeviceKind) -> Ready {
        Ready { info: info(), device, load_seconds: 0.1, model_dtype: "float32".into() }
    }

    fn arm_run() -> ArmRun {
        ArmRun {
            spec: ArmSpec { patches: vec![], src: None, extra_patches: vec![] },
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
    /// it reproduced itself, and deterministic mode refuses such a run before it starts.
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

        use crate::cli::{Cli, Command};
        use clap::Parser;
        let check = |args: &[&str]| {
            let argv = [&["mlx-ab", "run"], args].concat();
            let Command::Run(run) = Cli::try_parse_from(argv).unwrap().command else {
                panic!("not run")
            };
            check_deterministic_runs(&run)
        };
        let error = check(&["--deterministic", "--pairs", "1", "--warmup", "0"]).unwrap_err();
        assert!(error.contains("at least twice"), "{error}");
        assert!(check(&["--deterministic", "--pairs", "1", "--warmup", "1"]).is_ok());
        assert!(check(&["--deterministic", "--pairs", "2", "--warmup", "0"]).is_ok());
        assert!(check(&["--pairs", "1", "--warmup", "0"]).is_ok());
    }

    #[test]
    fn both_arms_must_run_on_one_device_and_dtype() {
        assert!(check_same_footing(&ready(DeviceKind::Cpu), &ready(DeviceKind::Cpu)).is_ok());
        let error =
            check_same_footing(&ready(DeviceKind::Gpu), &ready(DeviceKind::Cpu)).unwrap_err();
        assert!(
            error.contains("arm A runs on gpu but arm B on cpu") && error.contains("--device cpu"),
            "{error}"
        );
        let mut bf16 = ready(DeviceKind::Cpu);
        bf16.model_dtype = "bfloat16".into();
        assert!(check_same_footing(&ready(DeviceKind::Cpu), &bf16).unwrap_err().contains("dtypes"));
    }

    #[test]
    fn arms_are_checked_for_patches_and_their_own_library() {
        let run = arm_run();
        assert!(check_arm("A", &run.spec, &run.binary, &run.ready).is_ok());
        let all = ArmSpec { patches: vec!["eval-walk".into()], ..run.spec.clone() };
        assert!(check_arm("B", &all, &run.binary, &run.ready)
            .unwrap_err()
            .contains("arm B asked for patches [eval-walk]"));
        // Prebuilt: the worker's MLX must come from the layout.
        let dir = std::env::temp_dir().join(format!("mlx-ab-run-check-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("bin")).unwrap();
        std::fs::create_dir_all(dir.join("lib")).unwrap();
        std::fs::write(dir.join("bin/mlx-ab-worker"), "").unwrap();
        std::fs::write(dir.join("lib/libmlx.so"), "").unwrap();
        let binary = ArmBinary::prebuilt(Prebuilt::open(&dir, "--a-prebuilt").unwrap()).unwrap();
        let mut own = ready(DeviceKind::Cpu);
        own.info.library_path = dir.join("lib/libmlx.so").display().to_string();
        assert!(check_arm("A", &run.spec, &binary, &own).is_ok());
        let foreign = ready(DeviceKind::Cpu); // /arm/lib/libmlx.so
        assert!(check_arm("A", &run.spec, &binary, &foreign)
            .unwrap_err()
            .starts_with("arm A (prebuilt"));
        let error = check_arm("A", &all, &binary, &own).unwrap_err();
        assert!(error.contains("--a-patches"), "{error}");
        std::fs::remove_dir_all(&dir).unwrap();
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
