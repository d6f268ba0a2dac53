//! Helpers shared by the integration tests: building arrays and comparing with references
//! computed here in plain Rust (never with values taken from MLX's output).
#![allow(dead_code)]

use mlx::{Array, Element};

/// An array from data and shape; panics on a test-setup mistake.
pub fn arr<T: Element>(data: &[T], shape: &[i32]) -> Array {
    Array::from_slice(data, shape).expect("test array")
}

pub fn vec_f32(a: &Array) -> Vec<f32> {
    a.to_vec::<f32>().expect("f32 data")
}

/// |x - y| <= atol + rtol * |y| element-wise, with NaN only matching NaN.
pub fn assert_close(actual: &[f32], expected: &[f32], atol: f32, rtol: f32) {
    assert_eq!(actual.len(), expected.len(), "length");
    for (i, (&x, &y)) in actual.iter().zip(expected).enumerate() {
        if y.is_nan() {
            assert!(x.is_nan(), "index {i}: got {x}, expected NaN");
            continue;
        }
        assert!(
            (x - y).abs() <= atol + rtol * y.abs(),
            "index {i}: got {x}, expected {y} (atol {atol}, rtol {rtol})"
        );
    }
}

/// A deterministic pseudo-random f32 sequence in [-1, 1) (xorshift), for inputs.
pub fn pseudo_random(n: usize, seed: u64) -> Vec<f32> {
    let mut s = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..n)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            ((s >> 40) as f32 / (1u64 << 24) as f32) * 2.0 - 1.0
        })
        .collect()
}

/// Row-major [m, k] x [k, n] in f64.
pub fn matmul_ref(a: &[f32], b: &[f32], m: usize, k: usize, n: usize) -> Vec<f32> {
    let mut out = vec![0f32; m * n];
    for i in 0..m {
        for j in 0..n {
            let mut acc = 0f64;
            for p in 0..k {
                acc += a[i * k + p] as f64 * b[p * n + j] as f64;
            }
            out[i * n + j] = acc as f32;
        }
    }
    out
}

/// Softmax of one row in f64.
pub fn softmax_ref(row: &[f32]) -> Vec<f32> {
    let m = row.iter().cloned().fold(f32::NEG_INFINITY, f32::max) as f64;
    let e: Vec<f64> = row.iter().map(|&x| (x as f64 - m).exp()).collect();
    let s: f64 = e.iter().sum();
    e.iter().map(|&x| (x / s) as f32).collect()
}

pub mod gate;
