//! The block of `src/block.rs` (mlx-rs, through the drop-in mlx-sys) against the same ops
//! through this workspace's `mlx` crate: every output bit must match. Both sides run in this
//! one process on the one libmlx both bindings link (this workspace's mlx-sys 0.1.0, the
//! only copy in the dependency graph), so the same MLX, patches and kernels compute both.

use mlx::fast::{self, AttentionMask};
use mlx::{ops, Array, Result};
use mlx_rs_example::{first_difference, forward, Config, Inputs};

fn linear(x: &Array, w: &Array) -> Result<Array> {
    ops::matmul(x, &ops::transpose(w)?)
}

fn heads(x: &Array, c: &Config, n: i32, norm: Option<&Array>) -> Result<Array> {
    let x = ops::reshape(x, &[c.batch, c.seq, n, c.head_dim])?;
    let x = match norm {
        Some(w) => fast::rms_norm(&x, Some(w), c.eps)?,
        None => x,
    };
    ops::transpose_axes(&x, &[0, 2, 1, 3])
}

/// `mlx_rs_example::forward`, op for op, through the workspace's safe API.
fn reference(c: &Config, inputs: &Inputs) -> Result<Vec<f32>> {
    let (d, i, dh) = (c.hidden, c.intermediate, c.head_dim);
    let (q_dim, kv_dim) = (c.heads * dh, c.kv_heads * dh);
    let a = |data: &[f32], shape: &[i32]| Array::from_slice(data, shape);
    let x = a(&inputs.x, &[c.batch, c.seq, d])?;

    let h = fast::rms_norm(&x, Some(&a(&inputs.input_norm, &[d])?), c.eps)?;
    let q_norm = a(&inputs.q_norm, &[dh])?;
    let k_norm = a(&inputs.k_norm, &[dh])?;
    let q = heads(&linear(&h, &a(&inputs.wq, &[q_dim, d])?)?, c, c.heads, Some(&q_norm))?;
    let k = heads(&linear(&h, &a(&inputs.wk, &[kv_dim, d])?)?, c, c.kv_heads, Some(&k_norm))?;
    let v = heads(&linear(&h, &a(&inputs.wv, &[kv_dim, d])?)?, c, c.kv_heads, None)?;
    let q = fast::rope(&q, dh, false, Some(c.rope_base), 1.0, 0, None)?;
    let k = fast::rope(&k, dh, false, Some(c.rope_base), 1.0, 0, None)?;
    let scale = 1.0 / (dh as f32).sqrt();
    let attn = fast::scaled_dot_product_attention(&q, &k, &v, scale, AttentionMask::Causal, None)?;
    let attn = ops::reshape(&ops::transpose_axes(&attn, &[0, 2, 1, 3])?, &[c.batch, c.seq, q_dim])?;
    let x1 = ops::add(&x, &linear(&attn, &a(&inputs.wo, &[d, q_dim])?)?)?;

    let h2 = fast::rms_norm(&x1, Some(&a(&inputs.post_norm, &[d])?), c.eps)?;
    let gate = linear(&h2, &a(&inputs.w_gate, &[i, d])?)?;
    let up = linear(&h2, &a(&inputs.w_up, &[i, d])?)?;
    let act = ops::multiply(&ops::multiply(&gate, &ops::sigmoid(&gate)?)?, &up)?;
    let out = ops::add(&x1, &linear(&act, &a(&inputs.w_down, &[d, i])?)?)?;
    out.to_vec::<f32>()
}

#[test]
fn both_bindings_run_the_same_mlx() {
    assert_eq!(mlx_sys::patches(), mlx::build_info().patches);
    assert_eq!(mlx::build_info().patches, &mlx::requested_patches()[..]);
}

#[test]
fn mlx_rs_block_equals_the_workspace_block_bit_for_bit() {
    let c = Config::SMALL;
    for seed in [1, 2, 3] {
        let inputs = Inputs::new(&c, seed);
        let ours = forward(&c, &inputs).expect("mlx-rs forward");
        let theirs = reference(&c, &inputs).expect("mlx forward");
        assert_eq!(ours.len(), (c.batch * c.seq * c.hidden) as usize);
        assert!(ours.iter().all(|v| v.is_finite()), "seed {seed}: non-finite output");
        if let Some(i) = first_difference(&ours, &theirs) {
            panic!(
                "seed {seed}: output {i} differs: mlx-rs {:e} ({:#010x}), mlx {:e} ({:#010x})",
                ours[i],
                ours[i].to_bits(),
                theirs.get(i).copied().unwrap_or(f32::NAN),
                theirs.get(i).map_or(0, |v| v.to_bits()),
            );
        }
    }
}
