//! What both arms run: the model directory (a given checkpoint, or a synthetic preset written
//! once into the cache, by a worker: the weights are made with MLX), the prompt, and the shapes
//! (prompt length, prefill chunk, steps).

use crate::cache_dir;
use mlx_workload::ModelConfig;
use serde::Serialize;
use std::path::{Path, PathBuf};

/// The smallest attention row count (queries per prefill chunk) that exercises the fused
/// causal softmax, and rows per expert that exercise gather_qmm's tile choice.
pub const MIN_ATTENTION_ROWS: usize = 512;
pub const MIN_ROWS_PER_EXPERT: usize = 16;
/// Generated tokens when neither the option nor the preset says.
pub const DEFAULT_GEN_LEN: usize = 32;

#[derive(Debug, Clone, Serialize)]
pub struct Workload {
    pub model_dir: PathBuf,
    /// Preset and seed when the model is synthetic.
    pub preset: Option<String>,
    pub seed: u64,
    pub model: ModelSummary,
    pub prompt_len: usize,
    pub gen_len: usize,
    pub prefill_chunk: usize,
    /// Tokens routed to each expert per prefill chunk, on average (chunk * top_k / experts).
    pub rows_per_expert_per_chunk: Option<f64>,
    /// Queries per attention call in the first prefill chunk.
    pub attention_rows: usize,
    #[serde(skip)]
    pub prompt: Vec<u32>,
}

#[derive(Debug, Clone, Serialize)]
pub struct ModelSummary {
    pub model_type: String,
    pub layers: usize,
    pub hidden_size: usize,
    pub vocab_size: usize,
    pub experts: usize,
    pub experts_per_token: usize,
    /// `4-bit affine g64` or `none`.
    pub quantization: String,
    /// Activation dtype, as the loaded model reports it.
    pub dtype: Option<String>,
}

pub struct Request<'a> {
    pub model: Option<&'a Path>,
    pub preset: &'a str,
    pub seed: u64,
    pub prompt_len: Option<usize>,
    pub gen_len: Option<usize>,
    pub prefill_chunk: Option<usize>,
}

pub fn prepare(request: &Request) -> Result<Workload, String> {
    // A preset says which shape it was sized for; any other model gets shapes from its config.
    // A preset's config is known without its weights, which are written later (by a worker).
    let (model_dir, preset, shape, config) = match request.model {
        Some(dir) => {
            let dir = cache_dir::absolute(dir.to_path_buf())?;
            let config_path = dir.join("config.json");
            let text = std::fs::read_to_string(&config_path)
                .map_err(|e| format!("reading {}: {e}", config_path.display()))?;
            let config = ModelConfig::from_json_str(&text)
                .map_err(|e| format!("{}: {e}", config_path.display()))?;
            (dir, None, None, config)
        }
        None => {
            let config = mlx_workload::preset_config(request.preset)
                .map_err(|e| format!("{e} (presets: {})", mlx_workload::presets().join(", ")))?;
            (
                synthetic_model_dir(request.preset, request.seed, &config)?,
                Some(request.preset.to_string()),
                Some(mlx_workload::preset_run_shape(request.preset).map_err(|e| e.to_string())?),
                config,
            )
        }
    };
    let moe = config.num_experts > 0 && config.num_experts_per_tok > 0;
    let prefill_chunk = request
        .prefill_chunk
        .or(shape.as_ref().map(|s| s.prefill_chunk))
        .unwrap_or_else(|| default_chunk(&config));
    // Two chunks: the second attends to a longer cache than its rows (the offset causal case).
    let prompt_len =
        request.prompt_len.or(shape.as_ref().map(|s| s.prompt_len)).unwrap_or(2 * prefill_chunk);
    let gen_len = request.gen_len.or(shape.as_ref().map(|s| s.gen_len)).unwrap_or(DEFAULT_GEN_LEN);
    if prompt_len == 0 || prefill_chunk == 0 || gen_len == 0 {
        return Err("--prompt-len, --prefill-chunk and --gen-len must be at least 1".into());
    }
    let prompt = mlx_workload::synthetic_prompt(config.vocab_size, prompt_len, request.seed);
    Ok(Workload {
        model_dir,
        preset,
        seed: request.seed,
        rows_per_expert_per_chunk: moe.then(|| {
            (prefill_chunk.min(prompt_len) * config.num_experts_per_tok) as f64
                / config.num_experts as f64
        }),
        // The prompt minus its last token is prefilled in chunks.
        attention_rows: prefill_chunk.min(prompt_len.saturating_sub(1)),
        model: ModelSummary {
            model_type: config.kind.model_type().to_string(),
            layers: config.num_hidden_layers,
            hidden_size: config.hidden_size,
            vocab_size: config.vocab_size,
            experts: config.num_experts,
            experts_per_token: config.num_experts_per_tok,
            quantization: config.quantization.as_ref().map_or("none".into(), |q| {
                format!("{}-bit {} g{}", q.default.bits, q.default.mode, q.default.group_size)
            }),
            dtype: None, // filled in from the workers, which load the model
        },
        prompt_len,
        gen_len,
        prefill_chunk,
        prompt,
    })
}

