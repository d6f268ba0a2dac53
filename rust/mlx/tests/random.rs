//! Random numbers: determinism by key, ranges, and loose distribution checks (bounds are
//! many standard errors wide, so they fail only if the sampler is wrong).

mod common;

use common::arr;
use mlx::{random, Array, Dtype};

fn mean_std(v: &[f32]) -> (f64, f64) {
    let n = v.len() as f64;
    let m = v.iter().map(|&x| x as f64).sum::<f64>() / n;
    let var = v.iter().map(|&x| (x as f64 - m).powi(2)).sum::<f64>() / n;
    (m, var.sqrt())
}

#[test]
fn same_key_same_numbers_different_key_different_numbers() {
    let k1 = random::key(7).unwrap();
    let k1b = random::key(7).unwrap();
    let k2 = random::key(8).unwrap();
    assert_eq!(k1.dtype(), Dtype::Uint32);
    assert_eq!(k1.shape(), vec![2]);
    let u = |k: &Array| {
        random::uniform(0.0, 1.0, &[64], Dtype::Float32, Some(k)).unwrap().to_vec::<f32>().unwrap()
    };
    assert_eq!(u(&k1), u(&k1b));
    assert_ne!(u(&k1), u(&k2));
    let keys = random::split(&k1, 3).unwrap();
    assert_eq!(keys.shape(), vec![3, 2]);
    let kv = keys.to_vec::<u32>().unwrap();
    assert!(kv[0..2] != kv[2..4] && kv[2..4] != kv[4..6]);
    // The global sequence is reproducible after seeding.
    random::seed(123).unwrap();
    let a = random::normal(&[16], Dtype::Float32, 0.0, 1.0, None).unwrap().to_vec::<f32>().unwrap();
    random::seed(123).unwrap();
    let b = random::normal(&[16], Dtype::Float32, 0.0, 1.0, None).unwrap().to_vec::<f32>().unwrap();
    assert_eq!(a, b);
}

#[test]
fn uniform_range_and_moments() {
    let k = random::key(1).unwrap();
    let v = random::uniform(-2.0, 6.0, &[100, 100], Dtype::Float32, Some(&k))
        .unwrap()
        .to_vec::<f32>()
        .unwrap();
    assert!(v.iter().all(|&x| (-2.0..6.0).contains(&x)));
    let (m, s) = mean_std(&v);
    // Uniform(-2, 6): mean 2, sd 8/sqrt(12) = 2.309; standard error of the mean 0.023.
    assert!((m - 2.0).abs() < 0.15, "mean {m}");
    assert!((s - 2.309).abs() < 0.1, "sd {s}");
    let h = random::uniform(0.0, 1.0, &[8], Dtype::Bfloat16, Some(&k)).unwrap();
    assert_eq!(h.dtype(), Dtype::Bfloat16);
}

#[test]
fn normal_moments() {
    let k = random::key(2).unwrap();
    let v = random::normal(&[20000], Dtype::Float32, 3.0, 0.5, Some(&k))
        .unwrap()
        .to_vec::<f32>()
        .unwrap();
    let (m, s) = mean_std(&v);
    // Standard error of the mean 0.0035.
    assert!((m - 3.0).abs() < 0.03, "mean {m}");
    assert!((s - 0.5).abs() < 0.02, "sd {s}");
}

#[test]
fn randint_range_covers_all_values() {
    let k = random::key(3).unwrap();
    let v =
        random::randint(-3, 4, &[2000], Dtype::Int32, Some(&k)).unwrap().to_vec::<i32>().unwrap();
    assert!(v.iter().all(|&x| (-3..4).contains(&x)));
    for want in -3..4 {
        assert!(v.contains(&want), "{want} never drawn");
    }
}

#[test]
fn bernoulli_probabilities() {
    let k = random::key(4).unwrap();
    let p = arr(&[0.0f32, 1.0, 0.25], &[3]);
    let v = random::bernoulli(&p, &[4000, 3], Some(&k)).unwrap().to_vec::<bool>().unwrap();
    let col = |c: usize| v.iter().skip(c).step_by(3).filter(|&&b| b).count();
    assert_eq!(col(0), 0);
    assert_eq!(col(1), 4000);
    // 1000 expected, sd 27.
    assert!((col(2) as i64 - 1000).abs() < 150, "{}", col(2));
}

#[test]
fn categorical_follows_logits() {
    let k = random::key(5).unwrap();
    // Only index 2 has non-zero probability in row 0, only index 0 in row 1.
    let logits = arr(
        &[f32::NEG_INFINITY, f32::NEG_INFINITY, 0.0, 0.0, f32::NEG_INFINITY, f32::NEG_INFINITY],
        &[2, 3],
    );
    let s = random::categorical(&logits, -1, Some(&k)).unwrap();
    assert_eq!(s.shape(), vec![2]);
    assert_eq!(s.to_vec::<u32>().unwrap(), [2, 0]);
    let many = random::categorical_n(&logits, -1, 5, Some(&k)).unwrap();
    assert_eq!(many.shape(), vec![2, 5]);
    assert_eq!(many.to_vec::<u32>().unwrap(), [2, 2, 2, 2, 2, 0, 0, 0, 0, 0]);
    // Two equal logits: both drawn, about half each (1000 expected, sd 22).
    let even = arr(&[0.0f32, 0.0], &[2]);
    let d = random::categorical_n(&even, 0, 2000, Some(&k)).unwrap().to_vec::<u32>().unwrap();
    let ones = d.iter().filter(|&&i| i == 1).count() as i64;
    assert!((ones - 1000).abs() < 150, "{ones}");
    // log-probabilities [ln 0.9, ln 0.1]: about 10% ones.
    let skew = arr(&[0.9f32.ln(), 0.1f32.ln()], &[2]);
    let d = random::categorical_n(&skew, 0, 4000, Some(&k)).unwrap().to_vec::<u32>().unwrap();
    let ones = d.iter().filter(|&&i| i == 1).count() as i64;
    assert!((ones - 400).abs() < 100, "{ones}");
}
