//! Fused ops against straightforward f64 references written here.

mod common;

use common::{arr, assert_close, pseudo_random, vec_f32};
use mlx::fast::{self, AttentionMask};
use mlx::{ops, Dtype};

#[test]
fn rms_norm_matches_reference() {
    let (rows, d) = (3, 8);
    let x = pseudo_random(rows * d, 10);
    let w = pseudo_random(d, 11);
    let eps = 1e-5f32;
    let got = vec_f32(
        &fast::rms_norm(&arr(&x, &[rows as i32, d as i32]), Some(&arr(&w, &[d as i32])), eps)
            .unwrap(),
    );
    let mut expect = Vec::new();
    for r in x.chunks(d) {
        let ms = r.iter().map(|&v| (v as f64).powi(2)).sum::<f64>() / d as f64;
        let inv = 1.0 / (ms + eps as f64).sqrt();
        expect.extend(r.iter().zip(&w).map(|(&v, &wi)| (v as f64 * inv * wi as f64) as f32));
    }
    assert_close(&got, &expect, 1e-6, 1e-5);
    // Without weight: unit scale.
    let plain = vec_f32(&fast::rms_norm(&arr(&x, &[rows as i32, d as i32]), None, eps).unwrap());
    let expect_plain: Vec<f32> = x
        .chunks(d)
        .flat_map(|r| {
            let ms = r.iter().map(|&v| (v as f64).powi(2)).sum::<f64>() / d as f64;
            r.iter().map(move |&v| (v as f64 / (ms + eps as f64).sqrt()) as f32).collect::<Vec<_>>()
        })
        .collect();
    assert_close(&plain, &expect_plain, 1e-6, 1e-5);
}

#[test]
fn layer_norm_matches_reference() {
    let (rows, d) = (2, 6);
    let x = pseudo_random(rows * d, 12);
    let w = pseudo_random(d, 13);
    let b = pseudo_random(d, 14);
    let eps = 1e-5f32;
    let got = vec_f32(
        &fast::layer_norm(
            &arr(&x, &[rows as i32, d as i32]),
            Some(&arr(&w, &[d as i32])),
            Some(&arr(&b, &[d as i32])),
            eps,
        )
        .unwrap(),
    );
    let mut expect = Vec::new();
    for r in x.chunks(d) {
        let mean = r.iter().map(|&v| v as f64).sum::<f64>() / d as f64;
        let var = r.iter().map(|&v| (v as f64 - mean).powi(2)).sum::<f64>() / d as f64;
        for i in 0..d {
            expect.push(
                (((r[i] as f64 - mean) / (var + eps as f64).sqrt()) * w[i] as f64 + b[i] as f64)
                    as f32,
            );
        }
    }
    assert_close(&got, &expect, 1e-5, 1e-5);
}

/// RoPE reference: positions offset.. along axis -2, frequencies base^(-2i/dims), features
/// past `dims` unchanged; `traditional` pairs (2i, 2i+1), otherwise (i, i + dims/2).
#[allow(clippy::too_many_arguments)]
fn rope_ref(
    x: &[f32],
    l: usize,
    d: usize,
    dims: usize,
    traditional: bool,
    base: f64,
    scale: f64,
    offset: usize,
) -> Vec<f32> {
    let mut out = x.to_vec();
    let half = dims / 2;
    for (row, chunk) in x.chunks(d).enumerate() {
        let pos = ((row % l) + offset) as f64 * scale;
        for i in 0..half {
            let theta = pos * base.powf(-2.0 * i as f64 / dims as f64);
            let (a, b) = if traditional { (2 * i, 2 * i + 1) } else { (i, i + half) };
            let (x1, x2) = (chunk[a] as f64, chunk[b] as f64);
            out[row * d + a] = (x1 * theta.cos() - x2 * theta.sin()) as f32;
            out[row * d + b] = (x1 * theta.sin() + x2 * theta.cos()) as f32;
        }
    }
    out
}

