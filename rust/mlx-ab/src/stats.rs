//! Paired statistics for B/A ratios: median, percentile bootstrap interval (seeded), the
//! distribution-free order-statistic interval of the median, and the exact two-sided sign test.

use crate::rng::SplitMix64;
pub use mlx_workload::median;
use serde::{Deserialize, Serialize};

/// Quantile of sorted values by linear interpolation between closest ranks (Hyndman-Fan type 7,
/// the default of R and NumPy).
pub fn quantile_sorted(sorted: &[f64], q: f64) -> f64 {
    let position = q * (sorted.len() - 1) as f64;
    let low = position.floor() as usize;
    let high = position.ceil() as usize;
    sorted[low] + (sorted[high] - sorted[low]) * (position - low as f64)
}

/// Percentile bootstrap interval of the median: resample with replacement `iterations` times.
pub fn bootstrap_median_ci(
    values: &[f64],
    level: f64,
    iterations: usize,
    seed: u64,
) -> Option<(f64, f64)> {
    median(values)?;
    let mut rng = SplitMix64::new(seed);
    let mut resample = vec![0.0; values.len()];
    let mut medians = Vec::with_capacity(iterations);
    for _ in 0..iterations {
        for slot in resample.iter_mut() {
            *slot = values[rng.below(values.len())];
        }
        medians.push(median(&resample)?);
    }
    medians.sort_by(f64::total_cmp);
    let tail = (1.0 - level) / 2.0;
    Some((quantile_sorted(&medians, tail), quantile_sorted(&medians, 1.0 - tail)))
}

/// Distribution-free interval of the median: the k-th smallest and k-th largest value, k the
/// largest whose coverage, 1 - 2 P(Binomial(n, 1/2) < k), is at least `level`; k = 1 (the
/// smallest and the largest) when none is, with the lower coverage that gives. Exact whatever
/// the distribution, where the bootstrap of a few values is too narrow (on the H200 on
/// 2026-12-02, 4 of 36 same-kernel points had 6-pair bootstrap intervals without 1 in them;
/// reports/h200/README.md). Returns (low, high, coverage).
pub fn order_statistic_median_ci(values: &[f64], level: f64) -> Option<(f64, f64, f64)> {
    median(values)?;
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    let n = sorted.len();
    let coverage = |k: usize| 1.0 - 2.0 * (0..k).map(|i| binomial_half_pmf(n, i)).sum::<f64>();
    let mut k = 1;
    while k < n.div_ceil(2) && coverage(k + 1) >= level {
        k += 1;
    }
    Some((sorted[k - 1], sorted[n - k], coverage(k)))
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SignTest {
    /// Pairs where B/A > 1 (B larger).
    pub greater: usize,
    /// Pairs where B/A < 1.
    pub less: usize,
    /// Pairs where B/A == 1 exactly; left out of the test, as usual.
    pub ties: usize,
    /// Exact two-sided p-value under "B is as likely above A as below": 2 P(X <= min), capped at 1.
    pub p_value: f64,
}

/// Exact two-sided sign test of ratios against 1.
pub fn sign_test(ratios: &[f64]) -> SignTest {
    let greater = ratios.iter().filter(|&&r| r > 1.0).count();
    let less = ratios.iter().filter(|&&r| r < 1.0).count();
    let ties = ratios.len() - greater - less;
    let n = greater + less;
    let tail: f64 = (0..=greater.min(less)).map(|k| binomial_half_pmf(n, k)).sum();
    SignTest { greater, less, ties, p_value: if n == 0 { 1.0 } else { (2.0 * tail).min(1.0) } }
}

/// C(n, k) / 2^n, in log space so large n neither overflows nor underflows early.
fn binomial_half_pmf(n: usize, k: usize) -> f64 {
    let ln_choose: f64 = (0..k).map(|i| ((n - i) as f64).ln() - ((i + 1) as f64).ln()).sum();
    (ln_choose - n as f64 * std::f64::consts::LN_2).exp()
}

/// Median, 95% bootstrap interval and sign test of one metric's paired ratios.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct RatioSummary {
    /// Per-pair B/A, in pair order.
    pub samples: Vec<f64>,
    pub median: Option<f64>,
    pub ci95: Option<[f64; 2]>,
    pub sign_test: SignTest,
}

pub const BOOTSTRAP_ITERATIONS: usize = 10_000;

