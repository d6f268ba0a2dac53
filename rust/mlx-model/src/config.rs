//! `config.json` of an mlx-lm checkpoint: the fields mlx-lm's `qwen3_moe` and `qwen3` models read,
//! and the `quantization` block written by mlx-lm's converter.

use std::collections::BTreeMap;

use serde_json::{json, Map, Value};

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

fn field<'a>(obj: &'a Map<String, Value>, name: &str) -> Result<&'a Value> {
    obj.get(name)
        .filter(|v| !v.is_null())
        .ok_or_else(|| Error::Config(format!("missing field {name:?}")))
}

fn usize_field(obj: &Map<String, Value>, name: &str) -> Result<usize> {
    let v = field(obj, name)?;
    v.as_u64().and_then(|n| usize::try_from(n).ok()).ok_or_else(|| {
        Error::Config(format!("field {name:?} must be a non-negative integer, got {v}"))
    })
}

fn positive_field(obj: &Map<String, Value>, name: &str) -> Result<usize> {
    match usize_field(obj, name)? {
        0 => Err(Error::Config(format!("field {name:?} must be positive"))),
        n => Ok(n),
    }
}

fn float_field(obj: &Map<String, Value>, name: &str) -> Result<f64> {
    let v = field(obj, name)?;
    v.as_f64().ok_or_else(|| Error::Config(format!("field {name:?} must be a number, got {v}")))
}

fn bool_field(obj: &Map<String, Value>, name: &str) -> Result<bool> {
    let v = field(obj, name)?;
    v.as_bool().ok_or_else(|| Error::Config(format!("field {name:?} must be a boolean, got {v}")))
}

fn quant_spec(v: &Value, what: &str, default_mode: &str) -> Result<QuantSpec> {
    let obj =
        v.as_object().ok_or_else(|| Error::Config(format!("{what} must be an object, got {v}")))?;
    let int = |name: &str| -> Result<i32> {
        let x = field(obj, name).map_err(|_| Error::Config(format!("{what} lacks {name:?}")))?;
        x.as_i64().and_then(|n| i32::try_from(n).ok()).filter(|&n| n > 0).ok_or_else(|| {
            Error::Config(format!("{what}.{name} must be a positive integer, got {x}"))
        })
    };
    let mode = match obj.get("mode") {
        None | Some(Value::Null) => default_mode.to_owned(),
        Some(Value::String(s)) => s.clone(),
        Some(x) => return Err(Error::Config(format!("{what}.mode must be a string, got {x}"))),
    };
    if mode != "affine" {
        return Err(Error::Config(format!(
            "{what}: quantization mode {mode:?} is not supported (only affine)"
        )));
    }
    Ok(QuantSpec { group_size: int("group_size")?, bits: int("bits")?, mode })
}

fn quantization(v: &Value) -> Result<QuantizationConfig> {
    let default = quant_spec(v, "quantization", "affine")?;
    let mut per_module = BTreeMap::new();
    for (key, entry) in v.as_object().into_iter().flatten() {
        if matches!(key.as_str(), "group_size" | "bits" | "mode") {
            continue;
        }
        let spec = match entry {
            Value::Bool(false) => None,
            Value::Bool(true) => Some(default.clone()),
            other => Some(quant_spec(other, &format!("quantization[{key:?}]"), &default.mode)?),
        };
        per_module.insert(key.clone(), spec);
    }
    Ok(QuantizationConfig { default, per_module })
}

