//! Quantization against a reference of MLX's affine scheme written here from its definition:
//! per group of `g` values along the last axis, `w ~ scale * q + bias` with q in
//! [0, 2^bits - 1], zero exactly representable, q packed little-end first into uint32 words.

mod common;

use common::{arr, assert_close, matmul_ref, pseudo_random, vec_f32};
use mlx::quantized::{self, QuantMode, QuantParams};
use mlx::{ops, Array, Dtype};

struct RefQuant {
    q: Vec<u32>,
    scales: Vec<f32>,
    biases: Vec<f32>,
}

/// Affine quantization of rows of length k (bits 2, 4 or 8).
fn quantize_ref(w: &[f32], k: usize, g: usize, bits: u32) -> RefQuant {
    let n_bins = ((1u32 << bits) - 1) as f32;
    let (mut q, mut scales, mut biases) = (Vec::new(), Vec::new(), Vec::new());
    for group in w.chunks(g) {
        let w_max = group.iter().cloned().fold(f32::NEG_INFINITY, f32::max);
        let w_min = group.iter().cloned().fold(f32::INFINITY, f32::min);
        let mask = w_min.abs() > w_max.abs();
        let mut scale = ((w_max - w_min) / n_bins).max(1e-7);
        if !mask {
            scale = -scale;
        }
        let edge = if mask { w_min } else { w_max };
        let q0 = (edge / scale).round_ties_even();
        let mut bias = 0.0;
        if q0 != 0.0 {
            scale = edge / q0;
            bias = edge;
        }
        for &x in group {
            q.push(((x - bias) / scale).round_ties_even().clamp(0.0, n_bins) as u32);
        }
        scales.push(scale);
        biases.push(bias);
    }
    assert_eq!(q.len() % k, 0);
    RefQuant { q, scales, biases }
}

fn pack(q: &[u32], bits: u32) -> Vec<u32> {
    let per = (32 / bits) as usize;
    q.chunks(per)
        .map(|c| c.iter().enumerate().fold(0u32, |acc, (j, &v)| acc | (v << (j as u32 * bits))))
        .collect()
}

fn dequantize_ref(r: &RefQuant, g: usize) -> Vec<f32> {
    r.q.iter().enumerate().map(|(i, &q)| r.scales[i / g] * q as f32 + r.biases[i / g]).collect()
}

#[test]
fn affine_quantize_matches_reference_bit_for_bit() {
    for &(bits, g) in &[(4u32, 32usize), (4, 64), (8, 64), (2, 128)] {
        let (n, k) = (6, 256);
        let w = pseudo_random(n * k, bits as u64 * 100 + g as u64);
        let r = quantize_ref(&w, k, g, bits);
        let got = quantized::quantize(
            &arr(&w, &[n as i32, k as i32]),
            QuantParams::affine(g as i32, bits as i32),
        )
        .unwrap();
        assert_eq!(got.weights.dtype(), Dtype::Uint32);
        assert_eq!(got.weights.shape(), vec![n as i32, (k as u32 * bits / 32) as i32]);
        assert_eq!(got.scales.shape(), vec![n as i32, (k / g) as i32]);
        assert_eq!(got.weights.to_vec::<u32>().unwrap(), pack(&r.q, bits), "bits {bits} group {g}");
        let bits_of = |v: Vec<f32>| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        assert_eq!(bits_of(vec_f32(&got.scales)), bits_of(r.scales.clone()));
        let biases = got.biases.as_ref().expect("affine has biases");
        assert_eq!(bits_of(vec_f32(biases)), bits_of(r.biases.clone()));

        // Dequantization: scale * q + bias (allowing a fused multiply-add's rounding).
        let deq = quantized::dequantize(
            &got.weights,
            &got.scales,
            Some(biases),
            QuantParams::affine(g as i32, bits as i32),
            None,
        )
        .unwrap();
        assert_eq!(deq.dtype(), Dtype::Float32);
        let expect = dequantize_ref(&r, g);
        assert_close(&vec_f32(&deq), &expect, 1e-7, 1e-6);
        // And the reconstruction is within one quantization step of the input.
        for (i, (&a, &b)) in expect.iter().zip(&w).enumerate() {
            assert!((a - b).abs() <= r.scales[i / g].abs() * 1.001, "bits {bits}: {a} vs {b}");
        }
    }
}

