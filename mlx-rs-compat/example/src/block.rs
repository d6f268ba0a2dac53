//! The block through mlx-rs. `tests/bit_identity.rs` mirrors it op for op with the `mlx`
//! crate: keep the two in the same order.

use crate::data::{Config, Inputs};
use mlx_rs::error::Exception;
use mlx_rs::fast::{self, ScaledDotProductAttentionMask};
use mlx_rs::ops;
use mlx_rs::Array;

/// x @ w^T for a `[out, in]` weight.
fn linear(x: &Array, w: &Array) -> Result<Array, Exception> {
    ops::matmul(x, ops::transpose(w)?)
}

/// `[B, L, H*D]` projection to `[B, H, L, D]` heads, each RMS-normed when `norm` is given.
fn heads(x: &Array, c: &Config, n: i32, norm: Option<&Array>) -> Result<Array, Exception> {
    let x = ops::reshape(x, &[c.batch, c.seq, n, c.head_dim])?;
    let x = match norm {
        Some(w) => fast::rms_norm(&x, Some(w), c.eps)?,
        None => x,
    };
    ops::transpose_axes(&x, &[0, 2, 1, 3])
}

/// The block's output, `[batch, seq, hidden]` row-major.
pub fn forward(c: &Config, inputs: &Inputs) -> Result<Vec<f32>, Exception> {
    let (d, i, dh) = (c.hidden, c.intermediate, c.head_dim);
    let (q_dim, kv_dim) = (c.heads * dh, c.kv_heads * dh);
    let a = |data: &[f32], shape: &[i32]| Array::from_slice(data, shape);
    let x = a(&inputs.x, &[c.batch, c.seq, d]);

    let h = fast::rms_norm(&x, Some(&a(&inputs.input_norm, &[d])), c.eps)?;
    let q_norm = a(&inputs.q_norm, &[dh]);
    let k_norm = a(&inputs.k_norm, &[dh]);
    let q = heads(&linear(&h, &a(&inputs.wq, &[q_dim, d]))?, c, c.heads, Some(&q_norm))?;
    let k = heads(&linear(&h, &a(&inputs.wk, &[kv_dim, d]))?, c, c.kv_heads, Some(&k_norm))?;
    let v = heads(&linear(&h, &a(&inputs.wv, &[kv_dim, d]))?, c, c.kv_heads, None)?;
    let q = fast::rope(&q, dh, false, c.rope_base, 1.0, 0, None)?;
    let k = fast::rope(&k, dh, false, c.rope_base, 1.0, 0, None)?;
    let scale = 1.0 / (dh as f32).sqrt();
    let attn = fast::scaled_dot_product_attention(
        &q,
        &k,
        &v,
        scale,
        ScaledDotProductAttentionMask::Causal,
        None,
    )?;
    let attn = ops::reshape(ops::transpose_axes(&attn, &[0, 2, 1, 3])?, &[c.batch, c.seq, q_dim])?;
    let x1 = ops::add(&x, linear(&attn, &a(&inputs.wo, &[d, q_dim]))?)?;

    let h2 = fast::rms_norm(&x1, Some(&a(&inputs.post_norm, &[d])), c.eps)?;
    let gate = linear(&h2, &a(&inputs.w_gate, &[i, d]))?;
    let up = linear(&h2, &a(&inputs.w_up, &[i, d]))?;
    let act = ops::multiply(ops::multiply(&gate, ops::sigmoid(&gate)?)?, &up)?;
    let out = ops::add(&x1, linear(&act, &a(&inputs.w_down, &[d, i]))?)?;
    out.eval()?;
    Ok(out.as_slice::<f32>().to_vec())
}
