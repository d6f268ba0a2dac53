//! `mlx-ab`: build, run and compare MLX builds (stock vs patched, or any two).
//!
//! Errors print one message and exit with status 2; `run` exits 1 when the arms' outputs differ.

mod arm;
mod cache_dir;
mod cargo_build;
mod cli;
mod compare;
mod device;
mod generate;
mod info;
mod markdown;
mod prebuilt;
mod protocol;
mod provenance;
mod ptx_cache;
mod report;
mod rng;
mod run;
mod schedule;
mod stats;
mod tally;
mod ui;
mod worker;
mod worker_process;
mod workload;

use clap::Parser;
use cli::{Cli, Command};
use std::process::ExitCode;

fn main() -> ExitCode {
    let result = match Cli::parse().command {
        Command::Info => info::print(),
        Command::MakeModel { out, preset, seed } => make_model(&out, &preset, seed),
        Command::Generate(args) => generate::main(args),
        Command::Run(args) => run::main(*args),
        Command::Worker { job } => return worker::main(&job),
    };
    match result {
        Ok(code) => code,
        Err(error) => {
            eprintln!("mlx-ab: error: {error}");
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
