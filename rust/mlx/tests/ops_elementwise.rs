//! Element-wise arithmetic, math, comparisons, where, astype and the operators, against
//! values worked out by hand or by Rust's own f32/f64 math.

mod common;

use common::{arr, assert_close, vec_f32};
use mlx::{ops, Array, Dtype};

#[test]
fn arithmetic_with_broadcasting() {
    let a = arr(&[1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0], &[2, 3]);
    let row = arr(&[10.0f32, 20.0, 30.0], &[3]);
    let col = arr(&[2.0f32, 4.0], &[2, 1]);
    assert_eq!(vec_f32(&ops::add(&a, &row).unwrap()), [11.0, 22.0, 33.0, 14.0, 25.0, 36.0]);
    assert_eq!(
        vec_f32(&ops::subtract(&a, &row).unwrap()),
        [-9.0, -18.0, -27.0, -6.0, -15.0, -24.0]
    );
    assert_eq!(vec_f32(&ops::multiply(&a, &col).unwrap()), [2.0, 4.0, 6.0, 16.0, 20.0, 24.0]);
    assert_eq!(vec_f32(&ops::divide(&a, &col).unwrap()), [0.5, 1.0, 1.5, 1.0, 1.25, 1.5]);
    assert_eq!(
        vec_f32(&ops::maximum(&a, &arr(&[3.5f32], &[1])).unwrap()),
        [3.5, 3.5, 3.5, 4.0, 5.0, 6.0]
    );
    assert_eq!(
        vec_f32(&ops::minimum(&a, &arr(&[3.5f32], &[1])).unwrap()),
        [1.0, 2.0, 3.0, 3.5, 3.5, 3.5]
    );
    assert_eq!(
        vec_f32(&ops::power(&a, &arr(&[2.0f32], &[])).unwrap()),
        [1.0, 4.0, 9.0, 16.0, 25.0, 36.0]
    );
}

#[test]
fn integer_division_and_remainder_follow_floor_semantics() {
    let a = arr(&[7i32, -7, 7, -7], &[4]);
    let b = arr(&[2i32, 2, -2, -2], &[4]);
    assert_eq!(ops::floor_divide(&a, &b).unwrap().to_vec::<i32>().unwrap(), [3, -4, -4, 3]);
    // Remainder takes the sign of the divisor: a - b * floor(a / b).
    assert_eq!(ops::remainder(&a, &b).unwrap().to_vec::<i32>().unwrap(), [1, 1, -1, -1]);
    // True division of integers gives floats.
    let q = ops::divide(&a, &b).unwrap();
    assert_eq!(q.dtype(), Dtype::Float32);
    assert_eq!(vec_f32(&q), [3.5, -3.5, -3.5, 3.5]);
}

#[test]
fn unary_math_matches_rust() {
    let xs = [0.25f32, 0.5, 1.0, 2.0, 3.0];
    let a = arr(&xs, &[5]);
    let check = |got: Array, f: fn(f32) -> f32| {
        let expect: Vec<f32> = xs.iter().map(|&x| f(x)).collect();
        assert_close(&vec_f32(&got), &expect, 1e-6, 1e-6);
    };
    check(ops::exp(&a).unwrap(), f32::exp);
    check(ops::log(&a).unwrap(), f32::ln);
    check(ops::log2(&a).unwrap(), f32::log2);
    check(ops::log10(&a).unwrap(), f32::log10);
    check(ops::log1p(&a).unwrap(), f32::ln_1p);
    check(ops::expm1(&a).unwrap(), f32::exp_m1);
    check(ops::sqrt(&a).unwrap(), f32::sqrt);
    check(ops::rsqrt(&a).unwrap(), |x| 1.0 / x.sqrt());
    check(ops::square(&a).unwrap(), |x| x * x);
    check(ops::reciprocal(&a).unwrap(), |x| 1.0 / x);
    check(ops::tanh(&a).unwrap(), f32::tanh);
    check(ops::sin(&a).unwrap(), f32::sin);
    check(ops::cos(&a).unwrap(), f32::cos);
    check(ops::sigmoid(&a).unwrap(), |x| 1.0 / (1.0 + (-x).exp()));
    check(ops::silu(&a).unwrap(), |x| x / (1.0 + (-x).exp()));
    check(ops::negative(&a).unwrap(), |x| -x);
    check(ops::copy(&a).unwrap(), |x| x);
    check(ops::stop_gradient(&a).unwrap(), |x| x);
    // erf(0.5) = 0.5204998778..., erf(1) = 0.8427007929... (tables).
    let e = vec_f32(&ops::erf(&arr(&[0.0f32, 0.5, 1.0], &[3])).unwrap());
    assert_close(&e, &[0.0, 0.520_499_9, 0.842_700_8], 1e-6, 0.0);
}

