//! Sorted `gather_qmm` cases (the mixture-of-experts expert product) and their inputs: random
//! quantized weights of every code, x with NaN, +-inf, -0 and half-precision overflow, in four
//! memory layouts, rows spread over experts as routers spread them (uniform, Zipf, one hot
//! expert: `mlx_ab_protocol::Routing`). tests/tests/gather_qmm_tiles.rs checks sorted against
//! per-row products in one process; tests/tests/gather_qmm_vs_stock.rs checks [`evaluate`]
//! against a stock build in another.

use crate::graphs::{output, Output};
use crate::rng::Rng;
use mlx::ops::{slice, squeeze_axes, transpose_axes};
use mlx::quantized::{gather_qmm, quantized_matmul, QuantMode, QuantParams};
use mlx::{Array, Dtype, Result};
use mlx_ab_protocol::routing::Routing;

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Quant {
    pub mode: QuantMode,
    pub bits: i32,
    pub group_size: i32,
}

impl Quant {
    pub fn params(self) -> QuantParams {
        QuantParams { group_size: Some(self.group_size), bits: Some(self.bits), mode: self.mode }
    }
}

/// How x is laid out in memory.
#[derive(Debug, Clone, Copy)]
pub enum XLayout {
    Contiguous,
    /// Every other matrix of a larger array.
    StridedBatch,
    /// Each matrix's rows interleaved with the other matrices' rows.
    InterleavedRows,
    /// One matrix, read by every gathered row.
    Broadcast,
}

pub const X_LAYOUTS: [XLayout; 4] =
    [XLayout::Contiguous, XLayout::StridedBatch, XLayout::InterleavedRows, XLayout::Broadcast];

#[derive(Debug, Clone)]
pub struct Case {
    pub quant: Quant,
    pub dtype: Dtype,
    pub transpose: bool,
    /// Gathered matrices per expert; experts in order, so the rhs indices are sorted.
    pub runs: Vec<usize>,
    /// Rows per gathered matrix.
    pub m: i32,
    pub k: i32,
    pub n: i32,
    pub x_layout: XLayout,
    /// The seed of the case's weights and x.
    pub seed: u64,
}

/// (k, n) for `quant`: the quantized axis (K transposed, N not) holds `groups` whole groups,
/// the other one is `free`.
pub fn k_n(quant: Quant, transpose: bool, groups: i32, free: i32) -> (i32, i32) {
    if transpose {
        (quant.group_size * groups, free)
    } else {
        (free, quant.group_size * groups)
    }
}

/// The case of `seed` for [`evaluate`]: on the CPU any mode, bit width and group size, float
/// dtype and orientation; on the GPU the configurations MoE checkpoints ship (4- and 8-bit
/// affine with groups of 64, mxfp4, nvfp4, mxfp8; bf16 activations, transposed weights),
/// since each (dtype, mode, bits, group, tile) is a CuTe kernel that MLX compiles at run time,
/// in each process, for seconds: the whole space did not get through 64 cases in 8 minutes on
/// the H200 (reports/h200/rust-2026-12-03-75339be/); these few dozen kernels compile once into
/// the PTX cache of each process (`MLX_PTX_CACHE_DIR`), which a later run on the same machine
/// reuses. Any x layout; experts loaded
/// by a random routing. One case in eight has Qwen3-30B-A3B's expert shapes on the GPU (128
/// experts, K = 2048, N = 768, 1 to 16 rows per expert on average), a smaller model's on the
/// CPU (16 experts, K = 256, N = 128); the others are small (on the GPU, shapes its sorted-rhs
/// kernel takes), with runs around the tile edges of both backends' kernels.
pub fn case(seed: u64, gpu: bool) -> Case {
    let mut rng = Rng(seed);
    let affine = |bits, group_size| Quant { mode: QuantMode::Affine, bits, group_size };
    let mxfp4 = Quant { mode: QuantMode::Mxfp4, bits: 4, group_size: 32 };
    let mxfp8 = Quant { mode: QuantMode::Mxfp8, bits: 8, group_size: 32 };
    let nvfp4 = Quant { mode: QuantMode::Nvfp4, bits: 4, group_size: 16 };
    let (quant, dtype, transpose) = if gpu {
        let quant = *rng.pick(&[affine(4, 64), affine(4, 64), affine(8, 64), mxfp4, nvfp4, mxfp8]);
        (quant, Dtype::Bfloat16, true)
    } else {
        let quant = match rng.index(6) {
            0..3 => affine(*rng.pick(&[2, 3, 4, 4, 5, 6, 8]), *rng.pick(&[32, 64, 128])),
            3 => mxfp4,
            4 => mxfp8,
            _ => nvfp4,
        };
        let dtype = *rng.pick(&[Dtype::Float32, Dtype::Float16, Dtype::Bfloat16]);
        (quant, dtype, !rng.chance(4))
    };
    let routing = *rng.pick(&[Routing::Uniform, Routing::Zipf, Routing::Hot]);
    let (experts, rows_per_expert, k, n) = if rng.chance(8) {
        let rows = *rng.pick(&[1, 2, 4, 8, 16]);
        let (experts, k, n) = if gpu { (128, 2048, 768) } else { (16, 256, 128) };
        (experts, rows, k, n)
    } else {
        let experts = 1 + rng.index(8);
        let rows = *rng.pick(&[1, 2, 3, 4, 5, 8, 15, 16, 17, 33, 64, 65]);
        let groups = 1 + rng.index(3) as i32;
        let (k, n) = if gpu {
            // The sorted-rhs kernel the CUDA patches change takes only N a multiple of 128
            // and K of 64 (every GPU group size divides 64); other shapes run kernels no
            // patch touches.
            (64 * groups, 128 * (1 + rng.index(2) as i32))
        } else {
            k_n(quant, transpose, groups, 1 + rng.index(48) as i32)
        };
        (experts, rows, k, n)
    };
    let m = if rng.chance(8) { 2 } else { 1 };
    let x_layout = *rng.pick(&X_LAYOUTS);
    let runs = routing.loads(experts, rows_per_expert);
    Case { quant, dtype, transpose, runs, m, k, n, x_layout, seed: rng.next_u64() }
}

