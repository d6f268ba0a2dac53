//! `mlx-ab ops`: A/B of single MLX ops between two installed builds, one `op-bench` worker per
//! arm. Per point: one warm-up request per arm, both at once (runtime compilation stays out of
//! the timings), then the pairs in `mlx-ab run`'s order (schedule.rs), with `mlx-ab run`'s
//! statistics (stats.rs), so a ratio's interval does not depend on which tool measured it.
//! With `--precompile N`, the warm-ups' run-time compilation happens first, side by side
//! (ops_precompile.rs).
//!
//! Exit status: 0 outputs identical at every point, 1 some point differs, 2 error (no report),
//! 3 stopped by SIGTERM / SIGINT (the finished points are reported).

use crate::cli::OpsArgs;
use crate::ops_points::{self, Point, SweepOptions};
use crate::ops_precompile;
use crate::ops_report::{self, Meta, PointResult, Report, Times, TOOL};
use crate::ops_worker::{ArmSetup, Halt, OpWorker};
use crate::schedule::{self, Arm, Step};
use crate::stats::{self, BOOTSTRAP_ITERATIONS};
use mlx_ab_protocol::ops::OpRequest;
use std::collections::BTreeSet;
use std::process::ExitCode;
use std::sync::atomic::{AtomicI32, Ordering};
use std::time::Instant;

/// The signal that asked the run to stop (0: none). Set by the handler, polled by the waits.
static STOP_SIGNAL: AtomicI32 = AtomicI32::new(0);
const SIGINT: i32 = 2;
const SIGTERM: i32 = 15;

extern "C" {
    // libc's; std links libc already. Handlers: a function address, or 0 for the default.
    fn signal(signum: i32, handler: usize) -> usize;
}

extern "C" fn on_signal(number: i32) {
    // Only an atomic store: all a signal handler may safely do.
    STOP_SIGNAL.store(number, Ordering::SeqCst);
}

/// Catches SIGTERM and SIGINT (`true`) or gives them back their default action.
fn catch_stop_signals(catch: bool) {
    let handler = if catch { on_signal as extern "C" fn(i32) as usize } else { 0 };
    for number in [SIGTERM, SIGINT] {
        // SAFETY: the handler only stores to an atomic, which is async-signal-safe.
        unsafe { signal(number, handler) };
    }
}

fn stop_requested() -> Option<String> {
    match STOP_SIGNAL.load(Ordering::SeqCst) {
        0 => None,
        SIGTERM => Some("SIGTERM".into()),
        SIGINT => Some("SIGINT".into()),
        n => Some(format!("signal {n}")),
    }
}

/// The points a run finished, and what ended it early if anything did.
#[derive(Debug)]
pub struct Outcome<R> {
    pub results: Vec<R>,
    pub stopped_by: Option<String>,
    /// Points never started because the budget was spent.
    pub left_out: usize,
}

/// Measures `points` in order. A point starts only while `elapsed()` is within `budget` seconds
/// (none, or 0: no limit); a stop ends the run with the points finished so far (the one cut off
/// is dropped); a failure ends it with no results.
pub fn run_points<P, R>(
    points: &[P],
    budget: Option<f64>,
    elapsed: impl Fn() -> f64,
    mut measure: impl FnMut(&P) -> Result<R, Halt>,
) -> Result<Outcome<R>, String> {
    let mut outcome = Outcome { results: Vec::new(), stopped_by: None, left_out: 0 };
    for point in points {
        if budget.is_some_and(|b| b > 0.0 && elapsed() > b) {
            outcome.left_out = points.len() - outcome.results.len();
            break;
        }
        match measure(point) {
            Ok(r) => outcome.results.push(r),
            Err(Halt::Stopped(signal)) => {
                outcome.stopped_by = Some(signal);
                break;
            }
            Err(Halt::Failed(message)) => return Err(message),
        }
    }
    Ok(outcome)
}

/// The point's timing request of `reps` evaluations; one is the warm-up (its kernels compiled
/// and its weights quantized, untimed).
fn time_request(point: &Point, reps: u64) -> OpRequest {
    OpRequest::Time { op: point.request.clone(), calls: point.calls, reps }
}

/// Starts the two arms' workers.
type Start<'a> = &'a dyn Fn() -> Result<[OpWorker; 2], String>;

