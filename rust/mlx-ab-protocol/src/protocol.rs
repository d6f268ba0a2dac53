//! What the driver and an arm's worker process say to each other: the job (a JSON file named on
//! the worker's command line, `mlx-ab-worker serve --job FILE`), then one JSON request per line on stdin and one JSON reply per
//! line on stdout. Logits travel as raw little-endian f32 files, `[steps][vocab]`, so the
//! parent compares exact bits.

use crate::device::DeviceKind;
use crate::info::Info;
use serde::{Deserialize, Serialize};
use std::path::PathBuf;

/// Bumped whenever a message changes; an arm built from other sources is refused.
pub const VERSION: u32 = 3;

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Job {
    pub protocol: u32,
    pub model_dir: PathBuf,
    pub prompt: Vec<u32>,
    pub max_tokens: usize,
    pub prefill_chunk: usize,
    /// The device to run on; `None`: the GPU if this MLX has one, else the CPU.
    pub device: Option<DeviceKind>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(tag = "request", rename_all = "snake_case")]
pub enum Request {
    /// Generate once; write the logits to `logits_path` when given.
    Run {
        logits_path: Option<PathBuf>,
    },
    Quit,
}

// One `Ready` per worker start: its size is not worth a box at every match.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(tag = "reply", rename_all = "snake_case")]
pub enum Reply {
    /// The model is loaded on `device`; `model_dtype` is its activation dtype (`float32`,
    /// `bfloat16`, ...).
    Ready {
        info: Info,
        device: DeviceKind,
        load_seconds: f64,
        model_dtype: String,
    },
    Ran(RunResult),
    Error {
        message: String,
    },
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct RunResult {
    pub tokens: Vec<u32>,
    pub vocab: usize,
    pub prompt_tokens: usize,
    pub prefill_seconds: f64,
    pub decode_seconds: f64,
    pub prefill_tps: f64,
    pub decode_tps: f64,
    pub peak_memory_bytes: u64,
}

/// `[steps][vocab]` f32 as little-endian bytes.
pub fn logits_to_bytes(rows: &[Vec<f32>]) -> Vec<u8> {
    rows.iter().flatten().flat_map(|v| v.to_le_bytes()).collect()
}

pub fn logits_from_bytes(bytes: &[u8]) -> Result<Vec<f32>, String> {
    if !bytes.len().is_multiple_of(4) {
        return Err(format!("logits file of {} bytes is not a whole number of f32", bytes.len()));
    }
    Ok(bytes.chunks_exact(4).map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn logits_round_trip_keeps_every_bit() {
        let rows = vec![
            vec![1.5f32, -0.0, f32::NAN, f32::from_bits(0x7fc0_0001)],
            vec![f32::INFINITY, f32::NEG_INFINITY, f32::MIN_POSITIVE / 2.0, 3.0],
        ];
        let back = logits_from_bytes(&logits_to_bytes(&rows)).unwrap();
        let bits: Vec<u32> = rows.iter().flatten().map(|v| v.to_bits()).collect();
        assert_eq!(back.iter().map(|v| v.to_bits()).collect::<Vec<_>>(), bits);
        assert!(logits_from_bytes(&[0, 1, 2]).is_err());
    }

    #[test]
    fn requests_are_one_line_of_json() {
        let text = serde_json::to_string(&Request::Run { logits_path: None }).unwrap();
        assert_eq!(text, r#"{"request":"run","logits_path":null}"#);
        assert!(matches!(serde_json::from_str(r#"{"request":"quit"}"#).unwrap(), Request::Quit));
    }

    #[test]
    fn job_names_the_device_in_lowercase() {
        let job = Job {
            protocol: VERSION,
            model_dir: PathBuf::from("/m"),
            prompt: vec![1],
            max_tokens: 2,
            prefill_chunk: 3,
            device: Some(DeviceKind::Gpu),
        };
        let text = serde_json::to_string(&job).unwrap();
        assert!(text.contains(r#""device":"gpu""#), "{text}");
        let back: Job = serde_json::from_str(&text.replace(r#""gpu""#, "null")).unwrap();
        assert_eq!(back.device, None);
    }
}
