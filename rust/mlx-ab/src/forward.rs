//! The subcommands the driver hands to one arm's worker (`info`, `make-model`, `generate`,
//! `determinism`, all of which need MLX): take the prebuilt worker or build that arm's, run it
//! with the arm's environment, and pass its output and exit status on.

use crate::arm::{parse_patch_list, ArmSpec};
use crate::cargo_build;
use crate::cli::{DeterminismCommand, GenerateCommand, WorkerChoice};
use crate::prebuilt::{ArmBinary, Prebuilt};
use mlx_ab_protocol::MakeModelArgs;
use std::ffi::OsString;
use std::path::Path;
use std::process::{Command, ExitCode};

/// The chosen worker: the layout's (`--prebuilt`), else the arm of `--patches`, built here.
pub fn worker(choice: &WorkerChoice) -> Result<ArmBinary, String> {
    match &choice.prebuilt {
        Some(dir) => ArmBinary::prebuilt(Prebuilt::open(dir, "--prebuilt")?),
        None => {
            let spec = ArmSpec::new(parse_patch_list(&choice.patches)?, None, Vec::new())?;
            Ok(ArmBinary::built(cargo_build::build(&spec, "worker")?))
        }
    }
}

/// The worker as a command, with its arm's environment and kernel cache (a forwarded
/// `generate` warms the cache that `run` then finds).
fn command(worker: &ArmBinary, args: &[OsString]) -> Result<Command, String> {
    let mut command = Command::new(&worker.binary);
    command.args(args).envs(crate::ptx_cache::worker_env(worker)?);
    Ok(command)
}

/// Runs the worker on this terminal; its exit status is ours (2 if a signal ended it).
fn hand_over(worker: &ArmBinary, args: &[OsString]) -> Result<ExitCode, String> {
    let status = command(worker, args)?
        .status()
        .map_err(|e| format!("starting {}: {e}", worker.binary.display()))?;
    Ok(ExitCode::from(status.code().and_then(|c| u8::try_from(c).ok()).unwrap_or(2)))
}

pub fn info(choice: &WorkerChoice) -> Result<ExitCode, String> {
    hand_over(&worker(choice)?, &["info".into()])
}

fn make_model_args(options: &MakeModelArgs) -> Vec<OsString> {
    std::iter::once("make-model".into()).chain(options.to_args()).collect()
}

pub fn make_model(choice: &WorkerChoice, options: &MakeModelArgs) -> Result<ExitCode, String> {
    hand_over(&worker(choice)?, &make_model_args(options))
}

/// Writes a synthetic checkpoint with `worker`, quietly (for `run`); its stderr in the error.
pub fn write_model(worker: &ArmBinary, out: &Path, preset: &str, seed: u64) -> Result<(), String> {
    let options = MakeModelArgs { out: out.to_path_buf(), preset: preset.to_string(), seed };
    let output = command(worker, &make_model_args(&options))?
        .output()
        .map_err(|e| format!("starting {}: {e}", worker.binary.display()))?;
    if output.status.success() {
        return Ok(());
    }
    Err(format!(
        "{} make-model failed ({}): {}",
        worker.binary.display(),
        output.status,
        String::from_utf8_lossy(&output.stderr).trim()
    ))
}

pub fn generate(args: &GenerateCommand) -> Result<ExitCode, String> {
    let mut options = args.options.clone();
    options.model = crate::cache_dir::absolute(options.model)?;
    hand_over_command(&args.worker, "generate", options.to_args())
}

pub fn determinism(args: &DeterminismCommand) -> Result<ExitCode, String> {
    let mut options = args.options.clone();
    options.model = crate::cache_dir::absolute(options.model)?;
    hand_over_command(&args.worker, "determinism", options.to_args())
}

/// The worker's `command` with `args`, in this process's place.
fn hand_over_command(
    choice: &WorkerChoice,
    command: &str,
    args: Vec<OsString>,
) -> Result<ExitCode, String> {
    let forwarded: Vec<OsString> = std::iter::once(command.into()).chain(args).collect();
    hand_over(&worker(choice)?, &forwarded)
}