impl Workload {
    /// Why this workload would leave a patch's path unexercised (empty when none).
    pub fn coverage_gaps(&self) -> Vec<String> {
        let mut gaps = Vec::new();
        if self.attention_rows < MIN_ATTENTION_ROWS {
            gaps.push(format!(
                "attention rows per chunk are {} (< {MIN_ATTENTION_ROWS}): long-row causal softmax is not exercised",
                self.attention_rows
            ));
        }
        match self.rows_per_expert_per_chunk {
            Some(rows) if rows < MIN_ROWS_PER_EXPERT as f64 => gaps.push(format!(
                "{rows:.1} rows per expert per chunk (< {MIN_ROWS_PER_EXPERT}): the gather_qmm tile choice is not exercised"
            )),
            None => gaps.push("dense model: gather_qmm is not exercised".into()),
            _ => {}
        }
        gaps
    }

    /// One-line description for the Markdown summary.
    pub fn describe(&self) -> String {
        let m = &self.model;
        let name = match &self.preset {
            Some(p) => format!("synthetic `{p}` (seed {})", self.seed),
            None => format!("`{}`", self.model_dir.display()),
        };
        let experts = if m.experts > 0 {
            format!(", {} experts top-{}", m.experts, m.experts_per_token)
        } else {
            String::new()
        };
        let per_expert = self
            .rows_per_expert_per_chunk
            .map_or(String::new(), |r| format!(", {r:.0} rows per expert per chunk"));
        format!(
            "{name}: {} with {} layers, hidden {}{experts}, vocab {}, weights {}, activations {}; \
             prompt {} tokens prefilled in chunks of {} ({} attention rows{per_expert}), {} generated tokens",
            m.model_type,
            m.layers,
            m.hidden_size,
            m.vocab_size,
            m.quantization,
            m.dtype.as_deref().unwrap_or("?"),
            self.prompt_len,
            self.prefill_chunk,
            self.attention_rows,
            self.gen_len,
        )
    }
}

/// Smallest chunk with >= 512 attention rows and >= 16 rows per expert.
fn default_chunk(config: &ModelConfig) -> usize {
    let mut chunk = MIN_ATTENTION_ROWS;
    if config.num_experts > 0 && config.num_experts_per_tok > 0 {
        chunk = chunk
            .max((MIN_ROWS_PER_EXPERT * config.num_experts).div_ceil(config.num_experts_per_tok));
    }
    chunk
}

/// Where the preset's checkpoint lives in `<cache>/models`: keyed by preset, seed and the
/// preset's config, so a changed preset gets a new directory.
fn synthetic_model_dir(preset: &str, seed: u64, config: &ModelConfig) -> Result<PathBuf, String> {
    let digest =
        crate::arm::hex(&<sha2::Sha256 as sha2::Digest>::digest(config.to_json().to_string()));
    Ok(cache_dir::root()?.join("models").join(format!("{preset}-seed{seed}-{}", &digest[..12])))
}

impl Workload {
    /// Writes a synthetic model once, with `write(dir, preset, seed)` (a worker's `make-model`),
    /// atomically: into a temporary directory renamed into place. A checkpoint given with
    /// `--model`, or one already written, is left alone.
    pub fn write_model_if_missing(
        &self,
        write: impl FnOnce(&Path, &str, u64) -> Result<(), String>,
    ) -> Result<(), String> {
        let (Some(preset), dir) = (&self.preset, &self.model_dir) else { return Ok(()) };
        if dir.join("config.json").is_file() {
            return Ok(());
        }
        let staging = dir.with_extension(format!("partial-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&staging);
        crate::ui::note(
            None,
            &format!(
                "writing synthetic model `{preset}` (seed {}) to {}",
                self.seed,
                dir.display()
            ),
        );
        write(&staging, preset, self.seed).map_err(|e| format!("writing model {preset}: {e}"))?;
        match std::fs::rename(&staging, dir) {
            Ok(()) => Ok(()),
            // Another process published it first: use theirs.
            Err(_) if dir.join("config.json").is_file() => {
                let _ = std::fs::remove_dir_all(&staging);
                Ok(())
            }
            Err(e) => Err(format!("publishing {}: {e}", dir.display())),
        }
    }
}
