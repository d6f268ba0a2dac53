//! Comparing two generations of the same prompt: tokens, logits bit for bit, and, where they
//! differ, how far apart (largest |difference|, KL divergence, top-1 agreement).

use mlx_workload::argmax;
use serde::Serialize;

/// One generation as the comparison sees it: tokens and `[steps][vocab]` logits, row-major.
pub struct Output<'a> {
    pub tokens: &'a [u32],
    pub logits: &'a [f32],
    pub vocab: usize,
}

impl Output<'_> {
    fn steps(&self) -> usize {
        self.logits.len() / self.vocab.max(1)
    }

    fn row(&self, step: usize) -> &[f32] {
        &self.logits[step * self.vocab..(step + 1) * self.vocab]
    }
}

/// The first step at which two generations differ.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Divergence {
    pub step: usize,
    /// Tokens chosen at that step (`None` past the end of a shorter generation).
    pub token_a: Option<u32>,
    pub token_b: Option<u32>,
    /// Largest |a - b| over that step's logits; infinite when only one side is NaN or the
    /// infinities differ (written as null in JSON).
    pub max_abs_logit_diff: f64,
    /// How many of that step's logits differ in at least one bit.
    pub differing_logits: usize,
}

#[derive(Debug, Clone, Serialize)]
pub struct Comparison {
    pub tokens_equal: bool,
    pub logits_bitwise_equal: bool,
    pub first_divergence: Option<Divergence>,
    /// Steps both generations have.
    pub steps: usize,
    /// Steps whose logits differ in at least one bit.
    pub steps_with_logit_diff: usize,
    /// Steps whose context is identical in both arms: up to and including the first step whose
    /// chosen tokens differ (after it the two arms continue different sequences).
    pub same_context_steps: usize,
    /// Over the same-context steps: mean and max KL(A || B) of the softmax distributions
    /// (nats), and the fraction of steps whose argmax agrees. 0, 0 and 1 when bit-identical.
    pub kl_mean: Option<f64>,
    pub kl_max: Option<f64>,
    pub top1_agreement: f64,
    /// Largest |a - b| over all same-context logits.
    pub max_abs_logit_diff: f64,
}

pub fn compare(a: &Output, b: &Output) -> Result<Comparison, String> {
    if a.vocab != b.vocab {
        return Err(format!("vocabulary sizes differ: A {} vs B {}", a.vocab, b.vocab));
    }
    for (name, out) in [("A", a), ("B", b)] {
        if out.logits.len() != out.steps() * out.vocab || out.steps() != out.tokens.len() {
            return Err(format!(
                "arm {name}: {} logits do not form {} steps of vocabulary {}",
                out.logits.len(),
                out.tokens.len(),
                out.vocab
            ));
        }
    }
    let steps = a.steps().min(b.steps());
    let first_token_diff = (0..steps).find(|&s| a.tokens[s] != b.tokens[s]);
    let same_context_steps = first_token_diff.map_or(steps, |s| s + 1);
    let mut first_divergence = None;
    let mut steps_with_logit_diff = 0;
    let (mut kl_sum, mut kl_max, mut kl_valid, mut top1_agree) = (0.0, 0.0f64, true, 0usize);
    let mut max_abs = 0.0f64;
    for step in 0..steps {
        let (row_a, row_b) = (a.row(step), b.row(step));
        let differing = row_a.iter().zip(row_b).filter(|(x, y)| x.to_bits() != y.to_bits()).count();
        if differing > 0 {
            steps_with_logit_diff += 1;
        }
        if first_divergence.is_none() && (differing > 0 || a.tokens[step] != b.tokens[step]) {
            first_divergence = Some(Divergence {
                step,
                token_a: Some(a.tokens[step]),
                token_b: Some(b.tokens[step]),
                max_abs_logit_diff: max_abs_diff(row_a, row_b),
                differing_logits: differing,
            });
        }
        if step < same_context_steps {
            max_abs = max_abs.max(max_abs_diff(row_a, row_b));
            if argmax(row_a) == argmax(row_b) {
                top1_agree += 1;
            }
            // Bit-identical rows contribute exactly 0, even when they hold NaN.
            if differing > 0 {
                match kl_divergence(row_a, row_b) {
                    Some(kl) => {
                        kl_sum += kl;
                        kl_max = kl_max.max(kl);
                    }
                    None => kl_valid = false,
                }
            }
        }
    }
    if first_divergence.is_none() && a.steps() != b.steps() {
        first_divergence = Some(Divergence {
            step: steps,
            token_a: a.tokens.get(steps).copied(),
            token_b: b.tokens.get(steps).copied(),
            max_abs_logit_diff: f64::INFINITY,
            differing_logits: a.vocab,
        });
    }
    let counted = same_context_steps.max(1) as f64;
    Ok(Comparison {
        tokens_equal: a.tokens == b.tokens,
        logits_bitwise_equal: a.steps() == b.steps() && steps_with_logit_diff == 0,
        first_divergence,
        steps,
        steps_with_logit_diff,
        same_context_steps,
        kl_mean: kl_valid.then_some(kl_sum / counted),
        kl_max: kl_valid.then_some(kl_max),
        top1_agreement: if same_context_steps == 0 { 1.0 } else { top1_agree as f64 / counted },
        max_abs_logit_diff: max_abs,
    })
}

