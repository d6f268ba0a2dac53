//! Evaluates the seeded graphs of `mlx_tests::graphs` and prints their outputs, so that a build
//! against stock MLX can be compared with a patched one across processes
//! (tests/tests/eval_walk.rs builds this binary with `--no-default-features`).
//!
//! Usage: `graph-eval SEED...`. Prints `patches ID,ID,...` (empty for stock MLX), then per seed
//! a line `seed N` followed by `graphs::encode` of its outputs, or `seed N error MESSAGE`.

use mlx_tests::graphs;
use std::io::Write;
use std::process::ExitCode;

fn main() -> ExitCode {
    let mut out = std::io::stdout().lock();
    let mut text = format!("patches {}\n", mlx::build_info().patches.join(","));
    for arg in std::env::args().skip(1) {
        let Ok(seed) = arg.parse::<u64>() else {
            eprintln!("graph-eval: not a seed: {arg:?}");
            return ExitCode::FAILURE;
        };
        match graphs::evaluate(seed) {
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