pub fn summarize_ratios(ratios: Vec<f64>, seed: u64) -> RatioSummary {
    RatioSummary {
        median: median(&ratios),
        ci95: bootstrap_median_ci(&ratios, 0.95, BOOTSTRAP_ITERATIONS, seed).map(|(l, h)| [l, h]),
        sign_test: sign_test(&ratios),
        samples: ratios,
    }
}

/// One measurement taken in pairs (A then B, or B then A): each arm's median seconds and the
/// median of the per-pair A time / B time (above 1: B faster) with its intervals and sign test.
/// `ops` and `script` report every timing with these fields.
#[derive(Debug, Clone, Serialize)]
pub struct PairedTimes {
    pub a_seconds: f64,
    pub b_seconds: f64,
    pub ratio: f64,
    /// 95% bootstrap interval of that median.
    pub ci: [f64; 2],
    /// The distribution-free interval of that median (`order_statistic_median_ci`) and its
    /// coverage: with 6 pairs, the smallest and largest ratio, 96.9%.
    pub ci_exact: [f64; 2],
    pub ci_exact_coverage: f64,
    /// Pairs with ratio above 1 / below 1, and the exact two-sided sign test's p.
    pub b_faster: usize,
    pub a_faster: usize,
    pub p: f64,
}

/// Summarizes paired seconds (`a[i]` and `b[i]` of pair i); NaN where there are no pairs.
pub fn paired_times(a: &[f64], b: &[f64], seed: u64) -> PairedTimes {
    let ratios: Vec<f64> = a.iter().zip(b).map(|(a, b)| a / b).collect();
    let median_or_nan = |v: &[f64]| median(v).unwrap_or(f64::NAN);
    let ci = bootstrap_median_ci(&ratios, 0.95, BOOTSTRAP_ITERATIONS, seed)
        .map_or([f64::NAN; 2], |(l, h)| [l, h]);
    let (low, high, coverage) =
        order_statistic_median_ci(&ratios, 0.95).unwrap_or((f64::NAN, f64::NAN, 0.0));
    let sign = sign_test(&ratios);
    PairedTimes {
        a_seconds: median_or_nan(a),
        b_seconds: median_or_nan(b),
        ratio: median_or_nan(&ratios),
        ci,
        ci_exact: [low, high],
        ci_exact_coverage: coverage,
        b_faster: sign.greater,
        a_faster: sign.less,
        p: sign.p_value,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-12 * b.abs().max(1.0)
    }

    #[test]
    fn order_statistic_interval_of_the_median() {
        // 6 values: only the extremes reach 95% (1 - 2/64 = 96.875%).
        let six = [1.3, 0.9, 1.1, 1.0, 1.2, 0.8];
        assert_eq!(order_statistic_median_ci(&six, 0.95), Some((0.8, 1.3, 1.0 - 2.0 / 64.0)));
        // 12 values: the 3rd and 10th (1 - 2 (1 + 12 + 66) / 4096 = 96.1%); the 4th and 9th
        // would cover 85.4%.
        let twelve: Vec<f64> = (1..=12).map(f64::from).collect();
        let (low, high, coverage) = order_statistic_median_ci(&twelve, 0.95).unwrap();
        assert_eq!((low, high), (3.0, 10.0));
        assert!(close(coverage, 1.0 - 2.0 * 79.0 / 4096.0));
        // 5 values cannot reach 95%: the extremes, and the coverage they have.
        let (low, high, coverage) =
            order_statistic_median_ci(&[5.0, 1.0, 3.0, 2.0, 4.0], 0.95).unwrap();
        assert_eq!((low, high), (1.0, 5.0));
        assert!(close(coverage, 1.0 - 2.0 / 32.0));
        // One value; none; NaN.
        assert_eq!(order_statistic_median_ci(&[2.0], 0.95), Some((2.0, 2.0, 0.0)));
        assert_eq!(order_statistic_median_ci(&[], 0.95), None);
        assert_eq!(order_statistic_median_ci(&[1.0, f64::NAN], 0.95), None);
    }

    #[test]
    fn quantile_interpolates_like_type_7() {
        let v = [1.0, 2.0, 3.0, 4.0];
        assert_eq!(quantile_sorted(&v, 0.0), 1.0);
        assert_eq!(quantile_sorted(&v, 1.0), 4.0);
        // position 0.5 * 3 = 1.5 -> between 2 and 3.
        assert_eq!(quantile_sorted(&v, 0.5), 2.5);
        // position 0.25 * 3 = 0.75 -> 1 + 0.75.
        assert_eq!(quantile_sorted(&v, 0.25), 1.75);
    }

    #[test]
    fn sign_test_hand_computed() {
        // 6 of 6 above: 2 * 1/64.
        let t = sign_test(&[1.1; 6]);
        assert_eq!((t.greater, t.less, t.ties), (6, 0, 0));
        assert!(close(t.p_value, 0.03125));
        // 8 of 8 below: 2/256.
        assert!(close(sign_test(&[0.9; 8]).p_value, 0.0078125));
        // 8 above, 2 below: 2 * (1 + 10 + 45) / 1024.
        let mut r = vec![1.2; 8];
        r.extend([0.8, 0.7]);
        assert!(close(sign_test(&r).p_value, 0.109375));
        // 5 vs 5: capped at 1.
        let mut r = vec![1.2; 5];
        r.extend([0.8; 5]);
        assert_eq!(sign_test(&r).p_value, 1.0);
        // 5 of 5 above: the smallest p five pairs can give, 1/16, not significant.
        assert!(close(sign_test(&[1.01; 5]).p_value, 0.0625));
    }

    #[test]
    fn sign_test_leaves_ties_out() {
        let t = sign_test(&[1.0, 1.0, 1.5, 1.5, 1.5]);
        assert_eq!((t.greater, t.less, t.ties), (3, 0, 2));
        assert!(close(t.p_value, 0.25));
        let all_ties = sign_test(&[1.0, 1.0]);
        assert_eq!(all_ties.p_value, 1.0);
    }

    #[test]
    fn sign_test_large_n_stays_finite() {
        let mut r = vec![1.1; 1500];
        r.extend(vec![0.9; 1500]);
        let p = sign_test(&r).p_value;
        assert!(p > 0.9 && p <= 1.0, "{p}");
    }

    #[test]
    fn bootstrap_of_two_values_hand_computed() {
        // Resamples of [1, 2]: medians 1 (p 1/4), 1.5 (p 1/2), 2 (p 1/4), so with 10,000 draws
        // the 2.5% and 97.5% quantiles are 1 and 2.
        let (low, high) = bootstrap_median_ci(&[1.0, 2.0], 0.95, 10_000, 1).unwrap();
        assert_eq!((low, high), (1.0, 2.0));
        // A 40% interval sits inside the 1.5 mass (from 30% to 70%).
        let (low, high) = bootstrap_median_ci(&[1.0, 2.0], 0.4, 10_000, 1).unwrap();
        assert_eq!((low, high), (1.5, 1.5));
    }

    #[test]
    fn paired_times_hand_computed() {
        // Ratios 2, 0.5, 4 (A / B per pair): median 2; B faster in 2 pairs, slower in 1.
        let t = paired_times(&[2.0, 1.0, 4.0], &[1.0, 2.0, 1.0], 7);
        assert_eq!((t.a_seconds, t.b_seconds, t.ratio), (2.0, 1.0, 2.0));
        assert_eq!((t.b_faster, t.a_faster), (2, 1));
        assert_eq!(t.ci_exact, [0.5, 4.0]);
        assert!(t.ci[0] >= 0.5 && t.ci[1] <= 4.0);
        let none = paired_times(&[], &[], 7);
        assert!(none.ratio.is_nan() && none.ci[0].is_nan() && none.ci_exact_coverage == 0.0);
    }

    #[test]
    fn bootstrap_constant_and_single_and_seeded() {
        assert_eq!(bootstrap_median_ci(&[1.25; 7], 0.95, 500, 3), Some((1.25, 1.25)));
        assert_eq!(bootstrap_median_ci(&[0.5], 0.95, 500, 3), Some((0.5, 0.5)));
        assert_eq!(bootstrap_median_ci(&[], 0.95, 500, 3), None);
        let v = [0.9, 1.0, 1.05, 1.1, 1.3, 0.95, 1.2, 1.02];
        let a = bootstrap_median_ci(&v, 0.95, 2000, 42).unwrap();
        assert_eq!(a, bootstrap_median_ci(&v, 0.95, 2000, 42).unwrap());
        let m = median(&v).unwrap();
        assert!(a.0 <= m && m <= a.1 && a.0 >= 0.9 && a.1 <= 1.3, "{a:?}");
    }
}