/// Many comparisons in one: of pairs A vs B, or of an arm's runs against its own first run.
/// When bit identity cannot be claimed (an arm is not deterministic) these are the numbers that
/// say how far apart the outputs are.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DivergenceSummary {
    /// Comparisons summarized.
    pub compared: usize,
    /// Comparisons whose tokens or logit bits differ.
    pub differing: usize,
    /// Comparisons whose tokens are all equal.
    pub token_identical: usize,
    /// Mean over the comparisons of their mean KL (nats, same-context steps), and the largest
    /// KL of any step; `None` when a KL is undefined (NaN logits) or nothing was compared.
    pub kl_mean: Option<f64>,
    pub kl_max: Option<f64>,
    /// Top-1 agreement over same-context steps: mean and lowest over the comparisons.
    pub top1_agreement_mean: f64,
    pub top1_agreement_min: f64,
    /// Largest |a - b| over all same-context logits.
    pub max_abs_logit_diff: f64,
}

pub fn summarize<'a>(comparisons: impl IntoIterator<Item = &'a Comparison>) -> DivergenceSummary {
    let list: Vec<&Comparison> = comparisons.into_iter().collect();
    let n = list.len();
    let kl_defined = n > 0 && list.iter().all(|c| c.kl_mean.is_some() && c.kl_max.is_some());
    let mean = |f: fn(&Comparison) -> f64| {
        if n == 0 {
            1.0
        } else {
            list.iter().map(|c| f(c)).sum::<f64>() / n as f64
        }
    };
    DivergenceSummary {
        compared: n,
        differing: list.iter().filter(|c| !c.tokens_equal || !c.logits_bitwise_equal).count(),
        token_identical: list.iter().filter(|c| c.tokens_equal).count(),
        kl_mean: kl_defined.then(|| list.iter().filter_map(|c| c.kl_mean).sum::<f64>() / n as f64),
        kl_max: kl_defined.then(|| list.iter().filter_map(|c| c.kl_max).fold(0.0, f64::max)),
        top1_agreement_mean: mean(|c| c.top1_agreement),
        top1_agreement_min: list.iter().map(|c| c.top1_agreement).fold(1.0, f64::min),
        max_abs_logit_diff: list.iter().map(|c| c.max_abs_logit_diff).fold(0.0, f64::max),
    }
}

/// Where A against B stands next to run-to-run noise, when an arm is not deterministic.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum AgainstNoise {
    /// A against B is no further apart than the noisiest arm from itself by every measure
    /// (largest KL, lowest top-1 agreement, largest |difference|): consistent with the arms
    /// computing the same thing, not proof of it.
    Within,
    /// Further apart by at least one measure: noise does not explain the difference.
    Beyond,
    /// No measure is further apart, but a KL is undefined (NaN logits) or there is no noise to
    /// compare with.
    Undecided,
}

