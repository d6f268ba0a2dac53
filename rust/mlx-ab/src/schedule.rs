//! The order in which the two arms run: warm-up first, then pairs in a balanced order.
//!
//! Pair k runs A then B when the Thue-Morse bit of k is 0 and B then A otherwise, giving
//! AB BA BA AB BA AB AB BA ... (slots ABBA BAAB BAAB ABBA). Over 2 pairs this cancels a linear
//! drift between the arms, over 4 pairs also a quadratic one, over 8 a cubic one; the
//! alternation AB AB ... never balances.

use serde::Serialize;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Arm {
    A,
    B,
}

impl Arm {
    pub fn name(self) -> &'static str {
        match self {
            Arm::A => "A",
            Arm::B => "B",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// Discarded run (page cache, allocator, branch predictors, CPU frequency).
    Warmup {
        arm: Arm,
        round: usize,
    },
    Measure {
        arm: Arm,
        pair: usize,
    },
}

/// `true` when pair `k` runs B first.
pub fn b_first(pair: usize) -> bool {
    pair.count_ones() % 2 == 1
}

/// Warm-up rounds (each arm once per round, alternating which goes first), then the pairs.
pub fn plan(pairs: usize, warmup_rounds: usize) -> Vec<Step> {
    let mut steps = Vec::with_capacity(2 * (pairs + warmup_rounds));
    for round in 0..warmup_rounds {
        let order = if round % 2 == 0 { [Arm::A, Arm::B] } else { [Arm::B, Arm::A] };
        steps.extend(order.map(|arm| Step::Warmup { arm, round }));
    }
    for pair in 0..pairs {
        let order = if b_first(pair) { [Arm::B, Arm::A] } else { [Arm::A, Arm::B] };
        steps.extend(order.map(|arm| Step::Measure { arm, pair }));
    }
    steps
}

/// The measured slots as a string such as `ABBABAAB`, for the report.
pub fn order_string(pairs: usize) -> String {
    plan(pairs, 0)
        .iter()
        .map(|s| match s {
            Step::Measure { arm, .. } | Step::Warmup { arm, .. } => arm.name(),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_pairs_are_abba_baab() {
        assert_eq!(order_string(4), "ABBABAAB");
        assert_eq!(order_string(8), "ABBABAABBAABABBA");
        assert_eq!(order_string(1), "AB");
        assert_eq!(order_string(0), "");
    }

    /// Sum of slot^power over the slots of one arm.
    fn moment(pairs: usize, arm: Arm, power: u32) -> u64 {
        plan(pairs, 0)
            .iter()
            .enumerate()
            .filter(|(_, s)| matches!(s, Step::Measure { arm: a, .. } if *a == arm))
            .map(|(slot, _)| (slot as u64).pow(power))
            .sum()
    }

    #[test]
    fn balanced_against_polynomial_drift() {
        // 2 pairs: linear drift cancels; 4: quadratic too; 8: cubic too.
        for (pairs, max_power) in [(2, 1), (4, 2), (8, 3), (16, 4)] {
            for power in 0..=max_power {
                assert_eq!(
                    moment(pairs, Arm::A, power),
                    moment(pairs, Arm::B, power),
                    "{pairs} {power}"
                );
            }
        }
        // Plain alternation would not balance even the linear term.
        let alternating_a: u64 = (0..8).step_by(2).sum();
        let alternating_b: u64 = (1..8).step_by(2).sum();
        assert_ne!(alternating_a, alternating_b);
    }

    #[test]
    fn every_pair_measures_each_arm_once_after_warmup() {
        let steps = plan(5, 2);
        assert_eq!(steps.len(), 14);
        assert!(steps[..4].iter().all(|s| matches!(s, Step::Warmup { .. })));
        assert_eq!(steps[0], Step::Warmup { arm: Arm::A, round: 0 });
        assert_eq!(steps[2], Step::Warmup { arm: Arm::B, round: 1 });
        for pair in 0..5 {
            for arm in [Arm::A, Arm::B] {
                let n = steps.iter().filter(|s| **s == Step::Measure { arm, pair }).count();
                assert_eq!(n, 1);
            }
        }
    }
}
