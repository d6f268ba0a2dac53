//! The synthetic presets: each one's config (mlx-lm's converter's quantization included), the
//! dtype of its weights, the workload it is sized for, and a line describing it. The weights
//! themselves are made by `mlx_model::write_synthetic`, which needs MLX.

use crate::config::{ModelConfig, ModelKind, QuantSpec, QuantizationConfig};
use crate::{Error, Result};

/// The float types presets make their weights in (named as MLX names its dtypes).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ActivationDtype {
    Float32,
    Bfloat16,
}

impl ActivationDtype {
    /// MLX's name for the dtype (`mlx::Dtype`'s `Display`).
    pub fn name(self) -> &'static str {
        match self {
            ActivationDtype::Float32 => "float32",
            ActivationDtype::Bfloat16 => "bfloat16",
        }
    }
}

impl std::fmt::Display for ActivationDtype {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

struct Preset {
    name: &'static str,
    about: &'static str,
    dtype: ActivationDtype,
    config: fn() -> ModelConfig,
    run: RunShape,
}

/// The workload a preset is sized for: prompt length, tokens to generate, prefill chunk.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RunShape {
    pub prompt_len: usize,
    pub gen_len: usize,
    pub prefill_chunk: usize,
}

/// Bench: 1024-token prompt in chunks of 512, so each chunk gives the experts
/// 512 * top_k / experts rows each in gather_qmm and attention 512 query rows.
const BENCH_RUN: RunShape = RunShape { prompt_len: 1024, gen_len: 32, prefill_chunk: 512 };
/// Tiny: chunks of 32 tokens reach mlx-lm's sort threshold (32 * top-2 = 64 pairs).
const TINY_RUN: RunShape = RunShape { prompt_len: 80, gen_len: 16, prefill_chunk: 32 };
/// Qwen3-30B-A3B: mlx-lm's default prefill step (2048), so each chunk gives the experts
/// 2048 * 8 / 128 = 128 rows each.
const QWEN3_30B_A3B_RUN: RunShape = RunShape { prompt_len: 2048, gen_len: 32, prefill_chunk: 2048 };
/// Layers of the qwen3-30b-a3b preset (the real model has 48): enough for per-layer costs to
/// dominate, small enough (about 3 GB) to write and load in seconds.
const QWEN3_30B_A3B_LAYERS: usize = 8;

const PRESETS: &[Preset] = &[
    Preset {
        name: "bench",
        about: "qwen3_moe sized for the A/B benchmark (prompt 1024, prefill chunk 512, 32 new tokens)",
        dtype: ActivationDtype::Float32,
        config: bench,
        run: BENCH_RUN,
    },
    Preset {
        name: "bench-bf16",
        about: "the bench model with bf16 activations (several times slower on CPU: MLX multiplies bf16 without BLAS)",
        dtype: ActivationDtype::Bfloat16,
        config: bench,
        run: BENCH_RUN,
    },
    Preset { name: "tiny", about: "small qwen3_moe for tests", dtype: ActivationDtype::Float32, config: tiny, run: TINY_RUN },
    Preset {
        name: "tiny-bf16",
        about: "the tiny model with bf16 activations",
        dtype: ActivationDtype::Bfloat16,
        config: tiny,
        run: TINY_RUN,
    },
    Preset {
        name: "tiny-dense",
        about: "small dense qwen3 with tied embeddings",
        dtype: ActivationDtype::Float32,
        config: tiny_dense,
        run: TINY_RUN,
    },
    Preset {
        name: "qwen3-30b-a3b",
        about: "Qwen3-30B-A3B's layer shapes with random weights, 8 of its 48 layers (prompt 2048 in one chunk, 32 new tokens)",
        dtype: ActivationDtype::Bfloat16,
        config: qwen3_30b_a3b,
        run: QWEN3_30B_A3B_RUN,
    },
];

/// The workload `preset` is sized for.
pub fn preset_run_shape(preset: &str) -> Result<RunShape> {
    Ok(find(preset)?.run)
}

/// The dtype `preset`'s weights are made in, and so its activations.
pub fn preset_activation_dtype(preset: &str) -> Result<ActivationDtype> {
    Ok(find(preset)?.dtype)
}

/// The preset names (those `mlx_model::write_synthetic` writes); the first is the default for tools.
pub fn presets() -> Vec<&'static str> {
    PRESETS.iter().map(|p| p.name).collect()
}

fn find(preset: &str) -> Result<&'static Preset> {
    PRESETS.iter().find(|p| p.name == preset).ok_or_else(|| Error::UnknownPreset(preset.to_owned()))
}

/// The config a preset writes (its `quantization` block included).
pub fn preset_config(preset: &str) -> Result<ModelConfig> {
    Ok(with_quantization((find(preset)?.config)()))
}

