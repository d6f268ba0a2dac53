//! Shape ops, and reading back views (transposed, broadcast, strided) as row-major data.

mod common;

use common::{arr, vec_f32};
use mlx::ops;

fn iota(n: usize) -> Vec<f32> {
    (0..n).map(|i| i as f32).collect()
}

#[test]
fn reshape_keeps_row_major_order() {
    let a = arr(&iota(6), &[2, 3]);
    let r = a.reshape(&[3, 2]).unwrap();
    assert_eq!(r.shape(), vec![3, 2]);
    assert_eq!(vec_f32(&r), iota(6));
    assert_eq!(a.reshape(&[-1]).unwrap().shape(), vec![6]);
    assert_eq!(a.reshape(&[1, -1, 2]).unwrap().shape(), vec![1, 3, 2]);
}

#[test]
fn transposes_permute_elements() {
    // [[0 1 2] [3 4 5]]^T = [[0 3] [1 4] [2 5]]
    let a = arr(&iota(6), &[2, 3]);
    let t = a.t().unwrap();
    assert_eq!(t.shape(), vec![3, 2]);
    assert_eq!(vec_f32(&t), [0.0, 3.0, 1.0, 4.0, 2.0, 5.0]);
    assert_eq!(vec_f32(&ops::swapaxes(&a, 0, 1).unwrap()), [0.0, 3.0, 1.0, 4.0, 2.0, 5.0]);

    // b[i, j, k] = 6i + 3j + k for shape [2, 2, 3]; permute (2, 0, 1): out[k, i, j].
    let b = arr(&iota(12), &[2, 2, 3]);
    let p = ops::transpose_axes(&b, &[2, 0, 1]).unwrap();
    assert_eq!(p.shape(), vec![3, 2, 2]);
    let mut expect = Vec::new();
    for k in 0..3 {
        for i in 0..2 {
            for j in 0..2 {
                expect.push((6 * i + 3 * j + k) as f32);
            }
        }
    }
    assert_eq!(vec_f32(&p), expect);
    let m = ops::moveaxis(&b, 2, 0).unwrap();
    assert_eq!(vec_f32(&m), expect);
}

#[test]
fn expand_squeeze_flatten_unflatten() {
    let a = arr(&iota(6), &[2, 3]);
    let e = a.expand_dims(&[0, 3]).unwrap();
    assert_eq!(e.shape(), vec![1, 2, 3, 1]);
    assert_eq!(ops::squeeze(&e).unwrap().shape(), vec![2, 3]);
    assert_eq!(ops::squeeze_axes(&e, &[-1]).unwrap().shape(), vec![1, 2, 3]);
    let f = e.flatten(1, 2).unwrap();
    assert_eq!(f.shape(), vec![1, 6, 1]);
    assert_eq!(vec_f32(&f), iota(6));
    let u = ops::unflatten(&f, 1, &[3, -1]).unwrap();
    assert_eq!(u.shape(), vec![1, 3, 2, 1]);
    assert_eq!(vec_f32(&u), iota(6));
}

#[test]
fn slices_with_strides_and_updates() {
    // 4x5 grid of 0..20; rows 1..4 step 2, columns 0..5 step 2 -> rows 1, 3; columns 0, 2, 4.
    let a = arr(&iota(20), &[4, 5]);
    let s = ops::slice(&a, &[1, 0], &[4, 5], &[2, 2]).unwrap();
    assert_eq!(s.shape(), vec![2, 3]);
    assert_eq!(vec_f32(&s), [5.0, 7.0, 9.0, 15.0, 17.0, 19.0]);
    // Negative stride walks backwards: columns 4, 3, 2 of row 0.
    let r = ops::slice(&a, &[0, 4], &[1, 1], &[1, -1]).unwrap();
    assert_eq!(vec_f32(&r), [4.0, 3.0, 2.0]);

    let upd = arr(&[-1.0f32, -2.0], &[1, 2]);
    let w = ops::slice_update(&a, &upd, &[2, 1], &[3, 3], &[1, 1]).unwrap();
    let mut expect = iota(20);
    expect[11] = -1.0;
    expect[12] = -2.0;
    assert_eq!(vec_f32(&w), expect);
    // The source is unchanged (ops are functional).
    assert_eq!(vec_f32(&a), iota(20));
}

#[test]
fn concatenate_stack_split() {
    let a = arr(&[1.0f32, 2.0], &[1, 2]);
    let b = arr(&[3.0f32, 4.0, 5.0, 6.0], &[2, 2]);
    let c = ops::concatenate(&[&a, &b], 0).unwrap();
    assert_eq!(c.shape(), vec![3, 2]);
    assert_eq!(vec_f32(&c), [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
    let c1 = ops::concatenate(&[b.clone(), b.clone()], 1).unwrap();
    assert_eq!(vec_f32(&c1), [3.0, 4.0, 3.0, 4.0, 5.0, 6.0, 5.0, 6.0]);

    let x = arr(&[1.0f32, 2.0], &[2]);
    let y = arr(&[3.0f32, 4.0], &[2]);
    let s = ops::stack(&[&x, &y], 1).unwrap();
    assert_eq!(s.shape(), vec![2, 2]);
    assert_eq!(vec_f32(&s), [1.0, 3.0, 2.0, 4.0]);

    let parts = ops::split(&arr(&iota(6), &[6]), 3, 0).unwrap();
    assert_eq!(parts.len(), 3);
    assert_eq!(vec_f32(&parts[2]), [4.0, 5.0]);
    let cuts = ops::split_at(&arr(&iota(6), &[2, 3]), &[1], 1).unwrap();
    assert_eq!(cuts.len(), 2);
    assert_eq!(cuts[0].shape(), vec![2, 1]);
    assert_eq!(vec_f32(&cuts[0]), [0.0, 3.0]);
    assert_eq!(vec_f32(&cuts[1]), [1.0, 2.0, 4.0, 5.0]);
}

#[test]
fn views_read_back_row_major() {
    let a = arr(&iota(6), &[2, 3]);
    // A broadcast view has zero strides; reading it must expand it.
    let b = ops::broadcast_to(&arr(&[7.0f32, 8.0, 9.0], &[3]), &[2, 3]).unwrap();
    b.eval().unwrap();
    assert_eq!(b.strides(), vec![0, 1]);
    assert_eq!(vec_f32(&b), [7.0, 8.0, 9.0, 7.0, 8.0, 9.0]);
    // A transposed view keeps the source buffer with swapped strides.
    let t = a.t().unwrap();
    t.eval().unwrap();
    assert_eq!(t.strides(), vec![1, 3]);
    assert_eq!(vec_f32(&t), [0.0, 3.0, 1.0, 4.0, 2.0, 5.0]);
    let c = ops::contiguous(&t).unwrap();
    c.eval().unwrap();
    assert_eq!(c.strides(), vec![2, 1]);
    assert_eq!(vec_f32(&c), [0.0, 3.0, 1.0, 4.0, 2.0, 5.0]);
    // Non-contiguous integer and half views too.
    let ti = a.astype(mlx::Dtype::Int64).unwrap().t().unwrap();
    assert_eq!(ti.to_vec::<i64>().unwrap(), [0, 3, 1, 4, 2, 5]);
    let th = a.astype(mlx::Dtype::Bfloat16).unwrap().t().unwrap();
    assert_eq!(
        th.to_vec::<mlx::bf16>().unwrap(),
        [0.0f32, 3.0, 1.0, 4.0, 2.0, 5.0].map(mlx::bf16::from_f32)
    );
}