/// A against B (`ab`) next to the self-divergence of each arm that did not reproduce itself.
pub fn against_noise(ab: &DivergenceSummary, noise: &[&DivergenceSummary]) -> AgainstNoise {
    if noise.is_empty() {
        return AgainstNoise::Undecided;
    }
    let max = |f: fn(&DivergenceSummary) -> f64| noise.iter().map(|s| f(s)).fold(0.0, f64::max);
    let top1_floor = noise.iter().map(|s| s.top1_agreement_min).fold(1.0, f64::min);
    let mut beyond =
        ab.max_abs_logit_diff > max(|s| s.max_abs_logit_diff) || ab.top1_agreement_min < top1_floor;
    let noise_kl: Option<Vec<f64>> = noise.iter().map(|s| s.kl_max).collect();
    let kl_known = match (ab.kl_max, noise_kl) {
        (Some(ab_kl), Some(noise_kl)) => {
            beyond |= ab_kl > noise_kl.into_iter().fold(0.0, f64::max);
            true
        }
        _ => false,
    };
    match (beyond, kl_known) {
        (true, _) => AgainstNoise::Beyond,
        (false, true) => AgainstNoise::Within,
        (false, false) => AgainstNoise::Undecided,
    }
}

/// Largest |x - y|; a NaN on one side only, or unequal infinities, count as infinite. Equal
/// bits (including two identical NaNs) count as 0.
pub fn max_abs_diff(a: &[f32], b: &[f32]) -> f64 {
    a.iter()
        .zip(b)
        .map(|(&x, &y)| {
            if x.to_bits() == y.to_bits() || (x.is_nan() && y.is_nan()) {
                0.0
            } else {
                let d = (f64::from(x) - f64::from(y)).abs();
                if d.is_nan() {
                    f64::INFINITY
                } else {
                    d
                }
            }
        })
        .fold(0.0, f64::max)
}

/// KL(softmax(a) || softmax(b)) in nats, computed in f64; `None` when a row has no finite
/// maximum or contains NaN.
pub fn kl_divergence(a: &[f32], b: &[f32]) -> Option<f64> {
    let log_a = log_softmax(a)?;
    let log_b = log_softmax(b)?;
    let kl: f64 = log_a
        .iter()
        .zip(&log_b)
        .filter(|(la, _)| la.is_finite())
        .map(|(la, lb)| la.exp() * (la - lb))
        .sum();
    (!kl.is_nan()).then_some(kl.max(0.0))
}