#[test]
fn rope_matches_reference() {
    let (b, h, l, d) = (1, 2, 5, 8);
    let x = pseudo_random(b * h * l * d, 15);
    let xa = arr(&x, &[b as i32, h as i32, l as i32, d as i32]);
    for &(dims, traditional, offset, scale) in
        &[(8, false, 0, 1.0), (8, true, 3, 1.0), (4, false, 7, 0.5), (6, true, 1, 2.0)]
    {
        let got = vec_f32(
            &fast::rope(&xa, dims, traditional, Some(10000.0), scale, offset, None).unwrap(),
        );
        let expect =
            rope_ref(&x, l, d, dims as usize, traditional, 10000.0, scale as f64, offset as usize);
        assert_close(&got, &expect, 2e-5, 1e-5);
    }
    // Offset given as an array.
    let off = arr(&[4i32], &[]);
    let got =
        vec_f32(&fast::rope_with_offsets(&xa, 8, false, Some(10000.0), 1.0, &off, None).unwrap());
    assert_close(&got, &rope_ref(&x, l, d, 8, false, 10000.0, 1.0, 4), 2e-5, 1e-5);
    // Explicit frequencies (given as periods: MLX divides by freqs) instead of a base.
    let freqs: Vec<f32> = (0..4).map(|i| 10000f32.powf(2.0 * i as f32 / 8.0)).collect();
    let got = vec_f32(&fast::rope(&xa, 8, false, None, 1.0, 2, Some(&arr(&freqs, &[4]))).unwrap());
    assert_close(&got, &rope_ref(&x, l, d, 8, false, 10000.0, 1.0, 2), 2e-4, 1e-4);
}