#[test]
fn rounding_and_sign() {
    let a = arr(&[-2.5f32, -1.5, -0.4, 0.5, 1.5, 2.7], &[6]);
    assert_eq!(vec_f32(&ops::floor(&a).unwrap()), [-3.0, -2.0, -1.0, 0.0, 1.0, 2.0]);
    assert_eq!(vec_f32(&ops::ceil(&a).unwrap()), [-2.0, -1.0, -0.0, 1.0, 2.0, 3.0]);
    // Half to even.
    assert_eq!(vec_f32(&ops::round(&a).unwrap()), [-2.0, -2.0, -0.0, 0.0, 2.0, 3.0]);
    assert_eq!(vec_f32(&ops::sign(&a).unwrap()), [-1.0, -1.0, -1.0, 1.0, 1.0, 1.0]);
    assert_eq!(vec_f32(&ops::abs(&a).unwrap()), [2.5, 1.5, 0.4, 0.5, 1.5, 2.7]);
}

#[test]
fn logaddexp_and_arctan2() {
    let a = arr(&[0.0f32, 1.0, -30.0], &[3]);
    let b = arr(&[0.0f32, 2.0, 0.0], &[3]);
    let expect: Vec<f32> = [(0.0f64, 0.0f64), (1.0, 2.0), (-30.0, 0.0)]
        .iter()
        .map(|&(x, y)| (x.exp() + y.exp()).ln() as f32)
        .collect();
    assert_close(&vec_f32(&ops::logaddexp(&a, &b).unwrap()), &expect, 1e-6, 1e-6);
    let y = arr(&[1.0f32, -1.0], &[2]);
    let x = arr(&[-1.0f32, -1.0], &[2]);
    assert_close(
        &vec_f32(&ops::arctan2(&y, &x).unwrap()),
        &[3.0 * std::f32::consts::FRAC_PI_4, -3.0 * std::f32::consts::FRAC_PI_4],
        1e-6,
        0.0,
    );
}

#[test]
fn comparisons_and_logic() {
    let a = arr(&[1i32, 2, 3], &[3]);
    let b = arr(&[3i32, 2, 1], &[3]);
    let v = |x: Array| x.to_vec::<bool>().unwrap();
    assert_eq!(v(ops::equal(&a, &b).unwrap()), [false, true, false]);
    assert_eq!(v(ops::not_equal(&a, &b).unwrap()), [true, false, true]);
    assert_eq!(v(ops::greater(&a, &b).unwrap()), [false, false, true]);
    assert_eq!(v(ops::greater_equal(&a, &b).unwrap()), [false, true, true]);
    assert_eq!(v(ops::less(&a, &b).unwrap()), [true, false, false]);
    assert_eq!(v(ops::less_equal(&a, &b).unwrap()), [true, true, false]);
    let p = arr(&[true, true, false, false], &[4]);
    let q = arr(&[true, false, true, false], &[4]);
    assert_eq!(v(ops::logical_and(&p, &q).unwrap()), [true, false, false, false]);
    assert_eq!(v(ops::logical_or(&p, &q).unwrap()), [true, true, true, false]);
    assert_eq!(v(ops::logical_not(&p).unwrap()), [false, false, true, true]);
    assert!(ops::array_equal(&a, &a.clone(), false).unwrap().item::<bool>().unwrap());
    assert!(!ops::array_equal(&a, &b, false).unwrap().item::<bool>().unwrap());
    let n = arr(&[f32::NAN, 1.0], &[2]);
    assert!(!ops::array_equal(&n, &n, false).unwrap().item::<bool>().unwrap());
    assert!(ops::array_equal(&n, &n, true).unwrap().item::<bool>().unwrap());
}

