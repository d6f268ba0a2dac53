//! Property tests on random shapes: permutations, slices, reductions and matmul against
//! index arithmetic done here.

mod common;

use common::{arr, assert_close, matmul_ref, pseudo_random, vec_f32};
use mlx::ops;
use proptest::prelude::*;

fn strides(shape: &[usize]) -> Vec<usize> {
    let mut s = vec![1; shape.len()];
    for i in (0..shape.len().saturating_sub(1)).rev() {
        s[i] = s[i + 1] * shape[i + 1];
    }
    s
}

/// Row-major multi-index of flat position `i`.
fn unravel(mut i: usize, shape: &[usize]) -> Vec<usize> {
    let mut idx = vec![0; shape.len()];
    for d in (0..shape.len()).rev() {
        idx[d] = i % shape[d];
        i /= shape[d];
    }
    idx
}

fn shape_strategy() -> impl Strategy<Value = Vec<usize>> {
    proptest::collection::vec(1usize..5, 1..5)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn transpose_is_a_permutation_of_indices(shape in shape_strategy(), seed in 0u64..1000) {
        let n: usize = shape.iter().product();
        let data = pseudo_random(n, seed);
        let mut perm: Vec<usize> = (0..shape.len()).collect();
        // A seed-dependent permutation.
        for i in (1..perm.len()).rev() {
            perm.swap(i, (seed as usize + i * 7) % (i + 1));
        }
        let shape_i: Vec<i32> = shape.iter().map(|&d| d as i32).collect();
        let perm_i: Vec<i32> = perm.iter().map(|&p| p as i32).collect();
        let out = ops::transpose_axes(&arr(&data, &shape_i), &perm_i).unwrap();
        let out_shape: Vec<usize> = perm.iter().map(|&p| shape[p]).collect();
        prop_assert_eq!(out.shape(), out_shape.iter().map(|&d| d as i32).collect::<Vec<_>>());
        let src_strides = strides(&shape);
        let got = vec_f32(&out);
        for (i, &g) in got.iter().enumerate() {
            let oi = unravel(i, &out_shape);
            let src: usize = oi.iter().enumerate().map(|(d, &x)| x * src_strides[perm[d]]).sum();
            prop_assert_eq!(g.to_bits(), data[src].to_bits());
        }
    }

    #[test]
    fn strided_slices_pick_the_right_elements(shape in shape_strategy(), seed in 0u64..1000) {
        let n: usize = shape.iter().product();
        let data = pseudo_random(n, seed);
        let start: Vec<usize> = shape.iter().enumerate().map(|(d, &s)| (seed as usize + d) % s).collect();
        let step: Vec<usize> = (0..shape.len()).map(|d| 1 + (seed as usize + d) % 2).collect();
        let out_shape: Vec<usize> = (0..shape.len()).map(|d| (shape[d] - start[d]).div_ceil(step[d])).collect();
        let to_i = |v: &[usize]| v.iter().map(|&x| x as i32).collect::<Vec<_>>();
        let out = ops::slice(&arr(&data, &to_i(&shape)), &to_i(&start), &to_i(&shape), &to_i(&step)).unwrap();
        prop_assert_eq!(out.shape(), to_i(&out_shape));
        let st = strides(&shape);
        for (i, &g) in vec_f32(&out).iter().enumerate() {
            let oi = unravel(i, &out_shape);
            let src: usize = oi.iter().enumerate().map(|(d, &x)| (start[d] + x * step[d]) * st[d]).sum();
            prop_assert_eq!(g.to_bits(), data[src].to_bits());
        }
    }

    #[test]
    fn sum_over_an_axis(shape in shape_strategy(), seed in 0u64..1000) {
        let n: usize = shape.iter().product();
        let data = pseudo_random(n, seed);
        let axis = seed as usize % shape.len();
        let shape_i: Vec<i32> = shape.iter().map(|&d| d as i32).collect();
        let out = ops::sum_axes(&arr(&data, &shape_i), &[axis as i32], false).unwrap();
        let mut out_shape = shape.clone();
        out_shape.remove(axis);
        let mut expect = vec![0f64; n / shape[axis]];
        for (i, &x) in data.iter().enumerate() {
            let mut idx = unravel(i, &shape);
            idx.remove(axis);
            let flat: usize = idx.iter().zip(strides(&out_shape)).map(|(a, b)| a * b).sum();
            expect[flat] += x as f64;
        }
        let expect: Vec<f32> = expect.iter().map(|&x| x as f32).collect();
        assert_close(&vec_f32(&out), &expect, 1e-5, 1e-5);
    }

    #[test]
    fn matmul_any_small_size(m in 1usize..9, k in 1usize..9, n in 1usize..9, seed in 0u64..1000) {
        let a = pseudo_random(m * k, seed);
        let b = pseudo_random(k * n, seed + 1);
        let out = ops::matmul(&arr(&a, &[m as i32, k as i32]), &arr(&b, &[k as i32, n as i32])).unwrap();
        assert_close(&vec_f32(&out), &matmul_ref(&a, &b, m, k, n), 1e-5, 1e-5);
    }
}