/// x values: normal, and in some rows NaN, +-inf, all -0, or a value that overflows
/// half precision. Most rows stay finite so that most outputs are compared bit for bit.
fn x_values(rng: &mut Rng, rows: usize, k: usize) -> Vec<f32> {
    let mut data: Vec<f32> = (0..rows * k).map(|_| rng.normal() as f32).collect();
    for row in data.chunks_mut(k) {
        let at = rng.below(k as u64) as usize;
        match rng.below(16) {
            0 => row[at] = f32::NAN,
            1 => row[at] = f32::INFINITY,
            2 => row[at] = f32::NEG_INFINITY,
            3 => row.iter_mut().for_each(|v| *v = -0.0),
            4 => row[at] = 6.0e4,
            _ => {}
        }
    }
    data
}

/// The case's inputs, drawn from its seed.
pub struct Inputs {
    pub w: Array,
    pub scales: Array,
    pub biases: Option<Array>,
    /// (matrices, m, k) in the case's layout; `matrices` is 1 when broadcast.
    pub x: Array,
    /// The expert of each gathered matrix, sorted.
    pub rhs: Vec<u32>,
}

impl Inputs {
    /// The rhs indices as an array.
    pub fn rhs_array(&self) -> Result<Array> {
        Array::from_slice(&self.rhs, &[self.rhs.len() as i32])
    }
}

impl Case {
    pub fn inputs(&self) -> Result<Inputs> {
        let mut rng = Rng(self.seed);
        let (w, scales, biases) = self.weights(&mut rng)?;
        let rhs: Vec<u32> =
            (0u32..).zip(&self.runs).flat_map(|(e, &n)| std::iter::repeat_n(e, n)).collect();
        let x = self.x_array(&mut rng, rhs.len())?;
        Ok(Inputs { w, scales, biases, x, rhs })
    }

    /// The sorted gather_qmm of `inputs` (rhs indices as an array `rhs`, sorted or not).
    pub fn product(&self, inputs: &Inputs, x: &Array, rhs: &Array, sorted: bool) -> Result<Array> {
        let Inputs { w, scales, biases, .. } = inputs;
        gather_qmm(
            x,
            w,
            scales,
            biases.as_ref(),
            None,
            Some(rhs),
            self.transpose,
            self.quant.params(),
            sorted,
        )
    }

