//! The options of the worker's `make-model`, `generate` and `determinism`, parsed by the worker
//! and by the driver, which hands them on (`to_args`).

use crate::DeviceKind;
use clap::Args;
use std::ffi::OsString;
use std::path::{Path, PathBuf};

#[derive(Args, Debug, Clone, PartialEq)]
pub struct MakeModelArgs {
    #[arg(long)]
    pub out: PathBuf,
    /// One of the presets of `mlx-workload` (bench, bench-bf16, tiny, tiny-bf16, tiny-dense, qwen3-30b-a3b).
    #[arg(long, default_value = "bench")]
    pub preset: String,
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
}

impl MakeModelArgs {
    /// The command line that parses back into these options.
    pub fn to_args(&self) -> Vec<OsString> {
        vec![
            "--out".into(),
            self.out.clone().into(),
            "--preset".into(),
            self.preset.clone().into(),
            "--seed".into(),
            self.seed.to_string().into(),
        ]
    }
}

#[derive(Args, Debug, Clone, PartialEq)]
pub struct GenerateArgs {
    #[arg(long)]
    pub model: PathBuf,
    /// Prompt token ids, comma separated.
    #[arg(long, value_delimiter = ',', required = true)]
    pub tokens: Vec<u32>,
    #[arg(long)]
    pub max_tokens: usize,
    #[arg(long, default_value_t = 512)]
    pub prefill_chunk: usize,
    /// Device to generate on. Default: the GPU when that MLX has one, else the CPU.
    #[arg(long, value_enum)]
    pub device: Option<DeviceKind>,
    /// Also write the result as JSON here.
    #[arg(long)]
    pub json: Option<PathBuf>,
    /// Split the prefill's and the decode steps' time into graph building, MLX's submission,
    /// waiting, reading back and clearing MLX's buffer cache (chunks and steps evaluated with
    /// `async_eval`, so not comparable with a run without this).
    #[arg(long, alias = "decode-phases")]
    pub phases: bool,
    /// Generations of the same prompt run first, the same way, and discarded: a fresh process's
    /// first generation also pays one-time costs (compiling and loading kernels, instantiating
    /// CUDA graphs).
    #[arg(long, default_value_t = 0)]
    pub warmup: usize,
}

impl GenerateArgs {
    /// The command line that parses back into these options.
    pub fn to_args(&self) -> Vec<OsString> {
        let mut args = prompt_args(&self.model, &self.tokens, self.prefill_chunk, self.device);
        args.extend(["--max-tokens".into(), self.max_tokens.to_string().into()]);
        if let Some(json) = &self.json {
            args.extend(["--json".into(), json.into()]);
        }
        if self.phases {
            args.push("--phases".into());
        }
        if self.warmup > 0 {
            args.extend(["--warmup".into(), self.warmup.to_string().into()]);
        }
        args
    }
}

#[derive(Args, Debug, Clone, PartialEq)]
pub struct DeterminismArgs {
    #[arg(long)]
    pub model: PathBuf,
    /// Prompt token ids, comma separated.
    #[arg(long, value_delimiter = ',', required = true)]
    pub tokens: Vec<u32>,
    /// Runs of the prompt in one process (at least 2); runs 2.. are compared with run 1.
    #[arg(long, default_value_t = 3)]
    pub repeats: usize,
    #[arg(long, default_value_t = 512)]
    pub prefill_chunk: usize,
    /// Also trace this many decode steps after the prefill (one token each: run 1's argmax).
    #[arg(long, default_value_t = 0)]
    pub decode_steps: usize,
    /// Device to run on. Default: the GPU when that MLX has one, else the CPU.
    #[arg(long, value_enum)]
    pub device: Option<DeviceKind>,
}

impl DeterminismArgs {
    /// The command line that parses back into these options.
    pub fn to_args(&self) -> Vec<OsString> {
        let mut args = prompt_args(&self.model, &self.tokens, self.prefill_chunk, self.device);
        args.extend(["--repeats".into(), self.repeats.to_string().into()]);
        args.extend(["--decode-steps".into(), self.decode_steps.to_string().into()]);
        args
    }
}

/// The options `generate` and `determinism` share, as a command line.
fn prompt_args(
    model: &Path,
    tokens: &[u32],
    prefill_chunk: usize,
    device: Option<DeviceKind>,
) -> Vec<OsString> {
    let tokens: Vec<String> = tokens.iter().map(u32::to_string).collect();
    let mut args: Vec<OsString> = vec!["--model".into(), model.into()];
    args.extend(["--tokens".into(), tokens.join(",").into()]);
    args.extend(["--prefill-chunk".into(), prefill_chunk.to_string().into()]);
    if let Some(device) = device {
        args.extend(["--device".into(), device.name().into()]);
    }
    args
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Parser)]
    struct Cli {
        #[command(flatten)]
        args: GenerateArgs,
    }

    #[derive(Parser)]
    struct MakeModelCli {
        #[command(flatten)]
        args: MakeModelArgs,
    }

    #[derive(Parser)]
    struct DeterminismCli {
        #[command(flatten)]
        args: DeterminismArgs,
    }

    #[test]
    fn determinism_to_args_parses_back() {
        for device in [None, Some(DeviceKind::Cpu)] {
            let args = DeterminismArgs {
                model: "m".into(),
                tokens: vec![2, 7],
                repeats: 4,
                prefill_chunk: 9,
                decode_steps: 3,
                device,
            };
            let line = std::iter::once(OsString::from("x")).chain(args.to_args());
            assert_eq!(DeterminismCli::parse_from(line).args, args);
        }
    }

    #[test]
    fn make_model_to_args_parses_back() {
        let args = MakeModelArgs { out: "dir".into(), preset: "tiny".into(), seed: 9 };
        let line = std::iter::once(OsString::from("x")).chain(args.to_args());
        assert_eq!(MakeModelCli::parse_from(line).args, args);
    }

    #[test]
    fn decode_phases_is_the_old_name_of_phases() {
        let line = ["x", "--model", "m", "--tokens", "1", "--max-tokens", "2", "--decode-phases"];
        assert!(Cli::parse_from(line).args.phases);
    }

    #[test]
    fn to_args_parses_back_to_the_same_options() {
        for (device, json, phases, warmup) in [
            (None, None, false, 0),
            (Some(DeviceKind::Gpu), Some(PathBuf::from("o.json")), true, 2),
        ] {
            let args = GenerateArgs {
                model: "m".into(),
                tokens: vec![3, 1, 4],
                max_tokens: 5,
                prefill_chunk: 7,
                device,
                json,
                phases,
                warmup,
            };
            let line = std::iter::once(OsString::from("x")).chain(args.to_args());
            assert_eq!(Cli::parse_from(line).args, args);
        }
    }
}