enum MaskRef<'a> {
    None,
    Causal,
    Bool(&'a [bool]),
    Additive(&'a [f32]),
}

/// Naive attention in f64. q: [hq, lq, d], k/v: [hkv, lk, d]; masks are [lq, lk].
#[allow(clippy::too_many_arguments)]
fn sdpa_ref(
    q: &[f32],
    k: &[f32],
    v: &[f32],
    hq: usize,
    hkv: usize,
    lq: usize,
    lk: usize,
    d: usize,
    scale: f64,
    mask: &MaskRef,
    sinks: Option<&[f32]>,
) -> Vec<f32> {
    let mut out = vec![0f32; hq * lq * d];
    for h in 0..hq {
        let kh = h / (hq / hkv);
        for i in 0..lq {
            let mut s: Vec<f64> = (0..lk)
                .map(|j| {
                    (0..d)
                        .map(|t| q[(h * lq + i) * d + t] as f64 * k[(kh * lk + j) * d + t] as f64)
                        .sum::<f64>()
                        * scale
                })
                .collect();
            for (j, sj) in s.iter_mut().enumerate() {
                match mask {
                    MaskRef::None => {}
                    MaskRef::Causal => {
                        if j > i + (lk - lq) {
                            *sj = f64::NEG_INFINITY;
                        }
                    }
                    MaskRef::Bool(m) => {
                        if !m[i * lk + j] {
                            *sj = f64::NEG_INFINITY;
                        }
                    }
                    MaskRef::Additive(m) => *sj += m[i * lk + j] as f64,
                }
            }
            // A sink is one more logit in the normalization, with no value row.
            let sink = sinks.map(|sk| sk[h] as f64);
            let mx = s.iter().cloned().chain(sink).fold(f64::NEG_INFINITY, f64::max);
            let e: Vec<f64> = s.iter().map(|x| (x - mx).exp()).collect();
            let z: f64 = e.iter().sum::<f64>() + sink.map_or(0.0, |sv| (sv - mx).exp());
            for t in 0..d {
                let acc: f64 = (0..lk).map(|j| e[j] / z * v[(kh * lk + j) * d + t] as f64).sum();
                out[(h * lq + i) * d + t] = acc as f32;
            }
        }
    }
    out
}

#[test]
fn attention_matches_reference_for_every_mask_kind() {
    let (hq, hkv, lq, lk, d) = (4, 2, 3, 5, 8);
    let q = pseudo_random(hq * lq * d, 16);
    let k = pseudo_random(hkv * lk * d, 17);
    let v = pseudo_random(hkv * lk * d, 18);
    let scale = 1.0 / (d as f32).sqrt();
    let qa = arr(&q, &[1, hq as i32, lq as i32, d as i32]);
    let ka = arr(&k, &[1, hkv as i32, lk as i32, d as i32]);
    let va = arr(&v, &[1, hkv as i32, lk as i32, d as i32]);
    let run = |mask: AttentionMask| {
        vec_f32(&fast::scaled_dot_product_attention(&qa, &ka, &va, scale, mask, None).unwrap())
    };

    let none = sdpa_ref(&q, &k, &v, hq, hkv, lq, lk, d, scale as f64, &MaskRef::None, None);
    assert_close(&run(AttentionMask::None), &none, 1e-5, 1e-4);

    let causal = sdpa_ref(&q, &k, &v, hq, hkv, lq, lk, d, scale as f64, &MaskRef::Causal, None);
    assert_close(&run(AttentionMask::Causal), &causal, 1e-5, 1e-4);

    let bm: Vec<bool> = (0..lq * lk).map(|i| i % 3 != 1).collect();
    let bool_ref =
        sdpa_ref(&q, &k, &v, hq, hkv, lq, lk, d, scale as f64, &MaskRef::Bool(&bm), None);
    let bmask = arr(&bm, &[lq as i32, lk as i32]);
    assert_close(&run(AttentionMask::Array(&bmask)), &bool_ref, 1e-5, 1e-4);

    let am: Vec<f32> = pseudo_random(lq * lk, 19);
    let add_ref =
        sdpa_ref(&q, &k, &v, hq, hkv, lq, lk, d, scale as f64, &MaskRef::Additive(&am), None);
    let amask = arr(&am, &[lq as i32, lk as i32]);
    assert_close(&run(AttentionMask::Array(&amask)), &add_ref, 1e-5, 1e-4);
}

#[test]
fn attention_sinks_take_probability_mass() {
    let (h, lq, lk, d) = (2, 3, 4, 8);
    let q = pseudo_random(h * lq * d, 23);
    let k = pseudo_random(h * lk * d, 24);
    let v = pseudo_random(h * lk * d, 25);
    let sinks = [0.5f32, -1.0];
    let scale = 1.0 / (d as f32).sqrt();
    let shape = |l: usize| [1, h as i32, l as i32, d as i32];
    let out = fast::scaled_dot_product_attention(
        &arr(&q, &shape(lq)),
        &arr(&k, &shape(lk)),
        &arr(&v, &shape(lk)),
        scale,
        AttentionMask::Causal,
        Some(&arr(&sinks, &[h as i32])),
    )
    .unwrap();
    let expect =
        sdpa_ref(&q, &k, &v, h, h, lq, lk, d, scale as f64, &MaskRef::Causal, Some(&sinks));
    assert_close(&vec_f32(&out), &expect, 1e-5, 1e-4);
}

#[test]
fn causal_attention_in_half_precision_is_close_to_reference() {
    let (h, l, d) = (2, 6, 16);
    let q = pseudo_random(h * l * d, 20);
    let k = pseudo_random(h * l * d, 21);
    let v = pseudo_random(h * l * d, 22);
    let scale = 1.0 / (d as f32).sqrt();
    let expect = sdpa_ref(&q, &k, &v, h, h, l, l, d, scale as f64, &MaskRef::Causal, None);
    for dt in [Dtype::Float16, Dtype::Bfloat16] {
        let to = |x: &[f32]| arr(x, &[1, h as i32, l as i32, d as i32]).astype(dt).unwrap();
        let out = fast::scaled_dot_product_attention(
            &to(&q),
            &to(&k),
            &to(&v),
            scale,
            AttentionMask::Causal,
            None,
        )
        .unwrap();
        assert_eq!(out.dtype(), dt);
        let tol = if dt == Dtype::Bfloat16 { 3e-2 } else { 4e-3 };
        assert_close(&vec_f32(&out.astype(Dtype::Float32).unwrap()), &expect, tol, tol);
    }
    // The first query of a causal square mask sees only the first key: output is v[0].
    let out = fast::scaled_dot_product_attention(
        &arr(&q, &[1, h as i32, l as i32, d as i32]),
        &arr(&k, &[1, h as i32, l as i32, d as i32]),
        &arr(&v, &[1, h as i32, l as i32, d as i32]),
        scale,
        AttentionMask::Causal,
        None,
    )
    .unwrap();
    let first = ops::slice(&out, &[0, 0, 0, 0], &[1, 1, 1, d as i32], &[1, 1, 1, 1]).unwrap();
    assert_close(&vec_f32(&first), &v[..d], 1e-6, 1e-6);
}
