//! Evaluates the seeded graphs of `mlx_tests::graphs` and prints their outputs, so that a build
//! against stock MLX can be compared with a patched one across processes
//! (tests/tests/graphs_vs_stock.rs builds this binary with `--no-default-features`).
//!
//! Usage: `graph-eval [moe] SEED...`. Prints `patches ID,ID,...` (empty for stock MLX), then per
//! seed a line `seed N` followed by `graphs::encode` of its outputs, or `seed N error MESSAGE`.
//! The seeds are of `mlx_tests::graphs`, or with `moe` of `mlx_tests::moe`'s gather_qmm cases.
//!
//! `graph-eval moe-groups FROM COUNT` prints the moe seeds FROM..FROM+COUNT, one line per
//! quantization of their cases on `mlx_tests::device()` (`moe::seeds_by_quant`), and nothing
//! else: each line, given to `graph-eval moe`, compiles run-time kernels no other line needs.
//!
//! `graph-eval import FUNCTION INPUTS` imports the exported function `FUNCTION` (an `.mlxfn`
//! file, `mlx::export`) and calls it on the arrays of the safetensors file `INPUTS`, named `0`,
//! `1`, ... in argument order, on the CPU. Prints the `patches` line, then `import ok` followed
//! by `graphs::encode` of the outputs, or `import error MESSAGE`; either way it exits 0 (MLX's
//! error is a result here, a crash is not).

use mlx_tests::{graphs, moe};
use std::io::Write;
use std::process::ExitCode;

fn main() -> ExitCode {
    let mut out = std::io::stdout().lock();
    let mut text = format!("patches {}\n", mlx::build_info().patches.join(","));
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("import") {
        let [_, function, inputs] = &args[..] else {
            eprintln!("usage: graph-eval import FUNCTION INPUTS");
            return ExitCode::FAILURE;
        };
        match import_and_call(function, inputs) {
            Ok(outputs) => text.push_str(&format!("import ok\n{}", graphs::encode(&outputs))),
            Err(e) => {
                text.push_str(&format!("import error {}\n", e.to_string().replace('\n', " ")))
            }
        }
        return if out.write_all(text.as_bytes()).and_then(|()| out.flush()).is_ok() {
            ExitCode::SUCCESS
        } else {
            ExitCode::FAILURE
        };
    }
    if args.first().map(String::as_str) == Some("moe-groups") {
        let [from, count] = &args[1..] else {
            eprintln!("usage: graph-eval moe-groups FROM COUNT");
            return ExitCode::FAILURE;
        };
        let (Ok(from), Ok(count)) = (from.parse::<u64>(), count.parse::<u64>()) else {
            eprintln!("graph-eval moe-groups: FROM and COUNT are numbers: {from:?} {count:?}");
            return ExitCode::FAILURE;
        };
        let gpu = mlx_tests::device().kind == mlx::DeviceType::Gpu;
        for group in moe::seeds_by_quant(from..from.saturating_add(count), gpu) {
            let line: Vec<String> = group.iter().map(u64::to_string).collect();
            if writeln!(out, "{}", line.join(" ")).is_err() {
                return ExitCode::FAILURE;
            }
        }
        return ExitCode::SUCCESS;
    }
    type Evaluate = fn(u64) -> mlx::Result<Vec<graphs::Output>>;
    let (evaluate, seeds): (Evaluate, _) = match args.split_first() {
        Some((word, seeds)) if word == "moe" => (moe::evaluate, seeds),
        _ => (graphs::evaluate, &args[..]),
    };
    for arg in seeds {
        let Ok(seed) = arg.parse::<u64>() else {
            eprintln!("graph-eval: not a seed: {arg:?}");
            return ExitCode::FAILURE;
        };
        match evaluate(seed) {
            Ok(outputs) => text.push_str(&format!("seed {seed}\n{}", graphs::encode(&outputs))),
            Err(e) => {
                text.push_str(&format!("seed {seed} error {}\n", e.to_string().replace('\n', " ")))
            }
        }
        // A reader that stops early (a closed pipe) ends the run quietly.
        if out.write_all(text.as_bytes()).is_err() {
            return ExitCode::FAILURE;
        }
        text.clear();
    }
    if out.write_all(text.as_bytes()).and_then(|()| out.flush()).is_err() {
        return ExitCode::FAILURE;
    }
    ExitCode::SUCCESS
}

/// Imports `function` and calls it on the arrays `0`, `1`, ... of the safetensors file `inputs`.
fn import_and_call(function: &str, inputs: &str) -> mlx::Result<Vec<graphs::Output>> {
    mlx::Device::cpu().set_default()?;
    let mut tensors = mlx::io::load_safetensors(inputs)?.tensors;
    let args: Vec<mlx::Array> =
        (0..tensors.len()).map_while(|i| tensors.remove(&i.to_string())).collect();
    let outputs = mlx::export::import_function(function)?.call(&args)?;
    mlx::eval(&outputs)?;
    outputs.iter().map(graphs::output).collect()
}
