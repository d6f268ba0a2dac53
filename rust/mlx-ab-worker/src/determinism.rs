//! `mlx-ab-worker determinism`: runs one prompt's forward passes several times in this process
//! with every tap of the model recorded (`mlx_model::trace`) and compares each tap with the
//! first run bit for bit, to find the op that is not deterministic on this MLX and device.
//!
//! Prints one line per tap in graph order (name, dtype, shape, repeats that differ, differing
//! elements in the worst repeat, max |difference|, FNV-1a of run 1's bytes: diff two processes'
//! outputs to compare them), then a summary naming the first tap that differs. Exit status 0
//! when every tap is identical, 1 when one differs.

use crate::device;
use mlx_ab_protocol::DeterminismArgs;
use std::io::Write;
use std::process::ExitCode;

pub fn main(args: DeterminismArgs) -> Result<ExitCode, String> {
    let device = device::select(args.device)?;
    let model = mlx_model::Model::load(&args.model)
        .map_err(|e| format!("loading model {}: {e}", args.model.display()))?;
    let comparison = mlx_model::determinism::run(
        &model,
        &args.tokens,
        args.repeats,
        args.prefill_chunk,
        args.decode_steps,
    )
    .map_err(|e| format!("determinism run failed: {e}"))?;
    let mut out = std::io::stdout().lock();
    let write = |out: &mut std::io::StdoutLock, line: &str| {
        writeln!(out, "{line}").map_err(|e| format!("writing stdout: {e}"))
    };
    write(
        &mut out,
        &format!(
            "# device {device}, {} prompt tokens, prefill chunk {}, {} decode steps, {} repeats",
            args.tokens.len(),
            args.prefill_chunk,
            args.decode_steps,
            comparison.repeats
        ),
    )?;
    for tap in &comparison.taps {
        write(&mut out, &tap.to_string())?;
    }
    write(&mut out, &comparison.summary())?;
    Ok(if comparison.first_difference().is_some() { ExitCode::from(1) } else { ExitCode::SUCCESS })
}
