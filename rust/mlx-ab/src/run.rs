//! `mlx-ab run`: build both arms (or take them prebuilt), run them on the same workload in a
//! balanced order on one device, compare outputs bit for bit as each pair completes, and hand
//! the tally to `run_report`, which summarizes speed and memory and writes the report.

use crate::arm::{parse_patch_list, ArmSpec};
use crate::cargo_build;
use crate::cli::RunArgs;
use crate::deterministic::{self, Backend, Determinism};
use crate::prebuilt::{ArmBinary, Prebuilt};
use crate::run_report::{self, ArmRun, Settings};
use crate::schedule::{self, Arm, Step};
use crate::tally::{RunOutput, Tally};
use crate::worker_process::{Ready, Worker};
use crate::workload;
use crate::{cache_dir, provenance, ptx_cache, ui};
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
    )?
    .with_env(&args.a.env);
    let spec_b = ArmSpec::new(
        parse_patch_list(&args.b.patches)?,
        args.b.src.clone(),
        args.b.extra_patch.clone(),
    )?
    .with_env(&args.b.env);
    check_arm_env(&args)?;
    // Report paths and prebuilt layouts are checked before anything is built or written.
    for path in [&args.report.json, &args.report.md].into_iter().flatten() {
        run_report::check_writable(path)?;
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
    let mut warnings = run_report::workload_warnings(&workload, args.pairs);
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
    let report = run_report::summarize(
        &Settings {
            pairs: args.pairs,
            warmup: args.warmup,
            bootstrap_seed: args.report.bootstrap_seed,
        },
        tally,
        workload,
        [
            ArmRun {
                spec: spec_a.with_reported_extras(&ready_a.info),
                binary: binary_a,
                ready: ready_a,
            },
            ArmRun {
                spec: spec_b.with_reported_extras(&ready_b.info),
                binary: binary_b,
                ready: ready_b,
            },
        ],
        warnings,
        provenance::collect(cache_dir::workspace().ok().as_deref(), determinism),
    )?;
    let markdown =
        run_report::write(&report, args.report.json.as_deref(), args.report.md.as_deref())?;
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

/// An arm's own variable must not be one deterministic mode sets: the mode would override it
/// while the report named it.
fn check_arm_env(args: &RunArgs) -> Result<(), String> {
    let knobs = deterministic::env(args.deterministic);
    for (flag, env) in [("--a-env", &args.a.env), ("--b-env", &args.b.env)] {
        if let Some((key, _)) =
            env.iter().find(|(key, _)| knobs.iter().any(|(k, _)| k == key.as_str()))
        {
            return Err(format!("{flag} {key}: --deterministic sets {key} in both arms"));
        }
    }
    Ok(())
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
        let own = [&args.a.env, &args.b.env][i];
        env.extend(own.iter().map(|(key, value)| (key.into(), value.into())));
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

fn unix_seconds() -> u64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::run_report::tests::{arm_run, ready};
    use mlx_ab_protocol::DeviceKind;

    /// Deterministic mode refuses, before anything starts, a run in which each arm runs once.
    #[test]
    fn deterministic_mode_needs_each_arm_to_run_twice() {
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
        let all = ArmSpec { patches: vec!["fused-causal-softmax".into()], ..run.spec.clone() };
        assert!(check_arm("B", &all, &run.binary, &run.ready)
            .unwrap_err()
            .contains("arm B asked for patches [fused-causal-softmax]"));
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
}
