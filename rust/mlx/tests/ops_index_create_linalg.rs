//! take / take_along_axis / put_along_axis, creation ops, matmul and addmm.

mod common;

use common::{arr, assert_close, matmul_ref, pseudo_random, vec_f32};
use mlx::{ops, Dtype};

#[test]
fn take_along_axes_and_flat() {
    // Embedding lookup: rows 2, 0, 2 of a 3x2 table.
    let table = arr(&[0.0f32, 1.0, 10.0, 11.0, 20.0, 21.0], &[3, 2]);
    let ids = arr(&[2u32, 0, 2], &[3]);
    let e = ops::take(&table, &ids, 0).unwrap();
    assert_eq!(e.shape(), vec![3, 2]);
    assert_eq!(vec_f32(&e), [20.0, 21.0, 0.0, 1.0, 20.0, 21.0]);
    // Index shape replaces the axis.
    let ids2 = arr(&[1i32, 1, 0, 2], &[2, 2]);
    assert_eq!(ops::take(&table, &ids2, 0).unwrap().shape(), vec![2, 2, 2]);
    let cols = ops::take(&table, &arr(&[1i32], &[1]), 1).unwrap();
    assert_eq!(vec_f32(&cols), [1.0, 11.0, 21.0]);
    assert_eq!(vec_f32(&ops::take_flat(&table, &arr(&[5i32, 0], &[2])).unwrap()), [21.0, 0.0]);
}

#[test]
fn take_and_put_along_axis() {
    let a = arr(&[10.0f32, 30.0, 20.0, 5.0, 6.0, 4.0], &[2, 3]);
    let idx = arr(&[1u32, 2, 0, 0], &[2, 2]);
    let t = ops::take_along_axis(&a, &idx, 1).unwrap();
    assert_eq!(vec_f32(&t), [30.0, 20.0, 5.0, 5.0]);
    // Top-2 gating as in MoE: argsort then take the matching scores.
    let order = ops::argsort_axis(&ops::negative(&a).unwrap(), 1).unwrap();
    let top2 = ops::slice(&order, &[0, 0], &[2, 2], &[1, 1]).unwrap();
    assert_eq!(vec_f32(&ops::take_along_axis(&a, &top2, 1).unwrap()), [30.0, 20.0, 6.0, 5.0]);

    let put =
        ops::put_along_axis(&a, &arr(&[0u32, 2], &[2, 1]), &arr(&[-1.0f32], &[1, 1]), 1).unwrap();
    assert_eq!(vec_f32(&put), [-1.0, 30.0, 20.0, 5.0, 6.0, -1.0]);
}

#[test]
fn creation_ops() {
    let r = ops::arange(0.0, 5.0, 1.0, Dtype::Int32).unwrap();
    assert_eq!(r.to_vec::<i32>().unwrap(), [0, 1, 2, 3, 4]);
    let f = ops::arange(1.0, 0.0, -0.25, Dtype::Float32).unwrap();
    assert_eq!(vec_f32(&f), [1.0, 0.75, 0.5, 0.25]);
    assert_eq!(ops::arange(3.0, 3.0, 1.0, Dtype::Float32).unwrap().size(), 0);
    let z = ops::zeros(&[2, 3], Dtype::Float16).unwrap();
    assert_eq!(z.shape(), vec![2, 3]);
    assert_eq!(z.to_vec::<mlx::f16>().unwrap(), vec![mlx::f16::ZERO; 6]);
    assert_eq!(ops::ones(&[4], Dtype::Uint8).unwrap().to_vec::<u8>().unwrap(), [1, 1, 1, 1]);
    assert_eq!(ops::full(&[2], 2.5, Dtype::Float64).unwrap().to_vec::<f64>().unwrap(), [2.5, 2.5]);
    let fa = ops::full_array(&[2, 2], &arr(&[1i32, 2], &[2]), Dtype::Int64).unwrap();
    assert_eq!(fa.to_vec::<i64>().unwrap(), [1, 2, 1, 2]);
    let like = ops::ones_like(&fa).unwrap();
    assert_eq!(like.dtype(), Dtype::Int64);
    assert_eq!(ops::zeros_like(&fa).unwrap().to_vec::<i64>().unwrap(), [0; 4]);
    // Causal mask shape: ones on and below the diagonal.
    assert_eq!(
        ops::tri(3, 3, 0, Dtype::Bool).unwrap().to_vec::<bool>().unwrap(),
        [true, false, false, true, true, false, true, true, true]
    );
    let sq = arr(&[1.0f32, 2.0, 3.0, 4.0], &[2, 2]);
    assert_eq!(vec_f32(&ops::tril(&sq, 0).unwrap()), [1.0, 0.0, 3.0, 4.0]);
    assert_eq!(vec_f32(&ops::triu(&sq, 1).unwrap()), [0.0, 2.0, 0.0, 0.0]);
}

#[test]
fn matmul_small_by_hand() {
    // [[1 2] [3 4]] @ [[5 6] [7 8]] = [[19 22] [43 50]]
    let a = arr(&[1.0f32, 2.0, 3.0, 4.0], &[2, 2]);
    let b = arr(&[5.0f32, 6.0, 7.0, 8.0], &[2, 2]);
    assert_eq!(vec_f32(&a.matmul(&b).unwrap()), [19.0, 22.0, 43.0, 50.0]);
    // Vector operands: [1 2] @ [[5 6] [7 8]] = [19 22]
    let v = arr(&[1.0f32, 2.0], &[2]);
    let vm = ops::matmul(&v, &b).unwrap();
    assert_eq!(vm.shape(), vec![2]);
    assert_eq!(vec_f32(&vm), [19.0, 22.0]);
    // addmm: 0.5 * c + 2 * (a @ b)
    let c = arr(&[2.0f32, 2.0, 2.0, 2.0], &[2, 2]);
    assert_eq!(vec_f32(&ops::addmm(&c, &a, &b, 2.0, 0.5).unwrap()), [39.0, 45.0, 87.0, 101.0]);
}

#[test]
fn matmul_batched_with_broadcast_matches_reference() {
    let (m, k, n) = (5, 7, 3);
    let x = pseudo_random(2 * m * k, 3);
    let w = pseudo_random(k * n, 4);
    let out =
        ops::matmul(&arr(&x, &[2, m as i32, k as i32]), &arr(&w, &[k as i32, n as i32])).unwrap();
    assert_eq!(out.shape(), vec![2, m as i32, n as i32]);
    let got = vec_f32(&out);
    for bt in 0..2 {
        let expect = matmul_ref(&x[bt * m * k..(bt + 1) * m * k], &w, m, k, n);
        assert_close(&got[bt * m * n..(bt + 1) * m * n], &expect, 1e-5, 1e-5);
    }
    // Transposed operand (a strided view) gives the same product.
    let wt = arr(&w, &[k as i32, n as i32]).t().unwrap().t().unwrap();
    let again = ops::matmul(&arr(&x[..m * k], &[m as i32, k as i32]), &wt).unwrap();
    assert_close(&vec_f32(&again), &matmul_ref(&x[..m * k], &w, m, k, n), 1e-5, 1e-5);
}
