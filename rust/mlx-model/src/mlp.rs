//! The feed-forward blocks: the dense SwiGLU MLP and the routed mixture of experts
//! (mlx-lm's `Qwen3MoeSparseMoeBlock` over `SwitchGLU`).

use mlx::{ops, Array};

use crate::layers::Weight;
use crate::trace::tap;
use crate::weights::Weights;
use crate::Result;
use mlx_workload::ModelConfig;

/// mlx-lm's `swiglu(gate, x)`: silu(gate) * x, with silu(g) = g * sigmoid(g).
fn swiglu(gate: &Array, x: &Array) -> Result<Array> {
    Ok(ops::multiply(&ops::silu(gate)?, x)?)
}

/// `a`, tapped as `name`.
fn tapped(name: &str, a: Array) -> Array {
    tap(name, &a);
    a
}

pub(crate) enum FeedForward {
    Dense { gate_proj: Weight, up_proj: Weight, down_proj: Weight },
    Moe(MoeBlock),
}

impl FeedForward {
    pub(crate) fn load(
        weights: &mut Weights,
        c: &ModelConfig,
        layer: usize,
    ) -> Result<FeedForward> {
        let path = format!("model.layers.{layer}.mlp");
        if c.is_moe_layer(layer) {
            return Ok(FeedForward::Moe(MoeBlock::load(weights, c, &path)?));
        }
        let q = c.quantization.as_ref();
        let (dim, hidden) = (c.hidden_size as i32, c.intermediate_size as i32);
        let mut linear = |name: &str, out: i32, inp: i32| {
            Weight::load(weights, q, &format!("{path}.{name}"), &[], out, inp)
        };
        Ok(FeedForward::Dense {
            gate_proj: linear("gate_proj", hidden, dim)?,
            down_proj: linear("down_proj", dim, hidden)?,
            up_proj: linear("up_proj", hidden, dim)?,
        })
    }

    pub(crate) fn forward(&self, x: &Array) -> Result<Array> {
        match self {
            FeedForward::Dense { gate_proj, up_proj, down_proj } => {
                let gate = tapped("mlp.gate", gate_proj.linear(x)?);
                let up = tapped("mlp.up", up_proj.linear(x)?);
                let h = tapped("mlp.swiglu", swiglu(&gate, &up)?);
                Ok(tapped("mlp.down", down_proj.linear(&h)?))
            }
            FeedForward::Moe(moe) => moe.forward(x),
        }
    }
}

pub(crate) struct MoeBlock {
    /// The router, `[num_experts, hidden]`.
    gate: Weight,
    /// Stacked expert weights, `[num_experts, out, in]`.
    gate_proj: Weight,
    up_proj: Weight,
    down_proj: Weight,
    num_experts: i32,
    top_k: i32,
    norm_topk_prob: bool,
}

/// mlx-lm's `SwitchGLU` sorts token-expert pairs by expert once there are at least this many
/// (`indices.size >= 64` in the installed mlx-lm's switch_layers.py).
const SORT_THRESHOLD: usize = 64;

impl MoeBlock {
    fn load(weights: &mut Weights, c: &ModelConfig, path: &str) -> Result<MoeBlock> {
        let q = c.quantization.as_ref();
        let (dim, hidden, e) =
            (c.hidden_size as i32, c.moe_intermediate_size as i32, c.num_experts as i32);
        let gate = Weight::load(weights, q, &format!("{path}.gate"), &[], e, dim)?;
        let mut experts = |name: &str, out: i32, inp: i32| {
            Weight::load(weights, q, &format!("{path}.switch_mlp.{name}"), &[e], out, inp)
        };
        Ok(MoeBlock {
            gate,
            gate_proj: experts("gate_proj", hidden, dim)?,
            up_proj: experts("up_proj", hidden, dim)?,
            down_proj: experts("down_proj", dim, hidden)?,
            num_experts: e,
            top_k: c.num_experts_per_tok as i32,
            norm_topk_prob: c.norm_topk_prob,
        })
    }

    /// `x`: `[B, L, hidden]`.
    fn forward(&self, x: &Array) -> Result<Array> {
        let router = tapped("moe.router", self.gate.linear(x)?);
        let gates = tapped("moe.gates", ops::softmax_axes(&router, &[-1], true)?);
        let k = self.top_k;
        // The k largest router probabilities (in argpartition's order, as mlx-lm takes them).
        let parted =
            tapped("moe.argpartition", ops::argpartition(&gates, self.num_experts - k, -1)?);
        let s = parted.shape();
        let last = s.len() - 1;
        let mut start = vec![0; s.len()];
        start[last] = self.num_experts - k;
        let inds = ops::stop_gradient(&ops::slice(&parted, &start, &s, &vec![1; s.len()])?)?;
        tap("moe.inds", &inds);
        let mut scores = tapped("moe.scores", ops::take_along_axis(&gates, &inds, -1)?);
        if self.norm_topk_prob {
            let sum = tapped("moe.scores_sum", ops::sum_axes(&scores, &[-1], true)?);
            scores = tapped("moe.scores_norm", ops::divide(&scores, &sum)?);
        }
        let y = tapped("moe.y", self.switch_glu(x, &inds)?);
        let weighted = tapped("moe.weighted", ops::multiply(&y, &scores.expand_dims(&[-1])?)?);
        Ok(tapped("moe.out", ops::sum_axes(&weighted, &[-2], false)?.astype(y.dtype())?))
    }

    /// SwitchGLU: every token through its k experts; `[B, L, hidden]` -> `[B, L, k, hidden]`.
    fn switch_glu(&self, x: &Array, indices: &Array) -> Result<Array> {
        let x = x.expand_dims(&[-2, -3])?;
        let do_sort = indices.size() >= SORT_THRESHOLD;
        let out = if do_sort {
            // Gather the token rows in expert order so each expert's rows are contiguous.
            let m = *indices.shape().last().expect("indices have a last axis");
            let flat = indices.flatten(0, -1)?;
            let order = tapped("moe.order", ops::argsort_axis(&flat, 0)?);
            let inv_order = tapped("moe.inv_order", ops::argsort_axis(&order, 0)?);
            let rows = tapped("moe.rows", ops::floor_divide(&order, &Array::scalar(m as u32))?);
            let xs = tapped("moe.xs", ops::take(&x.flatten(0, -3)?, &rows, 0)?);
            let idx = tapped("moe.idx", ops::take(&flat, &order, 0)?);
            let y = self.experts(&xs, &idx, true)?;
            let y = tapped("moe.unsorted", ops::take(&y, &inv_order, 0)?);
            ops::unflatten(&y, 0, &indices.shape())?
        } else {
            self.experts(&x, indices, false)?
        };
        Ok(ops::squeeze_axes(&out, &[-2])?)
    }

    fn experts(&self, x: &Array, idx: &Array, sorted: bool) -> Result<Array> {
        let up = tapped("moe.up", self.up_proj.gather_linear(x, idx, sorted)?);
        let gate = tapped("moe.gate", self.gate_proj.gather_linear(x, idx, sorted)?);
        let h = tapped("moe.swiglu", swiglu(&gate, &up)?);
        Ok(tapped("moe.down", self.down_proj.gather_linear(&h, idx, sorted)?))
    }
}
