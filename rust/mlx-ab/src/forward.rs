//! The subcommands the driver hands to one arm's worker (`info`, `make-model`, `generate`,
//! `determinism`, all of which need MLX): take the prebuilt worker or build that arm's, run it
//! with the arm's environment, and pass its output and exit status on.

use crate::arm::{parse_patch_list, ArmSpec};
use crate::cargo_build;
use crate::cli::{DeterminismCommand, GenerateCommand, WorkerChoice};
use crate::deterministic::{Backend, Determinism};
use crate::prebuilt::{ArmBinary, Prebuilt};
use mlx_ab_protocol::{DeviceKind, MakeModelArgs};
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
/// `generate` warms the cache that `run` then finds), and deterministic mode's knobs if asked.
fn command(worker: &ArmBinary, args: &[OsString], deterministic: bool) -> Result<Command, String> {
    let mut command = Command::new(&worker.binary);
    command
        .args(args)
        .envs(crate::ptx_cache::worker_env(worker)?)
        .envs(crate::deterministic::env(deterministic));
    Ok(command)
}

/// Runs the worker on this terminal; its exit status is ours (2 if a signal ended it).
fn hand_over(
    worker: &ArmBinary,
    args: &[OsString],
    deterministic: bool,
) -> Result<ExitCode, String> {
    let status = command(worker, args, deterministic)?
        .status()
        .map_err(|e| format!("starting {}: {e}", worker.binary.display()))?;
    Ok(ExitCode::from(status.code().and_then(|c| u8::try_from(c).ok()).unwrap_or(2)))
}

pub fn info(choice: &WorkerChoice) -> Result<ExitCode, String> {
    hand_over(&worker(choice)?, &["info".into()], false)
}

fn make_model_args(options: &MakeModelArgs) -> Vec<OsString> {
    std::iter::once("make-model".into()).chain(options.to_args()).collect()
}

pub fn make_model(choice: &WorkerChoice, options: &MakeModelArgs) -> Result<ExitCode, String> {
    hand_over(&worker(choice)?, &make_model_args(options), false)
}

/// Writes a synthetic checkpoint with `worker`, quietly (for `run`); its stderr in the error.
pub fn write_model(worker: &ArmBinary, out: &Path, preset: &str, seed: u64) -> Result<(), String> {
    let options = MakeModelArgs { out: out.to_path_buf(), preset: preset.to_string(), seed };
    let output = command(worker, &make_model_args(&options), false)?
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
    let forwarded = Forwarded { deterministic: args.deterministic, device: options.device };
    hand_over_command(&args.worker, "generate", options.to_args(), forwarded)
}

pub fn determinism(args: &DeterminismCommand) -> Result<ExitCode, String> {
    let mut options = args.options.clone();
    options.model = crate::cache_dir::absolute(options.model)?;
    let forwarded = Forwarded { deterministic: args.deterministic, device: options.device };
    hand_over_command(&args.worker, "determinism", options.to_args(), forwarded)
}

/// What the driver knows of a forwarded model command before its worker runs.
struct Forwarded {
    deterministic: bool,
    device: Option<DeviceKind>,
}

/// The worker's `command` with `args`, in this process's place. In deterministic mode a note on
/// stderr names the knobs and, where `--device cpu` says so, that they do not apply.
fn hand_over_command(
    choice: &WorkerChoice,
    command: &str,
    args: Vec<OsString>,
    forwarded: Forwarded,
) -> Result<ExitCode, String> {
    let worker = worker(choice)?;
    if forwarded.deterministic {
        eprintln!("mlx-ab {command}: {}", deterministic_note(forwarded.device));
    }
    let forwarded_args: Vec<OsString> = std::iter::once(command.into()).chain(args).collect();
    hand_over(&worker, &forwarded_args, forwarded.deterministic)
}

/// `deterministic mode on: ...`; the backend is known only for `--device cpu` (without it the
/// worker picks, and its output names the device).
fn deterministic_note(device: Option<DeviceKind>) -> String {
    let backend = (device == Some(DeviceKind::Cpu)).then_some(Backend::Cpu);
    format!("deterministic mode {}", Determinism::new(true, backend).describe())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_forwarded_command_says_what_deterministic_mode_sets_and_where_it_acts() {
        let cpu = deterministic_note(Some(DeviceKind::Cpu));
        assert!(cpu.starts_with("deterministic mode on: `MLX_CUDA_USE_CUDNN_SDPA=0`"), "{cpu}");
        assert!(cpu.contains("does not apply on the CPU"), "{cpu}");
        for device in [None, Some(DeviceKind::Gpu)] {
            let gpu = deterministic_note(device);
            assert!(gpu.contains("set; acts only on a CUDA GPU"), "{gpu}");
        }
    }

    #[test]
    fn the_knobs_reach_the_worker_only_in_deterministic_mode() {
        let worker = ArmBinary {
            binary: "/bin/true".into(),
            env: Vec::new(),
            dir: "/".into(),
            prebuilt: None,
        };
        let knob = |deterministic| {
            let command = command(&worker, &[], deterministic).unwrap();
            command
                .get_envs()
                .find(|(k, _)| *k == "MLX_CUDA_USE_CUDNN_SDPA")
                .and_then(|(_, v)| v.map(|v| v.to_os_string()))
        };
        assert_eq!(knob(true), Some("0".into()));
        assert_eq!(knob(false), None);
    }
}
