//! Synthetic checkpoints: random 4-bit weights written in mlx-lm's checkpoint format, so tests and
//! benchmarks load them through the same path as a real model. The presets themselves (configs,
//! dtypes, shapes) live in `mlx-workload`, which needs no MLX.

use std::path::Path;

use mlx::quantized::{self, QuantParams};
use mlx::{random, Array, Dtype};

use mlx_workload::{preset_activation_dtype, preset_config, ActivationDtype, QuantizationConfig};

use crate::{Error, Result};

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
    let c = preset_config(preset)?;
    let dtype = match preset_activation_dtype(preset)? {
        ActivationDtype::Float32 => Dtype::Float32,
        ActivationDtype::Bfloat16 => Dtype::Bfloat16,
    };
    let quant = c.quantization.clone().expect("presets are quantized");
    let mut w = Writer { seed, dtype, quant: &quant, tensors: Vec::new() };
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