/// One point: the warm-up, then `pairs` timed pairs; A time / B time per pair, summarized.
/// With `fresh`, each pair after the first runs in two workers `fresh` starts for it.
fn measure(
    point: &Point,
    workers: &mut [OpWorker; 2],
    fresh: Option<Start>,
    pairs: usize,
    reps: usize,
    seed: u64,
) -> Result<PointResult, Halt> {
    let stop = &stop_requested as &dyn Fn() -> Option<String>;
    let warmup = time_request(point, 1);
    // Both at once: JIT compilation and weight quantization of both arms overlap.
    let warm_up = |workers: &mut [OpWorker; 2]| -> Result<Vec<String>, Halt> {
        for w in workers.iter_mut() {
            w.send(&warmup)?;
        }
        workers.iter_mut().map(|w| Ok(w.receive(&warmup, stop)?.digest)).collect()
    };
    let mut digests: BTreeSet<String> = warm_up(workers)?.into_iter().collect();
    let timed = time_request(point, reps as u64);
    let mut times = [vec![0.0; pairs], vec![0.0; pairs]];
    let mut peaks = [0u64; 2];
    let mut reference_errors: [Option<f64>; 2] = [None; 2];
    let mut host_seconds: [Vec<f64>; 2] = Default::default();
    for step in schedule::plan(pairs, 0) {
        let Step::Measure { arm, pair } = step else { continue };
        // A pair's two steps are adjacent in the plan: new workers at each pair's first.
        let first_of_pair = arm == if schedule::b_first(pair) { Arm::B } else { Arm::A };
        if let Some(start) = fresh.filter(|_| first_of_pair && pair > 0) {
            let old = std::mem::replace(workers, start().map_err(Halt::Failed)?);
            for w in old {
                w.close(false);
            }
            digests.extend(warm_up(workers)?);
        }
        let i = usize::from(arm == Arm::B);
        let reply = workers[i].ask(&timed, stop)?;
        times[i][pair] = reply.seconds_per_call;
        peaks[i] = peaks[i].max(reply.peak_bytes);
        // The largest of the arm's replies (a nondeterministic kernel's vary).
        if let Some(e) = reply.reference_error {
            reference_errors[i] = Some(reference_errors[i].map_or(e, |m| m.max(e)));
        }
        host_seconds[i].extend(reply.host_seconds_per_call);
        digests.insert(reply.digest);
    }
    let [a_host_seconds, b_host_seconds] = host_seconds.map(|h| stats::median(&h));
    let [a, b] = times;
    let timing = stats::paired_times(&a, &b, seed);
    let (ta, tb) = (timing.a_seconds, timing.b_seconds);
    Ok(PointResult {
        timing,
        identical: digests.len() == 1,
        a_tflops: point.flops as f64 / ta / 1e12,
        b_tflops: point.flops as f64 / tb / 1e12,
        b_gbps: point.bytes.map(|bytes| bytes as f64 / tb / 1e9),
        a_peak_bytes: peaks[0],
        b_peak_bytes: peaks[1],
        a_reference_error: reference_errors[0],
        b_reference_error: reference_errors[1],
        a_host_seconds,
        b_host_seconds,
        times: Times { a, b },
        point: point.clone(),
    })
}

/// `KEY=VALUE` strings of an arm's own environment, for the report.
pub(crate) fn env_strings(env: &[(String, String)]) -> Vec<String> {
    env.iter().map(|(key, value)| format!("{key}={value}")).collect()
}

