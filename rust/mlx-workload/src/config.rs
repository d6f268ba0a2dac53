//! `config.json` of an mlx-lm checkpoint: the fields mlx-lm's `qwen3_moe` and `qwen3` models read,
//! and the `quantization` block written by mlx-lm's converter.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::{Error, Result};

/// Which of mlx-lm's model files the config selects (`model_type`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ModelKind {
    /// `qwen3_moe`: layers with a routed mixture of experts (and optionally dense ones).
    Qwen3Moe,
    /// `qwen3`: every layer has a dense SwiGLU MLP.
    Qwen3,
}

impl ModelKind {
    pub fn model_type(self) -> &'static str {
        match self {
            ModelKind::Qwen3Moe => "qwen3_moe",
            ModelKind::Qwen3 => "qwen3",
        }
    }
}

/// Group size, bits and mode of one quantized weight.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QuantSpec {
    pub group_size: i32,
    pub bits: i32,
    pub mode: String,
}

/// The `quantization` block: a default spec plus per-module entries (a spec, or `false` for a
/// module left unquantized), keyed by module path such as `model.layers.0.mlp.gate`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QuantizationConfig {
    pub default: QuantSpec,
    pub per_module: BTreeMap<String, Option<QuantSpec>>,
}

/// The model's hyper-parameters. MoE fields are zero / empty for `qwen3`.
#[derive(Debug, Clone, PartialEq)]
pub struct ModelConfig {
    pub kind: ModelKind,
    pub hidden_size: usize,
    pub num_hidden_layers: usize,
    pub intermediate_size: usize,
    pub num_attention_heads: usize,
    pub num_key_value_heads: usize,
    pub head_dim: usize,
    pub rms_norm_eps: f32,
    pub vocab_size: usize,
    pub rope_theta: f32,
    /// RoPE position scale (`qwen3` with `rope_scaling` of type "linear": 1 / factor).
    pub rope_scale: f32,
    pub tie_word_embeddings: bool,
    pub max_position_embeddings: usize,
    pub num_experts: usize,
    pub num_experts_per_tok: usize,
    pub decoder_sparse_step: usize,
    pub mlp_only_layers: Vec<usize>,
    pub moe_intermediate_size: usize,
    pub norm_topk_prob: bool,
    pub quantization: Option<QuantizationConfig>,
}

/// `config.json` as mlx-lm's converter writes it (the fields mlx-lm's `qwen3_moe` and `qwen3`
/// read). Unknown fields, which real checkpoints carry many of, are ignored; `null` in an
/// optional field counts as absent.
#[derive(Debug, Default, Deserialize, Serialize)]
struct RawConfig {
    model_type: String,
    #[serde(default, skip_deserializing, skip_serializing_if = "Vec::is_empty")]
    architectures: Vec<String>,
    hidden_size: usize,
    num_hidden_layers: usize,
    intermediate_size: usize,
    num_attention_heads: usize,
    num_key_value_heads: usize,
    head_dim: usize,
    rms_norm_eps: f32,
    vocab_size: usize,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    rope_theta: Option<f32>,
    /// transformers >= 5 nests `rope_theta` and the scaling type here.
    #[serde(default, skip_serializing)]
    rope_parameters: Option<RawRope>,
    #[serde(default, skip_serializing)]
    rope_scaling: Option<RawRope>,
    tie_word_embeddings: bool,
    max_position_embeddings: usize,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    num_experts: Option<usize>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    num_experts_per_tok: Option<usize>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    decoder_sparse_step: Option<usize>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    mlp_only_layers: Option<Vec<usize>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    moe_intermediate_size: Option<usize>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    norm_topk_prob: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    quantization: Option<RawQuantization>,
    /// mlx-lm's converter writes the block under both names; it reads `quantization`.
    #[serde(default, skip_deserializing, skip_serializing_if = "Option::is_none")]
    quantization_config: Option<RawQuantization>,
}

#[derive(Debug, Default, Deserialize)]
struct RawRope {
    rope_theta: Option<f32>,
    #[serde(rename = "type")]
    kind: Option<String>,
    rope_type: Option<String>,
    factor: Option<f64>,
}

#[derive(Debug, Clone, Deserialize, Serialize)]
struct RawSpec {
    group_size: i64,
    bits: i64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    mode: Option<String>,
}

/// A module's entry: `false` (left unquantized), `true` (the default) or its own spec.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(untagged)]
enum RawModule {
    Flag(bool),
    Spec(RawSpec),
}

#[derive(Debug, Clone, Deserialize, Serialize)]
struct RawQuantization {
    #[serde(flatten)]
    default: RawSpec,
    #[serde(flatten)]
    modules: BTreeMap<String, RawModule>,
}