#[test]
fn default_params_are_affine_group_64_bits_4() {
    let w = pseudo_random(4 * 128, 7);
    let a = arr(&w, &[4, 128]);
    let d = quantized::quantize(&a, QuantParams::default()).unwrap();
    let e = quantized::quantize(&a, QuantParams::affine(64, 4)).unwrap();
    assert_eq!(d.weights.to_vec::<u32>().unwrap(), e.weights.to_vec::<u32>().unwrap());
    assert_eq!(d.scales.shape(), vec![4, 2]);
}

#[test]
fn values_on_the_grid_round_trip_exactly() {
    // Group [0, 1, ..., 15, 15, ..., 0] with 4 bits: scale -1, bias 15, so q = 15 - w.
    let mut w: Vec<f32> = (0..16).map(|i| i as f32).collect();
    w.extend((0..16).rev().map(|i| i as f32));
    let q = quantized::quantize(&arr(&w, &[1, 32]), QuantParams::affine(32, 4)).unwrap();
    assert_eq!(vec_f32(&q.scales), [-1.0]);
    assert_eq!(vec_f32(q.biases.as_ref().unwrap()), [15.0]);
    let back = quantized::dequantize(
        &q.weights,
        &q.scales,
        q.biases.as_ref(),
        QuantParams::affine(32, 4),
        None,
    )
    .unwrap();
    assert_eq!(vec_f32(&back), w);
    // Output dtype on request.
    let h = quantized::dequantize(
        &q.weights,
        &q.scales,
        q.biases.as_ref(),
        QuantParams::affine(32, 4),
        Some(Dtype::Float16),
    )
    .unwrap();
    assert_eq!(h.dtype(), Dtype::Float16);
}

#[test]
fn mxfp4_round_trips_values_on_its_grid() {
    // E2M1 values; with a group maximum of 6 the shared scale is 2^0.
    let grid = [0.0f32, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0];
    let w: Vec<f32> = (0..64).map(|i| grid[i % 8] * if i % 3 == 0 { -1.0 } else { 1.0 }).collect();
    let mut w = w;
    w[0] = 6.0;
    w[32] = -6.0;
    let params = QuantParams { group_size: None, bits: None, mode: QuantMode::Mxfp4 };
    let q = quantized::quantize(&arr(&w, &[2, 32]), params).unwrap();
    assert!(q.biases.is_none());
    assert_eq!(q.scales.dtype(), Dtype::Uint8);
    // e8m0 scale 2^0 is stored as the biased exponent 127.
    assert_eq!(q.scales.to_vec::<u8>().unwrap(), [127, 127]);
    let back =
        quantized::dequantize(&q.weights, &q.scales, None, params, Some(Dtype::Float32)).unwrap();
    assert_eq!(vec_f32(&back), w);
    assert_eq!("mxfp4".parse::<QuantMode>().unwrap(), QuantMode::Mxfp4);
    assert!("int3".parse::<QuantMode>().is_err());
}

/// x @ w_hat^T with w_hat the reference dequantization.
fn qmm_ref(x: &[f32], w_hat: &[f32], m: usize, k: usize, n: usize) -> Vec<f32> {
    let mut wt = vec![0f32; k * n];
    for i in 0..n {
        for j in 0..k {
            wt[j * n + i] = w_hat[i * k + j];
        }
    }
    matmul_ref(x, &wt, m, k, n)
}

#[test]
fn quantized_matmul_matches_dequantized_reference() {
    let (m, k, n, g, bits) = (5, 128, 12, 64, 4);
    let w = pseudo_random(n * k, 31);
    let x = pseudo_random(m * k, 32);
    let r = quantize_ref(&w, k, g, bits);
    let q = quantized::quantize(
        &arr(&w, &[n as i32, k as i32]),
        QuantParams::affine(g as i32, bits as i32),
    )
    .unwrap();
    let out = quantized::quantized_matmul(
        &arr(&x, &[m as i32, k as i32]),
        &q.weights,
        &q.scales,
        q.biases.as_ref(),
        true,
        QuantParams::affine(g as i32, bits as i32),
    )
    .unwrap();
    assert_eq!(out.shape(), vec![m as i32, n as i32]);
    assert_close(&vec_f32(&out), &qmm_ref(&x, &dequantize_ref(&r, g), m, k, n), 1e-4, 1e-4);
}

