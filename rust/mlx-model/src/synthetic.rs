//! Synthetic checkpoints: random 4-bit weights written in mlx-lm's checkpoint format, so tests and
//! benchmarks load them through the same path as a real model.

use std::path::Path;

use mlx::quantized::{self, QuantParams};
use mlx::{random, Array, Dtype};

use crate::config::{ModelConfig, ModelKind, QuantSpec, QuantizationConfig};
use crate::{Error, Result};

struct Preset {
    name: &'static str,
    about: &'static str,
    dtype: Dtype,
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
        dtype: Dtype::Float32,
        config: bench,
        run: BENCH_RUN,
    },
    Preset {
        name: "bench-bf16",
        about: "the bench model with bf16 activations (several times slower on CPU: MLX multiplies bf16 without BLAS)",
        dtype: Dtype::Bfloat16,
        config: bench,
        run: BENCH_RUN,
    },
    Preset { name: "tiny", about: "small qwen3_moe for tests", dtype: Dtype::Float32, config: tiny, run: TINY_RUN },
    Preset {
        name: "tiny-bf16",
        about: "the tiny model with bf16 activations",
        dtype: Dtype::Bfloat16,
        config: tiny,
        run: TINY_RUN,
    },
    Preset {
        name: "tiny-dense",
        about: "small dense qwen3 with tied embeddings",
        dtype: Dtype::Float32,
        config: tiny_dense,
        run: TINY_RUN,
    },
    Preset {
        name: "qwen3-30b-a3b",
        about: "Qwen3-30B-A3B's layer shapes with random weights, 8 of its 48 layers (prompt 2048 in one chunk, 32 new tokens)",
        dtype: Dtype::Bfloat16,
        config: qwen3_30b_a3b,
        run: QWEN3_30B_A3B_RUN,
    },
];

/// The workload `preset` is sized for.
pub fn preset_run_shape(preset: &str) -> Result<RunShape> {
    Ok(find(preset)?.run)
}

/// Names accepted by [`write_synthetic`]; the first is the default for tools.
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

/// FNV-1a of the tensor name, mixed with the seed: each tensor's values depend only on
/// (seed, name), not on the order tensors are made in.
fn tensor_seed(seed: u64, name: &str) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325 ^ seed.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    for b in name.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

struct Writer<'a> {
    seed: u64,
    dtype: Dtype,
    quant: &'a QuantizationConfig,
    tensors: Vec<(String, Array)>,
}

impl Writer<'_> {
    fn normal(&self, name: &str, shape: &[i32], mean: f32, std: f32) -> Result<Array> {
        let key = random::key(tensor_seed(self.seed, name))?;
        let a = random::normal(shape, Dtype::Float32, mean, std, Some(&key))?.astype(self.dtype)?;
        a.eval()?;
        Ok(a)
    }

    /// A weight `[lead.., out, in]` of standard deviation `std`, quantized as the config says.
    fn matrix(&mut self, path: &str, shape: &[i32], std: f32) -> Result<()> {
        let w = self.normal(path, shape, 0.0, std)?;
        let spec = self
            .quant
            .per_module
            .get(path)
            .cloned()
            .unwrap_or_else(|| Some(self.quant.default.clone()));
        match spec {
            None => self.tensors.push((format!("{path}.weight"), w)),
            Some(s) => {
                let q = quantized::quantize(&w, QuantParams::affine(s.group_size, s.bits))?;
                let biases = q.biases.ok_or_else(|| {
                    Error::Mlx(mlx::Error::Mlx("affine quantize gave no biases".into()))
                })?;
                mlx::eval(&[&q.weights, &q.scales, &biases])?;
                self.tensors.push((format!("{path}.weight"), q.weights));
                self.tensors.push((format!("{path}.scales"), q.scales));
                self.tensors.push((format!("{path}.biases"), biases));
            }
        }
        Ok(())
    }

    /// RMSNorm weights near 1, so the norms are not all identical.
    fn norm(&mut self, path: &str, dims: i32) -> Result<()> {
        let name = format!("{path}.weight");
        let w = self.normal(&name, &[dims], 1.0, 0.1)?;
        self.tensors.push((name, w));
        Ok(())
    }
}

