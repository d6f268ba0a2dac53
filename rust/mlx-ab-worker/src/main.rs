//! `mlx-ab-worker`: everything of mlx-ab that needs MLX, linked against one arm's MLX (its cargo
//! features pick the patches). `mlx-ab` (the driver, no MLX) starts one per arm with `serve`;
//! `info`, `make-model`, `generate` and `determinism` also work on their own.
//!
//! Errors print one message and exit with status 2 (`determinism` exits 1 when a tap differs).

mod determinism;
mod device;
mod fault;
mod generate;
mod info;
mod serve;

use clap::{Parser, Subcommand};
pub use mlx_ab_protocol::{DeterminismArgs, GenerateArgs, MakeModelArgs};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Parser)]
#[command(version, about = "One arm of mlx-ab: runs the model on the MLX this binary links.")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Print, as JSON, the MLX this binary links: version, applied patches, source digest.
    Info,
    /// Write a synthetic checkpoint (config.json + model.safetensors) from a preset and a seed.
    MakeModel(MakeModelArgs),
    /// Generate greedily; print the token ids and a SHA-256 of each step's logits.
    Generate(GenerateArgs),
    /// Run one prompt's forward passes several times with every intermediate array of the model
    /// recorded; print each one's comparison with the first run and name the first that is not
    /// bit-identical. Exit status: 0 all identical, 1 some differ, 2 error.
    Determinism(DeterminismArgs),
    /// Serve the driver (`mlx-ab run`): load the job's model, then generate on request.
    Serve {
        #[arg(long)]
        job: PathBuf,
    },
}

fn main() -> ExitCode {
    let result = match Cli::parse().command {
        Command::Info => info::print(),
        Command::MakeModel(args) => make_model(&args.out, &args.preset, args.seed),
        Command::Generate(args) => generate::main(args),
        Command::Determinism(args) => determinism::main(args),
        Command::Serve { job } => return serve::main(&job),
    };
    match result {
        Ok(code) => code,
        Err(error) => {
            eprintln!("mlx-ab-worker: error: {error}");
            ExitCode::from(2)
        }
    }
}

fn make_model(out: &std::path::Path, preset: &str, seed: u64) -> Result<ExitCode, String> {
    mlx_model::write_synthetic(out, preset, seed)
        .map_err(|e| format!("{e} (presets: {})", mlx_model::presets().join(", ")))?;
    let about = mlx_model::preset_description(preset).unwrap_or_default();
    println!("wrote {} (preset {preset}, seed {seed}: {about})", out.display());
    Ok(ExitCode::SUCCESS)
}