/// Products without rows are empty arrays of the right shape and dtype, on every float dtype.
/// MLX v0.32.4's own kernels die here (quantized_matmul: SIGFPE on CPU and CUDA; gather_qmm:
/// SIGSEGV on CUDA; scripts/repro/empty_quantized_ops.cpp), so the binding answers them.
#[test]
fn quantized_products_of_no_rows_are_empty() {
    let p = QuantParams::affine(64, 4);
    for dtype in [Dtype::Float32, Dtype::Float16, Dtype::Bfloat16] {
        let w = arr(&pseudo_random(8 * 64, 3), &[8, 64]).astype(dtype).unwrap();
        let q = quantized::quantize(&w, p).unwrap();
        for x_shape in [vec![0, 64], vec![2, 0, 64], vec![0, 3, 64]] {
            let x = ops::zeros(&x_shape, dtype).unwrap();
            let out =
                quantized::quantized_matmul(&x, &q.weights, &q.scales, q.biases.as_ref(), true, p)
                    .unwrap();
            let mut expected = x_shape.clone();
            *expected.last_mut().unwrap() = 8;
            assert_eq!((out.shape(), out.dtype()), (expected, dtype));
            assert_eq!(out.astype(Dtype::Float32).unwrap().to_vec::<f32>().unwrap(), vec![]);
        }
        let experts = arr(&pseudo_random(2 * 8 * 64, 4), &[2, 8, 64]).astype(dtype).unwrap();
        let q = quantized::quantize(&experts, p).unwrap();
        let x = ops::zeros(&[0, 1, 64], dtype).unwrap();
        let rhs = Array::from_slice::<u32>(&[], &[0]).unwrap();
        for sorted in [true, false] {
            let out = quantized::gather_qmm(
                &x,
                &q.weights,
                &q.scales,
                q.biases.as_ref(),
                None,
                Some(&rhs),
                true,
                p,
                sorted,
            )
            .unwrap();
            assert_eq!((out.shape(), out.dtype()), (vec![0, 1, 8], dtype));
            assert_eq!(out.astype(Dtype::Float32).unwrap().to_vec::<f32>().unwrap(), vec![]);
        }
    }
}

struct Experts {
    k: usize,
    n: usize,
    g: usize,
    refs: Vec<Vec<f32>>, // dequantized reference weights per expert, [n, k]
    q: quantized::Quantized,
}

fn experts(e: usize, n: usize, k: usize, g: usize, seed: u64) -> Experts {
    let w = pseudo_random(e * n * k, seed);
    let refs = w.chunks(n * k).map(|we| dequantize_ref(&quantize_ref(we, k, g, 4), g)).collect();
    let q = quantized::quantize(
        &arr(&w, &[e as i32, n as i32, k as i32]),
        QuantParams::affine(g as i32, 4),
    )
    .unwrap();
    Experts { k, n, g, refs, q }
}

impl Experts {
    fn gather(&self, x: &Array, lhs: Option<&Array>, rhs: Option<&Array>, sorted: bool) -> Array {
        quantized::gather_qmm(
            x,
            &self.q.weights,
            &self.q.scales,
            self.q.biases.as_ref(),
            lhs,
            rhs,
            true,
            QuantParams::affine(self.g as i32, 4),
            sorted,
        )
        .unwrap()
    }
}