fn log_softmax(row: &[f32]) -> Option<Vec<f64>> {
    if row.iter().any(|v| v.is_nan()) {
        return None;
    }
    let max = row.iter().map(|&v| f64::from(v)).fold(f64::NEG_INFINITY, f64::max);
    if !max.is_finite() {
        return None;
    }
    let sum: f64 = row.iter().map(|&v| (f64::from(v) - max).exp()).sum();
    let log_sum = max + sum.ln();
    Some(row.iter().map(|&v| f64::from(v) - log_sum).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn out<'a>(tokens: &'a [u32], logits: &'a [f32], vocab: usize) -> Output<'a> {
        Output { tokens, logits, vocab }
    }

    #[test]
    fn identical_outputs() {
        let logits = [0.5, -1.0, 2.0, 0.0, 3.0, 1.0];
        let c = compare(&out(&[2, 1], &logits, 3), &out(&[2, 1], &logits, 3)).unwrap();
        assert!(c.tokens_equal && c.logits_bitwise_equal);
        assert_eq!(c.first_divergence, None);
        assert_eq!((c.steps, c.steps_with_logit_diff, c.same_context_steps), (2, 0, 2));
        assert_eq!(
            (c.kl_mean, c.kl_max, c.top1_agreement, c.max_abs_logit_diff),
            (Some(0.0), Some(0.0), 1.0, 0.0)
        );
    }

    #[test]
    fn one_bit_in_one_logit_is_caught() {
        let a = [0.5f32, -1.0, 2.0, 0.0, 3.0, 1.0];
        let mut b = a;
        b[4] = f32::from_bits(a[4].to_bits() ^ 1); // 3.0 + 1 ulp
        let c = compare(&out(&[2, 1], &a, 3), &out(&[2, 1], &b, 3)).unwrap();
        assert!(c.tokens_equal);
        assert!(!c.logits_bitwise_equal);
        let d = c.first_divergence.unwrap();
        assert_eq!((d.step, d.token_a, d.token_b, d.differing_logits), (1, Some(1), Some(1), 1));
        assert_eq!(d.max_abs_logit_diff, f64::from(f32::EPSILON) * 2.0); // ulp of 3.0 is 2^-22
        assert_eq!(c.steps_with_logit_diff, 1);
        assert!(c.kl_max.unwrap() > 0.0 && c.kl_max.unwrap() < 1e-6);
        assert_eq!(c.top1_agreement, 1.0);
    }

    #[test]
    fn negative_zero_and_nan_payloads_count_as_different_bits() {
        let a = [0.0f32, f32::NAN];
        let b = [-0.0f32, f32::from_bits(f32::NAN.to_bits() | 1)];
        let c = compare(&out(&[0], &a, 2), &out(&[0], &b, 2)).unwrap();
        assert!(!c.logits_bitwise_equal);
        let d = c.first_divergence.unwrap();
        assert_eq!(d.differing_logits, 2);
        // Values are equal as numbers (0 == -0, NaN vs NaN), so no finite difference.
        assert_eq!(d.max_abs_logit_diff, 0.0);
        assert_eq!(c.kl_mean, None); // NaN logits: KL undefined
    }

    #[test]
    fn token_divergence_limits_the_same_context_steps() {
        // Step 0 agrees, step 1 picks different tokens, step 2 continues different contexts.
        let a = [1.0f32, 0.0, 0.0, 1.0, 0.0, 1.0];
        let b = [1.0f32, 0.0, 1.0, 0.0, 1.0, 0.0];
        let c = compare(&out(&[0, 1, 1], &a, 2), &out(&[0, 0, 0], &b, 2)).unwrap();
        assert!(!c.tokens_equal);
        let d = c.first_divergence.clone().unwrap();
        assert_eq!((d.step, d.token_a, d.token_b), (1, Some(1), Some(0)));
        assert_eq!(d.max_abs_logit_diff, 1.0);
        assert_eq!(c.same_context_steps, 2);
        assert_eq!(c.top1_agreement, 0.5);
        // KL between softmax([0,1]) and softmax([1,0]) at step 1, averaged over 2 steps:
        // p = (s, 1-s), q = (1-s, s), s = 1/(1+e): KL = (1-2s) * ln((1-s)/s) = (1-2s) * 1.
        let s = 1.0 / (1.0 + std::f64::consts::E);
        let kl = 1.0 - 2.0 * s;
        assert!((c.kl_max.unwrap() - kl).abs() < 1e-12);
        assert!((c.kl_mean.unwrap() - kl / 2.0).abs() < 1e-12);
    }

    #[test]
    fn length_mismatch_is_a_divergence() {
        let a = [1.0f32, 0.0, 1.0, 0.0];
        let c = compare(&out(&[0, 0], &a, 2), &out(&[0], &a[..2], 2)).unwrap();
        assert!(!c.tokens_equal && !c.logits_bitwise_equal);
        let d = c.first_divergence.unwrap();
        assert_eq!((d.step, d.token_a, d.token_b), (1, Some(0), None));
    }

    #[test]
    fn malformed_inputs_are_errors() {
        let a = [1.0f32, 0.0, 1.0];
        assert!(compare(&out(&[0], &a, 2), &out(&[0], &a[..2], 2)).is_err());
        assert!(compare(&out(&[0], &a, 3), &out(&[0], &a[..2], 2)).is_err());
    }

    #[test]
    fn max_abs_diff_edge_cases() {
        assert_eq!(max_abs_diff(&[f32::INFINITY], &[f32::NEG_INFINITY]), f64::INFINITY);
        assert_eq!(max_abs_diff(&[f32::INFINITY], &[f32::INFINITY]), 0.0);
        assert_eq!(max_abs_diff(&[1.0], &[f32::NAN]), f64::INFINITY);
        assert_eq!(max_abs_diff(&[], &[]), 0.0);
    }

    #[test]
    fn summaries_over_many_comparisons() {
        let a = [1.0f32, 0.0, 0.0, 1.0];
        let mut b = a;
        b[0] = f32::from_bits(a[0].to_bits() + 1);
        let same = compare(&out(&[0, 1], &a, 2), &out(&[0, 1], &a, 2)).unwrap();
        let one_bit = compare(&out(&[0, 1], &a, 2), &out(&[0, 1], &b, 2)).unwrap();
        let other_token =
            compare(&out(&[0, 1], &a, 2), &out(&[1, 0], &[0.0, 1.0, 1.0, 0.0], 2)).unwrap();
        let s = summarize([&same, &one_bit, &other_token]);
        assert_eq!((s.compared, s.differing, s.token_identical), (3, 2, 2));
        // Top-1: 1, 1 and 0 (step 0 already picks different tokens; one same-context step).
        assert!((s.top1_agreement_mean - 2.0 / 3.0).abs() < 1e-12);
        assert_eq!(s.top1_agreement_min, 0.0);
        assert_eq!(s.max_abs_logit_diff, 1.0);
        let kl = s.kl_max.unwrap();
        assert!((kl - other_token.kl_max.unwrap()).abs() < 1e-15 && kl > 0.4);
        let expected_mean = (one_bit.kl_mean.unwrap() + other_token.kl_mean.unwrap()) / 3.0;
        assert!((s.kl_mean.unwrap() - expected_mean).abs() < 1e-15);
        let empty = summarize([]);
        assert_eq!((empty.compared, empty.kl_mean, empty.top1_agreement_min), (0, None, 1.0));
        let nan = compare(&out(&[0], &[f32::NAN, 0.0], 2), &out(&[0], &[0.0, 0.0], 2)).unwrap();
        assert_eq!(summarize([&same, &nan]).kl_mean, None);
    }

    #[test]
    fn a_b_divergence_against_run_to_run_noise() {
        let summary = |kl: Option<f64>, top1: f64, max_abs: f64| DivergenceSummary {
            compared: 2,
            differing: 1,
            token_identical: 1,
            kl_mean: kl,
            kl_max: kl,
            top1_agreement_mean: top1,
            top1_agreement_min: top1,
            max_abs_logit_diff: max_abs,
        };
        let noise = summary(Some(1e-3), 0.9, 0.5);
        let quiet = summary(Some(0.0), 1.0, 0.0);
        assert_eq!(against_noise(&summary(Some(1e-3), 0.9, 0.5), &[&noise]), AgainstNoise::Within);
        assert_eq!(against_noise(&quiet, &[&noise]), AgainstNoise::Within);
        // Each measure alone can put A/B beyond the noise.
        assert_eq!(against_noise(&summary(Some(2e-3), 0.9, 0.5), &[&noise]), AgainstNoise::Beyond);
        assert_eq!(against_noise(&summary(Some(1e-3), 0.8, 0.5), &[&noise]), AgainstNoise::Beyond);
        assert_eq!(against_noise(&summary(Some(1e-3), 0.9, 0.6), &[&noise]), AgainstNoise::Beyond);
        // The noisiest arm sets the bar.
        assert_eq!(
            against_noise(&summary(Some(1e-3), 0.9, 0.5), &[&quiet, &noise]),
            AgainstNoise::Within
        );
        // Undefined KL: within on the others is undecided, beyond on them is still beyond.
        assert_eq!(against_noise(&summary(None, 0.9, 0.5), &[&noise]), AgainstNoise::Undecided);
        assert_eq!(against_noise(&quiet, &[&summary(None, 0.9, 0.5)]), AgainstNoise::Undecided);
        assert_eq!(against_noise(&summary(None, 0.5, 0.5), &[&noise]), AgainstNoise::Beyond);
        assert_eq!(against_noise(&quiet, &[]), AgainstNoise::Undecided);
    }

    #[test]
    fn kl_hand_computed() {
        // p = softmax([0, 0]) = (1/2, 1/2), q = softmax([ln 3, 0]) = (3/4, 1/4):
        // KL = 1/2 ln(2/3) + 1/2 ln(2) = 1/2 ln(4/3).
        let kl = kl_divergence(&[0.0, 0.0], &[3f32.ln(), 0.0]).unwrap();
        assert!((kl - 0.5 * (4.0f64 / 3.0).ln()).abs() < 1e-7, "{kl}");
        assert_eq!(kl_divergence(&[1.0, 2.0], &[1.0, 2.0]), Some(0.0));
        assert_eq!(kl_divergence(&[f32::NEG_INFINITY; 2], &[0.0, 0.0]), None);
        // A masked (-inf) entry in A contributes nothing; in B only, KL is infinite.
        assert_eq!(kl_divergence(&[0.0, f32::NEG_INFINITY], &[0.0, f32::NEG_INFINITY]), Some(0.0));
        assert_eq!(kl_divergence(&[0.0, 0.0], &[0.0, f32::NEG_INFINITY]), Some(f64::INFINITY));
    }
}
