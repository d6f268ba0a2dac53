//! `mlx-ab`: the A/B driver. It builds each arm's worker (`mlx-ab-worker`, which links that arm's
//! MLX) or takes it prebuilt, runs both on one workload, compares and reports. It links no MLX
//! itself: `info`, `make-model`, `generate` and `determinism` are handed to a worker.
//!
//! Errors print one message and exit with status 2; `run` exits 1 when the arms' outputs differ.

mod arm;
mod book;
mod book_patches;
mod book_record;
mod book_render;
mod book_scripts;
mod book_sources;
mod cache_dir;
mod cargo_build;
mod cli;
mod compare;
mod deterministic;
mod forward;
mod gpu_name;
mod graph_cost;
mod markdown;
mod ops;
mod ops_points;
mod ops_precompile;
mod ops_report;
mod ops_worker;
mod prebuilt;
mod provenance;
mod ptx_cache;
mod report;
mod rng;
mod roofline;
mod run;
mod run_report;
mod schedule;
mod script;
mod script_report;
mod script_timings;
mod stats;
mod tally;
mod ui;
mod worker_process;
mod workload;

use clap::Parser;
use cli::{Cli, Command};
use std::process::ExitCode;

fn main() -> ExitCode {
    let result = match Cli::parse().command {
        Command::Run(args) => run::main(*args),
        Command::Info(choice) => forward::info(&choice),
        Command::MakeModel { worker, options } => forward::make_model(&worker, &options),
        Command::Generate(args) => forward::generate(&args),
        Command::Determinism(args) => forward::determinism(&args),
        Command::Ops(args) => ops::main(*args),
        Command::Script(args) => script::main(*args),
        Command::BuildWorker { patches, fault_injection } => {
            build_worker(&patches, fault_injection)
        }
        Command::Book { check, root, record_series } => book::main(root, check, record_series),
        Command::Roofline { files, bandwidth_tbps, bf16_tflops, json, root } => root
            .map_or_else(book::default_root, Ok)
            .and_then(|root| {
                let limits = (bandwidth_tbps, bf16_tflops);
                roofline::main(&root, &files, limits, json.as_deref())
            })
            .map(|()| ExitCode::SUCCESS),
    };
    match result {
        Ok(code) => code,
        Err(error) => {
            eprintln!("mlx-ab: error: {error}");
            ExitCode::from(2)
        }
    }
}

fn build_worker(patches: &str, fault_injection: bool) -> Result<ExitCode, String> {
    let spec = arm::ArmSpec::new(arm::parse_patch_list(patches)?, None, Vec::new())?;
    let built = cargo_build::build_with(&spec, "worker", fault_injection)?;
    println!("{}", built.binary.display());
    Ok(ExitCode::SUCCESS)
}