#[test]
fn gather_qmm_picks_the_right_expert_per_row() {
    let ex = experts(4, 16, 64, 32, 41);
    let (k, n) = (ex.k, ex.n);
    let tokens = 6;
    let x = pseudo_random(tokens * k, 42);
    let xa = arr(&x, &[tokens as i32, 1, k as i32]);
    let expect_for = |idx: &[u32]| -> Vec<f32> {
        idx.iter()
            .enumerate()
            .flat_map(|(t, &e)| qmm_ref(&x[t * k..(t + 1) * k], &ex.refs[e as usize], 1, k, n))
            .collect()
    };
    // Sorted expert ids (the MoE prefill layout), with and without the sorted promise.
    let sorted_ids = [0u32, 0, 1, 3, 3, 3];
    let ids = arr(&sorted_ids, &[tokens as i32]);
    for sorted in [true, false] {
        let out = ex.gather(&xa, None, Some(&ids), sorted);
        assert_eq!(out.shape(), vec![tokens as i32, 1, n as i32]);
        assert_close(&vec_f32(&out), &expect_for(&sorted_ids), 1e-4, 1e-4);
    }
    // Unsorted ids.
    let mixed = [3u32, 1, 0, 3, 2, 1];
    let out = ex.gather(&xa, None, Some(&arr(&mixed, &[tokens as i32])), false);
    assert_close(&vec_f32(&out), &expect_for(&mixed), 1e-4, 1e-4);

    // lhs indices pick input rows: out[i] = x[lhs[i]] @ w[rhs[i]]^T.
    let lhs = [1u32, 0, 1];
    let rhs = [2u32, 2, 0];
    let out = ex.gather(&xa, Some(&arr(&lhs, &[3])), Some(&arr(&rhs, &[3])), false);
    let expect: Vec<f32> = lhs
        .iter()
        .zip(&rhs)
        .flat_map(|(&l, &e)| {
            qmm_ref(&x[l as usize * k..(l as usize + 1) * k], &ex.refs[e as usize], 1, k, n)
        })
        .collect();
    assert_close(&vec_f32(&out), &expect, 1e-4, 1e-4);
}

#[test]
fn gather_qmm_broadcasts_top_k_like_switch_layers() {
    // x [T, 1, 1, K] with top-2 ids [T, 2] -> out [T, 2, 1, N].
    let ex = experts(3, 8, 32, 32, 51);
    let (k, n, t) = (ex.k, ex.n, 3);
    let x = pseudo_random(t * k, 52);
    let ids = [0u32, 2, 1, 2, 0, 1];
    let out = ex.gather(
        &arr(&x, &[t as i32, 1, 1, k as i32]),
        None,
        Some(&arr(&ids, &[t as i32, 2])),
        false,
    );
    assert_eq!(out.shape(), vec![t as i32, 2, 1, n as i32]);
    let expect: Vec<f32> = ids
        .iter()
        .enumerate()
        .flat_map(|(i, &e)| {
            qmm_ref(&x[(i / 2) * k..(i / 2 + 1) * k], &ex.refs[e as usize], 1, k, n)
        })
        .collect();
    assert_close(&vec_f32(&out), &expect, 1e-4, 1e-4);
}

#[test]
fn gather_mm_matches_reference() {
    let (e, k, n, t) = (3, 5, 4, 4);
    let b = pseudo_random(e * k * n, 61);
    let a = pseudo_random(t * k, 62);
    let ids = [0u32, 0, 2, 2];
    let out = quantized::gather_mm(
        &arr(&a, &[t as i32, 1, k as i32]),
        &arr(&b, &[e as i32, k as i32, n as i32]),
        None,
        Some(&arr(&ids, &[t as i32])),
        true,
    )
    .unwrap();
    assert_eq!(out.shape(), vec![t as i32, 1, n as i32]);
    let expect: Vec<f32> = ids
        .iter()
        .enumerate()
        .flat_map(|(i, &ei)| {
            matmul_ref(
                &a[i * k..(i + 1) * k],
                &b[ei as usize * k * n..(ei as usize + 1) * k * n],
                1,
                k,
                n,
            )
        })
        .collect();
    assert_close(&vec_f32(&out), &expect, 1e-5, 1e-5);
    // Same via ops on each row.
    let row2 = ops::matmul(
        &arr(&a[2 * k..3 * k], &[1, k as i32]),
        &arr(&b[2 * k * n..3 * k * n], &[k as i32, n as i32]),
    )
    .unwrap();
    assert_close(&vec_f32(&row2), &expect[2 * n..3 * n], 1e-6, 1e-6);
}