/// Writes a synthetic checkpoint for `preset` into `dir` (created if missing): `config.json`
/// and `model.safetensors`, deterministic in (preset, seed).
///
/// Weights are normal with standard deviation 1/sqrt(fan-in), so every projection keeps
/// activations near unit scale; the LM head is 4x that, so logits spread enough for greedy
/// choices to depend on the context.
pub fn write_synthetic(dir: &Path, preset: &str, seed: u64) -> Result<()> {
    let p = find(preset)?;
    let c = preset_config(preset)?;
    let quant = c.quantization.clone().expect("presets are quantized");
    let mut w = Writer { seed, dtype: p.dtype, quant: &quant, tensors: Vec::new() };
    let (dim, vocab, hd) = (c.hidden_size as i32, c.vocab_size as i32, c.head_dim as i32);
    let (nh, nkv) = (c.num_attention_heads as i32, c.num_key_value_heads as i32);
    let inv_sqrt = |n: i32| 1.0 / (n as f32).sqrt();

    // The current token must stay visible in the residual stream, or long contexts (where
    // attention averages) drive every position to the same greedy token. With tied embeddings
    // the LM head is the embedding itself, and a dominant current token makes greedy decoding
    // repeat its input; there the embedding is kept small next to the layers' unit outputs.
    let embed_std = if c.tie_word_embeddings { 0.1 } else { 1.0 };
    w.matrix("model.embed_tokens", &[vocab, dim], embed_std)?;
    for i in 0..c.num_hidden_layers {
        let l = format!("model.layers.{i}");
        w.norm(&format!("{l}.input_layernorm"), dim)?;
        w.norm(&format!("{l}.post_attention_layernorm"), dim)?;
        let a = format!("{l}.self_attn");
        w.matrix(&format!("{a}.q_proj"), &[nh * hd, dim], inv_sqrt(dim))?;
        w.matrix(&format!("{a}.k_proj"), &[nkv * hd, dim], inv_sqrt(dim))?;
        w.matrix(&format!("{a}.v_proj"), &[nkv * hd, dim], inv_sqrt(dim))?;
        w.matrix(&format!("{a}.o_proj"), &[dim, nh * hd], inv_sqrt(nh * hd))?;
        w.norm(&format!("{a}.q_norm"), hd)?;
        w.norm(&format!("{a}.k_norm"), hd)?;
        let m = format!("{l}.mlp");
        if c.is_moe_layer(i) {
            let (e, h) = (c.num_experts as i32, c.moe_intermediate_size as i32);
            w.matrix(&format!("{m}.gate"), &[e, dim], inv_sqrt(dim))?;
            w.matrix(&format!("{m}.switch_mlp.gate_proj"), &[e, h, dim], inv_sqrt(dim))?;
            w.matrix(&format!("{m}.switch_mlp.up_proj"), &[e, h, dim], inv_sqrt(dim))?;
            w.matrix(&format!("{m}.switch_mlp.down_proj"), &[e, dim, h], inv_sqrt(h))?;
        } else {
            let h = c.intermediate_size as i32;
            w.matrix(&format!("{m}.gate_proj"), &[h, dim], inv_sqrt(dim))?;
            w.matrix(&format!("{m}.up_proj"), &[h, dim], inv_sqrt(dim))?;
            w.matrix(&format!("{m}.down_proj"), &[dim, h], inv_sqrt(h))?;
        }
    }
    w.norm("model.norm", dim)?;
    if !c.tie_word_embeddings {
        w.matrix("lm_head", &[vocab, dim], 4.0 * inv_sqrt(dim))?;
    }

    std::fs::create_dir_all(dir).map_err(|source| Error::Io { path: dir.to_path_buf(), source })?;
    let config_path = dir.join("config.json");
    let text = serde_json::to_string_pretty(&c.to_json()).expect("a JSON value serializes");
    std::fs::write(&config_path, text + "\n")
        .map_err(|source| Error::Io { path: config_path, source })?;
    let tensors = w.tensors.iter().map(|(n, a)| (n.as_str(), a));
    mlx::io::save_safetensors(dir.join("model.safetensors"), tensors, [("format", "mlx")])?;
    Ok(())
}
