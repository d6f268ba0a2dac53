//! `cargo bench -p mlx-benches`: patched paths against the stock computations they replace,
//! interleaved in one process. Run it on a stock build too (`--no-default-features`): there both
//! sides are stock code and the ratios show the noise floor.

use mlx::fast::{scaled_dot_product_attention, AttentionMask};
use mlx::quantized::{gather_qmm, quantize, QuantParams};
use mlx::{ops, random, Array, Dtype};
use mlx_benches::{compare, print_table, Side};

fn bits(a: &Array) -> Vec<u32> {
    a.eval().unwrap();
    ops::astype(a, Dtype::Float32)
        .unwrap()
        .to_vec::<f32>()
        .unwrap()
        .iter()
        .map(|x| x.to_bits())
        .collect()
}

/// Causal SDPA (the fused softmax with the patch) vs the same attention with an explicit
/// lower-triangular bool mask (the stock where + softmax chain).
fn causal_attention(len: i32, dtype: Dtype) -> mlx_benches::Measurement {
    let shape = [1, 16, len, 128];
    let normal =
        |seed| random::normal(&shape, dtype, 0.0, 1.0, Some(&random::key(seed).unwrap())).unwrap();
    let (q, k, v) = (normal(7), normal(8), normal(9));
    mlx::eval(&[&q, &k, &v]).unwrap();
    let ones = ops::ones(&[len, len], Dtype::Bool).unwrap();
    let mask = ops::tril(&ones, 0).unwrap();
    mask.eval().unwrap();
    let scale = 1.0 / (128f32).sqrt();
    let stock: Side<'_, Vec<u32>> = Box::new(|| {
        bits(
            &scaled_dot_product_attention(&q, &k, &v, scale, AttentionMask::Array(&mask), None)
                .unwrap(),
        )
    });
    let patched: Side<'_, Vec<u32>> = Box::new(|| {
        bits(&scaled_dot_product_attention(&q, &k, &v, scale, AttentionMask::Causal, None).unwrap())
    });
    compare(&format!("causal SDPA L={len} H=16 D=128 {dtype:?}"), 8, stock, patched)
}

/// MoE expert product: sorted rhs indices (tiled with the patch) vs the same call without the
/// sorted promise (the stock per-row loop).
fn moe_gather_qmm(experts: i32, rows_per_expert: i32) -> mlx_benches::Measurement {
    let (k_dim, n_dim) = (1024, 1024);
    let w = random::normal(
        &[experts, n_dim, k_dim],
        Dtype::Float32,
        0.0,
        0.05,
        Some(&random::key(3).unwrap()),
    )
    .unwrap();
    let q = quantize(&w, QuantParams::affine(64, 4)).unwrap();
    let rows = experts * rows_per_expert;
    let x =
        random::normal(&[rows, 1, k_dim], Dtype::Float32, 0.0, 1.0, Some(&random::key(4).unwrap()))
            .unwrap();
    let idx: Vec<u32> = (0..rows).map(|r| (r / rows_per_expert) as u32).collect();
    let idx = Array::from_slice(&idx, &[rows]).unwrap();
    mlx::eval(&[&x, &q.weights, &q.scales, &idx]).unwrap();
    let run = |sorted: bool| {
        let biases = q.biases.as_ref();
        bits(
            &gather_qmm(
                &x,
                &q.weights,
                &q.scales,
                biases,
                None,
                Some(&idx),
                true,
                QuantParams::affine(64, 4),
                sorted,
            )
            .unwrap(),
        )
    };
    let stock: Side<'_, Vec<u32>> = Box::new(move || run(false));
    let patched: Side<'_, Vec<u32>> = Box::new(move || run(true));
    compare(
        &format!("gather_qmm E={experts} rows/expert={rows_per_expert} K=N=1024 4-bit f32"),
        8,
        stock,
        patched,
    )
}

fn main() {
    let measurements = vec![
        causal_attention(1024, Dtype::Float32),
        causal_attention(2048, Dtype::Float32),
        moe_gather_qmm(16, 4),
        moe_gather_qmm(16, 32),
    ];
    print_table(&measurements, mlx::build_info().patches);
}
