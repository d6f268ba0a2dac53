//! `mlx-ab`: build, run and compare MLX builds (stock vs patched, or any two).

mod info;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

#[derive(Parser)]
#[command(version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Print, as JSON, the MLX this binary links: version, applied patches, source digest.
    Info,
}

fn main() -> ExitCode {
    let result = match Cli::parse().command {
        Command::Info => info::print(),
    };
    match result {
        Ok(code) => code,
        Err(error) => {
            eprintln!("mlx-ab: {error}");
            ExitCode::from(2)
        }
    }
}