    /// Quantized weights, scales and biases for the case's experts. Packed weights are random
    /// bits (every code). Codes and scales that make NaN or inf go to the last expert only,
    /// when there are several, so the other experts' outputs stay finite and are compared bit
    /// for bit.
    fn weights(&self, rng: &mut Rng) -> Result<(Array, Array, Option<Array>)> {
        let q = self.quant;
        let experts = self.runs.len();
        let (rows, cols) = if self.transpose { (self.n, self.k) } else { (self.k, self.n) };
        let w_per_expert = (rows * cols * q.bits / 32) as usize;
        let s_per_expert = (rows * cols / q.group_size) as usize;
        let nasty = |i: usize, per: usize| experts > 1 && i / per == experts - 1;
        let w: Vec<u32> = (0..experts * w_per_expert)
            .map(|i| {
                let mut v = rng.next_u64() as u32;
                if q.mode == QuantMode::Mxfp8 && !nasty(i, w_per_expert) {
                    // No e4m3 NaN codes (0x7f, 0xff) here.
                    for byte in 0..4 {
                        if (v >> (8 * byte)) & 0x7f == 0x7f {
                            v ^= 1 << (8 * byte);
                        }
                    }
                }
                v
            })
            .collect();
        let e = experts as i32;
        let w = Array::from_slice(&w, &[e, rows, cols * q.bits / 32])?;
        let s_shape = [e, rows, cols / q.group_size];
        if q.mode != QuantMode::Affine {
            let scales: Vec<u8> = (0..experts * s_per_expert)
                .map(|i| {
                    if nasty(i, s_per_expert) && rng.below(8) == 0 {
                        rng.next_u64() as u8 // any encoding, NaN included
                    } else if q.mode == QuantMode::Nvfp4 {
                        0x20 + rng.below(0x20) as u8 // e4m3 near 1
                    } else {
                        120 + rng.below(16) as u8 // e8m0 near 1
                    }
                })
                .collect();
            return Ok((w, Array::from_slice(&scales, &s_shape)?, None));
        }
        let n_scales = experts * s_per_expert;
        let mut scales: Vec<f32> = (0..n_scales).map(|_| 0.05 * rng.normal() as f32).collect();
        let mut biases: Vec<f32> = (0..n_scales).map(|_| 0.05 * rng.normal() as f32).collect();
        for _ in 0..3 {
            scales[rng.below(n_scales as u64) as usize] = -0.0;
            biases[rng.below(n_scales as u64) as usize] = -0.0;
        }
        if experts > 1 {
            let last = (experts - 1) * s_per_expert;
            scales[last + rng.below(s_per_expert as u64) as usize] = f32::INFINITY;
            biases[last + rng.below(s_per_expert as u64) as usize] = f32::NAN;
        }
        let cast = |v: &[f32]| Array::from_slice(v, &s_shape)?.astype(self.dtype);
        Ok((w, cast(&scales)?, Some(cast(&biases)?)))
    }

    /// x as (matrices, m, k) in the case's layout; `matrices` is 1 when broadcast.
    fn x_array(&self, rng: &mut Rng, batch: usize) -> Result<Array> {
        let (m, k) = (self.m, self.k);
        let b = batch as i32;
        let make = |rng: &mut Rng, shape: &[i32]| {
            let n: i32 = shape.iter().product();
            let data = x_values(rng, (n / k) as usize, k as usize);
            Array::from_slice(&data, shape)?.astype(self.dtype)
        };
        match self.x_layout {
            XLayout::Contiguous => make(rng, &[b, m, k]),
            XLayout::StridedBatch => {
                slice(&make(rng, &[2 * b, m, k])?, &[1, 0, 0], &[2 * b, m, k], &[2, 1, 1])
            }
            XLayout::InterleavedRows => transpose_axes(&make(rng, &[m, b, k])?, &[1, 0, 2]),
            XLayout::Broadcast => make(rng, &[1, m, k]),
        }
    }
}

/// The sorted gather_qmm of `seed`'s case on [`crate::device`], and the dense quantized_matmul
/// of the same x with the first expert's weights (on the GPU not where
/// [`dense_on_stock_qmm_sm90`]).
pub fn evaluate(seed: u64) -> Result<Vec<Output>> {
    evaluate_marked(seed, true)
}

/// [`evaluate`] with the rhs indices marked unsorted: gather_qmm's per-row path, which on CUDA
/// affine-gather-rhs must equal bit for bit.
pub fn evaluate_per_row(seed: u64) -> Result<Vec<Output>> {
    evaluate_marked(seed, false)
}

/// Whether stock's CUDA qmm_sm80 mainloop may read past x and w in `seed`'s GPU case: it loads
/// three K tiles of max(64, group size) whatever K is
/// (reports/upstream/cuda-qmm-sm80-prologue-past-k.md). Every mode may run that mainloop at
/// such K (affine in the per-row kernel, the fp modes also in the rhs kernel); K is then below
/// 512, where no fp case takes fp_gather_qmv, so [`evaluate_per_row`] runs the kernels the
/// sorted call runs or the same mainloop: a bitwise reference.
pub fn stock_reads_past_k(seed: u64) -> bool {
    let case = case(seed, true);
    case.k < 3 * case.quant.group_size.max(64)
}

