//! `mlx-ab ops --precompile N`: before anything is timed, N extra workers per arm take the
//! points off one shared list and send each point's warm-up request once, so the kernels MLX
//! compiles at run time (CUDA: one after another within a process, up to a minute and more per
//! point) land in the arms' PTX caches side by side. The timed run's own warm-up then finds
//! them there. Measured on the H200 on 2026-12-04 (reports/h200/README.md): without it a
//! 21-point gather_qmm sweep spent about 300 of its 340 s compiling.
//!
//! Nothing is timed or reported here. A point whose warm-up fails is named on stderr and left to
//! the timed run, which fails on it with the worker's message as it would without this step.
//! Such a failure can be this step's own: MLX writes a cache file in place, so a worker may read
//! a module that another is still writing (two points sharing a kernel). Once every worker is
//! done the files are whole (each writer wrote the same bytes from the start), and the timed
//! workers, started only then, read only those.

use crate::ops_worker::{ArmSetup, Halt, OpWorker};
use mlx_ab_protocol::ops::OpRequest;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Sends every request of `warmups` once per arm, spread over `lanes` workers per arm. Stops
/// taking requests once `stop` says so. Err: a worker could not be started.
pub fn precompile(
    warmups: &[(String, OpRequest)],
    arms: &[(&str, ArmSetup)],
    lanes: usize,
    stop: &(dyn Fn() -> Option<String> + Sync),
) -> Result<(), String> {
    // Per arm, the index of the next request to send.
    let counters: Vec<AtomicUsize> = arms.iter().map(|_| AtomicUsize::new(0)).collect();
    std::thread::scope(|scope| {
        let mut handles = Vec::new();
        for (&(name, arm), next) in arms.iter().zip(&counters) {
            for lane in 0..lanes {
                let label = format!("{name}-precompile{lane}");
                handles.push(scope.spawn(move || -> Result<(), String> {
                    let start = || OpWorker::start(&label, arm);
                    let mut worker = start()?;
                    while stop().is_none() {
                        let i = next.fetch_add(1, Ordering::SeqCst);
                        let Some((point, request)) = warmups.get(i) else { break };
                        match worker.ask(request, stop) {
                            Ok(_) => {}
                            Err(Halt::Stopped(_)) => break,
                            Err(Halt::Failed(message)) => {
                                eprintln!(
                                    "precompile: {point}: {message} (the timed run retries it)"
                                );
                                // The worker may have died with it: the next point gets a new one.
                                std::mem::replace(&mut worker, start()?).close(true);
                            }
                        }
                    }
                    worker.close(stop().is_some());
                    Ok(())
                }));
            }
        }
        handles.into_iter().try_for_each(|h| {
            h.join().unwrap_or_else(|_| Err("a precompile worker's thread panicked".into()))
        })
    })
}