fn required<T>(value: Option<T>, name: &str) -> Result<T> {
    value.ok_or_else(|| Error::Config(format!("missing field {name:?}")))
}

fn positive(value: usize, name: &str) -> Result<usize> {
    match value {
        0 => Err(Error::Config(format!("field {name:?} must be positive"))),
        n => Ok(n),
    }
}

fn spec(raw: &RawSpec, what: &str, default_mode: &str) -> Result<QuantSpec> {
    let int = |v: i64, name: &str| {
        i32::try_from(v).ok().filter(|&n| n > 0).ok_or_else(|| {
            Error::Config(format!("{what}.{name} must be a positive integer, got {v}"))
        })
    };
    let mode = raw.mode.clone().unwrap_or_else(|| default_mode.to_owned());
    if mode != "affine" {
        return Err(Error::Config(format!(
            "{what}: quantization mode {mode:?} is not supported (only affine)"
        )));
    }
    Ok(QuantSpec {
        group_size: int(raw.group_size, "group_size")?,
        bits: int(raw.bits, "bits")?,
        mode,
    })
}

impl RawQuantization {
    fn parse(&self) -> Result<QuantizationConfig> {
        let default = spec(&self.default, "quantization", "affine")?;
        let per_module = self
            .modules
            .iter()
            .map(|(path, entry)| {
                let spec = match entry {
                    RawModule::Flag(false) => None,
                    RawModule::Flag(true) => Some(default.clone()),
                    RawModule::Spec(s) => {
                        Some(spec(s, &format!("quantization[{path:?}]"), &default.mode)?)
                    }
                };
                Ok((path.clone(), spec))
            })
            .collect::<Result<_>>()?;
        Ok(QuantizationConfig { default, per_module })
    }

    fn of(q: &QuantizationConfig) -> RawQuantization {
        let raw = |s: &QuantSpec| RawSpec {
            group_size: s.group_size.into(),
            bits: s.bits.into(),
            mode: Some(s.mode.clone()),
        };
        let modules = q
            .per_module
            .iter()
            .map(|(path, s)| {
                (
                    path.clone(),
                    s.as_ref().map_or(RawModule::Flag(false), |s| RawModule::Spec(raw(s))),
                )
            })
            .collect();
        RawQuantization { default: raw(&q.default), modules }
    }
}

impl ModelConfig {
    /// Parses the text of a `config.json`.
    pub fn from_json_str(text: &str) -> Result<ModelConfig> {
        // The type first, so that an unsupported model says so rather than naming a field.
        #[derive(Deserialize)]
        struct ModelType {
            model_type: Option<String>,
        }
        let ty: ModelType = serde_json::from_str(text)
            .map_err(|e| Error::Config(format!("not a valid config: {e}")))?;
        let kind = match required(ty.model_type, "model_type")?.as_str() {
            "qwen3_moe" => ModelKind::Qwen3Moe,
            "qwen3" => ModelKind::Qwen3,
            other => return Err(Error::UnknownModelType(other.to_owned())),
        };
        let raw: RawConfig =
            serde_json::from_str(text).map_err(|e| Error::Config(e.to_string()))?;
        // qwen3 also takes rope_theta from rope_parameters (transformers >= 5).
        let nested_theta = raw.rope_parameters.as_ref().and_then(|p| p.rope_theta);
        let rope_theta = match (kind, raw.rope_theta) {
            (_, Some(theta)) => theta,
            (ModelKind::Qwen3, None) if nested_theta.is_some() => nested_theta.unwrap(),
            _ => return Err(Error::Config("missing field \"rope_theta\"".into())),
        };
        let mut config = ModelConfig {
            kind,
            hidden_size: positive(raw.hidden_size, "hidden_size")?,
            num_hidden_layers: positive(raw.num_hidden_layers, "num_hidden_layers")?,
            intermediate_size: positive(raw.intermediate_size, "intermediate_size")?,
            num_attention_heads: positive(raw.num_attention_heads, "num_attention_heads")?,
            num_key_value_heads: positive(raw.num_key_value_heads, "num_key_value_heads")?,
            head_dim: positive(raw.head_dim, "head_dim")?,
            rms_norm_eps: raw.rms_norm_eps,
            vocab_size: positive(raw.vocab_size, "vocab_size")?,
            rope_theta,
            rope_scale: 1.0,
            tie_word_embeddings: raw.tie_word_embeddings,
            max_position_embeddings: raw.max_position_embeddings,
            num_experts: 0,
            num_experts_per_tok: 0,
            decoder_sparse_step: 0,
            mlp_only_layers: Vec::new(),
            moe_intermediate_size: 0,
            norm_topk_prob: false,
            quantization: raw.quantization.as_ref().map(RawQuantization::parse).transpose()?,
        };
        match kind {
            ModelKind::Qwen3Moe => {
                // mlx-lm's qwen3_moe builds nn.RoPE directly and ignores rope_scaling.
                config.num_experts = required(raw.num_experts, "num_experts")?;
                config.num_experts_per_tok =
                    required(raw.num_experts_per_tok, "num_experts_per_tok")?;
                config.decoder_sparse_step =
                    required(raw.decoder_sparse_step, "decoder_sparse_step")?;
                config.moe_intermediate_size =
                    required(raw.moe_intermediate_size, "moe_intermediate_size")?;
                config.norm_topk_prob = required(raw.norm_topk_prob, "norm_topk_prob")?;
                config.mlp_only_layers = required(raw.mlp_only_layers, "mlp_only_layers")?;
            }
            ModelKind::Qwen3 => {
                if let Some(s) = raw.rope_scaling.as_ref().or(raw.rope_parameters.as_ref()) {
                    match s.kind.as_deref().or(s.rope_type.as_deref()).unwrap_or("default") {
                        "default" => {}
                        "linear" => {
                            config.rope_scale = (1.0 / required(s.factor, "factor")?) as f32;
                        }
                        other => {
                            return Err(Error::Config(format!(
                                "rope scaling type {other:?} is not supported"
                            )))
                        }
                    }
                }
            }
        }
        config.validate()?;
        Ok(config)
    }

