//! `mlx-ab-worker generate`: one greedy generation on this binary's MLX; prints token ids and a
//! SHA-256 per step's logits (raw little-endian f32), so two builds can be compared by eye or by
//! `diff`.

use crate::{device, info, serve, GenerateArgs};
use mlx_ab_protocol::protocol::{self, Job};
use mlx_ab_protocol::{DeviceKind, Info};
use mlx_build::digest::hex;
use serde::Serialize;
use sha2::{Digest, Sha256};
use std::process::ExitCode;

#[derive(Serialize)]
struct Output {
    mlx: Info,
    /// The device the generation ran on.
    device: DeviceKind,
    prompt_tokens: usize,
    /// Generations of the same prompt run and discarded before this one.
    warmup: usize,
    tokens: Vec<u32>,
    /// SHA-256 of each step's logits as little-endian f32 bytes.
    logits_sha256: Vec<String>,
    prefill_tps: f64,
    decode_tps: f64,
    peak_memory_bytes: u64,
    /// With `--phases`: where the prefill's and the decode steps' time went.
    #[serde(skip_serializing_if = "Option::is_none")]
    prefill_phases: Option<mlx_model::Phases>,
    #[serde(skip_serializing_if = "Option::is_none")]
    decode_phases: Option<mlx_model::Phases>,
}

pub fn main(args: GenerateArgs) -> Result<ExitCode, String> {
    let job = Job {
        protocol: protocol::VERSION,
        model_dir: args.model.clone(),
        prompt: args.tokens.clone(),
        max_tokens: args.max_tokens,
        prefill_chunk: args.prefill_chunk,
        device: args.device,
    };
    let device = device::select(job.device)?;
    let model = mlx_model::Model::load(&job.model_dir)
        .map_err(|e| format!("loading model {}: {e}", job.model_dir.display()))?;
    for _ in 0..args.warmup {
        serve::generate(&model, &job, args.phases)?;
    }
    let generation = serve::generate(&model, &job, args.phases)?;
    let (prefill_phases, decode_phases) = (generation.prefill_phases, generation.decode_phases);
    let logits = protocol::logits_to_bytes(&generation.logits);
    let result = serve::run_result(&model, generation);
    let output = Output {
        mlx: info::current(),
        device,
        prompt_tokens: result.prompt_tokens,
        warmup: args.warmup,
        logits_sha256: logits
            .chunks((4 * result.vocab).max(1))
            .map(|row| hex(&Sha256::digest(row)))
            .collect(),
        tokens: result.tokens,
        prefill_tps: result.prefill_tps,
        decode_tps: result.decode_tps,
        peak_memory_bytes: result.peak_memory_bytes,
        prefill_phases,
        decode_phases,
    };
    let text = serde_json::to_string_pretty(&output).map_err(|e| e.to_string())? + "\n";
    if let Some(path) = &args.json {
        std::fs::write(path, &text).map_err(|e| format!("writing {}: {e}", path.display()))?;
    }
    print!("{text}");
    Ok(ExitCode::SUCCESS)
}
