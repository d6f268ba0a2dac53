//! Reductions, softmax, cumsum, sorting, partitioning and top-k.

mod common;

use common::{arr, assert_close, pseudo_random, softmax_ref, vec_f32};
use mlx::{ops, Dtype};
use proptest::prelude::*;

#[test]
fn reductions_by_axis() {
    // [[1 2 3] [4 5 6]]
    let a = arr(&[1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0], &[2, 3]);
    assert_eq!(vec_f32(&a.sum_axes(&[0], false).unwrap()), [5.0, 7.0, 9.0]);
    assert_eq!(vec_f32(&a.sum_axes(&[1], false).unwrap()), [6.0, 15.0]);
    let k = a.sum_axes(&[1], true).unwrap();
    assert_eq!(k.shape(), vec![2, 1]);
    assert_eq!(ops::sum(&a, false).unwrap().item::<f32>().unwrap(), 21.0);
    assert_eq!(vec_f32(&a.mean_axes(&[1], false).unwrap()), [2.0, 5.0]);
    assert_eq!(vec_f32(&a.max_axes(&[0], false).unwrap()), [4.0, 5.0, 6.0]);
    assert_eq!(vec_f32(&ops::min_axes(&a, &[1], false).unwrap()), [1.0, 4.0]);
    assert_eq!(vec_f32(&ops::prod_axes(&a, &[1], false).unwrap()), [6.0, 120.0]);
    assert_eq!(ops::max(&a, false).unwrap().item::<f32>().unwrap(), 6.0);
    assert_eq!(ops::mean(&a, false).unwrap().item::<f32>().unwrap(), 3.5);
    // Population variance of 1..6 = 35/12.
    assert_close(
        &[ops::var(&a, false).unwrap().item::<f32>().unwrap()],
        &[35.0 / 12.0],
        1e-6,
        1e-6,
    );
    assert_eq!(vec_f32(&ops::var_axes(&a, &[1], false).unwrap()), [2.0 / 3.0, 2.0 / 3.0]);
    let lse = ops::logsumexp_axes(&a, &[1], false).unwrap();
    let expect: Vec<f32> = [[1.0f64, 2.0, 3.0], [4.0, 5.0, 6.0]]
        .iter()
        .map(|r| r.iter().map(|x| x.exp()).sum::<f64>().ln() as f32)
        .collect();
    assert_close(&vec_f32(&lse), &expect, 1e-6, 1e-6);
    let b = arr(&[true, false, true, true], &[2, 2]);
    assert_eq!(ops::all_axes(&b, &[1], false).unwrap().to_vec::<bool>().unwrap(), [false, true]);
    assert_eq!(ops::any_axes(&b, &[0], false).unwrap().to_vec::<bool>().unwrap(), [true, true]);
    assert!(!ops::all(&b, false).unwrap().item::<bool>().unwrap());
    assert!(ops::any(&b, false).unwrap().item::<bool>().unwrap());
    // Integer sums stay integers.
    let i = arr(&[1i32, 2, 3], &[3]);
    assert_eq!(ops::sum(&i, false).unwrap().item::<i32>().unwrap(), 6);
}

#[test]
fn argmax_argmin_take_first_on_ties() {
    let a = arr(&[3.0f32, 9.0, 9.0, 1.0, 1.0, 2.0], &[2, 3]);
    let am = a.argmax_axis(1, false).unwrap();
    assert_eq!(am.dtype(), Dtype::Uint32);
    assert_eq!(am.to_vec::<u32>().unwrap(), [1, 2]);
    assert_eq!(ops::argmin_axis(&a, 1, false).unwrap().to_vec::<u32>().unwrap(), [0, 0]);
    assert_eq!(ops::argmax_axis(&a, 0, true).unwrap().shape(), vec![1, 3]);
    assert_eq!(ops::argmax(&a, false).unwrap().item::<u32>().unwrap(), 1);
    assert_eq!(ops::argmin(&a, false).unwrap().item::<u32>().unwrap(), 3);
}