    fn validate(&self) -> Result<()> {
        if !self.num_attention_heads.is_multiple_of(self.num_key_value_heads) {
            return Err(Error::Config(format!(
                "num_attention_heads ({}) is not a multiple of num_key_value_heads ({})",
                self.num_attention_heads, self.num_key_value_heads
            )));
        }
        if self.kind == ModelKind::Qwen3Moe && self.num_experts > 0 {
            if self.num_experts_per_tok == 0 || self.num_experts_per_tok > self.num_experts {
                return Err(Error::Config(format!(
                    "num_experts_per_tok ({}) must be in 1..={} (num_experts)",
                    self.num_experts_per_tok, self.num_experts
                )));
            }
            if self.decoder_sparse_step == 0 {
                return Err(Error::Config("decoder_sparse_step must be positive".into()));
            }
            if self.moe_intermediate_size == 0 {
                return Err(Error::Config("moe_intermediate_size must be positive".into()));
            }
        }
        Ok(())
    }

    /// Whether layer `i` has a routed MoE (mlx-lm's rule) rather than a dense MLP.
    pub fn is_moe_layer(&self, i: usize) -> bool {
        self.kind == ModelKind::Qwen3Moe
            && !self.mlp_only_layers.contains(&i)
            && self.num_experts > 0
            && (i + 1).is_multiple_of(self.decoder_sparse_step)
    }

    /// The `config.json` text mlx-lm's converter would write for this model.
    pub fn to_json(&self) -> serde_json::Value {
        let moe = self.kind == ModelKind::Qwen3Moe;
        let quantization = self.quantization.as_ref().map(RawQuantization::of);
        let raw = RawConfig {
            model_type: self.kind.model_type().into(),
            architectures: vec![match self.kind {
                ModelKind::Qwen3Moe => "Qwen3MoeForCausalLM".into(),
                ModelKind::Qwen3 => "Qwen3ForCausalLM".into(),
            }],
            hidden_size: self.hidden_size,
            num_hidden_layers: self.num_hidden_layers,
            intermediate_size: self.intermediate_size,
            num_attention_heads: self.num_attention_heads,
            num_key_value_heads: self.num_key_value_heads,
            head_dim: self.head_dim,
            rms_norm_eps: self.rms_norm_eps,
            vocab_size: self.vocab_size,
            rope_theta: Some(self.rope_theta),
            tie_word_embeddings: self.tie_word_embeddings,
            max_position_embeddings: self.max_position_embeddings,
            num_experts: moe.then_some(self.num_experts),
            num_experts_per_tok: moe.then_some(self.num_experts_per_tok),
            decoder_sparse_step: moe.then_some(self.decoder_sparse_step),
            mlp_only_layers: moe.then(|| self.mlp_only_layers.clone()),
            moe_intermediate_size: moe.then_some(self.moe_intermediate_size),
            norm_topk_prob: moe.then_some(self.norm_topk_prob),
            quantization_config: quantization.clone(),
            quantization,
            ..RawConfig::default()
        };
        serde_json::to_value(raw).expect("a config serializes")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MOE: &str = r#"{
        "model_type": "qwen3_moe", "hidden_size": 64, "num_hidden_layers": 2,
        "intermediate_size": 128, "num_attention_heads": 4, "num_key_value_heads": 2,
        "head_dim": 16, "rms_norm_eps": 1e-6, "vocab_size": 100, "rope_theta": 1000000.0,
        "tie_word_embeddings": false, "max_position_embeddings": 4096, "num_experts": 8,
        "num_experts_per_tok": 2, "decoder_sparse_step": 1, "mlp_only_layers": [1],
        "moe_intermediate_size": 32, "norm_topk_prob": true,
        "torch_dtype": "bfloat16", "some_future_field": {"nested": [1, 2]},
        "quantization": {"group_size": 64, "bits": 4, "mode": "affine",
                         "model.layers.0.mlp.gate": {"group_size": 64, "bits": 8},
                         "lm_head": false, "model.embed_tokens": true}
    }"#;