pub fn main(args: OpsArgs) -> Result<ExitCode, String> {
    // Options left out take the sweep's defaults (one list of them, in ops_points).
    let or =
        |given: &[u64], default: &[u64]| if given.is_empty() { default } else { given }.to_vec();
    let options = SweepOptions {
        sweeps: args.sweep.clone(),
        modes: if args.modes.is_empty() {
            ops_points::MODES.map(String::from).to_vec()
        } else {
            args.modes.clone()
        },
        gather_shape: args.gather_shape.unwrap_or(ops_points::QWEN3_30B_A3B),
        rows: or(&args.rows, &ops_points::ROWS_PER_EXPERT),
        rows_per_graph: args.rows_per_graph,
        routings: args.routing.clone(),
        dtypes: args.dtypes.clone(),
        softmax_shapes: if args.softmax_shapes.is_empty() {
            ops_points::SOFTMAX_SHAPES.to_vec()
        } else {
            args.softmax_shapes.clone()
        },
        only: args.only.clone(),
    };
    let points = ops_points::points(&options);
    let arm_a = ArmSetup { dir: &args.a, ptx_cache: args.a_ptx_cache.as_deref(), env: &args.a_env };
    let arm_b = ArmSetup { dir: &args.b, ptx_cache: args.b_ptx_cache.as_deref(), env: &args.b_env };
    let start = || -> Result<[OpWorker; 2], String> {
        let a = OpWorker::start("a", arm_a)?;
        match OpWorker::start("b", arm_b) {
            Ok(b) => Ok([a, b]),
            Err(e) => {
                a.close(true);
                Err(e)
            }
        }
    };
    let began = Instant::now();
    catch_stop_signals(true);
    // Before the timed workers start: they then find the compiled kernels from their first point.
    if args.precompile > 0 {
        let warmups: Vec<_> = points.iter().map(|p| (p.label(), time_request(p, 1))).collect();
        let arms = [("a", arm_a), ("b", arm_b)];
        let stop = &stop_requested as &(dyn Fn() -> Option<String> + Sync);
        ops_precompile::precompile(&warmups, &arms, args.precompile, stop)?;
        println!(
            "mlx-ab ops: {} points' warm-ups sent to {} workers per arm in {:.0} s",
            points.len(),
            args.precompile,
            began.elapsed().as_secs_f64()
        );
    }
    let mut workers = start()?;
    let fresh = args.fresh_workers.then_some(&start as Start);
    let outcome = run_points(
        &points,
        args.budget,
        || began.elapsed().as_secs_f64(),
        |point| {
            let start = Instant::now();
            let r = measure(
                point,
                &mut workers,
                fresh,
                args.pairs,
                args.reps,
                args.report.bootstrap_seed,
            )?;
            println!("{}", ops_report::progress_line(&r, start.elapsed().as_secs_f64()));
            Ok(r)
        },
    );
    catch_stop_signals(false);
    let [a, b] = workers;
    let clean = matches!(&outcome, Ok(o) if o.stopped_by.is_none());
    a.close(!clean);
    b.close(!clean);
    let outcome = outcome?;
    if outcome.left_out > 0 {
        println!(
            "mlx-ab ops: budget of {:.0}s spent; {} points left out",
            args.budget.unwrap_or(0.0),
            outcome.left_out
        );
    }
    if let Some(signal) = &outcome.stopped_by {
        // A time limit, not a failure: the finished points are measured; the one cut off is not.
        println!(
            "mlx-ab ops: stopped by {signal}; reporting the {} finished points",
            outcome.results.len()
        );
    }
    let meta = Meta {
        a: args.a.display().to_string(),
        b: args.b.display().to_string(),
        a_env: env_strings(&args.a_env),
        b_env: env_strings(&args.b_env),
        pairs: args.pairs,
        reps: args.reps,
        points_planned: points.len(),
        points_run: outcome.results.len(),
        // op_ab.py's form, `2026-12-02 10:19:47 UTC`.
        date: crate::provenance::rfc3339_utc(std::time::SystemTime::now())
            .replace('T', " ")
            .replace('Z', " UTC"),
        stopped_by: outcome.stopped_by.clone(),
        tool: TOOL,
        bootstrap_resamples: BOOTSTRAP_ITERATIONS,
        bootstrap_seed: args.report.bootstrap_seed,
        quantiles: "Hyndman-Fan type 7",
        order: schedule::order_string(args.pairs),
        fresh_workers: args.fresh_workers,
        rows_per_graph: args.rows_per_graph,
    };
    let md = ops_report::markdown(&outcome.results, &meta);
    println!("{md}");
    args.report.write(&Report { meta: &meta, results: &outcome.results }, &md)?;
    Ok(if !outcome.results.iter().all(|r| r.identical) {
        ExitCode::from(1)
    } else if outcome.stopped_by.is_some() {
        ExitCode::from(3)
    } else {
        ExitCode::SUCCESS
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::Cell;

    /// A clock that advances `step` seconds per measured point.
    fn run(points: usize, budget: Option<f64>, step: f64) -> Outcome<usize> {
        let now = Cell::new(0.0);
        let list: Vec<usize> = (0..points).collect();
        run_points(
            &list,
            budget,
            || now.get(),
            |&p| {
                now.set(now.get() + step);
                Ok(p)
            },
        )
        .unwrap()
    }

    #[test]
    fn budget_leaves_out_points_that_would_start_after_it() {
        // 10 s per point, 25 s budget: points start at 0, 10, 20 (within), 30 (after): 3 run.
        let o = run(6, Some(25.0), 10.0);
        assert_eq!((o.results, o.left_out, o.stopped_by), (vec![0, 1, 2], 3, None));
        // A point may start exactly at the budget (op_ab.py's `elapsed > budget`).
        assert_eq!(run(6, Some(20.0), 10.0).results.len(), 3);
        // No budget, or 0 (op_ab.py's falsy budget): everything runs.
        for budget in [None, Some(0.0)] {
            let o = run(6, budget, 100.0);
            assert_eq!((o.results.len(), o.left_out), (6, 0));
        }
        // The budget spent on the first point still lets it run: it starts at 0.
        assert_eq!(run(3, Some(1.0), 50.0).results, vec![0]);
    }

    #[test]
    fn a_stop_keeps_the_finished_points_and_a_failure_keeps_none() {
        let list = [0, 1, 2, 3];
        let stopped = run_points(
            &list,
            None,
            || 0.0,
            |&p| {
                if p == 2 {
                    Err(Halt::Stopped("SIGTERM".into()))
                } else {
                    Ok(p)
                }
            },
        )
        .unwrap();
        assert_eq!(stopped.results, vec![0, 1]);
        assert_eq!((stopped.stopped_by.as_deref(), stopped.left_out), (Some("SIGTERM"), 0));
        let failed = run_points(
            &list,
            None,
            || 0.0,
            |&p| {
                if p == 1 {
                    Err(Halt::Failed("worker b exited".into()))
                } else {
                    Ok(p)
                }
            },
        );
        assert_eq!(failed.unwrap_err(), "worker b exited");
    }
}
