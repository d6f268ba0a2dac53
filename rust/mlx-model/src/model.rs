//! The decoder: embeddings, layers of attention + feed-forward with pre-norms and residuals,
//! final norm and LM head (mlx-lm's `Model` of qwen3_moe.py / qwen3.py).

use std::path::Path;

use mlx::{Array, Dtype};

use crate::attention::Attention;
use crate::cache::{Cache, LayerCache};
use crate::layers::{RmsNorm, Weight};
use crate::mlp::FeedForward;
use crate::trace::tap;
use crate::weights::Weights;
use crate::{Error, Result};
use mlx_workload::ModelConfig;

struct DecoderLayer {
    self_attn: Attention,
    mlp: FeedForward,
    input_layernorm: RmsNorm,
    post_attention_layernorm: RmsNorm,
}

impl DecoderLayer {
    fn forward(&self, x: &Array, cache: &mut LayerCache, causal: bool) -> Result<Array> {
        let n = self.input_layernorm.forward(x)?;
        tap("input_norm", &n);
        let r = self.self_attn.forward(&n, cache, causal)?;
        let h = x.add(&r)?;
        tap("attn_residual", &h);
        let n = self.post_attention_layernorm.forward(&h)?;
        tap("post_norm", &n);
        let r = self.mlp.forward(&n)?;
        let out = h.add(&r)?;
        tap("out", &out);
        Ok(out)
    }
}

/// A loaded model. Weights stay lazy arrays backed by the checkpoint files until first used.
pub struct Model {
    config: ModelConfig,
    embed_tokens: Weight,
    layers: Vec<DecoderLayer>,
    norm: RmsNorm,
    /// `None` when the LM head is tied to the embeddings.
    lm_head: Option<Weight>,
}

impl Model {
    /// Loads an mlx-lm checkpoint directory: `config.json` and every `model*.safetensors`.
    ///
    /// Every tensor the config implies must be present with its exact shape, and no other tensor
    /// may be present (as with mlx-lm's strict loading).
    pub fn load(dir: &Path) -> Result<Model> {
        let config_path = dir.join("config.json");
        let text = std::fs::read_to_string(&config_path).map_err(|source| match source.kind() {
            std::io::ErrorKind::NotFound => Error::MissingFile(config_path.clone()),
            _ => Error::Io { path: config_path.clone(), source },
        })?;
        let config = ModelConfig::from_json_str(&text)?;
        let mut weights = Weights::load_dir(dir)?;
        weights.sanitize(config.tie_word_embeddings, config.num_experts)?;
        let model = Model::from_weights(config, &mut weights)?;
        weights.finish()?;
        Ok(model)
    }

    fn from_weights(config: ModelConfig, weights: &mut Weights) -> Result<Model> {
        let c = &config;
        let q = c.quantization.as_ref();
        let (dim, vocab) = (c.hidden_size as i32, c.vocab_size as i32);
        let embed_tokens = Weight::load(weights, q, "model.embed_tokens", &[], vocab, dim)?;
        let layers = (0..c.num_hidden_layers)
            .map(|i| {
                let path = format!("model.layers.{i}");
                Ok(DecoderLayer {
                    self_attn: Attention::load(weights, c, &format!("{path}.self_attn"))?,
                    mlp: FeedForward::load(weights, c, i)?,
                    input_layernorm: RmsNorm::load(
                        weights,
                        &format!("{path}.input_layernorm"),
                        dim,
                        c.rms_norm_eps,
                    )?,
                    post_attention_layernorm: RmsNorm::load(
                        weights,
                        &format!("{path}.post_attention_layernorm"),
                        dim,
                        c.rms_norm_eps,
                    )?,
                })
            })
            .collect::<Result<Vec<_>>>()?;
        let norm = RmsNorm::load(weights, "model.norm", dim, c.rms_norm_eps)?;
        let lm_head = if c.tie_word_embeddings {
            None
        } else {
            Some(Weight::load(weights, q, "lm_head", &[], vocab, dim)?)
        };
        Ok(Model { config, embed_tokens, layers, norm, lm_head })
    }

    pub fn config(&self) -> &ModelConfig {
        &self.config
    }

    /// The activation dtype: what the embedding produces (its weight's, or its scales' type).
    pub fn dtype(&self) -> Dtype {
        self.embed_tokens.dtype()
    }

    /// An empty KV cache for this model.
    pub fn new_cache(&self) -> Cache {
        Cache::new(self.layers.len())
    }

    /// Token ids as the `[1, L]` uint32 array the model takes; ids must be below `vocab_size`.
    pub fn tokens_array(&self, tokens: &[u32]) -> Result<Array> {
        if let Some(&bad) = tokens.iter().find(|&&t| t as usize >= self.config.vocab_size) {
            return Err(Error::InvalidArgument(format!(
                "token id {bad} is out of range for vocab_size {}",
                self.config.vocab_size
            )));
        }
        let len = i32::try_from(tokens.len())
            .map_err(|_| Error::InvalidArgument("too many tokens".into()))?;
        Ok(Array::from_slice(tokens, &[1, len])?)
    }

    /// The final-norm hidden states `[1, L, hidden]` of `tokens` (`[1, L]`) appended after what
    /// `cache` holds; updates the cache. Lazy: nothing is evaluated.
    pub fn hidden_states(&self, tokens: &Array, cache: &mut Cache) -> Result<Array> {
        if cache.layers.len() != self.layers.len() {
            return Err(Error::InvalidArgument(
                "the cache belongs to a model with another layer count".into(),
            ));
        }
        let mut h = self.embed_tokens.embed(tokens)?;
        tap("embed", &h);
        // mlx-lm: a "causal" mask for more than one query, none for one.
        let causal = h.dim(1)? > 1;
        for (i, (layer, c)) in self.layers.iter().zip(cache.layers.iter_mut()).enumerate() {
            let _scope = crate::trace::scope(format_args!("layer{i}"));
            h = layer.forward(&h, c, causal)?;
        }
        let h = self.norm.forward(&h)?;
        tap("norm", &h);
        Ok(h)
    }

    /// Logits `[.., vocab]` of hidden states.
    pub fn logits(&self, hidden: &Array) -> Result<Array> {
        let logits = match &self.lm_head {
            Some(head) => head.linear(hidden)?,
            None => self.embed_tokens.linear(hidden)?,
        };
        tap("logits", &logits);
        Ok(logits)
    }

    /// Logits `[1, L, vocab]` of `tokens` after what `cache` holds (lazy).
    pub fn forward(&self, tokens: &[u32], cache: &mut Cache) -> Result<Array> {
        let t = self.tokens_array(tokens)?;
        let h = self.hidden_states(&t, cache)?;
        self.logits(&h)
    }
}