    fn edited(
        text: &str,
        edit: impl FnOnce(&mut serde_json::Map<String, serde_json::Value>),
    ) -> String {
        let mut v: serde_json::Value = serde_json::from_str(text).unwrap();
        edit(v.as_object_mut().unwrap());
        v.to_string()
    }

    #[test]
    fn reads_mlx_lm_fields_and_ignores_unknown_ones() {
        let c = ModelConfig::from_json_str(MOE).unwrap();
        assert_eq!(
            (c.kind, c.hidden_size, c.num_experts, c.num_experts_per_tok),
            (ModelKind::Qwen3Moe, 64, 8, 2)
        );
        assert_eq!((c.rms_norm_eps, c.rope_theta, c.mlp_only_layers.clone()), (1e-6, 1e6, vec![1]));
        let q = c.quantization.unwrap();
        assert_eq!(q.default, QuantSpec { group_size: 64, bits: 4, mode: "affine".into() });
        assert_eq!(q.per_module["model.layers.0.mlp.gate"].as_ref().unwrap().bits, 8);
        assert_eq!(q.per_module["lm_head"], None);
        assert_eq!(q.per_module["model.embed_tokens"], Some(q.default.clone()));
        assert_eq!(q.per_module.len(), 3);
    }

    #[test]
    fn writes_what_it_reads() {
        let c = ModelConfig::from_json_str(MOE).unwrap();
        let text = c.to_json().to_string();
        assert_eq!(ModelConfig::from_json_str(&text).unwrap(), c);
        assert!(text.contains("\"quantization_config\""), "{text}");
        assert!(text.contains("\"Qwen3MoeForCausalLM\""), "{text}");
    }

    #[test]
    fn errors_name_the_field() {
        let err = |text: String| ModelConfig::from_json_str(&text).unwrap_err().to_string();
        assert!(err(edited(MOE, |c| drop(c.remove("num_experts_per_tok"))))
            .contains("num_experts_per_tok"));
        assert!(err(edited(MOE, |c| drop(c.remove("hidden_size")))).contains("hidden_size"));
        assert!(err(edited(MOE, |c| drop(c.insert("hidden_size".into(), 0.into()))))
            .contains("positive"));
        assert!(err(edited(MOE, |c| drop(c.insert("head_dim".into(), "16".into()))))
            .contains("invalid type"));
        assert!(err(edited(MOE, |c| drop(c.remove("rope_theta")))).contains("rope_theta"));
        let mode = edited(MOE, |c| {
            c.insert(
                "quantization".into(),
                serde_json::json!({"group_size": 32, "bits": 4, "mode": "mxfp4"}),
            );
        });
        assert!(err(mode).contains("not supported"));
        assert!(matches!(
            ModelConfig::from_json_str(&edited(MOE, |c| drop(c.insert("model_type".into(), "llama".into())))),
            Err(Error::UnknownModelType(t)) if t == "llama"
        ));
        assert!(err("[1, 2]".into()).contains("not a valid config"));
    }

    #[test]
    fn qwen3_takes_rope_from_rope_parameters() {
        let dense = edited(MOE, |c| {
            c.insert("model_type".into(), "qwen3".into());
            c.remove("rope_theta");
            c.insert(
                "rope_parameters".into(),
                serde_json::json!({"rope_theta": 5e5, "rope_type": "linear", "factor": 4.0}),
            );
        });
        let c = ModelConfig::from_json_str(&dense).unwrap();
        assert_eq!(
            (c.kind, c.rope_theta, c.rope_scale, c.num_experts),
            (ModelKind::Qwen3, 5e5, 0.25, 0)
        );
        let yarn = edited(&dense, |c| {
            c.insert("rope_scaling".into(), serde_json::json!({"type": "yarn", "factor": 4.0}));
        });
        assert!(ModelConfig::from_json_str(&yarn).unwrap_err().to_string().contains("yarn"));
    }
}
