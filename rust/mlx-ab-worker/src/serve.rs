//! `mlx-ab-worker serve --job FILE`: one arm's process under the driver. Loads the model once,
//! then runs generations on request (see `mlx_ab_protocol::protocol`). Stdout carries only
//! protocol replies.

use crate::fault::Faults;
use crate::{device, info};
use mlx_ab_protocol::protocol::{self, Job, Reply, Request, RunResult};
use std::io::{BufRead, Write};
use std::path::Path;
use std::process::ExitCode;
use std::time::Instant;

pub fn main(job_path: &Path) -> ExitCode {
    let mut out = std::io::stdout().lock();
    match serve(job_path, &mut out) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            reply(&mut out, &Reply::Error { message });
            ExitCode::from(2)
        }
    }
}

fn reply(out: &mut impl Write, message: &Reply) {
    let line = serde_json::to_string(message).expect("replies serialize");
    // A broken pipe means the parent is gone; nothing is left to tell.
    let _ = writeln!(out, "{line}").and_then(|_| out.flush());
}

fn serve(job_path: &Path, out: &mut impl Write) -> Result<(), String> {
    let text = std::fs::read_to_string(job_path)
        .map_err(|e| format!("reading job {}: {e}", job_path.display()))?;
    let job: Job =
        serde_json::from_str(&text).map_err(|e| format!("job {}: {e}", job_path.display()))?;
    if job.protocol != protocol::VERSION {
        return Err(format!(
            "protocol {} requested, this worker speaks {}: rebuild the arm from the same sources",
            job.protocol,
            protocol::VERSION
        ));
    }
    // Before anything is loaded: the weights are made on the default device's stream.
    let device = device::select(job.device)?;
    let started = Instant::now();
    let model = mlx_model::Model::load(&job.model_dir)
        .map_err(|e| format!("loading model {}: {e}", job.model_dir.display()))?;
    reply(
        out,
        &Reply::Ready {
            info: info::current(),
            device,
            load_seconds: started.elapsed().as_secs_f64(),
            model_dtype: model.dtype().to_string(),
        },
    );

    let faults = Faults::from_env(); // none unless built for mlx-ab's tests
    let mut runs = 0;
    for line in std::io::stdin().lock().lines() {
        let line = line.map_err(|e| format!("reading request: {e}"))?;
        if line.trim().is_empty() {
            continue;
        }
        let request: Request =
            serde_json::from_str(&line).map_err(|e| format!("request {line:?}: {e}"))?;
        match request {
            Request::Quit => return Ok(()),
            Request::Run { logits_path } => {
                runs += 1;
                faults.before_run(runs);
                let result = run_once(&model, &job, logits_path.as_deref())?;
                reply(out, &Reply::Ran(result));
            }
        }
    }
    Ok(()) // parent closed stdin
}

/// One generation, checked for shape, logits written out.
pub fn run_once(
    model: &mlx_model::Model,
    job: &Job,
    logits_path: Option<&Path>,
) -> Result<RunResult, String> {
    let generation = generate(model, job, false)?;
    if let Some(path) = logits_path {
        std::fs::write(path, protocol::logits_to_bytes(&generation.logits))
            .map_err(|e| format!("writing logits {}: {e}", path.display()))?;
    }
    Ok(run_result(model, generation))
}

/// What a run reports besides its logits.
pub fn run_result(model: &mlx_model::Model, generation: mlx_model::Generation) -> RunResult {
    RunResult {
        vocab: model.config().vocab_size,
        prompt_tokens: generation.prompt_tokens,
        prefill_seconds: generation.prefill_seconds,
        decode_seconds: generation.decode_seconds,
        prefill_tps: generation.prefill_tokens_per_second(),
        decode_tps: generation.decode_tokens_per_second(),
        peak_memory_bytes: generation.peak_memory_bytes as u64,
        tokens: generation.tokens,
    }
}

/// One generation of `job`, checked for a logit row per token (`phases`: with its prefill's and
/// decode steps' time split, `mlx_model::generate_with_phases`).
pub fn generate(
    model: &mlx_model::Model,
    job: &Job,
    phases: bool,
) -> Result<mlx_model::Generation, String> {
    let run = if phases { mlx_model::generate_with_phases } else { mlx_model::generate };
    let generation = run(model, &job.prompt, job.max_tokens, job.prefill_chunk)
        .map_err(|e| format!("generation failed: {e}"))?;
    let vocab = model.config().vocab_size;
    if generation.logits.len() != generation.tokens.len()
        || generation.logits.iter().any(|row| row.len() != vocab)
    {
        return Err(format!(
            "generation returned {} tokens but {} logit rows (vocabulary {vocab})",
            generation.tokens.len(),
            generation.logits.len()
        ));
    }
    Ok(generation)
}