/// Whether stock may send `case`'s dense product to qmm_sm90 on a Hopper GPU: v0.32.4's
/// supports_qmm_sm90 admits affine 4- and 8-bit transposed products whose K is a multiple of 64
/// and at most one group. Built with CUDA 13 it reads its NVRTC-compiled Params at other
/// offsets than the host wrote them (reports/upstream/cuda13-tensormap-alignment-jit-params.md):
/// two stock processes gave different bits for such products now and then (2026-12-06, an H100,
/// 87d1929), and one gave -7.8e37 for -0.0288 in every process (3a4cf4c;
/// reports/h200/h100-2026-12-06-3a4cf4c/). No stock process is a reference there; patch 0009
/// sends these products to the paths they take on Ampere (qmv, qmm_sm80, qmm_naive). [`evaluate`] leaves them out on the GPU;
/// `dense_products_stock_sends_to_qmm_sm90` checks them in one process.
pub fn dense_on_stock_qmm_sm90(case: &Case) -> bool {
    case.quant.mode == QuantMode::Affine
        && matches!(case.quant.bits, 4 | 8)
        && case.transpose
        && case.k % 64 == 0
        && case.k <= case.quant.group_size
}

fn evaluate_marked(seed: u64, sorted: bool) -> Result<Vec<Output>> {
    let (case, inputs, gpu) = on_device(seed)?;
    let y = case.product(&inputs, &inputs.x, &inputs.rhs_array()?, sorted)?;
    if gpu && dense_on_stock_qmm_sm90(&case) {
        return Ok(vec![output(&y)?]);
    }
    Ok(vec![output(&y)?, output(&dense_product(&case, &inputs)?)?])
}

/// `seed`'s case on [`crate::device`] (selected first), its inputs, and whether it is the GPU.
fn on_device(seed: u64) -> Result<(Case, Inputs, bool)> {
    crate::use_device()?;
    let gpu = crate::device().kind == mlx::DeviceType::Gpu;
    let case = case(seed, gpu);
    let inputs = case.inputs()?;
    Ok((case, inputs, gpu))
}

/// `seed`'s dense product on [`crate::device`] twice, the second time after an array of NaN of
/// the output's size was evaluated and freed (MLX's allocator hands its buffer out again): a
/// kernel that reads memory it did not write shows it as a difference.
pub fn dense_twice_over_nan(seed: u64) -> Result<(Output, Output)> {
    let (case, inputs, _) = on_device(seed)?;
    let first = output(&dense_product(&case, &inputs)?)?;
    let elements = first.bytes.len().div_ceil(4).max(1) as i32;
    mlx::ops::full(&[elements], f64::NAN, Dtype::Float32)?.eval()?;
    let second = output(&dense_product(&case, &inputs)?)?;
    Ok((first, second))
}

/// `seed`'s sorted gather_qmm and its dense product on [`crate::device`], as float32, row-major:
/// `m * n` values per gathered matrix, experts in order (a broadcast x's one dense matrix
/// repeated for every row). The dense product multiplies every row by the first expert's
/// weights, so at the first expert's rows both are the same products by two kernels.
pub fn gather_and_dense(seed: u64) -> Result<(Vec<f32>, Vec<f32>)> {
    let (case, inputs, _) = on_device(seed)?;
    let y = case.product(&inputs, &inputs.x, &inputs.rhs_array()?, true)?;
    let dense = mlx::ops::broadcast_to(&dense_product(&case, &inputs)?, &y.shape())?;
    let values = |a: &Array| a.astype(Dtype::Float32)?.to_vec::<f32>();
    Ok((values(&y)?, values(&dense)?))
}

/// Where `a` and `b`, the same products summed by two kernels in their own orders and rounded
/// once to the activations' dtype, first disagree beyond that: NaN where the other is not,
/// another infinity, or finite values further apart than 2^-7 of the larger (bfloat16's
/// rounding, both sides; the other dtypes round finer) plus 2^-8 of the row's largest magnitude
/// (float32 sums of up to a few hundred terms in other orders, where they cancel). A kernel
/// that reads wrong weights, scales or parameters misses by far more.
pub fn first_disagreement(a: &[f32], b: &[f32], row: usize) -> Option<String> {
    if a.len() != b.len() {
        return Some(format!("{} values against {}", a.len(), b.len()));
    }
    for (r, (ra, rb)) in a.chunks(row.max(1)).zip(b.chunks(row.max(1))).enumerate() {
        let scale = ra.iter().chain(rb).filter(|v| v.is_finite()).fold(0f32, |m, v| m.max(v.abs()));
        for (i, (&x, &y)) in ra.iter().zip(rb).enumerate() {
            let agree = match (x.is_nan(), y.is_nan()) {
                (true, true) => true,
                (false, false) if x.is_infinite() || y.is_infinite() => x == y,
                (false, false) => (x - y).abs() <= x.abs().max(y.abs()) / 128.0 + scale / 256.0,
                _ => false,
            };
            if !agree {
                return Some(format!("row {r}, value {i}: {x} against {y}"));
            }
        }
    }
    None
}