#[test]
fn softmax_matches_reference() {
    let x = pseudo_random(4 * 7, 1).iter().map(|v| v * 8.0).collect::<Vec<_>>();
    let a = arr(&x, &[4, 7]);
    let s = vec_f32(&a.softmax_axes(&[-1], true).unwrap());
    let expect: Vec<f32> = x.chunks(7).flat_map(softmax_ref).collect();
    assert_close(&s, &expect, 1e-6, 1e-5);
    // Over axis 0: softmax of columns.
    let s0 = vec_f32(&ops::softmax_axes(&a, &[0], false).unwrap());
    for c in 0..7 {
        let col: Vec<f32> = (0..4).map(|r| x[r * 7 + c]).collect();
        let e = softmax_ref(&col);
        for r in 0..4 {
            assert!((s0[r * 7 + c] - e[r]).abs() < 1e-6);
        }
    }
    // Over everything.
    let all = vec_f32(&ops::softmax(&a, true).unwrap());
    assert_close(&all, &softmax_ref(&x), 1e-7, 1e-5);
    // Precise half precision stays within bf16 rounding of the f64 reference.
    let h = a.astype(Dtype::Bfloat16).unwrap();
    let hs = h.softmax_axes(&[-1], true).unwrap();
    assert_eq!(hs.dtype(), Dtype::Bfloat16);
    let hx: Vec<f32> = h.astype(Dtype::Float32).unwrap().to_vec::<f32>().unwrap();
    let he: Vec<f32> = hx.chunks(7).flat_map(softmax_ref).collect();
    let got = vec_f32(&hs.astype(Dtype::Float32).unwrap());
    assert_close(&got, &he, 1e-3, 1.0 / 128.0);
    // -inf entries get exactly zero weight.
    let m = arr(&[0.0f32, f32::NEG_INFINITY, 0.0], &[3]);
    assert_eq!(vec_f32(&m.softmax_axes(&[0], true).unwrap()), [0.5, 0.0, 0.5]);
}

#[test]
fn cumsum_variants() {
    let a = arr(&[1i32, 2, 3, 4], &[4]);
    let v = |x: mlx::Array| x.to_vec::<i32>().unwrap();
    assert_eq!(v(ops::cumsum(&a, 0, false, true).unwrap()), [1, 3, 6, 10]);
    assert_eq!(v(ops::cumsum(&a, 0, false, false).unwrap()), [0, 1, 3, 6]);
    assert_eq!(v(ops::cumsum(&a, 0, true, true).unwrap()), [10, 9, 7, 4]);
}

#[test]
fn sort_and_argsort() {
    let a = arr(&[3.0f32, 1.0, 2.0, 0.5, -1.0, 7.0], &[2, 3]);
    assert_eq!(vec_f32(&ops::sort_axis(&a, -1).unwrap()), [1.0, 2.0, 3.0, -1.0, 0.5, 7.0]);
    assert_eq!(vec_f32(&ops::sort_axis(&a, 0).unwrap()), [0.5, -1.0, 2.0, 3.0, 1.0, 7.0]);
    assert_eq!(vec_f32(&ops::sort(&a).unwrap()), [-1.0, 0.5, 1.0, 2.0, 3.0, 7.0]);
    assert_eq!(ops::argsort_axis(&a, -1).unwrap().to_vec::<u32>().unwrap(), [1, 2, 0, 1, 0, 2]);
    assert_eq!(ops::argsort(&a).unwrap().to_vec::<u32>().unwrap(), [4, 3, 1, 2, 0, 5]);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]

    /// argsort orders the row; argpartition puts the kth smallest at k with no larger value
    /// before it and no smaller one after; topk holds the k largest values.
    #[test]
    fn sort_partition_topk_properties(
        row in proptest::collection::vec(-1000i32..1000, 1..40),
        kk in 0usize..40,
    ) {
        let n = row.len();
        let k = kk % n;
        let a = arr(&row, &[n as i32]);
        let mut sorted = row.clone();
        sorted.sort();

        let idx = ops::argsort_axis(&a, 0).unwrap().to_vec::<u32>().unwrap();
        let by_idx: Vec<i32> = idx.iter().map(|&i| row[i as usize]).collect();
        prop_assert_eq!(&by_idx, &sorted);
        prop_assert_eq!(ops::sort_axis(&a, 0).unwrap().to_vec::<i32>().unwrap(), sorted.clone());

        let p = ops::argpartition(&a, k as i32, 0).unwrap().to_vec::<u32>().unwrap();
        let mut seen = p.clone();
        seen.sort();
        prop_assert_eq!(seen, (0..n as u32).collect::<Vec<_>>());
        let vals: Vec<i32> = p.iter().map(|&i| row[i as usize]).collect();
        prop_assert_eq!(vals[k], sorted[k]);
        prop_assert!(vals[..k].iter().all(|&v| v <= sorted[k]));
        prop_assert!(vals[k + 1..].iter().all(|&v| v >= sorted[k]));
        let pv = ops::partition(&a, k as i32, 0).unwrap().to_vec::<i32>().unwrap();
        prop_assert_eq!(pv[k], sorted[k]);

        let kt = k + 1;
        let mut top = ops::topk(&a, kt as i32, 0).unwrap().to_vec::<i32>().unwrap();
        top.sort();
        prop_assert_eq!(top, sorted[n - kt..].to_vec());
    }
}
