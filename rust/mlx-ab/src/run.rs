//! `mlx-ab run`: build both arms, run them on the same workload in a balanced order, compare
//! outputs bit for bit, summarize speed and memory, write the report.

use crate::arm::{parse_patch_list, ArmSpec};
use crate::cargo_build::{self, BuiltArm};
use crate::cli::RunArgs;
use crate::protocol::{self, Job};
use crate::report::{ArmReport, Arms, Bootstrap, PairDivergence, PairReport, Ratios, Report, Samples};
use crate::schedule::{self, Arm, Step};
use crate::stats::{summarize_ratios, BOOTSTRAP_ITERATIONS};
use crate::tally::{ArmTally, RunOutput, Tally};
use crate::worker_process::{Ready, Worker};
use crate::workload::{self, Workload};
use crate::{cache_dir, markdown, provenance, ui};
use std::path::Path;
use std::process::ExitCode;

pub fn main(args: RunArgs) -> Result<ExitCode, String> {
    if args.pairs == 0 {
        return Err("--pairs must be at least 1".into());
    }
    let spec_a = ArmSpec::new(parse_patch_list(&args.a.patches)?, args.a.src.clone(), args.a.extra_patch.clone())?;
    let spec_b = ArmSpec::new(parse_patch_list(&args.b.patches)?, args.b.src.clone(), args.b.extra_patch.clone())?;
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
        warnings.push(format!("{} pairs: the sign test cannot reach p < 0.05 with fewer than 6", args.pairs));
    }
    for warning in &warnings {
        ui::note(None, &format!("warning: {warning}"));
    }

    let built_a = cargo_build::build(&spec_a, "A")?;
    let built_b = cargo_build::build(&spec_b, "B")?;

    let run_dir = cache_dir::root()?.join("runs").join(format!("{}-{}", unix_seconds(), std::process::id()));
    std::fs::create_dir_all(&run_dir).map_err(|e| format!("creating {}: {e}", run_dir.display()))?;
    let job = Job {
        protocol: protocol::VERSION,
        model_dir: workload.model_dir.clone(),
        prompt: workload.prompt.clone(),
        max_tokens: workload.gen_len,
        prefill_chunk: workload.prefill_chunk,
    };
    let (mut worker_a, ready_a) = Worker::start("A", &built_a.binary, &job, &run_dir)?;
    let (mut worker_b, ready_b) = Worker::start("B", &built_b.binary, &job, &run_dir)?;
    let mut workload = workload;
    workload.model.dtype = Some(ready_a.model_dtype.clone());
    if ready_a.model_dtype != ready_b.model_dtype {
        return Err(format!(
            "the arms load the model with different dtypes: A {} vs B {}",
            ready_a.model_dtype, ready_b.model_dtype
        ));
    }
    for (name, spec, ready) in [("A", &spec_a, &ready_a), ("B", &spec_b, &ready_b)] {
        // A report on patches that were not applied would be misleading: refuse.
        if ready.info.patches != spec.patches {
            return Err(format!(
                "arm {name} asked for patches [{}] but its MLX build applied [{}] (is a patch file \
                 missing from patches/?)",
                spec.patches.join(", "),
                ready.info.patches.join(", ")
            ));
        }
    }

    let tally = execute(&args, &mut worker_a, &mut worker_b, &run_dir)?;
    worker_a.quit()?;
    worker_b.quit()?;
    let _ = std::fs::remove_dir_all(&run_dir);

    let report = summarize(
        &args,
        tally,
        workload,
        [(spec_a, built_a, ready_a), (spec_b, built_b, ready_b)],
        warnings,
    )?;
    let markdown = markdown::render(&report);
    if let Some(path) = &args.json {
        let text = serde_json::to_string_pretty(&report).map_err(|e| e.to_string())?;
        std::fs::write(path, text + "\n").map_err(|e| format!("writing {}: {e}", path.display()))?;
    }
    if let Some(path) = &args.md {
        std::fs::write(path, &markdown).map_err(|e| format!("writing {}: {e}", path.display()))?;
    }
    print!("{markdown}");
    Ok(ExitCode::from(report.exit_status))
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
        let bytes = std::fs::read(&logits_path).map_err(|e| format!("reading {}: {e}", logits_path.display()))?;
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

fn summarize(
    args: &RunArgs,
    tally: Tally,
    workload: Workload,
    arms: [(ArmSpec, BuiltArm, Ready); 2],
    warnings: Vec<String>,
) -> Result<Report, String> {
    let comparisons: Vec<_> = tally
        .comparisons
        .into_iter()
        .enumerate()
        .map(|(pair, c)| c.ok_or_else(|| format!("pair {pair} did not complete")))
        .collect::<Result<_, _>>()?;
    let token_identical = comparisons.iter().all(|c| c.tokens_equal);
    let logits_bitwise_identical = comparisons.iter().all(|c| c.logits_bitwise_equal);
    let arms_deterministic =
        tally.a.first_nondeterministic_run.is_none() && tally.b.first_nondeterministic_run.is_none();
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
    let seed = args.bootstrap_seed;
    let ratio = Ratios {
        prefill_tps: ratios(|r| r.prefill_tps, seed),
        decode_tps: ratios(|r| r.decode_tps, seed.wrapping_add(1)),
        peak_memory_bytes: ratios(|r| r.peak_memory_bytes as f64, seed.wrapping_add(2)),
    };
    let [(spec_a, built_a, ready_a), (spec_b, built_b, ready_b)] = arms;
    let arm_report = |spec: ArmSpec, built: BuiltArm, ready: Ready, t: &ArmTally| ArmReport {
        label: spec.label(),
        spec,
        mlx: ready.info,
        build_dir: built.target_dir.display().to_string(),
        load_seconds: ready.load_seconds,
        deterministic: t.first_nondeterministic_run.is_none(),
        first_nondeterministic_run: t.first_nondeterministic_run,
        prefill_tps: Samples::new(metric(t, |r| r.prefill_tps)),
        decode_tps: Samples::new(metric(t, |r| r.decode_tps)),
        peak_memory_bytes: Samples::new(metric(t, |r| r.peak_memory_bytes as f64)),
        prefill_seconds: Samples::new(metric(t, |r| r.prefill_seconds)),
        decode_seconds: Samples::new(metric(t, |r| r.decode_seconds)),
    };
    let identical = token_identical && logits_bitwise_identical && arms_deterministic;
    Ok(Report {
        pairs: args.pairs,
        warmup_rounds: args.warmup,
        order: schedule::order_string(args.pairs),
        token_identical,
        logits_bitwise_identical,
        arms_deterministic,
        first_divergence,
        per_pair: comparisons
            .into_iter()
            .enumerate()
            .map(|(pair, comparison)| PairReport { pair, order: Tally::order_of(pair).into(), comparison })
            .collect(),
        arms: Arms {
            a: arm_report(spec_a, built_a, ready_a, &tally.a),
            b: arm_report(spec_b, built_b, ready_b, &tally.b),
        },
        ratio,
        workload,
        bootstrap: Bootstrap { method: "percentile, median of per-pair ratios", iterations: BOOTSTRAP_ITERATIONS, seed },
        provenance: provenance::collect(cache_dir::workspace().ok().as_deref()),
        warnings,
        exit_status: if identical { 0 } else { 1 },
    })
}

fn unix_seconds() -> u64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs())
}