#[test]
fn nan_and_inf_tests() {
    let a = arr(&[f32::NAN, f32::INFINITY, f32::NEG_INFINITY, 0.0, -1.0], &[5]);
    let v = |x: Array| x.to_vec::<bool>().unwrap();
    assert_eq!(v(ops::isnan(&a).unwrap()), [true, false, false, false, false]);
    assert_eq!(v(ops::isinf(&a).unwrap()), [false, true, true, false, false]);
    assert_eq!(v(ops::isfinite(&a).unwrap()), [false, false, false, true, true]);
}

#[test]
fn where_selects_with_broadcasting() {
    let cond = arr(&[true, false, true], &[3]);
    let x = arr(&[1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0], &[2, 3]);
    let y = arr(&[-1.0f32], &[]);
    let out = ops::where_(&cond, &x, &y).unwrap();
    assert_eq!(out.shape(), vec![2, 3]);
    assert_eq!(vec_f32(&out), [1.0, -1.0, 3.0, 4.0, -1.0, 6.0]);
}

#[test]
fn astype_converts_between_dtypes() {
    let a = arr(&[-1.75f32, 0.0, 2.5, 300.0], &[4]);
    // Float to int truncates toward zero.
    assert_eq!(a.astype(Dtype::Int32).unwrap().to_vec::<i32>().unwrap(), [-1, 0, 2, 300]);
    assert_eq!(a.astype(Dtype::Bool).unwrap().to_vec::<bool>().unwrap(), [true, false, true, true]);
    let h = a.astype(Dtype::Float16).unwrap();
    assert_eq!(h.dtype(), Dtype::Float16);
    assert_eq!(
        h.to_vec::<mlx::f16>().unwrap(),
        [-1.75f32, 0.0, 2.5, 300.0].map(mlx::f16::from_f32)
    );
    let b = a.astype(Dtype::Bfloat16).unwrap();
    assert_eq!(
        b.to_vec::<mlx::bf16>().unwrap(),
        [-1.75f32, 0.0, 2.5, 300.0].map(mlx::bf16::from_f32)
    );
    let d = a.astype(Dtype::Float64).unwrap();
    assert_eq!(d.to_vec::<f64>().unwrap(), [-1.75, 0.0, 2.5, 300.0]);
}

#[test]
fn type_promotion_of_mixed_operands() {
    let i = arr(&[1i32, 2], &[2]);
    let f = arr(&[0.5f32, 0.5], &[2]);
    let s = ops::add(&i, &f).unwrap();
    assert_eq!(s.dtype(), Dtype::Float32);
    assert_eq!(vec_f32(&s), [1.5, 2.5]);
    let h = arr(&[mlx::f16::from_f32(1.0)], &[1]);
    assert_eq!(ops::multiply(&h, &arr(&[2.0f32], &[1])).unwrap().dtype(), Dtype::Float32);
}

#[test]
fn operators_match_functions() {
    let a = arr(&[6.0f32, 8.0], &[2]);
    let b = arr(&[2.0f32, 4.0], &[2]);
    assert_eq!(vec_f32(&(&a + &b)), [8.0, 12.0]);
    assert_eq!(vec_f32(&(&a - &b)), [4.0, 4.0]);
    assert_eq!(vec_f32(&(&a * &b)), [12.0, 32.0]);
    assert_eq!(vec_f32(&(&a / &b)), [3.0, 2.0]);
    assert_eq!(vec_f32(&(-&a)), [-6.0, -8.0]);
    assert_eq!(vec_f32(&(a.clone() + b.clone())), [8.0, 12.0]);
    assert_eq!(vec_f32(&(-(a + &b))), [-8.0, -12.0]);
}