/// One line describing a preset: purpose, shapes and dtype.
pub fn preset_description(preset: &str) -> Result<String> {
    let p = find(preset)?;
    let c = preset_config(preset)?;
    let moe = match c.kind {
        ModelKind::Qwen3Moe => format!(
            ", {} experts top-{}, expert size {}",
            c.num_experts, c.num_experts_per_tok, c.moe_intermediate_size
        ),
        ModelKind::Qwen3 => format!(", mlp size {}", c.intermediate_size),
    };
    Ok(format!(
        "{}: {} ({}, {} layers, hidden {}, {}/{} heads of {}{}, vocab {}, {} activations, 4-bit weights)",
        p.name,
        p.about,
        c.kind.model_type(),
        c.num_hidden_layers,
        c.hidden_size,
        c.num_attention_heads,
        c.num_key_value_heads,
        c.head_dim,
        moe,
        c.vocab_size,
        p.dtype
    ))
}

fn base(kind: ModelKind) -> ModelConfig {
    ModelConfig {
        kind,
        hidden_size: 128,
        num_hidden_layers: 4,
        intermediate_size: 256,
        num_attention_heads: 4,
        num_key_value_heads: 2,
        head_dim: 32,
        rms_norm_eps: 1e-6,
        vocab_size: 512,
        rope_theta: 1_000_000.0,
        rope_scale: 1.0,
        tie_word_embeddings: false,
        max_position_embeddings: 40960,
        num_experts: 0,
        num_experts_per_tok: 0,
        decoder_sparse_step: 0,
        mlp_only_layers: Vec::new(),
        moe_intermediate_size: 0,
        norm_topk_prob: false,
        quantization: None,
    }
}

fn tiny() -> ModelConfig {
    ModelConfig {
        num_experts: 8,
        num_experts_per_tok: 2,
        decoder_sparse_step: 1,
        // One dense layer, so both feed-forward kinds are exercised.
        mlp_only_layers: vec![0],
        moe_intermediate_size: 64,
        norm_topk_prob: true,
        ..base(ModelKind::Qwen3Moe)
    }
}

fn tiny_dense() -> ModelConfig {
    ModelConfig { num_hidden_layers: 2, tie_word_embeddings: true, ..base(ModelKind::Qwen3) }
}

fn bench() -> ModelConfig {
    ModelConfig {
        hidden_size: 512,
        num_hidden_layers: 8,
        intermediate_size: 1024,
        num_attention_heads: 8,
        num_key_value_heads: 2,
        head_dim: 64,
        vocab_size: 8192,
        num_experts: 32,
        num_experts_per_tok: 4,
        decoder_sparse_step: 1,
        moe_intermediate_size: 512,
        norm_topk_prob: true,
        ..base(ModelKind::Qwen3Moe)
    }
}

/// Qwen3-30B-A3B's config.json, but for the number of layers.
fn qwen3_30b_a3b() -> ModelConfig {
    ModelConfig {
        hidden_size: 2048,
        num_hidden_layers: QWEN3_30B_A3B_LAYERS,
        intermediate_size: 6144,
        num_attention_heads: 32,
        num_key_value_heads: 4,
        head_dim: 128,
        vocab_size: 151_936,
        num_experts: 128,
        num_experts_per_tok: 8,
        decoder_sparse_step: 1,
        moe_intermediate_size: 768,
        norm_topk_prob: true,
        ..base(ModelKind::Qwen3Moe)
    }
}

/// mlx-lm's converter defaults: 4-bit affine, group 64, and 8 bits for the MoE routers
/// (qwen3_moe's `quant_predicate`), which it lists per module.
fn with_quantization(mut c: ModelConfig) -> ModelConfig {
    let spec = |bits| QuantSpec { group_size: 64, bits, mode: "affine".into() };
    let per_module = (0..c.num_hidden_layers)
        .filter(|&i| c.is_moe_layer(i))
        .map(|i| (format!("model.layers.{i}.mlp.gate"), Some(spec(8))))
        .collect();
    c.quantization = Some(QuantizationConfig { default: spec(4), per_module });
    c
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_preset_has_a_valid_quantized_config_and_a_description() {
        for name in presets() {
            let config = preset_config(name).unwrap();
            assert!(config.quantization.is_some(), "{name}");
            let back = ModelConfig::from_json_str(&config.to_json().to_string()).unwrap();
            assert_eq!(back, config, "{name}: config.json round trip");
            let about = preset_description(name).unwrap();
            assert!(about.starts_with(&format!("{name}: ")), "{about}");
            assert!(about.contains(preset_activation_dtype(name).unwrap().name()), "{about}");
        }
        assert_eq!(presets()[0], "bench");
        assert_eq!(preset_run_shape("bench").unwrap().prefill_chunk, 512);
        assert_eq!(preset_activation_dtype("bench-bf16"), Ok(ActivationDtype::Bfloat16));
        assert_eq!(preset_config("nope"), Err(Error::UnknownPreset("nope".into())));
    }
}
