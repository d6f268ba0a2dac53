//! `mlx-ab generate`: one greedy generation; prints token ids and a SHA-256 per step's logits
//! (raw little-endian f32), so two builds can be compared by eye or by `diff`.

use crate::arm::{hex, parse_patch_list, ArmSpec};
use crate::cli::GenerateArgs;
use crate::device::{self, DeviceKind};
use crate::info::Info;
use crate::protocol::{self, Job, RunResult};
use crate::worker_process::Worker;
use crate::{cache_dir, cargo_build, worker};
use serde::Serialize;
use sha2::{Digest, Sha256};
use std::process::ExitCode;

#[derive(Serialize)]
struct Output {
    mlx: Info,
    /// The device the generation ran on.
    device: DeviceKind,
    prompt_tokens: usize,
    tokens: Vec<u32>,
    /// SHA-256 of each step's logits as little-endian f32 bytes.
    logits_sha256: Vec<String>,
    prefill_tps: f64,
    decode_tps: f64,
    peak_memory_bytes: u64,
}

pub fn main(args: GenerateArgs) -> Result<ExitCode, String> {
    let job = Job {
        protocol: protocol::VERSION,
        model_dir: cache_dir::absolute(args.model.clone())?,
        prompt: args.tokens.clone(),
        max_tokens: args.max_tokens,
        prefill_chunk: args.prefill_chunk,
        device: args.device,
    };
    let (info, device, result, logits) = match &args.patches {
        None => in_process(&job)?,
        Some(list) => in_arm(&job, ArmSpec::new(parse_patch_list(list)?, None, Vec::new())?)?,
    };
    let row_bytes = 4 * result.vocab;
    let output = Output {
        mlx: info,
        device,
        prompt_tokens: result.prompt_tokens,
        logits_sha256: protocol::logits_to_bytes(&[logits])
            .chunks(row_bytes.max(1))
            .map(|row| hex(&Sha256::digest(row)))
            .collect(),
        tokens: result.tokens,
        prefill_tps: result.prefill_tps,
        decode_tps: result.decode_tps,
        peak_memory_bytes: result.peak_memory_bytes,
    };
    let text = serde_json::to_string_pretty(&output).map_err(|e| e.to_string())? + "\n";
    if let Some(path) = &args.json {
        std::fs::write(path, &text).map_err(|e| format!("writing {}: {e}", path.display()))?;
    }
    print!("{text}");
    Ok(ExitCode::SUCCESS)
}

fn in_process(job: &Job) -> Result<(Info, DeviceKind, RunResult, Vec<f32>), String> {
    let device = device::select(job.device)?;
    let model = mlx_model::Model::load(&job.model_dir)
        .map_err(|e| format!("loading model {}: {e}", job.model_dir.display()))?;
    let generation = worker::generate(&model, job)?;
    let logits = generation.logits.concat();
    Ok((Info::current(), device, worker::run_result(&model, generation), logits))
}

fn in_arm(job: &Job, spec: ArmSpec) -> Result<(Info, DeviceKind, RunResult, Vec<f32>), String> {
    let built = cargo_build::build(&spec, "generate")?;
    let dir = cache_dir::root()?.join("runs").join(format!("generate-{}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| format!("creating {}: {e}", dir.display()))?;
    let outcome = (|| {
        let (mut worker, ready) = Worker::start("generate", &built.binary, &[], job, &dir, None)?;
        let logits_path = dir.join("logits.f32");
        let result = worker.run(Some(&logits_path))?;
        worker.quit()?;
        let bytes = std::fs::read(&logits_path)
            .map_err(|e| format!("reading {}: {e}", logits_path.display()))?;
        Ok((ready.info, ready.device, result, protocol::logits_from_bytes(&bytes)?))
    })();
    let _ = std::fs::remove_dir_all(&dir);
    outcome
}
