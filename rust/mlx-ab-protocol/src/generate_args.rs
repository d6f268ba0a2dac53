//! The options of `generate`, parsed by the worker and by the driver, which hands them on.

use crate::DeviceKind;
use clap::Args;
use std::ffi::OsString;
use std::path::PathBuf;

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
}

impl GenerateArgs {
    /// The command line that parses back into these options.
    pub fn to_args(&self) -> Vec<OsString> {
        let tokens: Vec<String> = self.tokens.iter().map(u32::to_string).collect();
        let mut args: Vec<OsString> = vec!["--model".into(), self.model.clone().into()];
        args.extend(["--tokens".into(), tokens.join(",").into()]);
        args.extend(["--max-tokens".into(), self.max_tokens.to_string().into()]);
        args.extend(["--prefill-chunk".into(), self.prefill_chunk.to_string().into()]);
        if let Some(device) = self.device {
            args.extend(["--device".into(), device.name().into()]);
        }
        if let Some(json) = &self.json {
            args.extend(["--json".into(), json.into()]);
        }
        args
    }
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

    #[test]
    fn to_args_parses_back_to_the_same_options() {
        for (device, json) in [(None, None), (Some(DeviceKind::Gpu), Some(PathBuf::from("o.json")))]
        {
            let args = GenerateArgs {
                model: "m".into(),
                tokens: vec![3, 1, 4],
                max_tokens: 5,
                prefill_chunk: 7,
                device,
                json,
            };
            let line = std::iter::once(OsString::from("x")).chain(args.to_args());
            assert_eq!(Cli::parse_from(line).args, args);
        }
    }
}