/// The dense quantized_matmul of the case's x by its first expert's weights.
fn dense_product(case: &Case, inputs: &Inputs) -> Result<Array> {
    // On the CPU the gather-qmm-tiles patch tiles it too; on CUDA no patch of the series
    // changes it, but experiments do (qmm-sm90-aot.patch sends group-wise products to qmm_sm90).
    let first = |a: &Array| -> Result<Array> {
        let mut stop = a.shape();
        stop[0] = 1;
        let start = vec![0; stop.len()];
        let unit = vec![1; stop.len()];
        squeeze_axes(&slice(a, &start, &stop, &unit)?, &[0])
    };
    let Inputs { w, scales, biases, x, .. } = inputs;
    let biases = biases.as_ref().map(first).transpose()?;
    quantized_matmul(
        x,
        &first(w)?,
        &first(scales)?,
        biases.as_ref(),
        case.transpose,
        case.quant.params(),
    )
}

/// `seeds` grouped by their case's quantization (mode, bits, group size), groups in order of
/// first appearance. MLX's CUDA backend names each run-time compiled quantized-product module
/// by its quantization, so the groups compile disjoint modules: one process per group can fill
/// a PTX cache side by side (`graph-eval moe-groups`, the GPU `rust` stage's warm-up).
pub fn seeds_by_quant(seeds: impl IntoIterator<Item = u64>, gpu: bool) -> Vec<Vec<u64>> {
    let mut groups: Vec<(Quant, Vec<u64>)> = Vec::new();
    for seed in seeds {
        let quant = case(seed, gpu).quant;
        match groups.iter_mut().find(|(q, _)| *q == quant) {
            Some((_, group)) => group.push(seed),
            None => groups.push((quant, vec![seed])),
        }
    }
    groups.into_iter().map(|(_, group)| group).collect()
}

/// In words, for a failure: mode, bits, group size, dtype, shape, routing.
pub fn describe(seed: u64, gpu: bool) -> String {
    let c = case(seed, gpu);
    let rows: usize = c.runs.iter().sum();
    format!(
        "{:?} {}-bit group {} {:?}, {} rows over {} experts (runs {:?}), m {} k {} n {}, {}, x {:?}",
        c.quant.mode,
        c.quant.bits,
        c.quant.group_size,
        c.dtype,
        rows,
        c.runs.len(),
        if c.runs.len() > 8 { &c.runs[..8] } else { &c.runs[..] },
        c.m,
        c.k,
        c.n,
        if c.transpose { "transposed" } else { "not transposed" },
        c.x_layout
    )
}

#[cfg(test)]
mod tests {
    use super::first_disagreement;

    #[test]
    fn disagreement_is_beyond_two_roundings_or_a_different_special_value() {
        let (nan, inf) = (f32::NAN, f32::INFINITY);
        let row = [1.0, 2.0, nan, -inf];
        assert_eq!(first_disagreement(&row, &row, 4), None);
        assert_eq!(first_disagreement(&row, &[1.0, 2.0 + 2.0 / 128.0, nan, -inf], 4), None);
        let far = first_disagreement(&row, &[1.0, 2.1, nan, -inf], 4);
        assert_eq!(far.as_deref(), Some("row 0, value 1: 2 against 2.1"));
        assert!(first_disagreement(&row, &[1.0, 2.0, 0.0, -inf], 4).is_some());
        assert!(first_disagreement(&row, &[1.0, 2.0, nan, inf], 4).is_some());
        assert!(first_disagreement(&row, &row[..3], 4).is_some(), "a shorter side");
        // Near zero the row's largest magnitude sets the bound: cancellation, not an error.
        assert_eq!(first_disagreement(&[256.0, 0.5], &[256.0, 1.4], 2), None);
        assert!(first_disagreement(&[256.0, 0.5], &[256.0, 1.6], 2).is_some());
    }
}