impl ModelConfig {
    /// Parses the text of a `config.json`.
    pub fn from_json_str(text: &str) -> Result<ModelConfig> {
        let value: Value = serde_json::from_str(text)
            .map_err(|e| Error::Config(format!("not valid JSON: {e}")))?;
        let obj = value
            .as_object()
            .ok_or_else(|| Error::Config("the top level is not an object".into()))?;
        let model_type = field(obj, "model_type")?
            .as_str()
            .ok_or_else(|| Error::Config("field \"model_type\" must be a string".into()))?;
        let kind = match model_type {
            "qwen3_moe" => ModelKind::Qwen3Moe,
            "qwen3" => ModelKind::Qwen3,
            other => return Err(Error::UnknownModelType(other.to_owned())),
        };
        // qwen3 also accepts rope_theta nested under rope_parameters (transformers >= 5).
        let rope_params = obj.get("rope_parameters").and_then(Value::as_object);
        let rope_theta = match (kind, rope_params) {
            (ModelKind::Qwen3, Some(p)) if obj.get("rope_theta").is_none_or(Value::is_null) => {
                float_field(p, "rope_theta")?
            }
            _ => float_field(obj, "rope_theta")?,
        };
        let mut config = ModelConfig {
            kind,
            hidden_size: positive_field(obj, "hidden_size")?,
            num_hidden_layers: positive_field(obj, "num_hidden_layers")?,
            intermediate_size: positive_field(obj, "intermediate_size")?,
            num_attention_heads: positive_field(obj, "num_attention_heads")?,
            num_key_value_heads: positive_field(obj, "num_key_value_heads")?,
            head_dim: positive_field(obj, "head_dim")?,
            rms_norm_eps: float_field(obj, "rms_norm_eps")? as f32,
            vocab_size: positive_field(obj, "vocab_size")?,
            rope_theta: rope_theta as f32,
            rope_scale: 1.0,
            tie_word_embeddings: bool_field(obj, "tie_word_embeddings")?,
            max_position_embeddings: usize_field(obj, "max_position_embeddings")?,
            num_experts: 0,
            num_experts_per_tok: 0,
            decoder_sparse_step: 0,
            mlp_only_layers: Vec::new(),
            moe_intermediate_size: 0,
            norm_topk_prob: false,
            quantization: None,
        };
        match kind {
            ModelKind::Qwen3Moe => {
                // mlx-lm's qwen3_moe builds nn.RoPE directly and ignores rope_scaling.
                config.num_experts = usize_field(obj, "num_experts")?;
                config.num_experts_per_tok = usize_field(obj, "num_experts_per_tok")?;
                config.decoder_sparse_step = usize_field(obj, "decoder_sparse_step")?;
                config.moe_intermediate_size = usize_field(obj, "moe_intermediate_size")?;
                config.norm_topk_prob = bool_field(obj, "norm_topk_prob")?;
                let layers = field(obj, "mlp_only_layers")?.as_array().ok_or_else(|| {
                    Error::Config("field \"mlp_only_layers\" must be a list".into())
                })?;
                config.mlp_only_layers = layers
                    .iter()
                    .map(|v| {
                        v.as_u64().map(|n| n as usize).ok_or_else(|| {
                            Error::Config(format!("mlp_only_layers holds {v}, not a layer index"))
                        })
                    })
                    .collect::<Result<_>>()?;
            }
            ModelKind::Qwen3 => {
                let scaling = match obj.get("rope_scaling") {
                    Some(Value::Object(s)) => Some(s),
                    None | Some(Value::Null) => rope_params,
                    Some(other) => {
                        return Err(Error::Config(format!(
                            "rope_scaling must be an object, got {other}"
                        )))
                    }
                };
                if let Some(s) = scaling {
                    let kind = s
                        .get("type")
                        .or_else(|| s.get("rope_type"))
                        .and_then(Value::as_str)
                        .unwrap_or("default");
                    match kind {
                        "default" => {}
                        "linear" => config.rope_scale = (1.0 / float_field(s, "factor")?) as f32,
                        other => {
                            return Err(Error::Config(format!(
                                "rope scaling type {other:?} is not supported"
                            )))
                        }
                    }
                }
            }
        }
        if let Some(q) = obj.get("quantization").filter(|v| !v.is_null()) {
            config.quantization = Some(quantization(q)?);
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
    pub fn to_json(&self) -> Value {
        let mut obj = json!({
            "model_type": self.kind.model_type(),
            "architectures": [match self.kind { ModelKind::Qwen3Moe => "Qwen3MoeForCausalLM", ModelKind::Qwen3 => "Qwen3ForCausalLM" }],
            "hidden_size": self.hidden_size,
            "num_hidden_layers": self.num_hidden_layers,
            "intermediate_size": self.intermediate_size,
            "num_attention_heads": self.num_attention_heads,
            "num_key_value_heads": self.num_key_value_heads,
            "head_dim": self.head_dim,
            "rms_norm_eps": self.rms_norm_eps,
            "vocab_size": self.vocab_size,
            "rope_theta": self.rope_theta,
            "tie_word_embeddings": self.tie_word_embeddings,
            "max_position_embeddings": self.max_position_embeddings,
        });
        let map = obj.as_object_mut().expect("object literal");
        if self.kind == ModelKind::Qwen3Moe {
            map.insert("num_experts".into(), json!(self.num_experts));
            map.insert("num_experts_per_tok".into(), json!(self.num_experts_per_tok));
            map.insert("decoder_sparse_step".into(), json!(self.decoder_sparse_step));
            map.insert("mlp_only_layers".into(), json!(self.mlp_only_layers));
            map.insert("moe_intermediate_size".into(), json!(self.moe_intermediate_size));
            map.insert("norm_topk_prob".into(), json!(self.norm_topk_prob));
        }
        if let Some(q) = &self.quantization {
            let mut block = Map::new();
            block.insert("group_size".into(), json!(q.default.group_size));
            block.insert("bits".into(), json!(q.default.bits));
            block.insert("mode".into(), json!(q.default.mode));
            for (path, spec) in &q.per_module {
                let entry = match spec {
                    None => json!(false),
                    Some(s) => json!({"group_size": s.group_size, "bits": s.bits, "mode": s.mode}),
                };
                block.insert(path.clone(), entry);
            }
            // mlx-lm's converter writes the block under both names.
            map.insert("quantization".into(), Value::Object(block.clone()));
            map.insert("quantization_config".into(), Value::Object(block));
        }
        obj
    }
}
