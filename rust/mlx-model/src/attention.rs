//! Grouped-query attention with q/k RMSNorm and RoPE (mlx-lm's qwen3 / qwen3_moe `Attention`).

use mlx::fast::{self, AttentionMask};
use mlx::{ops, Array};

use crate::cache::LayerCache;
use crate::layers::{RmsNorm, Weight};
use crate::trace::tap;
use crate::weights::Weights;
use crate::Result;
use mlx_workload::ModelConfig;

pub(crate) struct Attention {
    q_proj: Weight,
    k_proj: Weight,
    v_proj: Weight,
    o_proj: Weight,
    q_norm: RmsNorm,
    k_norm: RmsNorm,
    n_heads: i32,
    n_kv_heads: i32,
    head_dim: i32,
    rope_theta: f32,
    rope_scale: f32,
}

impl Attention {
    pub(crate) fn load(weights: &mut Weights, c: &ModelConfig, path: &str) -> Result<Attention> {
        let q = c.quantization.as_ref();
        let (dim, hd) = (c.hidden_size as i32, c.head_dim as i32);
        let (nh, nkv) = (c.num_attention_heads as i32, c.num_key_value_heads as i32);
        let mut linear = |name: &str, out: i32, inp: i32| {
            Weight::load(weights, q, &format!("{path}.{name}"), &[], out, inp)
        };
        let q_proj = linear("q_proj", nh * hd, dim)?;
        let k_proj = linear("k_proj", nkv * hd, dim)?;
        let v_proj = linear("v_proj", nkv * hd, dim)?;
        let o_proj = linear("o_proj", dim, nh * hd)?;
        Ok(Attention {
            q_proj,
            k_proj,
            v_proj,
            o_proj,
            q_norm: RmsNorm::load(weights, &format!("{path}.q_norm"), hd, c.rms_norm_eps)?,
            k_norm: RmsNorm::load(weights, &format!("{path}.k_norm"), hd, c.rms_norm_eps)?,
            n_heads: nh,
            n_kv_heads: nkv,
            head_dim: hd,
            rope_theta: c.rope_theta,
            rope_scale: c.rope_scale,
        })
    }

    /// `x`: `[B, L, hidden]`; `causal` is mlx-lm's mask choice ("causal" when L > 1, none for
    /// one query, which may see every cached key anyway).
    pub(crate) fn forward(&self, x: &Array, cache: &mut LayerCache, causal: bool) -> Result<Array> {
        let s = x.shape();
        let (b, l) = (s[0], s[1]);
        let heads = |proj: &Weight, n: i32, name: &str| -> Result<Array> {
            let h = proj.linear(x)?.reshape(&[b, l, n, -1])?;
            tap(name, &h);
            Ok(h)
        };
        let norm = |norm: &RmsNorm, h: &Array, name: &str| -> Result<Array> {
            let n = norm.forward(h)?;
            tap(name, &n);
            Ok(n.transpose_axes(&[0, 2, 1, 3])?)
        };
        let queries =
            norm(&self.q_norm, &heads(&self.q_proj, self.n_heads, "attn.q_proj")?, "attn.q_norm")?;
        let keys = norm(
            &self.k_norm,
            &heads(&self.k_proj, self.n_kv_heads, "attn.k_proj")?,
            "attn.k_norm",
        )?;
        let values =
            heads(&self.v_proj, self.n_kv_heads, "attn.v_proj")?.transpose_axes(&[0, 2, 1, 3])?;

        let offset = cache.offset();
        let rope = |a: &Array| {
            fast::rope(
                a,
                self.head_dim,
                false,
                Some(self.rope_theta),
                self.rope_scale,
                offset,
                None,
            )
        };
        let queries = rope(&queries)?;
        tap("attn.q_rope", &queries);
        let keys = rope(&keys)?;
        tap("attn.k_rope", &keys);
        let (keys, values) = cache.update_and_fetch(&keys, &values)?;
        tap("attn.cache_keys", &keys);
        tap("attn.cache_values", &values);

        // As Python computes head_dim**-0.5: in double, rounded once to the float MLX takes.
        let scale = (f64::from(self.head_dim)).powf(-0.5) as f32;
        let mask = if causal { AttentionMask::Causal } else { AttentionMask::None };
        let out = fast::scaled_dot_product_attention(&queries, &keys, &values, scale, mask, None)?;
        tap("attn.sdpa", &out);
        let out = ops::reshape(&out.transpose_axes(&[0, 2, 1, 3])?, &[b, l, -1])?;
        let out = self.o_proj.linear(&out)?;
        tap("attn.o_proj", &out);
        Ok(out)
    }
}
